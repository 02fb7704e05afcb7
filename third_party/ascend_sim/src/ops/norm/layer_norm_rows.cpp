// Note [Layer norm rows] (layer_norm_rows.h).
#include "ops/norm/layer_norm_rows.h"

#include <cmath>

#include "ops/reduce/reduce_util.h"

namespace ascend_sim {

NormRows trailingRows(const OpCall& call, const TensorArg& x, const TensorArg& gamma) {
  const size_t r = x.shape.size(), k = gamma.shape.size();
  bool trailing = k >= 1 && k <= r;
  for (size_t i = 0; trailing && i < k; ++i) trailing = gamma.shape[i] == x.shape[r - k + i];
  if (!trailing)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "gamma shape " + shapeToString(gamma.shape) + " must be the trailing dims of x shape " +
             shapeToString(x.shape));
  NormRows rows;
  rows.n = gamma.numel();
  rows.m = 1;
  for (size_t i = 0; i < r - k; ++i) rows.m *= x.shape[i];
  return rows;
}

void checkNormParam(const OpCall& call, const TensorArg& p, const std::string& name, const TensorArg& x, int64_t n) {
  if (p.dtype != ACL_FLOAT) checkSameDtype(call, x, "x", p, name);
  if (p.numel() != n)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(p.shape) + " must hold the " + std::to_string(n) +
             " normalised elements of x " + shapeToString(x.shape));
}

void checkNormStat(const OpCall& call, const TensorArg& s, const std::string& name, int64_t rows) {
  checkDtype(call, s, name, dtBit(ACL_FLOAT));
  if (s.numel() != rows)
    fail(
        call, ACL_ERROR_OP_INPUT_NOT_MATCH,
        name + " shape " + shapeToString(s.shape) + " must hold one value per row (" + std::to_string(rows) + " rows)");
}

RowMoments layerNormRow(const float* row, int64_t n, int64_t block, float eps, const float* g, const float* b,
                        float* out, float* tmp) {
  RowMoments r;
  if (n == 0) return {std::nanf(""), std::nanf("")};
  for (int64_t j = 0; j < n; ++j) tmp[j] = row[j];
  r.mean = pairwiseSum(tmp, n, block) / static_cast<float>(n);
  for (int64_t j = 0; j < n; ++j) tmp[j] = (row[j] - r.mean) * (row[j] - r.mean);
  const float var = pairwiseSum(tmp, n, block) / static_cast<float>(n);
  r.rstd = 1.0f / std::sqrt(var + eps);
  for (int64_t j = 0; j < n; ++j) out[j] = (row[j] - r.mean) * r.rstd * g[j] + b[j];
  return r;
}

LayerNormGradRows::LayerNormGradRows(int64_t m, int64_t n, int64_t block, const float* gamma)
    : m_(m),
      n_(n),
      block_(block),
      gamma_(gamma),
      g_(n),
      g_xhat_(n),
      xhat_(n),
      dy_xhat_(static_cast<size_t>(m * n)),
      dy_all_(static_cast<size_t>(m * n)) {}

void LayerNormGradRows::row(int64_t i, const float* x, const float* dy, RowMoments moments, float* dx) {
  for (int64_t j = 0; j < n_; ++j) {
    xhat_[j] = (x[j] - moments.mean) * moments.rstd;
    g_[j] = dy[j] * gamma_[j];
    g_xhat_[j] = g_[j] * xhat_[j];
    dy_xhat_[i * n_ + j] = dy[j] * xhat_[j];
    dy_all_[i * n_ + j] = dy[j];
  }
  std::vector<float> g_sum = g_;  // pairwiseSum works in place
  const float mean_g = pairwiseSum(g_sum.data(), n_, block_) / static_cast<float>(n_);
  const float mean_gx = pairwiseSum(g_xhat_.data(), n_, block_) / static_cast<float>(n_);
  for (int64_t j = 0; j < n_; ++j) dx[j] = moments.rstd * (g_[j] - mean_g - xhat_[j] * mean_gx);
}

void LayerNormGradRows::columnSums(float* dgamma, float* dbeta) {
  reduceColumnsFloat(dy_xhat_.data(), m_, n_, block_, ReduceKind::kSum, dgamma);
  reduceColumnsFloat(dy_all_.data(), m_, n_, block_, ReduceKind::kSum, dbeta);
}

}  // namespace ascend_sim
