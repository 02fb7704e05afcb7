// LayerNormV3 and LayerNormGradV3 (OPS.md "Attention, normalization,
// embeddings, recurrent networks"), on the Vector unit.
//
// The row math is Note [Layer norm rows] (layer_norm_rows.h).
//
// Note [Layer norm parameter dtypes]
// gamma and beta, and the gradients dgamma and dbeta, are either of x's dtype
// or float32, each on its own: an fp16 / bf16 x with fp32 parameters (AMP's
// fp32 master weights) reads them unrounded and writes their gradients as
// fp32 sums, rounded once, rather than rounding them to x's dtype.
#include <vector>

#include "kernel/op_utils.h"
#include "ops/norm/layer_norm_rows.h"
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

// inputs: x, gamma, beta; outputs: y, mean, rstd.
void validateLayerNorm(const OpCall& call) {
  checkArity(call, 3, 3, 3);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  const RowSplit rs = splitRows(call, x);
  checkNormParam(call, call.inputs[1], "input gamma", x, rs.cols);
  checkNormParam(call, call.inputs[2], "input beta", x, rs.cols);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  checkNormStat(call, call.outputs[1], "output mean", rs.rows);
  checkNormStat(call, call.outputs[2], "output rstd", rs.rows);
  attrFloat(call, "epsilon");  // any value, as PyTorch: var + epsilon < 0 gives NaN
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
    const RowMoments r = layerNormRow(row.data(), rs.cols, block, eps, g.data(), b.data(), out.data(), tmp.data());
    storeFloat(y.dtype, y.data, i * rs.cols, rs.cols, out.data());
    storeFloat(mean_out.dtype, mean_out.data, i, 1, &r.mean);
    storeFloat(rstd_out.dtype, rstd_out.data, i, 1, &r.rstd);
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
  checkNormStat(call, call.inputs[2], "input rstd", rs.rows);
  checkNormStat(call, call.inputs[3], "input mean", rs.rows);
  checkNormParam(call, call.inputs[4], "input gamma", x, rs.cols);
  checkSameDtype(call, x, "x", call.outputs[0], "output dx");
  checkShapeEq(call, call.outputs[0], "output dx", x.shape, "x shape");
  checkNormParam(call, call.outputs[1], "output dgamma", x, rs.cols);
  checkNormParam(call, call.outputs[2], "output dbeta", x, rs.cols);
}

void computeLayerNormGrad(const OpCall& call) {
  const TensorArg &dy = call.inputs[0], &x = call.inputs[1], &rstd = call.inputs[2], &mean = call.inputs[3];
  const TensorArg& dx = call.outputs[0];
  const RowSplit rs = splitRows(call, x);
  const NormRows rows{rs.rows, rs.cols};
  layerNormGradients(
      rows, dy, call.inputs[4], mean, rstd, call.outputs[1], call.outputs[2],
      [&](int64_t i, float* row) { loadFloat(x.dtype, x.data, i * rows.n, 1, rows.n, row); },
      [&](int64_t i, float* row) { storeFloat(dx.dtype, dx.data, i * rows.n, rows.n, row); });
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
