// ReduceStdV2 (OPS.md "Reductions, scans, sorting, statistics"): variance or
// standard deviation with a correction, and the mean, over attr `dim`.
//
// Note [Two-pass variance]
// Each output reduces one sequence x[0..n) (Note [Reduction layout]) in two
// passes, both in fp32 with the pairwise order of Note [Pairwise blocks]:
//   mean = sum(x) / n,  var = sum((x - mean)^2) / max(0, n - correction),
// and std = sqrt(var); each result is rounded once to the output dtype. The
// second pass sums deviations from the already rounded-to-fp32 mean, which
// avoids the cancellation of the one-pass E[x^2] - E[x]^2 form. As in
// PyTorch, n - correction <= 0 divides by zero (inf, or NaN for a zero sum)
// and n == 0 gives NaN for both outputs.
#include <cmath>
#include <vector>

#include "aicore/units.h"
#include "kernel/op_utils.h"
#include "ops/reduce/reduce_plan.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

void validateStd(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkSameDtype(call, x, "x", call.outputs[1], "output mean");
  const Shape want = reducedShape(x.shape, reducedAxesMask(call, "dim"), attrBool(call, "keepdim", false));
  checkShapeEq(call, call.outputs[0], "output y", want, "the reduced shape");
  checkShapeEq(call, call.outputs[1], "output mean", want, "the reduced shape");
  attrInt(call, "correction", 1);
  attrBool(call, "if_std", false);
}

void computeStd(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const TensorArg& m = call.outputs[1];
  if (y.numel() == 0) return;
  const ReducePlan p = makeReducePlan(x.shape, reducedAxesMask(call, "dim"));
  const int64_t block = reduceBlockElems(x.dtype);
  const float divisor = static_cast<float>(std::max<int64_t>(0, p.rows - attrInt(call, "correction", 1)));
  const bool if_std = attrBool(call, "if_std", false);
  std::vector<float> dev(static_cast<size_t>(std::max<int64_t>(1, p.rows * p.cols)));
  std::vector<float> means(static_cast<size_t>(p.cols));
  runReducePlan<float>(
      x, p, &loadFloat,
      [&](float* buf, int64_t rows, int64_t cols, float* out) {
        std::copy(buf, buf + rows * cols, dev.begin());
        reduceColumnsFloat(dev.data(), rows, cols, block, ReduceKind::kSum, means.data());
        for (int64_t c = 0; c < cols; ++c) means[c] = means[c] / static_cast<float>(rows);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            const float d = buf[r * cols + c] - means[c];
            buf[r * cols + c] = d * d;
          }
        reduceColumnsFloat(buf, rows, cols, block, ReduceKind::kSum, out);
        for (int64_t c = 0; c < cols; ++c) {
          const float var = out[c] / divisor;
          out[c] = if_std ? std::sqrt(var) : var;
        }
      },
      [&](int64_t off, int64_t n, const float* v) {
        storeFloat(y.dtype, y.data, off, n, v);
        storeFloat(m.dtype, m.data, off, n, means.data());
      });
}

KernelCost costStd(const OpCall& call) {
  // The second pass streams the input through the Vector unit once more.
  KernelCost c = vectorCost(call);
  const TensorArg& x = call.inputs[0];
  const double extra = vectorUnit().repeats(x.numel(), x.dtype);
  c.vector_repeats += 2 * extra;  // deviation and its square
  c.vector_bytes += 2 * extra * static_cast<double>(vectorUnit().bytes_per_repeat);
  c.flops = 4.0 * static_cast<double>(x.numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ReduceStdV2", &validateStd, &computeStd, &costStd});

}  // namespace
}  // namespace ascend_sim
