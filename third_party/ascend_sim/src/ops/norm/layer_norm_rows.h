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

}  // namespace ascend_sim
