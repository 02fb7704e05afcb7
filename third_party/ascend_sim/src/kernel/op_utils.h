// Shared validation, attribute and cost helpers for the kernels, so every
// kernel's validate is a few declarative lines and all messages look alike:
// "<OpType>: <what is wrong, with the numbers>".
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "aicore/units.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "kernel/kernel.h"

namespace ascend_sim {

// Set of dtypes as a bit mask over aclDataType values (all are < 32).
using DtypeMask = uint32_t;
constexpr DtypeMask dtBit(aclDataType dt) { return 1u << static_cast<unsigned>(dt); }
constexpr DtypeMask kFloatTypes = dtBit(ACL_FLOAT) | dtBit(ACL_FLOAT16) | dtBit(ACL_BF16);
constexpr DtypeMask kIntTypes =
    dtBit(ACL_INT8) | dtBit(ACL_UINT8) | dtBit(ACL_INT16) | dtBit(ACL_INT32) | dtBit(ACL_INT64);
constexpr DtypeMask kNumericTypes = kFloatTypes | kIntTypes;
constexpr DtypeMask kAllTypes = kNumericTypes | dtBit(ACL_BOOL);
constexpr DtypeMask kBoolType = dtBit(ACL_BOOL);
constexpr DtypeMask kIndexTypes = dtBit(ACL_INT32) | dtBit(ACL_INT64);
constexpr DtypeMask kComplexTypes = dtBit(ACL_COMPLEX64);
// Every dtype data-movement ops (copies, views, Fill, Triu...) handle: float64
// is a storage dtype on the NPU (created, copied, cast; no arithmetic), and so
// is complex64 outside its own kernels (Note [Complex elementwise kernels]).
constexpr DtypeMask kStorageTypes = kAllTypes | dtBit(ACL_DOUBLE) | kComplexTypes;

// KernelError whose message is "<op>: <msg>".
[[noreturn]] void fail(const OpCall& call, aclError code, const std::string& msg);

// Exact input/output counts (min_in..max_in inputs for optional trailing inputs),
// plus base-format checks of every tensor. Call first in every validate.
void checkArity(const OpCall& call, size_t min_in, size_t max_in, size_t num_out);

// How the operands of a format-agnostic op are laid out (checkArityAnyFormat).
enum class FormatMode {
  kBase,     // base formats only (ND, NCHW, NHWC, NCDHW): plain row-major storage
  kStorage,  // one private format, equal storage shapes: walk the storage as ND, then zero the output pads
  kLogical,  // one private format, equal logical shapes but storage shapes differing by C0
             // (FRACTAL_NZ with 1-byte and wider dtypes): go through logical order
};

// Format-agnostic variant of checkArity for elementwise ops and Fill (OPS.md
// "Conventions", Note [Elementwise on private formats] in elementwise.h):
// base formats are checked as checkArity does, unless some operand is in a
// private (padded) format; then every operand except 0-d inputs (all inputs
// when `inputs_are_scalars`, e.g. Fill's value) must have that same format
// (else ACL_ERROR_OP_UNSUPPORTED_FORMAT "all operands must share one
// format"), the storage shape its format gives its origin shape, and the same
// logical shape as the others (no broadcasting); the skipped inputs must be in
// a base format.
FormatMode checkArityAnyFormat(const OpCall& call, size_t min_in, size_t max_in, size_t num_out,
                               bool inputs_are_scalars = false);
// The mode of a call that passed checkArityAnyFormat (cheap; for compute/cost).
FormatMode formatModeOf(const OpCall& call);

// dtype of `t` (called `name` in messages) must be in `allowed`.
void checkDtype(const OpCall& call, const TensorArg& t, const std::string& name, DtypeMask allowed);
// `t` (called `name`) must hold exactly one value of a dtype in `allowed` (a host scalar input).
void checkOneValue(const OpCall& call, const TensorArg& t, const std::string& name, DtypeMask allowed);
// b's dtype must equal a's.
void checkSameDtype(const OpCall& call, const TensorArg& a, const std::string& aname,
                    const TensorArg& b, const std::string& bname);
void checkShapeEq(const OpCall& call, const TensorArg& t, const std::string& name,
                  const Shape& want, const std::string& what);
// Input `in` must broadcast to the output shape `out`.
void checkBroadcast(const OpCall& call, const TensorArg& in, const std::string& name,
                    const TensorArg& out);

// Normalises a possibly negative axis for a tensor of rank `rank`.
int64_t normalizeAxis(const OpCall& call, int64_t axis, size_t rank, const char* attr);

// A shape seen as [outer, dim, inner] around one axis (softmax, arg-reduce).
struct AxisSplit {
  int64_t outer = 1, dim = 1, inner = 1;
  int64_t axis = 0;  // normalised
};
AxisSplit splitAtAxis(const OpCall& call, const Shape& s, int64_t axis, const char* attr);

// Attribute getters that prefix errors with the op type. Floats also accept
// int attributes; bools also accept ints (0/1).
float attrFloat(const OpCall& call, const char* name);
float attrFloat(const OpCall& call, const char* name, float fallback);
int64_t attrInt(const OpCall& call, const char* name);
int64_t attrInt(const OpCall& call, const char* name, int64_t fallback);
bool attrBool(const OpCall& call, const char* name, bool fallback);
std::vector<int64_t> attrInts(const OpCall& call, const char* name);
std::vector<int64_t> attrInts(const OpCall& call, const char* name, const std::vector<int64_t>& fallback);
std::string attrString(const OpCall& call, const char* name, const std::string& fallback);

// Bytes of a tensor's buffer as seen by the cost model.
double tensorBytes(const TensorArg& t);
// Whether the buffers of a and b (tensorBytes each) share a byte.
bool buffersOverlap(const TensorArg& a, const TensorArg& b);

// How a Cube op (MatMul, Conv2D, ...) sees its fp32 operands under the
// launch's precision mode (docs/simulated_device.md): kept as they are for
// must_keep_origin_dtype or non-fp32 inputs, otherwise rounded to fp16
// (saturating on a saturation-mode chip).
CubeRounding cubeRoundingOf(const OpCall& call);
// Vector-unit cost: every input read and every output written once.
KernelCost vectorCost(const OpCall& call);

}  // namespace ascend_sim
