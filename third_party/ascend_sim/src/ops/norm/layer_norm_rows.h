// The row math of the layer norm kernels (layer_norm.cpp: LayerNormV3 /
// LayerNormGradV3; fused_layer_norm.cpp: AddLayerNorm, DeepNorm and their
// gradients), Note [Layer norm rows]: x seen as [M, N], each of the M rows
// normalised over its N elements.
//
// Note [Layer norm rows]
// Per row, in fp32 (fp16/bf16 inputs widened):
//   mean = S(x) / N,  var = S((x - mean)^2) / N (two passes, biased),
//   rstd = 1 / sqrt(var + epsilon),  y = (x - mean) * rstd * gamma + beta,
// where S is the sum of Note [Pairwise blocks] (block size of x's dtype).
// mean and rstd are written per row, always in fp32 (the statistics of
// fp16/bf16 inputs stay fp32); a row of no elements has NaN statistics.
// The gradient, with xhat = (x - mean) * rstd and g = dy * gamma:
//   dx = rstd * (g - S(g) / N - xhat * S(g * xhat) / N)      (per row)
//   dgamma = S_rows(dy * xhat),  dbeta = S_rows(dy)           (per column,
// summed over the M rows in ascending row order by the same pairwise rule).
// An absent gamma (beta) means 1 (0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {

// x as [M, N] rows, N the elements of gamma, whose shape must be x's trailing
// dims (AddLayerNorm, DeepNorm, RmsNorm and their gradients).
struct NormRows {
  int64_t m = 0, n = 0;
};
NormRows trailingRows(const OpCall& call, const TensorArg& x, const TensorArg& gamma);

// gamma, beta and their gradients are of x's dtype or float32, each on its own
// (Note [Layer norm parameter dtypes]), and hold the n normalised elements.
void checkNormParam(const OpCall& call, const TensorArg& p, const std::string& name, const TensorArg& x, int64_t n);
// A statistic (mean, rstd): float32, one value per row.
void checkNormStat(const OpCall& call, const TensorArg& s, const std::string& name, int64_t rows);

// One row's statistics.
struct RowMoments {
  float mean = 0, rstd = 0;
};

// Normalises the n floats of `row` into `out` (gamma `g`, beta `b`, n floats
// each); `tmp` is scratch of n floats.
RowMoments layerNormRow(const float* row, int64_t n, int64_t block, float eps, const float* g, const float* b,
                        float* out, float* tmp);

// The gradient of M rows of N elements: each row's dx as it is computed, and
// the column sums dgamma, dbeta at the end (Note [Layer norm rows]).
class LayerNormGradRows {
 public:
  LayerNormGradRows(int64_t m, int64_t n, int64_t block, const float* gamma);
  // Row i's dx into `dx` (n floats) from its x and dy.
  void row(int64_t i, const float* x, const float* dy, RowMoments moments, float* dx);
  // The column sums, n floats each.
  void columnSums(float* dgamma, float* dbeta);

 private:
  int64_t m_, n_, block_;
  const float* gamma_;
  std::vector<float> g_, g_xhat_, xhat_, dy_xhat_, dy_all_;
};

// The layer norm gradient of M rows of N elements, read from and written to
// the kernel's tensors: row i's x from `load_x(i, x)` (n floats), dy, mean and
// rstd from their tensors, row i's dx to `row_done(i, dx)` (which may
// change it in place), and dgamma, dbeta
// (n elements each) at the end.
template <typename LoadX, typename RowDone>
void layerNormGradients(const NormRows& rows, const TensorArg& dy, const TensorArg& gamma, const TensorArg& mean,
                        const TensorArg& rstd, const TensorArg& dgamma, const TensorArg& dbeta, LoadX load_x,
                        RowDone row_done) {
  const int64_t n = rows.n;
  std::vector<float> g(n), x(n), dyr(n), dx(n);
  loadFloat(gamma.dtype, gamma.data, 0, 1, n, g.data());
  LayerNormGradRows grad(rows.m, n, reduceBlockElems(dy.dtype), g.data());
  for (int64_t i = 0; i < rows.m; ++i) {
    RowMoments r;
    loadFloat(mean.dtype, mean.data, i, 1, 1, &r.mean);
    loadFloat(rstd.dtype, rstd.data, i, 1, 1, &r.rstd);
    load_x(i, x.data());
    loadFloat(dy.dtype, dy.data, i * n, 1, n, dyr.data());
    grad.row(i, x.data(), dyr.data(), r, dx.data());
    row_done(i, dx.data());
  }
  std::vector<float> db(n);
  grad.columnSums(dx.data(), db.data());
  storeFloat(dgamma.dtype, dgamma.data, 0, n, dx.data());
  storeFloat(dbeta.dtype, dbeta.data, 0, n, db.data());
}

}  // namespace ascend_sim
