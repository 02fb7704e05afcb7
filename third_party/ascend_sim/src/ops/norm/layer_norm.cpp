// LayerNormV3 and LayerNormGradV3 (OPS.md "Attention, normalization,
// embeddings, recurrent networks"), on the Vector unit.
//
// Note [Layer norm rows]
// x is seen as [M, N]: the dims before `begin_norm_axis` are the M rows, the
// rest (N elements) are normalised together; gamma/beta have N elements.
// Per row, in fp32 (fp16/bf16 inputs widened):
//   mean = S(x) / N,  var = S((x - mean)^2) / N (two passes, biased),
//   rstd = 1 / sqrt(var + epsilon),  y = (x - mean) * rstd * gamma + beta,
// where S is the sum of Note [Pairwise blocks] (block size of x's dtype).
// mean and rstd are written per row (shape: x's with the normalised dims set
// to 1), always in fp32 (the statistics of fp16/bf16 inputs stay fp32).
// The gradient, with xhat = (x - mean) * rstd and g = dy * gamma:
//   dx = rstd * (g - S(g) / N - xhat * S(g * xhat) / N)      (per row)
//   dgamma = S_rows(dy * xhat),  dbeta = S_rows(dy)           (per column,
// summed over the M rows in ascending row order by the same pairwise rule).
// An absent gamma (beta) means 1 (0).
//
// Note [Layer norm parameter dtypes]
// gamma and beta, and the gradients dgamma and dbeta, are either of x's dtype
// or float32, each on its own: an fp16 / bf16 x with fp32 parameters (AMP's
// fp32 master weights) reads them unrounded and writes their gradients as
// fp32 sums, rounded once, rather than rounding them to x's dtype.
#include <cmath>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

struct RowSplit {
  int64_t rows = 1, cols = 1;
};

RowSplit splitRows(const OpCall& call, const TensorArg& x) {
  const int64_t axis = normalizeAxis(call, attrInt(call, "begin_norm_axis"), x.shape.size(), "begin_norm_axis");
  RowSplit s;
  for (size_t d = 0; d < x.shape.size(); ++d) (static_cast<int64_t>(d) < axis ? s.rows : s.cols) *= x.shape[d];
  return s;
}

// gamma, beta and their gradients are of x's dtype or float32 (an fp16 / bf16
// x with fp32 parameters: mixed precision, Note [Layer norm parameter dtypes]).
void checkParam(const OpCall& call, const TensorArg& p, const char* name, const TensorArg& x, int64_t cols) {
  if (p.dtype != ACL_FLOAT) checkSameDtype(call, x, "x", p, std::string("input ") + name);
  if (p.numel() != cols)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string("input ") + name + " shape " + shapeToString(p.shape) + " must hold the " +
             std::to_string(cols) + " normalised elements of x " + shapeToString(x.shape));
}

void checkStat(const OpCall& call, const TensorArg& s, const std::string& name, const RowSplit& rs) {
  checkDtype(call, s, name, dtBit(ACL_FLOAT));
  if (s.numel() != rs.rows)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(s.shape) + " must hold one value per row (" + std::to_string(rs.rows) +
             " rows)");
}

// inputs: x, gamma, beta; outputs: y, mean, rstd.
void validateLayerNorm(const OpCall& call) {
  checkArity(call, 3, 3, 3);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  const RowSplit rs = splitRows(call, x);
  checkParam(call, call.inputs[1], "gamma", x, rs.cols);
  checkParam(call, call.inputs[2], "beta", x, rs.cols);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  checkStat(call, call.outputs[1], "output mean", rs);
  checkStat(call, call.outputs[2], "output rstd", rs);
  attrFloat(call, "epsilon");  // any value, as PyTorch: var + epsilon < 0 gives NaN
}

// Mean and rstd of one row (`row` is destroyed).
void rowMoments(std::vector<float>& row, std::vector<float>& tmp, int64_t block, float eps, float* mean,
                float* rstd) {
  const int64_t n = static_cast<int64_t>(row.size());
  tmp = row;
  const float m = pairwiseSum(tmp.data(), n, block) / static_cast<float>(n);
  for (int64_t j = 0; j < n; ++j) tmp[j] = (row[j] - m) * (row[j] - m);
  const float var = pairwiseSum(tmp.data(), n, block) / static_cast<float>(n);
  *mean = m;
  *rstd = 1.0f / std::sqrt(var + eps);
}

void computeLayerNorm(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &gamma = call.inputs[1], &beta = call.inputs[2];
  const TensorArg &y = call.outputs[0], &mean_out = call.outputs[1], &rstd_out = call.outputs[2];
  const RowSplit rs = splitRows(call, x);
  const float eps = attrFloat(call, "epsilon");
  const int64_t block = reduceBlockElems(x.dtype);
  std::vector<float> g(rs.cols), b(rs.cols), row(rs.cols), tmp(rs.cols), out(rs.cols);
  loadFloat(gamma.dtype, gamma.data, 0, 1, rs.cols, g.data());
  loadFloat(beta.dtype, beta.data, 0, 1, rs.cols, b.data());
  for (int64_t i = 0; i < rs.rows; ++i) {
    loadFloat(x.dtype, x.data, i * rs.cols, 1, rs.cols, row.data());
    float mean = 0, rstd = 0;
    if (rs.cols == 0) {
      mean = std::nanf("");
      rstd = std::nanf("");
    } else {
      rowMoments(row, tmp, block, eps, &mean, &rstd);
    }
    for (int64_t j = 0; j < rs.cols; ++j) out[j] = (row[j] - mean) * rstd * g[j] + b[j];
    storeFloat(y.dtype, y.data, i * rs.cols, rs.cols, out.data());
    storeFloat(mean_out.dtype, mean_out.data, i, 1, &mean);
    storeFloat(rstd_out.dtype, rstd_out.data, i, 1, &rstd);
  }
}

KernelCost costLayerNorm(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.vector_bytes *= 3;  // the mean pass, the variance pass and the normalisation
  c.flops = 8.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

// inputs: dy, x, rstd, mean, gamma; outputs: dx, dgamma, dbeta.
void validateLayerNormGrad(const OpCall& call) {
  checkArity(call, 5, 5, 3);
  const TensorArg& x = call.inputs[1];
  checkDtype(call, x, "input x", kFloatTypes);
  const RowSplit rs = splitRows(call, x);
  checkSameDtype(call, x, "x", call.inputs[0], "input dy");
  checkShapeEq(call, call.inputs[0], "input dy", x.shape, "x shape");
  checkStat(call, call.inputs[2], "input rstd", rs);
  checkStat(call, call.inputs[3], "input mean", rs);
  checkParam(call, call.inputs[4], "gamma", x, rs.cols);
  checkSameDtype(call, x, "x", call.outputs[0], "output dx");
  checkShapeEq(call, call.outputs[0], "output dx", x.shape, "x shape");
  checkParam(call, call.outputs[1], "dgamma", x, rs.cols);
  checkParam(call, call.outputs[2], "dbeta", x, rs.cols);
}

void computeLayerNormGrad(const OpCall& call) {
  const TensorArg &dy = call.inputs[0], &x = call.inputs[1], &rstd_in = call.inputs[2], &mean_in = call.inputs[3];
  const TensorArg& gamma = call.inputs[4];
  const TensorArg &dx = call.outputs[0], &dgamma = call.outputs[1], &dbeta = call.outputs[2];
  const RowSplit rs = splitRows(call, x);
  const int64_t n = rs.cols, m = rs.rows, block = reduceBlockElems(x.dtype);
  std::vector<float> g(n), xr(n), dyr(n), a(n), bsum(n), out(n);
  // [M][N] buffers of dy * xhat and dy for the column sums (Note [Layer norm rows]).
  std::vector<float> dy_xhat(static_cast<size_t>(m * n)), dy_all(static_cast<size_t>(m * n));
  loadFloat(gamma.dtype, gamma.data, 0, 1, n, g.data());
  for (int64_t i = 0; i < m; ++i) {
    float mean, rstd;
    loadFloat(mean_in.dtype, mean_in.data, i, 1, 1, &mean);
    loadFloat(rstd_in.dtype, rstd_in.data, i, 1, 1, &rstd);
    loadFloat(x.dtype, x.data, i * n, 1, n, xr.data());
    loadFloat(dy.dtype, dy.data, i * n, 1, n, dyr.data());
    for (int64_t j = 0; j < n; ++j) {
      const float xhat = (xr[j] - mean) * rstd;
      xr[j] = xhat;
      a[j] = dyr[j] * g[j];          // g = dy * gamma
      bsum[j] = a[j] * xhat;         // g * xhat
      dy_xhat[i * n + j] = dyr[j] * xhat;
      dy_all[i * n + j] = dyr[j];
    }
    std::vector<float> tmp = a;
    const float mean_g = pairwiseSum(tmp.data(), n, block) / static_cast<float>(n);
    const float mean_gx = pairwiseSum(bsum.data(), n, block) / static_cast<float>(n);
    for (int64_t j = 0; j < n; ++j) out[j] = rstd * (a[j] - mean_g - xr[j] * mean_gx);
    storeFloat(dx.dtype, dx.data, i * n, n, out.data());
  }
  reduceColumnsFloat(dy_xhat.data(), m, n, block, ReduceKind::kSum, out.data());
  storeFloat(dgamma.dtype, dgamma.data, 0, n, out.data());
  reduceColumnsFloat(dy_all.data(), m, n, block, ReduceKind::kSum, out.data());
  storeFloat(dbeta.dtype, dbeta.data, 0, n, out.data());
}

KernelCost costLayerNormGrad(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.vector_bytes *= 3;  // two row passes and the column sums
  c.flops = 12.0 * static_cast<double>(call.inputs[1].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LayerNormV3", &validateLayerNorm, &computeLayerNorm, &costLayerNorm});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LayerNormGradV3", &validateLayerNormGrad, &computeLayerNormGrad,
                                     &costLayerNormGrad});

}  // namespace
}  // namespace ascend_sim
