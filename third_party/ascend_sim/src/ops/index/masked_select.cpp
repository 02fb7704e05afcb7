// Data-dependent-size selections: MaskedSelect and NonZero.
//
// Note [Ops whose output size depends on the data]
// A launch needs every output shape up front, so the caller first counts
// the selected elements (a ReduceSum of the mask, read back) and launches
// with that count; the kernel re-counts and reports a mismatch as a device
// fault (e.g. the mask changed in between). This is how CANN's NonZero-style
// ops are driven by frameworks without dynamic-shape support.
#include <cstring>

#include "common/dtype.h"
#include "common/shape.h"
#include "kernel/kernel.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

int64_t countTrue(const TensorArg& mask) {
  const auto* m = static_cast<const uint8_t*>(mask.data);
  int64_t n = 0;
  for (int64_t i = 0; i < mask.numel(); ++i) n += m[i] != 0;
  return n;
}

void checkCount(const OpCall& call, int64_t count, int64_t expected) {
  if (count != expected) {
    throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION,
                      call.op_type + ": the mask selects " + std::to_string(count) +
                          " elements but the output was sized for " + std::to_string(expected));
  }
}

// MaskedSelect: x, mask (bool, same shape) -> y [count].
void validateMaskedSelect(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  checkDtype(call, call.inputs[1], "mask", kBoolType);
  checkShapeEq(call, call.inputs[1], "mask", call.inputs[0].shape, "x's shape");
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "y");
  if (call.outputs[0].shape.size() != 1) {
    throw KernelError(ACL_ERROR_OP_INPUT_NOT_MATCH, call.op_type + ": output y must be 1-D, got " +
                                                        shapeToString(call.outputs[0].shape));
  }
}

void computeMaskedSelect(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &mask = call.inputs[1], &y = call.outputs[0];
  checkCount(call, countTrue(mask), y.numel());
  const size_t item = dtypeSize(x.dtype);
  const auto* m = static_cast<const uint8_t*>(mask.data);
  const auto* src = static_cast<const uint8_t*>(x.data);
  auto* dst = static_cast<uint8_t*>(y.data);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (m[i]) {
      std::memcpy(dst, src + i * item, item);
      dst += item;
    }
  }
}

// NonZero: x (bool) -> y [count, rank] int64, row-major order.
void validateNonZero(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  checkDtype(call, call.inputs[0], "x", kBoolType);
  checkDtype(call, call.outputs[0], "y", dtBit(ACL_INT64));
  const Shape& ys = call.outputs[0].shape;
  if (ys.size() != 2 || ys[1] != static_cast<int64_t>(call.inputs[0].shape.size())) {
    throw KernelError(ACL_ERROR_OP_INPUT_NOT_MATCH, call.op_type + ": output y must be [count, " +
                                                        std::to_string(call.inputs[0].shape.size()) + "], got " +
                                                        shapeToString(ys));
  }
}

void computeNonZero(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  checkCount(call, countTrue(x), y.shape[0]);
  const Shape& s = x.shape;
  const auto* m = static_cast<const uint8_t*>(x.data);
  auto* out = static_cast<int64_t*>(y.data);
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (m[i]) out = std::copy(idx.begin(), idx.end(), out);
    for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 0; --d) {  // row-major increment
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MaskedSelect", &validateMaskedSelect, &computeMaskedSelect, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"NonZero", &validateNonZero, &computeNonZero, &vectorCost});

}  // namespace
}  // namespace ascend_sim
