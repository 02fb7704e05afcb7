// Table-driven elementwise kernels (unary, binary, ternary, Cast).
//
// Note [Elementwise engine]
// An elementwise op is described by an ElementwiseSpec: tensor names, allowed
// dtypes, output dtype rule, float attributes, and two chunk functions — one
// over fp32 scratch (float dtypes), one over int64 scratch (integer/bool
// dtypes). The engine validates any spec the same way (counts, formats,
// dtypes, NumPy broadcasting to exactly the output shape), then walks the
// output with forEachInnerRun (see Note [Inner runs]) in chunks of kChunk
// elements: each input chunk is converted into scratch (stride 0 for
// broadcast dims), the chunk function runs a tight loop, and the result is
// converted once to the output dtype. Same-shape contiguous operands coalesce
// into one run, so the fast path needs no special case.
#pragma once

#include <cstdint>

#include "ops/op_utils.h"

namespace ascend_sim {

constexpr int64_t kChunk = 1024;  // elements per scratch chunk

// in[k] points at chunk k of input k; params are the spec's float attributes.
using FloatChunkFn = void (*)(const float* const* in, float* out, int64_t n, const float* params);
using IntChunkFn = void (*)(const int64_t* const* in, int64_t* out, int64_t n,
                            const float* params);

enum class OutDtype {
  kSame,  // output dtype = the value inputs' dtype
  kBool,  // output is bool (comparisons)
  kAny,   // any supported dtype (Cast)
};

struct FloatAttr {
  const char* name = nullptr;  // nullptr = unused slot
  float fallback = 0;
  bool required = false;
};

struct ElementwiseSpec {
  const char* op;
  int num_inputs;
  const char* names[4];  // input names, then the output name
  DtypeMask dtypes;      // allowed dtypes of the value inputs
  OutDtype out;
  FloatChunkFn ffn;      // nullptr: float dtypes unsupported
  IntChunkFn ifn;        // nullptr: integer/bool dtypes unsupported
  int cond_input = -1;   // index of a bool condition input (not a value input)
  FloatAttr attrs[3] = {};
};

// Registers one kernel per spec; specs must outlive the process (static tables).
void registerElementwiseSpecs(const ElementwiseSpec* specs, size_t count);

// The engine itself, also used by kernels outside the table (e.g. Fill).
void runElementwiseFloat(const TensorArg* const* ins, int nin, const TensorArg& out,
                         FloatChunkFn fn, const float* params);
void runElementwiseInt(const TensorArg* const* ins, int nin, const TensorArg& out, IntChunkFn fn,
                       const float* params);

}  // namespace ascend_sim
