// AddLayerNorm / AddLayerNormGrad and DeepNorm / DeepNormGrad (OPS.md "Fused
// LLM kernels"), on the Vector unit: the residual add of a transformer block
// and its layer norm in one kernel each way, where an unfused graph runs Add
// (or Muls and Add), then LayerNormV3.
//
// Note [Fused layer norms]
// Both normalise a sum over gamma's trailing dims (x seen as [M, N] rows, N =
// gamma's element count) by Note [Layer norm rows]:
//   AddLayerNorm  x = x1 + x2, rounded to x1's dtype and written (output x),
//                 y = LayerNorm(x as stored), bit for bit LayerNormV3's y;
//   DeepNorm      x' = alpha * x + gx in fp32 (not rounded, not an output),
//                 y = LayerNorm(x').
// mean and rstd are fp32, one per row. The gradients recompute the sum the
// same way and run the layer norm gradient on it:
//   AddLayerNormGrad  dx = dx' (+ dsum, the gradient of output x, when
//                     has_dsum): the gradient of both addends; dgamma, dbeta;
//   DeepNormGrad      dgx = dx', dx = alpha * dx' (each rounded once from
//                     fp32); dbeta, dgamma.
// gamma and beta, and dgamma and dbeta, are of x's dtype or fp32 each (Note
// [Layer norm parameter dtypes]).
#include <cstdint>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/norm/layer_norm_rows.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

// The sum a fused layer norm normalises, one row at a time.
struct SumRows {
  const TensorArg* a = nullptr;  // x1 (AddLayerNorm) or x (DeepNorm)
  const TensorArg* b = nullptr;  // x2 or gx
  float alpha = 1;               // DeepNorm's weight of x
  bool rounded = false;          // AddLayerNorm: the sum as stored in output x, rounded to its dtype
  std::vector<float> other;
  std::vector<uint8_t> bytes;

  // Row i of the sum into `row` (n floats).
  void load(int64_t i, int64_t n, float* row) {
    other.resize(n);
    loadFloat(a->dtype, a->data, i * n, 1, n, row);
    loadFloat(b->dtype, b->data, i * n, 1, n, other.data());
    for (int64_t j = 0; j < n; ++j) row[j] = alpha * row[j] + other[j];
    if (!rounded) return;
    bytes.resize(static_cast<size_t>(n) * dtypeSize(a->dtype));
    storeFloat(a->dtype, bytes.data(), 0, n, row);
    loadFloat(a->dtype, bytes.data(), 0, 1, n, row);
  }
};

void checkAddends(const OpCall& call, const TensorArg& a, const char* a_name, const TensorArg& b, const char* b_name) {
  checkDtype(call, a, std::string("input ") + a_name, kFloatTypes);
  checkSameDtype(call, a, a_name, b, std::string("input ") + b_name);
  checkShapeEq(call, b, std::string("input ") + b_name, a.shape, std::string(a_name) + " shape");
}

void checkLikeX(const OpCall& call, const TensorArg& t, const std::string& name, const TensorArg& x) {
  checkSameDtype(call, x, "x", t, name);
  checkShapeEq(call, t, name, x.shape, "x shape");
}

// Normalises every row of `sum` into y, writing mean and rstd (Note [Fused layer norms]).
void normaliseRows(const OpCall& call, SumRows& sum, const NormRows& rows, const TensorArg& gamma,
                   const TensorArg& beta, const TensorArg& y, const TensorArg& mean, const TensorArg& rstd,
                   const TensorArg* x_out) {
  const int64_t n = rows.n, block = reduceBlockElems(y.dtype);
  const float eps = attrFloat(call, "epsilon");
  std::vector<float> g(n), b(n), row(n), tmp(n), out(n);
  loadFloat(gamma.dtype, gamma.data, 0, 1, n, g.data());
  loadFloat(beta.dtype, beta.data, 0, 1, n, b.data());
  for (int64_t i = 0; i < rows.m; ++i) {
    sum.load(i, n, row.data());
    if (x_out != nullptr) storeFloat(x_out->dtype, x_out->data, i * n, n, row.data());
    const RowMoments r = layerNormRow(row.data(), n, block, eps, g.data(), b.data(), out.data(), tmp.data());
    storeFloat(y.dtype, y.data, i * n, n, out.data());
    storeFloat(mean.dtype, mean.data, i, 1, &r.mean);
    storeFloat(rstd.dtype, rstd.data, i, 1, &r.rstd);
  }
}

KernelCost fusedNormCost(const OpCall& call, double passes, double flops_per_element) {
  KernelCost c = vectorCost(call);
  c.vector_bytes *= passes;  // the mean and variance passes re-read the row
  c.flops = flops_per_element * static_cast<double>(call.inputs[0].numel());
  return c;
}

// inputs: x1, x2, gamma, beta; outputs: y, mean, rstd, x.
void validateAddLayerNorm(const OpCall& call) {
  checkArity(call, 4, 4, 4);
  const TensorArg &x1 = call.inputs[0], &x2 = call.inputs[1];
  checkAddends(call, x1, "x1", x2, "x2");
  const NormRows rows = trailingRows(call, x1, call.inputs[2]);
  checkNormParam(call, call.inputs[2], "input gamma", x1, rows.n);
  checkNormParam(call, call.inputs[3], "input beta", x1, rows.n);
  checkLikeX(call, call.outputs[0], "output y", x1);
  checkNormStat(call, call.outputs[1], "output mean", rows.m);
  checkNormStat(call, call.outputs[2], "output rstd", rows.m);
  checkLikeX(call, call.outputs[3], "output x", x1);
  attrFloat(call, "epsilon");
  attrBool(call, "additional_output", false);
}

void computeAddLayerNorm(const OpCall& call) {
  SumRows sum;
  sum.a = &call.inputs[0];
  sum.b = &call.inputs[1];
  sum.rounded = true;
  const NormRows rows = trailingRows(call, call.inputs[0], call.inputs[2]);
  normaliseRows(call, sum, rows, call.inputs[2], call.inputs[3], call.outputs[0], call.outputs[1], call.outputs[2],
                &call.outputs[3]);
}

// inputs: dy, x1, x2, rstd, mean, gamma[, dsum]; outputs: dx, dgamma, dbeta.
void validateAddLayerNormGrad(const OpCall& call) {
  const bool has_dsum = attrBool(call, "has_dsum", false);
  checkArity(call, has_dsum ? 7 : 6, has_dsum ? 7 : 6, 3);
  const TensorArg &x1 = call.inputs[1], &gamma = call.inputs[5];
  checkAddends(call, x1, "x1", call.inputs[2], "x2");
  const NormRows rows = trailingRows(call, x1, gamma);
  checkLikeX(call, call.inputs[0], "input dy", x1);
  checkNormStat(call, call.inputs[3], "input rstd", rows.m);
  checkNormStat(call, call.inputs[4], "input mean", rows.m);
  checkNormParam(call, gamma, "input gamma", x1, rows.n);
  if (has_dsum) checkLikeX(call, call.inputs[6], "input dsum", x1);
  checkLikeX(call, call.outputs[0], "output dx", x1);
  checkNormParam(call, call.outputs[1], "output dgamma", x1, rows.n);
  checkNormParam(call, call.outputs[2], "output dbeta", x1, rows.n);
}

void computeAddLayerNormGrad(const OpCall& call) {
  const TensorArg& dx = call.outputs[0];
  const TensorArg* dsum = attrBool(call, "has_dsum", false) ? &call.inputs[6] : nullptr;
  SumRows sum;
  sum.a = &call.inputs[1];
  sum.b = &call.inputs[2];
  sum.rounded = true;
  const NormRows rows = trailingRows(call, call.inputs[1], call.inputs[5]);
  std::vector<float> extra(rows.n);
  layerNormGradients(
      rows, call.inputs[0], call.inputs[5], call.inputs[4], call.inputs[3], call.outputs[1], call.outputs[2],
      [&](int64_t i, float* x) { sum.load(i, rows.n, x); },
      [&](int64_t i, float* row_dx) {
        if (dsum != nullptr) {
          loadFloat(dsum->dtype, dsum->data, i * rows.n, 1, rows.n, extra.data());
          for (int64_t j = 0; j < rows.n; ++j) row_dx[j] += extra[j];
        }
        storeFloat(dx.dtype, dx.data, i * rows.n, rows.n, row_dx);
      });
}

// inputs: x, gx, beta, gamma; outputs: mean, rstd, y.
void validateDeepNorm(const OpCall& call) {
  checkArity(call, 4, 4, 3);
  const TensorArg& x = call.inputs[0];
  checkAddends(call, x, "x", call.inputs[1], "gx");
  const NormRows rows = trailingRows(call, x, call.inputs[3]);
  checkNormParam(call, call.inputs[2], "input beta", x, rows.n);
  checkNormParam(call, call.inputs[3], "input gamma", x, rows.n);
  checkNormStat(call, call.outputs[0], "output mean", rows.m);
  checkNormStat(call, call.outputs[1], "output rstd", rows.m);
  checkLikeX(call, call.outputs[2], "output y", x);
  attrFloat(call, "alpha");
  attrFloat(call, "epsilon");
}

void computeDeepNorm(const OpCall& call) {
  SumRows sum;
  sum.a = &call.inputs[0];
  sum.b = &call.inputs[1];
  sum.alpha = attrFloat(call, "alpha");
  const NormRows rows = trailingRows(call, call.inputs[0], call.inputs[3]);
  normaliseRows(call, sum, rows, call.inputs[3], call.inputs[2], call.outputs[2], call.outputs[0], call.outputs[1],
                nullptr);
}

// inputs: dy, x, gx, gamma, mean, rstd; outputs: dx, dgx, dbeta, dgamma.
void validateDeepNormGrad(const OpCall& call) {
  checkArity(call, 6, 6, 4);
  const TensorArg &x = call.inputs[1], &gamma = call.inputs[3];
  checkAddends(call, x, "x", call.inputs[2], "gx");
  const NormRows rows = trailingRows(call, x, gamma);
  checkLikeX(call, call.inputs[0], "input dy", x);
  checkNormParam(call, gamma, "input gamma", x, rows.n);
  checkNormStat(call, call.inputs[4], "input mean", rows.m);
  checkNormStat(call, call.inputs[5], "input rstd", rows.m);
  checkLikeX(call, call.outputs[0], "output dx", x);
  checkLikeX(call, call.outputs[1], "output dgx", x);
  checkNormParam(call, call.outputs[2], "output dbeta", x, rows.n);
  checkNormParam(call, call.outputs[3], "output dgamma", x, rows.n);
  attrFloat(call, "alpha");
}

void computeDeepNormGrad(const OpCall& call) {
  const TensorArg &dx = call.outputs[0], &dgx = call.outputs[1];
  SumRows sum;
  sum.a = &call.inputs[1];
  sum.b = &call.inputs[2];
  sum.alpha = attrFloat(call, "alpha");
  const NormRows rows = trailingRows(call, call.inputs[1], call.inputs[3]);
  std::vector<float> scaled(rows.n);
  layerNormGradients(
      rows, call.inputs[0], call.inputs[3], call.inputs[4], call.inputs[5], call.outputs[3], call.outputs[2],
      [&](int64_t i, float* x) { sum.load(i, rows.n, x); },
      [&](int64_t i, float* row_dx) {
        storeFloat(dgx.dtype, dgx.data, i * rows.n, rows.n, row_dx);
        for (int64_t j = 0; j < rows.n; ++j) scaled[j] = sum.alpha * row_dx[j];
        storeFloat(dx.dtype, dx.data, i * rows.n, rows.n, scaled.data());
      });
}

KernelCost costAddLayerNorm(const OpCall& call) { return fusedNormCost(call, 3, 9); }
KernelCost costDeepNorm(const OpCall& call) { return fusedNormCost(call, 3, 10); }
KernelCost costAddLayerNormGrad(const OpCall& call) { return fusedNormCost(call, 3, 13); }
KernelCost costDeepNormGrad(const OpCall& call) { return fusedNormCost(call, 3, 14); }

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AddLayerNorm", &validateAddLayerNorm, &computeAddLayerNorm, &costAddLayerNorm});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AddLayerNormGrad", &validateAddLayerNormGrad, &computeAddLayerNormGrad,
                                     &costAddLayerNormGrad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DeepNorm", &validateDeepNorm, &computeDeepNorm, &costDeepNorm});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DeepNormGrad", &validateDeepNormGrad, &computeDeepNormGrad, &costDeepNormGrad});

}  // namespace
}  // namespace ascend_sim
