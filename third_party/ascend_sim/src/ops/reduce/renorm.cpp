// Renorm (OPS.md "Reductions, scans, sorting, statistics"): the scale
// factor of torch.renorm. For every index d along attr `dim`, the p-norm of
// the slice x[..., d, ...] (attr `p` > 0, inf allowed) is taken over its
// elements in row-major order, |v|^p summed in fp32 per Note [Pairwise
// blocks] (the maximum of |v| for p = inf), then ^(1/p); y[d] =
// maxnorm / (norm + 1e-7) if norm > maxnorm, else 1. y has x's rank with
// every dim but `dim` of size 1, in x's dtype or float32 (so that an fp16
// caller multiplies by an unrounded factor, as PyTorch does).
#include <cmath>
#include <string>
#include <vector>

#include "aicore/units.h"
#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

AxisSplit splitOf(const OpCall& call) { return splitAtAxis(call, call.inputs[0].shape, attrInt(call, "dim"), "dim"); }

void validateRenorm(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  if (y.dtype != ACL_FLOAT) checkSameDtype(call, x, "x", y, "output y (or float32)");
  if (x.shape.empty()) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x must have at least 1 dim");
  const AxisSplit s = splitOf(call);
  Shape want(x.shape.size(), 1);
  want[static_cast<size_t>(s.axis)] = s.dim;
  checkShapeEq(call, y, "output y", want, "1 in every dim but dim");
  const float p = attrFloat(call, "p"), maxnorm = attrFloat(call, "maxnorm");
  if (!(p > 0)) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'p' must be > 0, got " + std::to_string(p));
  if (!(maxnorm >= 0))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'maxnorm' must be >= 0, got " + std::to_string(maxnorm));
}

void computeRenorm(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const AxisSplit s = splitOf(call);
  const float p = attrFloat(call, "p"), maxnorm = attrFloat(call, "maxnorm");
  const int64_t len = s.outer * s.inner, block = reduceBlockElems(x.dtype);
  std::vector<float> slice(static_cast<size_t>(len)), factors(static_cast<size_t>(s.dim));
  for (int64_t d = 0; d < s.dim; ++d) {
    for (int64_t o = 0; o < s.outer; ++o)
      loadFloat(x.dtype, x.data, (o * s.dim + d) * s.inner, 1, s.inner, slice.data() + o * s.inner);
    for (float& v : slice) {
      const float a = std::fabs(v);
      v = std::isinf(p) || p == 1.0f ? a : p == 2.0f ? a * a : std::pow(a, p);
    }
    float norm;
    reduceColumnsFloat(slice.data(), len, 1, block, std::isinf(p) ? ReduceKind::kMax : ReduceKind::kSum, &norm);
    if (len == 0) norm = 0;
    if (!std::isinf(p)) norm = p == 1.0f ? norm : p == 2.0f ? std::sqrt(norm) : std::pow(norm, 1.0f / p);
    factors[static_cast<size_t>(d)] = norm > maxnorm ? maxnorm / (norm + 1e-7f) : 1.0f;
  }
  storeFloat(y.dtype, y.data, 0, s.dim, factors.data());
}

KernelCost costRenorm(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const TensorArg& x = call.inputs[0];
  const double extra = 2 * vectorUnit().repeats(x.numel(), x.dtype);  // |x|, then the power
  c.vector_repeats += extra;
  c.vector_bytes += extra * static_cast<double>(vectorUnit().bytes_per_repeat);
  c.flops = 3.0 * static_cast<double>(x.numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Renorm", &validateRenorm, &computeRenorm, &costRenorm});

}  // namespace
}  // namespace ascend_sim
