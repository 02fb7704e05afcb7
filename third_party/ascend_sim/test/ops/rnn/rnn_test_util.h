// What the recurrent kernels' suites share: stored inputs, tolerances, and the
// central differences their gradients are checked against.
#pragma once

#include <cmath>
#include <functional>
#include <vector>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {

inline std::vector<double> widen(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

// Values of dtype dt in [lo, hi), as stored.
inline std::vector<float> storedFloats(aclDataType dt, size_t n, float lo, float hi, uint32_t seed) {
  std::vector<float> v = randomFloats(n, lo, hi, seed);
  for (float& e : v) e = roundTo(dt, e);
  return v;
}

// fp32: a few roundings per step; fp16: the carried state rounded every step. `scale` widens it
// for gradients (sums over the steps).
inline std::function<double(double)> rnnTol(aclDataType dt, double scale) {
  const double rel = dt == ACL_FLOAT16 ? 1e-2 : 2e-5, abs = dt == ACL_FLOAT16 ? 4e-3 : 2e-5;
  return [=](double ref) { return scale * (rel * std::fabs(ref) + abs); };
}

// d loss / d (model.*field)[e] for every e, by central differences of step 1e-6 in double.
template <class Model>
std::vector<double> centralDifferences(const Model& model, std::vector<double> Model::*field,
                                       const std::function<double(const Model&)>& loss) {
  std::vector<double> g((model.*field).size());
  for (size_t e = 0; e < g.size(); ++e) {
    Model up = model, down = model;
    (up.*field)[e] += 1e-6;
    (down.*field)[e] -= 1e-6;
    g[e] = (loss(up) - loss(down)) / 2e-6;
  }
  return g;
}

}  // namespace test
}  // namespace ascend_sim
