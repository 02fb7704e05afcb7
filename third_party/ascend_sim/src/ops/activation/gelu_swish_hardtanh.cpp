// More elementwise ops (OPS.md "More elementwise"): Hardtanh, HardSwish,
// Swish, Gelu, FastGelu, LeakyRelu and their gradients, ClipByValue, Addcmul,
// Addcdiv.
// They are ElementwiseSpec table entries (Note [Elementwise engine]), so they
// get fp16/bf16/fp32 handling (fp32 math, one rounding), broadcasting, private
// formats (Note [Elementwise on private formats]), the Vector cost and the
// multi-core split exactly like the ops of elementwise_unary.cpp.
//
// Each functor follows PyTorch's CPU scalar formula, evaluated in fp32 in the
// order written below (no FMA contraction on the targets we build for):
//   Hardtanh        min(max(x, lo), hi) (so lo > hi gives hi); NaN propagates
//   HardtanhGrad    (x <= lo || x >= hi) ? 0 : g   (PyTorch's hardtanh_backward; equals
//                   OPS.md's `lo < x < hi ? g : 0` except that a NaN feature passes g)
//   HardSwish       x * min(max(x + 3, 0), 6) / 6
//   HardSwishGrad   x < -3 ? 0 : x <= 3 ? g * (x / 3 + 0.5) : g
//   Swish           x / (1 + exp(-scale*x))            (attr `scale`, default 1 = silu)
//   SwishGrad       s = 1 / (1 + exp(-scale*x));  g * s * (1 + scale*x * (1 - s))
//   Gelu, GeluGrad  gelumath::gelu / geluGrad (gelu_math.h), attr-selected erf or tanh form
//   FastGelu        x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|))   (= x * sigmoid(1.702 x),
//                   written so that no exponential overflows)
//   FastGeluGrad    e = exp(-1.702|x|):  dy * (e + 1.702 x e + exp(1.702 (x - |x|))) / (e + 1)^2
//   LeakyRelu       x > 0 ? x : x * slope   (attr `negative_slope`, default 0 as CANN's op)
//   LeakyReluGrad   x > 0 ? g : g * slope
//   ClipByValue     NaN in any operand -> NaN, else min(max(x, lo), hi) (lo > hi gives hi,
//                   as torch.clamp); integers too
//   Addcmul         input + value * x1 * x2 (integers: value truncated, wrapping)
//   Addcdiv         input + value * x1 / x2 (float only)
#include <cmath>

#include "ops/activation/gelu_math.h"
#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

using P = const float*;

inline bool isNanF(float v) { return v != v; }

struct HardtanhOp {  // params: min_val, max_val
  float operator()(float x, P p) const {
    if (isNanF(x)) return x;
    const float a = x < p[0] ? p[0] : x;  // min(max(x, lo), hi): lo > hi gives hi, as torch.clamp
    return a > p[1] ? p[1] : a;
  }
};
struct HardtanhGradOp {  // (gradients, features)
  float operator()(float g, float x, P p) const { return (x <= p[0] || x >= p[1]) ? 0.0f : g; }
};
struct HardSwishOp {
  float operator()(float x, P) const {
    const float t = std::fmin(std::fmax(x + 3.0f, 0.0f), 6.0f);
    return isNanF(x) ? x : x * t / 6.0f;
  }
};
struct HardSwishGradOp {  // (gradients, features)
  float operator()(float g, float x, P) const {
    if (x < -3.0f) return 0.0f;
    if (x <= 3.0f) return g * (x / 3.0f + 0.5f);
    return g;
  }
};
struct SwishOp {  // params: scale
  float operator()(float x, P p) const { return x / (1.0f + std::exp(-(p[0] * x))); }
};
struct SwishGradOp {  // (gradients, x)
  float operator()(float g, float x, P p) const {
    const float s = 1.0f / (1.0f + std::exp(-(p[0] * x)));
    return g * s * (1.0f + p[0] * x * (1.0f - s));
  }
};
struct GeluOp {  // params[0]: 0 = "none" (erf), 1 = "tanh"
  float operator()(float x, P p) const { return gelumath::gelu(x, p[0] != 0.0f); }
};
struct GeluGradOp {  // (gradients, x)
  float operator()(float g, float x, P p) const { return gelumath::geluGrad(g, x, p[0] != 0.0f); }
};
constexpr float kFastGeluAlpha = 1.702f;
struct FastGeluOp {
  float operator()(float x, P) const {
    const float ax = std::fabs(x);
    return x / (1.0f + std::exp(-kFastGeluAlpha * ax)) * std::exp(0.5f * kFastGeluAlpha * (x - ax));
  }
};
struct FastGeluGradOp {  // (dy, x)
  float operator()(float dy, float x, P) const {
    const float ax = std::fabs(x);
    const float e = std::exp(-kFastGeluAlpha * ax);
    const float up = e + kFastGeluAlpha * x * e + std::exp(kFastGeluAlpha * (x - ax));
    const float down = (e + 1.0f) * (e + 1.0f);
    return dy * (up / down);
  }
};
struct LeakyReluOp {  // params: negative_slope
  float operator()(float x, P p) const { return x > 0 ? x : x * p[0]; }
};
struct LeakyReluGradOp {  // (gradients, features)
  float operator()(float g, float x, P p) const { return x > 0 ? g : g * p[0]; }
};
struct ClipOp {  // (x, clip_min, clip_max)
  float operator()(float x, float lo, float hi, P) const {
    if (isNanF(x)) return x;
    if (isNanF(lo)) return lo;
    if (isNanF(hi)) return hi;
    const float a = x < lo ? lo : x;
    return hi < a ? hi : a;
  }
  int64_t operator()(int64_t x, int64_t lo, int64_t hi, P) const {
    const int64_t a = x < lo ? lo : x;
    return hi < a ? hi : a;
  }
};
struct AddcmulOp {  // (input, x1, x2); params: value
  float operator()(float in, float a, float b, P p) const { return in + p[0] * a * b; }
  int64_t operator()(int64_t in, int64_t a, int64_t b, P p) const {
    return wrapAdd(in, wrapMul(wrapMul(static_cast<int64_t>(p[0]), a), b));
  }
};
struct AddcdivOp {  // (input, x1, x2); params: value
  float operator()(float in, float a, float b, P p) const { return in + p[0] * a / b; }
};

#define FLOAT1(name, Op, ...) \
  {name, 1, {"x", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F1(Op), nullptr, -1, {__VA_ARGS__}}
#define GRAD2(name, in2, Op, ...)                                                                       \
  {name, 2, {"gradients", in2, "backprops"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(Op), nullptr, \
   -1, {__VA_ARGS__}}

const ElementwiseSpec kSpecs[] = {
    FLOAT1("Hardtanh", HardtanhOp, {"min_val", -1.0f, false}, {"max_val", 1.0f, false}),
    GRAD2("HardtanhGrad", "features", HardtanhGradOp, {"min_val", -1.0f, false}, {"max_val", 1.0f, false}),
    FLOAT1("HardSwish", HardSwishOp),
    GRAD2("HardSwishGrad", "features", HardSwishGradOp),
    FLOAT1("Swish", SwishOp, {"scale", 1.0f, false}),
    GRAD2("SwishGrad", "x", SwishGradOp, {"scale", 1.0f, false}),
    {"Gelu", 1, {"x", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F1(GeluOp), nullptr, -1, {}, false,
     {"approximate", {"none", "tanh"}, 0}},
    {"GeluGrad", 2, {"gradients", "x", "backprops"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(GeluGradOp),
     nullptr, -1, {}, false, {"approximate", {"none", "tanh"}, 0}},
    FLOAT1("FastGelu", FastGeluOp),
    {"FastGeluGrad", 2, {"dy", "x", "z"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(FastGeluGradOp), nullptr},
    FLOAT1("LeakyRelu", LeakyReluOp, {"negative_slope", 0.0f, false}),
    GRAD2("LeakyReluGrad", "features", LeakyReluGradOp, {"negative_slope", 0.0f, false}),
    {"ClipByValue", 3, {"x", "clip_min", "clip_max", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F3(ClipOp),
     ASCEND_SIM_I3(ClipOp)},
    {"Addcmul", 3, {"input", "x1", "x2", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F3(AddcmulOp),
     ASCEND_SIM_I3(AddcmulOp), -1, {{"value", 1.0f, false}}},
    {"Addcdiv", 3, {"input", "x1", "x2", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F3(AddcdivOp), nullptr,
     -1, {{"value", 1.0f, false}}},
};
#undef FLOAT1
#undef GRAD2

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
