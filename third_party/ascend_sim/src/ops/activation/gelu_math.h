// The GELU formulas of Gelu / GeluGrad (gelu_swish_hardtanh.cpp) and of the gated units that
// apply it (GeGluV2 / GeGluGradV2, gated_linear_units.cpp): PyTorch's CPU scalar formulas,
// evaluated in fp32 in the order written.
//   none  gelu(x) = x * 0.5 * (1 + erff(x * M_SQRT1_2))
//         gelu'(x) = cdf + x * pdf, cdf = 0.5 * (1 + erff(x / sqrt2)), pdf = exp(-x^2/2) / sqrt(2 pi)
//   tanh  gelu(x) = 0.5 * x * (1 + tanhf(kBeta * (x + 0.044715 * x^3))), kBeta = sqrt(2/pi)
//         gelu'(x) PyTorch's GeluBackward (tanh) formula
#pragma once

#include <cmath>

namespace ascend_sim {
namespace gelumath {

constexpr float kSqrt1_2 = 0.70710678118654752440f;
constexpr float kBeta = 0.79788456080286535588f;   // sqrt(2/pi)
constexpr float kAlpha = 0.39894228040143267794f;  // 1/sqrt(2 pi)
constexpr float kKappa = 0.044715f;

inline float gelu(float x, bool tanh_form) {
  if (!tanh_form) return x * 0.5f * (1.0f + std::erf(x * kSqrt1_2));
  const float inner = kBeta * (x + kKappa * (x * x * x));
  return 0.5f * x * (1.0f + std::tanh(inner));
}

// g * gelu'(x).
inline float geluGrad(float g, float x, bool tanh_form) {
  if (!tanh_form) {
    const float cdf = 0.5f * (1.0f + std::erf(x * kSqrt1_2));
    const float pdf = kAlpha * std::exp(x * x * -0.5f);
    return g * (cdf + x * pdf);
  }
  const float x_sq = x * x;
  const float x_cube = x_sq * x;
  const float inner = kBeta * (x + kKappa * x_cube);
  const float t = std::tanh(inner);
  const float left = 0.5f * x;
  const float right = 1.0f + t;
  const float left_derivative = 0.5f * right;
  const float tanh_derivative = 1.0f - t * t;
  const float inner_derivative = kBeta * (1.0f + 3.0f * kKappa * x_sq);
  const float right_derivative = left * tanh_derivative * inner_derivative;
  return g * (left_derivative + right_derivative);
}

}  // namespace gelumath
}  // namespace ascend_sim
