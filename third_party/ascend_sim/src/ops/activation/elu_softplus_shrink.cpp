// Activations and their gradients (OPS.md "Pointwise math and activations"):
// Elu/EluGradV2, SoftplusV2/SoftplusV2Grad, Mish/MishGrad,
// HardSigmoid/HardSigmoidGrad, SoftShrink/SoftShrinkGrad,
// HardShrink/HardShrinkGrad, ThresholdV2D, LogSigmoid/LogSigmoidGrad, PRelu/PReluGrad,
// Logit/LogitGrad, and the pointwise losses SmoothL1LossV2, HuberLoss and
// SoftMarginLoss with their gradients (reduction "none": the plugin reduces).
// ElementwiseSpec table rows (Note [Elementwise engine]) following PyTorch's
// CPU scalar formulas in fp32:
//   Elu           x <= 0 ? (exp(x * input_scale) - 1) * alpha * scale : x * scale
//   EluGradV2     is_result: y <= 0 ? g * input_scale * (y + alpha * scale) : g * scale
//                 else:      x <= 0 ? g * input_scale * alpha * scale * exp(x * input_scale) : g * scale
//   SoftplusV2    x * beta > threshold ? x : log1p(exp(x * beta)) / beta
//   Mish          x * tanh(log1p(exp(x)))
//   HardSigmoid   min(max(x + 3, 0), 6) / 6
//   SoftShrink    x > l ? x - l : (x < -l ? x + l : 0)
//   HardShrink    -l <= x <= l ? 0 : x
//   ThresholdV2D  x <= threshold ? value : x
//   LogSigmoid    min(x, 0) - log1p(exp(-|x|))
//   PRelu         x > 0 ? x : w * x
//   Logit         eps < 0: log(x / (1 - x)); else z = clamp(x, eps, 1 - eps), log(z / (1 - z))
//   SmoothL1      d = |x - y|: d < beta ? 0.5 d² / beta : d - 0.5 beta
//   HuberLoss     d = |x - y|: d < delta ? 0.5 d² : delta (d - 0.5 delta)
//   SoftMarginLoss     log1p(exp(-x y))
//   SoftMarginLossGrad z = exp(-x y): -y z / (1 + z) * dout
#include <cmath>
#include <limits>

#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

using P = const float*;

constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

struct EluOp {  // params: alpha, scale, input_scale
  float operator()(float x, P p) const { return x <= 0 ? std::expm1(x * p[2]) * (p[0] * p[1]) : x * p[1]; }
};
struct EluGradOp {  // (grads, activations = x or y); params: alpha, scale, input_scale, is_result
  float operator()(float g, float v, P p) const {
    const float neg = p[0] * p[1];
    if (v > 0) return g * p[1];
    return p[3] != 0 ? g * p[2] * (v + neg) : g * p[2] * neg * std::exp(v * p[2]);
  }
};
struct SoftplusOp {  // params: beta, threshold
  float operator()(float x, P p) const { return x * p[0] > p[1] ? x : std::log1p(std::exp(x * p[0])) / p[0]; }
};
struct SoftplusGradOp {  // (gradients, features)
  float operator()(float g, float x, P p) const {
    const float z = std::exp(x * p[0]);
    return x * p[0] > p[1] ? g : g * z / (z + 1.0f);
  }
};
struct MishOp {
  float operator()(float x, P) const { return x * std::tanh(std::log1p(std::exp(x))); }
};
struct MishGradOp {  // (gradients, x)
  float operator()(float g, float x, P) const {
    const float s = 1.0f / (1.0f + std::exp(-x));
    const float t = std::tanh(std::log1p(std::exp(x)));
    return g * (t + x * s * (1.0f - t * t));
  }
};
struct HardSigmoidOp {
  float operator()(float x, P) const {
    if (x != x) return x;
    return std::fmin(std::fmax(x + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
};
struct HardSigmoidGradOp {  // (gradients, features)
  float operator()(float g, float x, P) const { return (x > -3.0f && x < 3.0f) ? g / 6.0f : 0.0f; }
};
struct SoftShrinkOp {  // params: lambd
  float operator()(float x, P p) const { return x > p[0] ? x - p[0] : (x < -p[0] ? x + p[0] : 0.0f); }
};
struct SoftShrinkGradOp {  // (gradients, features)
  float operator()(float g, float x, P p) const { return (x >= -p[0] && x <= p[0]) ? 0.0f : g; }
};
struct HardShrinkOp {
  float operator()(float x, P p) const { return (x >= -p[0] && x <= p[0]) ? 0.0f : x; }
};
struct HardShrinkGradOp {  // (gradients, features)
  float operator()(float g, float x, P p) const { return (x >= -p[0] && x <= p[0]) ? 0.0f : g; }
};
struct ThresholdOp {  // params: threshold, value; integers compare in double
  float operator()(float x, P p) const { return x <= p[0] ? p[1] : x; }
  int64_t operator()(int64_t x, P p) const {
    return static_cast<double>(x) <= static_cast<double>(p[0]) ? static_cast<int64_t>(p[1]) : x;
  }
};
struct LogSigmoidOp {
  float operator()(float x, P) const { return std::fmin(x, 0.0f) - std::log1p(std::exp(-std::fabs(x))); }
};
struct LogSigmoidGradOp {  // (gradients, features)
  float operator()(float g, float x, P) const {
    const bool neg = x < 0;
    const float z = std::exp(-std::fabs(x));
    return g * ((neg ? 1.0f : 0.0f) - (neg ? 1.0f : -1.0f) * (z / (1.0f + z)));
  }
};
struct PReluOp {  // (x, weight)
  float operator()(float x, float w, P) const { return x > 0 ? x : w * x; }
};
struct PReluGradOp {  // (gradients, features, weights) -> dx
  float operator()(float g, float x, float w, P) const { return x > 0 ? g : w * g; }
};
struct PReluWeightGradOp {  // (gradients, features) -> per-element weight gradient
  float operator()(float g, float x, P) const { return x > 0 ? 0.0f : x * g; }
};
struct LogitOp {  // params: eps (< 0: none)
  float operator()(float x, P p) const {
    float z = x;
    if (p[0] >= 0) {
      const float lo = p[0], hi = 1.0f - p[0];
      z = x < lo ? lo : (x > hi ? hi : x);
    }
    return std::log(z / (1.0f - z));
  }
};
struct LogitGradOp {  // (gradients, x); params: eps
  float operator()(float g, float x, P p) const {
    const bool none = p[0] < 0;
    const float lo = none ? 0.0f : p[0], hi = none ? 1.0f : 1.0f - p[0];
    if (x < lo || x > hi) return none ? kNanF : 0.0f;
    return g / (x * (1.0f - x));
  }
};
struct SmoothL1Op {  // (predict, label); params: sigma (beta)
  float operator()(float x, float y, P p) const {
    const float d = std::fabs(x - y);
    return d < p[0] ? 0.5f * d * d / p[0] : d - 0.5f * p[0];
  }
};
struct SmoothL1GradOp {  // (predict, label, dout)
  float operator()(float x, float y, float g, P p) const {
    const float d = x - y;
    if (d <= -p[0]) return -g;
    if (d >= p[0]) return g;
    return d * g / p[0];
  }
};
struct HuberOp {  // (predict, label); params: delta
  float operator()(float x, float y, P p) const {
    const float d = std::fabs(x - y);
    return d < p[0] ? 0.5f * d * d : p[0] * (d - 0.5f * p[0]);
  }
};
struct HuberGradOp {  // (predict, label, dout)
  float operator()(float x, float y, float g, P p) const {
    const float d = x - y;
    if (d <= -p[0]) return -g * p[0];
    if (d >= p[0]) return g * p[0];
    return d * g;
  }
};
struct SoftMarginOp {  // (predict, label)
  float operator()(float x, float y, P) const { return std::log1p(std::exp(-x * y)); }
};
struct SoftMarginGradOp {  // (predict, label, dout)
  float operator()(float x, float y, float g, P) const {
    const float z = std::exp(-x * y);
    return -y * z / (1.0f + z) * g;
  }
};
#define UNARY(name, Op, ...) \
  {name, 1, {"x", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F1(Op), nullptr, -1, {__VA_ARGS__}}
#define GRAD(name, in2, Op, ...)                                                                        \
  {name, 2, {"gradients", in2, "backprops"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(Op), nullptr, \
   -1, {__VA_ARGS__}}
#define LOSS(name, Op, ...) \
  {name, 2, {"predict", "label", "loss"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(Op), nullptr, -1, {__VA_ARGS__}}
#define LOSS_GRAD(name, Op, ...)                                                                          \
  {name, 3, {"predict", "label", "dout", "gradient"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F3(Op), \
   nullptr, -1, {__VA_ARGS__}}

const ElementwiseSpec kSpecs[] = {
    UNARY("Elu", EluOp, {"alpha", 1.0f, false}, {"scale", 1.0f, false}, {"input_scale", 1.0f, false}),
    {"EluGradV2", 2, {"grads", "activations", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(EluGradOp),
     nullptr, -1,
     {{"alpha", 1.0f, false}, {"scale", 1.0f, false}, {"input_scale", 1.0f, false}, {"is_result", 0.0f, false}}},
    UNARY("SoftplusV2", SoftplusOp, {"beta", 1.0f, false}, {"threshold", 20.0f, false}),
    GRAD("SoftplusV2Grad", "features", SoftplusGradOp, {"beta", 1.0f, false}, {"threshold", 20.0f, false}),
    UNARY("Mish", MishOp),
    GRAD("MishGrad", "x", MishGradOp),
    UNARY("HardSigmoid", HardSigmoidOp),
    GRAD("HardSigmoidGrad", "features", HardSigmoidGradOp),
    UNARY("SoftShrink", SoftShrinkOp, {"lambd", 0.5f, false}),
    GRAD("SoftShrinkGrad", "features", SoftShrinkGradOp, {"lambd", 0.5f, false}),
    UNARY("HardShrink", HardShrinkOp, {"lambd", 0.5f, false}),
    GRAD("HardShrinkGrad", "features", HardShrinkGradOp, {"lambd", 0.5f, false}),
    {"ThresholdV2D", 1, {"x", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F1(ThresholdOp),
     ASCEND_SIM_I1(ThresholdOp), -1, {{"threshold", 0.0f, true}, {"value", 0.0f, true}}},
    UNARY("LogSigmoid", LogSigmoidOp),
    GRAD("LogSigmoidGrad", "features", LogSigmoidGradOp),
    {"PRelu", 2, {"x", "weight", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(PReluOp), nullptr},
    {"PReluGrad", 3, {"grads", "features", "weights", "dx"}, kFloatTypes, OutDtype::kSame,
     ASCEND_SIM_F3(PReluGradOp), nullptr},
    GRAD("PReluWeightGrad", "features", PReluWeightGradOp),
    UNARY("Logit", LogitOp, {"eps", -1.0f, false}),
    GRAD("LogitGrad", "x", LogitGradOp, {"eps", -1.0f, false}),
    LOSS("SmoothL1LossV2", SmoothL1Op, {"sigma", 1.0f, false}),
    LOSS_GRAD("SmoothL1LossGradV2", SmoothL1GradOp, {"sigma", 1.0f, false}),
    LOSS("HuberLoss", HuberOp, {"delta", 1.0f, false}),
    LOSS_GRAD("HuberLossGrad", HuberGradOp, {"delta", 1.0f, false}),
    LOSS("SoftMarginLoss", SoftMarginOp),
    LOSS_GRAD("SoftMarginLossGrad", SoftMarginGradOp),
};
#undef UNARY
#undef GRAD
#undef LOSS
#undef LOSS_GRAD

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
