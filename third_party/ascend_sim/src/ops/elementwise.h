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
// The loads/stores go through the MTE unit and the chunk function through the
// Vector unit (Note [AI Core units]), which count the bytes and repeats. The
// output's linear index space is split into `block dim` contiguous ranges of
// whole chunks, one per simulated vector core, run on the host pool; each
// element belongs to exactly one range, so results do not depend on the host
// thread count. With null data pointers the same walk only accounts the work:
// that is the ops' cost (elementwiseCost).
#pragma once

#include <cstdint>

#include "aicore/units.h"
#include "ops/op_utils.h"

namespace ascend_sim {

constexpr int64_t kChunk = 1024;  // elements per scratch chunk

// Chunk functions (aicore/units.h): in[k] points at chunk k of input k;
// params are the spec's float attributes.

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

// Simulated vector cores an elementwise walk over `numel` outputs uses:
// min(cores, number of kChunk chunks), at least 1.
int64_t elementwiseBlocks(int64_t numel, int cores);

// The engine itself, also used by kernels outside the table (e.g. Fill).
// `ctx` gives the core count of the split (nullptr: defaults); `cnt`, if
// given, receives the units' counters. Null data pointers: account only.
ASCEND_SIM_API void runElementwiseFloat(const TensorArg* const* ins, int nin, const TensorArg& out,
                         FloatChunkFn fn, const float* params, const LaunchContext* ctx = nullptr,
                         UnitCounters* cnt = nullptr);
ASCEND_SIM_API void runElementwiseInt(const TensorArg* const* ins, int nin, const TensorArg& out, IntChunkFn fn,
                       const float* params, const LaunchContext* ctx = nullptr, UnitCounters* cnt = nullptr);

// Cost of a table-driven elementwise op, counted by the units over the same
// walk compute uses (see above).
KernelCost elementwiseCost(const OpCall& call);

}  // namespace ascend_sim
