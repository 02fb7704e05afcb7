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
//
// Note [Elementwise on private formats]
// Every table op (and Fill) also runs on private formats (NC1HWC0, FRACTAL_Z,
// FRACTAL_NZ, NDC1HWC0, FRACTAL_Z_3D) when all operands except 0-d inputs
// share one format and one logical (origin) shape (checkArityAnyFormat in
// op_utils.h). Elementwise math does not care where an element lives, so when
// the storage shapes are equal too (FormatMode::kStorage) the engine simply
// walks the storage shape as if it were ND — pads included, like the vector
// unit on the device, and so are the cost's bytes — and afterwards
// zeroOutputPads clears every output pad (zeroPads in kernel/format_access.h),
// so e.g. Exp(0) = 1 never leaks into padding and the output is exactly what
// TransData would have produced from the ND result. Two cases go through the
// logical elements instead (gather into packed ND copies, run, scatter with
// zero pads): storage shapes that differ by C0 (FormatMode::kLogical,
// FRACTAL_NZ with 1-byte and wider dtypes), and integer ops that can fault
// (ElementwiseSpec::int_may_fault: FloorDiv would meet x2 = 0 in the pads),
// so that only a logical element can fault.
#pragma once

#include <cstdint>

#include "aicore/units.h"
#include "kernel/op_utils.h"

namespace ascend_sim {

constexpr int64_t kChunk = 1024;  // elements per scratch chunk

// Chunk functions (aicore/units.h): in[k] points at chunk k of input k;
// params are the spec's float attributes.

// A chunk function on fp16 bit patterns: out[i] from in[k][i], i < n.
using HalfChunkFn = void (*)(const uint16_t* const* in, uint16_t* out, int64_t n);

enum class OutDtype {
  kSame,  // output dtype = the value inputs' dtype
  kBool,  // output is bool (comparisons)
  kAny,   // any supported dtype (Cast)
};

// Chunk functions receive params[kElementwiseParams]: the numeric attributes
// (FloatAttr: float, int or bool, read as float) in their slots, and an enum
// attribute in a slot they leave free.
constexpr int kElementwiseParams = 4;

struct FloatAttr {
  const char* name = nullptr;  // nullptr = unused slot
  float fallback = 0;
  bool required = false;
};

// A string attribute with a fixed set of values (e.g. Gelu's `approximate`),
// passed to the chunk function as params[slot] = index of the value in
// `values` (values[0] is the default when the attribute is absent). Any other
// value fails validation with ACL_ERROR_OP_ATTR_NOT_MATCH listing the values.
struct EnumAttr {
  const char* name = nullptr;  // nullptr = unused
  const char* values[4] = {};
  int slot = 0;  // params index (< kElementwiseParams); the spec's float attrs must leave it unused
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
  FloatAttr attrs[kElementwiseParams] = {};
  // The integer chunk function may raise a device fault for some inputs
  // (FloorDiv by zero): on private formats it must not see the pads.
  bool int_may_fault = false;
  EnumAttr enum_attr = {};
  // Optional: the op on fp16 bits, for ops that are exact on them (Relu's
  // sign test). Used when every value input and the output are fp16 of one
  // shape (Note [fp16 ops on their bits] in elementwise.cpp); same results
  // as the fp32 path.
  HalfChunkFn hfn = nullptr;
};

// Registers one kernel per spec; specs must outlive the process (static tables).
void registerElementwiseSpecs(const ElementwiseSpec* specs, size_t count);

// Simulated vector cores an elementwise walk over `numel` outputs uses:
// min(cores, number of kChunk chunks), at least 1.
int64_t elementwiseBlocks(int64_t numel, int cores);

// The chunk functions of a copy (Cast, Fill): output = input 0. The engine
// recognises them and moves input 0 to the store without a Vector pass of
// its own (Note [Copies without a map] in elementwise.cpp).
ASCEND_SIM_API void copyChunkF32(const float* const* in, float* out, int64_t n, const float* params);
ASCEND_SIM_API void copyChunkI64(const int64_t* const* in, int64_t* out, int64_t n, const float* params);

// The engine itself, also used by kernels outside the table (e.g. Fill).
// `ctx` gives the core count of the split (nullptr: defaults); `cnt`, if
// given, receives the units' counters. Null data pointers: account only.
ASCEND_SIM_API void runElementwiseFloat(const TensorArg* const* ins, int nin, const TensorArg& out,
                         FloatChunkFn fn, const float* params, const LaunchContext* ctx = nullptr,
                         UnitCounters* cnt = nullptr);
ASCEND_SIM_API void runElementwiseInt(const TensorArg* const* ins, int nin, const TensorArg& out, IntChunkFn fn,
                       const float* params, const LaunchContext* ctx = nullptr, UnitCounters* cnt = nullptr);

// Sets the pads of every private-format output of `call` to zero (see Note
// [Elementwise on private formats]); no-op for base formats.
ASCEND_SIM_API void zeroOutputPads(const OpCall& call);

// Cost of a table-driven elementwise op, counted by the units over the same
// walk compute uses (see above).
KernelCost elementwiseCost(const OpCall& call);

// That count for any call whose inputs broadcast to its output 0 (storage
// walked as row-major): the units' account-only walk, each operand's bytes
// at its own dtype. Also for kernels outside the table with the table's
// access pattern (the complex ones, Note [Complex elementwise kernels]).
KernelCost elementwiseWalkCost(const OpCall& call);

// Note [Complex variants of table ops]
// Some table ops (Add, Sub, Mul, RealDiv, Neg, Sign, Angle, Equal, NotEqual,
// SelectV2, Cast) also take
// complex64 operands, which the fp32 / int64 compute domains cannot hold
// (Note [Compute domains]). Such an op keeps its one op type: the table
// kernel hands every call with a complex64 input or output to the op's
// complex variant (validate, compute and cost alike), and runs all other
// calls itself. The variant runs under the table kernel's KernelDef flags,
// so one with fp16 outputs saturates them itself (Note [fp16 overflow in the
// store]). Register variants from static initialisers; an op without one
// rejects complex64 as any unsupported dtype.
void registerComplexVariant(const KernelDef& variant);

}  // namespace ascend_sim
