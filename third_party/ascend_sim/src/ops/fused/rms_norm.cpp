// RmsNorm, RmsNormGrad and AddRmsNorm (OPS.md "Fused LLM kernels"), on the
// Vector unit: the root-mean-square normalisation of LLaMA-style models, one
// kernel each way where an unfused graph runs Pow, ReduceMean, Add, Rsqrt,
// Mul, Mul; AddRmsNorm adds the residual first (x = x1 + x2, rounded to the
// inputs' dtype, is an output too, and y is RmsNorm of that rounded x, bit
// for bit).
//
// Note [RMS norm rows]
// gamma's shape is the trailing dims of x: x is seen as [M, N] with N =
// gamma's element count. Per row, in fp32 (fp16/bf16 widened):
//   rstd = 1 / sqrt(S(x^2) / N + epsilon),   y = x * rstd * gamma,
// S the sum of Note [Pairwise blocks] (block size of x's dtype), one rounding
// of y to x's dtype. rstd is written per row in fp32 (shape: x's with gamma's
// dims set to 1). The gradient, with g = dy * gamma:
//   dx = rstd * (g - x * rstd^2 * S(g * x) / N)               (per row)
//   dgamma = S_rows(dy * x * rstd)                            (per column, fp32)
// where the column sums run over the M rows in ascending order by the same
// pairwise rule. gamma may have its own float dtype.
#include <cmath>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/norm/layer_norm_rows.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

// inputs: x, gamma; outputs: y, rstd.
void validateRmsNorm(const OpCall& call) {
  checkArity(call, 2, 2, 2);
  const TensorArg &x = call.inputs[0], &gamma = call.inputs[1];
  checkDtype(call, x, "input x", kFloatTypes);
  checkDtype(call, gamma, "input gamma", kFloatTypes);
  const NormRows rows = trailingRows(call, x, gamma);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  checkNormStat(call, call.outputs[1], "output rstd", rows.m);
  attrFloat(call, "epsilon", 1e-6f);
}

// One row of Note [RMS norm rows]: writes y's row i and rstd[i]. `sq` and
// `out` are scratch of n floats.
void normRow(const TensorArg& y, const TensorArg& rstd_out, int64_t i, const float* row, const float* g, int64_t n,
             int64_t block, float eps, float* sq, float* out) {
  for (int64_t j = 0; j < n; ++j) sq[j] = row[j] * row[j];
  const float rstd = 1.0f / std::sqrt(pairwiseSum(sq, n, block) / static_cast<float>(n) + eps);
  for (int64_t j = 0; j < n; ++j) out[j] = row[j] * rstd * g[j];
  storeFloat(y.dtype, y.data, i * n, n, out);
  storeFloat(rstd_out.dtype, rstd_out.data, i, 1, &rstd);
}

void computeRmsNorm(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &gamma = call.inputs[1];
  const NormRows rows = trailingRows(call, x, gamma);
  const float eps = attrFloat(call, "epsilon", 1e-6f);
  const int64_t n = rows.n, block = reduceBlockElems(x.dtype);
  std::vector<float> g(n), row(n), sq(n), out(n);
  loadFloat(gamma.dtype, gamma.data, 0, 1, n, g.data());
  for (int64_t i = 0; i < rows.m; ++i) {
    loadFloat(x.dtype, x.data, i * n, 1, n, row.data());
    normRow(call.outputs[0], call.outputs[1], i, row.data(), g.data(), n, block, eps, sq.data(), out.data());
  }
}

// inputs: x1, x2, gamma; outputs: y, rstd, x.
void validateAddRmsNorm(const OpCall& call) {
  checkArity(call, 3, 3, 3);
  const TensorArg &x1 = call.inputs[0], &x2 = call.inputs[1], &gamma = call.inputs[2];
  checkDtype(call, x1, "input x1", kFloatTypes);
  checkSameDtype(call, x1, "x1", x2, "input x2");
  checkShapeEq(call, x2, "input x2", x1.shape, "x1 shape");
  checkDtype(call, gamma, "input gamma", kFloatTypes);
  const NormRows rows = trailingRows(call, x1, gamma);
  for (size_t k : {size_t{0}, size_t{2}}) {
    const std::string name = k == 0 ? "output y" : "output x";
    checkSameDtype(call, x1, "x1", call.outputs[k], name);
    checkShapeEq(call, call.outputs[k], name, x1.shape, "x1 shape");
  }
  checkNormStat(call, call.outputs[1], "output rstd", rows.m);
  attrFloat(call, "epsilon", 1e-6f);
}

void computeAddRmsNorm(const OpCall& call) {
  const TensorArg &x1 = call.inputs[0], &x2 = call.inputs[1], &gamma = call.inputs[2], &x_out = call.outputs[2];
  const NormRows rows = trailingRows(call, x1, gamma);
  const float eps = attrFloat(call, "epsilon", 1e-6f);
  const int64_t n = rows.n, block = reduceBlockElems(x1.dtype);
  std::vector<float> g(n), row(n), other(n), sq(n), out(n);
  loadFloat(gamma.dtype, gamma.data, 0, 1, n, g.data());
  for (int64_t i = 0; i < rows.m; ++i) {
    loadFloat(x1.dtype, x1.data, i * n, 1, n, row.data());
    loadFloat(x2.dtype, x2.data, i * n, 1, n, other.data());
    for (int64_t j = 0; j < n; ++j) row[j] += other[j];
    storeFloat(x_out.dtype, x_out.data, i * n, n, row.data());
    loadFloat(x_out.dtype, x_out.data, i * n, 1, n, row.data());  // x as stored (rounded to its dtype)
    normRow(call.outputs[0], call.outputs[1], i, row.data(), g.data(), n, block, eps, sq.data(), out.data());
  }
}

KernelCost costAddRmsNorm(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.vector_bytes += tensorBytes(call.outputs[2]);  // the sum-of-squares pass reads x once more
  c.flops = 5.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

KernelCost costRmsNorm(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.vector_bytes += tensorBytes(call.inputs[0]);  // the sum-of-squares pass reads x once more
  c.flops = 4.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

// inputs: dy, x, rstd, gamma; outputs: dx, dgamma (fp32).
void validateRmsNormGrad(const OpCall& call) {
  checkArity(call, 4, 4, 2);
  const TensorArg &dy = call.inputs[0], &x = call.inputs[1], &gamma = call.inputs[3];
  checkDtype(call, x, "input x", kFloatTypes);
  checkDtype(call, gamma, "input gamma", kFloatTypes);
  const NormRows rows = trailingRows(call, x, gamma);
  checkSameDtype(call, x, "x", dy, "input dy");
  checkShapeEq(call, dy, "input dy", x.shape, "x shape");
  checkNormStat(call, call.inputs[2], "input rstd", rows.m);
  checkSameDtype(call, x, "x", call.outputs[0], "output dx");
  checkShapeEq(call, call.outputs[0], "output dx", x.shape, "x shape");
  checkDtype(call, call.outputs[1], "output dgamma", dtBit(ACL_FLOAT));
  checkShapeEq(call, call.outputs[1], "output dgamma", gamma.shape, "gamma shape");
}

void computeRmsNormGrad(const OpCall& call) {
  const TensorArg &dy = call.inputs[0], &x = call.inputs[1], &rstd_in = call.inputs[2], &gamma = call.inputs[3];
  const TensorArg &dx = call.outputs[0], &dgamma = call.outputs[1];
  const NormRows rows = trailingRows(call, x, gamma);
  const int64_t m = rows.m, n = rows.n, block = reduceBlockElems(x.dtype);
  std::vector<float> g(n), xr(n), dyr(n), gx(n), out(n);
  std::vector<float> dy_xhat(static_cast<size_t>(m * n));  // [M][N] terms of dgamma's column sums
  loadFloat(gamma.dtype, gamma.data, 0, 1, n, g.data());
  for (int64_t i = 0; i < m; ++i) {
    float rstd;
    loadFloat(rstd_in.dtype, rstd_in.data, i, 1, 1, &rstd);
    loadFloat(x.dtype, x.data, i * n, 1, n, xr.data());
    loadFloat(dy.dtype, dy.data, i * n, 1, n, dyr.data());
    for (int64_t j = 0; j < n; ++j) {
      gx[j] = dyr[j] * g[j] * xr[j];
      dy_xhat[i * n + j] = dyr[j] * (xr[j] * rstd);
    }
    const float mean_gx = pairwiseSum(gx.data(), n, block) / static_cast<float>(n);
    const float r2 = rstd * rstd;
    for (int64_t j = 0; j < n; ++j) out[j] = rstd * (dyr[j] * g[j] - xr[j] * r2 * mean_gx);
    storeFloat(dx.dtype, dx.data, i * n, n, out.data());
  }
  reduceColumnsFloat(dy_xhat.data(), m, n, block, ReduceKind::kSum, out.data());
  storeFloat(dgamma.dtype, dgamma.data, 0, n, out.data());
}

KernelCost costRmsNormGrad(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.vector_bytes += tensorBytes(call.inputs[1]);  // the column sums read the products again
  c.flops = 8.0 * static_cast<double>(call.inputs[1].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RmsNorm", &validateRmsNorm, &computeRmsNorm, &costRmsNorm});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RmsNormGrad", &validateRmsNormGrad, &computeRmsNormGrad, &costRmsNormGrad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AddRmsNorm", &validateAddRmsNorm, &computeAddRmsNorm, &costAddRmsNorm});

}  // namespace
}  // namespace ascend_sim
