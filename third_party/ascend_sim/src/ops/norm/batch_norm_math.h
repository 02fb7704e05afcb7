// The per-element formulas of Note [Batch norm numerics] (batch_norm.cpp), shared by the walk over
// (n, c) planes there and the walk over C0 lanes (batch_norm_lanes.cpp), so that both evaluate
// them in the same order with the same operations.
#pragma once

namespace ascend_sim {
namespace bnmath {

// BNTrainingUpdate's y.
inline float normalized(float x, float mean, float invstd, float scale, float offset) {
  return ((x - mean) * invstd) * scale + offset;
}
// BNInfer's y (den = sqrt(variance + eps)).
inline float inferred(float x, float mean, float den, float scale, float offset) {
  return (x - mean) / den * scale + offset;
}
// BNTrainingUpdateGrad's summand of diff_scale (before the invstd factor).
inline float centredGrad(float dy, float x, float mean) { return dy * (x - mean); }
// BNTrainingReduceGrad's dx with k = scale * invstd, a = diff_offset / M, b = invstd * diff_scale / M.
inline float inputGrad(float dy, float x, float k, float a, float mean, float b) {
  return k * (dy - a - (x - mean) * b);
}

}  // namespace bnmath
}  // namespace ascend_sim
