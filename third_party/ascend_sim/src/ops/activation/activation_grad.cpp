// Activation gradients (OPS.md "Elementwise"): ReluGrad, ThresholdGradV2D,
// SigmoidGrad, TanhGrad. Inputs broadcast like any elementwise op.
#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

using P = const float*;

struct ReluGradOp {  // (gradients, features)
  float operator()(float g, float f, P) const { return f > 0 ? g : 0.0f; }
  int64_t operator()(int64_t g, int64_t f, P) const { return f > 0 ? g : 0; }
};
struct ThresholdGradOp {  // params[0] = threshold; a NaN feature passes the gradient (PyTorch's threshold_backward)
  float operator()(float g, float f, P p) const { return f <= p[0] ? 0.0f : g; }
  int64_t operator()(int64_t g, int64_t f, P p) const {
    return static_cast<double>(f) <= static_cast<double>(p[0]) ? 0 : g;
  }
};
struct SigmoidGradOp {  // (y, dy): dy * y * (1 - y)
  float operator()(float y, float dy, P) const { return dy * y * (1.0f - y); }
};
struct TanhGradOp {  // (y, dy): dy * (1 - y * y)
  float operator()(float y, float dy, P) const { return dy * (1.0f - y * y); }
};

const ElementwiseSpec kSpecs[] = {
    {"ReluGrad", 2, {"gradients", "features", "backprops"}, kNumericTypes, OutDtype::kSame,
     ASCEND_SIM_F2(ReluGradOp), ASCEND_SIM_I2(ReluGradOp)},
    {"ThresholdGradV2D", 2, {"gradients", "features", "backprops"}, kNumericTypes,
     OutDtype::kSame, ASCEND_SIM_F2(ThresholdGradOp), ASCEND_SIM_I2(ThresholdGradOp), -1,
     {{"threshold", 0.0f, true}}},
    {"SigmoidGrad", 2, {"y", "dy", "z"}, kFloatTypes, OutDtype::kSame,
     ASCEND_SIM_F2(SigmoidGradOp), nullptr},
    {"TanhGrad", 2, {"y", "dy", "z"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(TanhGradOp),
     nullptr},
};

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
