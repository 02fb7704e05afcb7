// Frexp (OPS.md "Pointwise math and activations"): x = mantissa · 2^exponent
// with |mantissa| in [0.5, 1) (std::frexp on the fp32 value; the mantissa is
// exact in every float dtype). 0, ±inf and NaN give mantissa x, exponent 0,
// as PyTorch's CPU kernel. Base formats only; the outputs have x's shape.
#include <cmath>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

void validateFrexp(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output mantissa");
  checkDtype(call, call.outputs[1], "output exponent", dtBit(ACL_INT32));
  checkShapeEq(call, call.outputs[0], "output mantissa", x.shape, "x shape");
  checkShapeEq(call, call.outputs[1], "output exponent", x.shape, "x shape");
}

void computeFrexp(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const int64_t n = x.numel();
  std::vector<float> v(static_cast<size_t>(n)), mantissa(static_cast<size_t>(n));
  std::vector<int64_t> exponent(static_cast<size_t>(n));
  loadFloat(x.dtype, x.data, 0, 1, n, v.data());
  for (int64_t i = 0; i < n; ++i) {
    int e = 0;
    mantissa[i] = std::isfinite(v[i]) ? std::frexp(v[i], &e) : v[i];
    exponent[i] = e;
  }
  storeFloat(call.outputs[0].dtype, call.outputs[0].data, 0, n, mantissa.data());
  storeInt(call.outputs[1].dtype, call.outputs[1].data, 0, n, exponent.data());
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Frexp", &validateFrexp, &computeFrexp, &vectorCost});

}  // namespace
}  // namespace ascend_sim
