// A double-precision layer norm over rows, forward and backward: the
// reference of the layer norm kernels' tests (LayerNormV3 / LayerNormGradV3,
// AddLayerNorm, DeepNorm and their gradients).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace ascend_sim {
namespace test {

struct LayerNormRef {
  std::vector<double> y, mean, rstd, dx, dgamma, dbeta;
};

// Reference layer norm over rows of `n`, and its gradient for dy.
inline LayerNormRef layerNormRef(const std::vector<float>& x, const std::vector<float>& g, const std::vector<float>& b,
                                 const std::vector<float>& dy, int64_t m, int64_t n, double eps) {
  LayerNormRef r;
  r.dgamma.assign(n, 0.0);
  r.dbeta.assign(n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j) mean += x[i * n + j];
    mean /= n;
    for (int64_t j = 0; j < n; ++j) var += (x[i * n + j] - mean) * (x[i * n + j] - mean);
    var /= n;
    const double rstd = 1.0 / std::sqrt(var + eps);
    r.mean.push_back(mean);
    r.rstd.push_back(rstd);
    double sum_g = 0, sum_gx = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double xhat = (x[i * n + j] - mean) * rstd;
      r.y.push_back(xhat * g[j] + b[j]);
      sum_g += dy[i * n + j] * g[j];
      sum_gx += dy[i * n + j] * g[j] * xhat;
      r.dgamma[j] += dy[i * n + j] * xhat;
      r.dbeta[j] += dy[i * n + j];
    }
    for (int64_t j = 0; j < n; ++j) {
      const double xhat = (x[i * n + j] - mean) * rstd;
      r.dx.push_back(rstd * (dy[i * n + j] * g[j] - sum_g / n - xhat * sum_gx / n));
    }
  }
  return r;
}

}  // namespace test
}  // namespace ascend_sim
