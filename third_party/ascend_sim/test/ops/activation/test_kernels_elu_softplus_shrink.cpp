// Activations, their gradients and the pointwise losses of OPS.md "Pointwise
// math and activations" against double references written here (forward
// formulas and analytic derivatives), fp32 and fp16, private formats, empty
// tensors, integer ThresholdV2D, validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "pointwise_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

using Ref1 = std::function<double(double)>;

double softplus(double x) { return std::log1p(std::exp(x)); }
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

std::vector<float> samples() {
  std::vector<float> v = randomFloats(3000, -8, 8, 42);
  for (float e : {0.0f, -0.0f, 0.5f, -0.5f, 3.0f, -3.0f, 25.0f, -25.0f}) v.push_back(e);
  return v;
}

// y = op(x) vs f(x), fp32 and fp16.
void checkForward(const char* op, const Ref1& f, const AttrMap& a = {}) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(std::string(op) + " " + dtypeName(dt));
    const auto x = roundedTo(dt, samples());
    const auto y = runFloatOp(op, dt, {x}, a);
    std::vector<double> want;
    for (float v : x) want.push_back(f(v));
    expectNear(dt, y, want);
  }
}

// op(g, x) vs g·f'(x), fp32 and fp16.
void checkGrad(const char* op, const Ref1& deriv, const AttrMap& a = {}) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(std::string(op) + " " + dtypeName(dt));
    const auto x = roundedTo(dt, samples());
    const auto g = roundedTo(dt, randomFloats(x.size(), -2, 2, 7));
    const auto y = runFloatOp(op, dt, {g, x}, a);
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i) want.push_back(g[i] * deriv(x[i]));
    expectNear(dt, y, want);
  }
}

}  // namespace

TEST(KernelActivationMore, EluFamily) {
  const AttrMap a = attrs({{"alpha", 1.5f}, {"scale", 1.0507f}, {"input_scale", 0.75f}});
  const double fa = static_cast<double>(1.5f), fs = static_cast<double>(1.0507f), fi = static_cast<double>(0.75f);
  checkForward("Elu", [&](double x) { return x <= 0 ? std::expm1(x * fi) * fa * fs : x * fs; }, a);
  checkForward("Elu", [](double x) { return x <= 0 ? std::expm1(x) : x; });  // defaults: plain elu
  checkGrad("EluGradV2", [&](double x) { return x <= 0 ? fi * fa * fs * std::exp(x * fi) : fs; }, a);
  // is_result: the saved tensor is the output y; dy/dx = input_scale (y + alpha scale) for y <= 0
  AttrMap ar = a;
  ar.set("is_result", true);
  checkGrad("EluGradV2", [&](double y) { return y <= 0 ? fi * (y + fa * fs) : fs; }, ar);
}

TEST(KernelActivationMore, SoftplusMishHardSigmoid) {
  const AttrMap a = attrs({{"beta", 2.0f}, {"threshold", 10.0f}});
  checkForward("SoftplusV2", [](double x) { return 2 * x > 10 ? x : softplus(2 * x) / 2; }, a);
  checkForward("SoftplusV2", [](double x) { return x > 20 ? x : softplus(x); });
  checkGrad("SoftplusV2Grad", [](double x) { return 2 * x > 10 ? 1.0 : sigmoid(2 * x); }, a);
  checkForward("Mish", [](double x) { return x * std::tanh(softplus(x)); });
  checkGrad("MishGrad", [](double x) {
    const double t = std::tanh(softplus(x));
    return t + x * sigmoid(x) * (1 - t * t);
  });
  checkForward("HardSigmoid", [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; });
  checkGrad("HardSigmoidGrad", [](double x) { return x > -3 && x < 3 ? 1.0 / 6 : 0.0; });
}

TEST(KernelActivationMore, ShrinkThresholdLogSigmoid) {
  const AttrMap l = attrs({{"lambd", 0.5f}});
  checkForward("SoftShrink", [](double x) { return x > 0.5 ? x - 0.5 : (x < -0.5 ? x + 0.5 : 0.0); }, l);
  checkGrad("SoftShrinkGrad", [](double x) { return std::fabs(x) <= 0.5 ? 0.0 : 1.0; }, l);
  checkForward("HardShrink", [](double x) { return std::fabs(x) <= 0.5 ? 0.0 : x; }, l);
  checkGrad("HardShrinkGrad", [](double x) { return std::fabs(x) <= 0.5 ? 0.0 : 1.0; }, l);
  checkForward("ThresholdV2D", [](double x) { return x <= 0.5 ? -2.0 : x; },
               attrs({{"threshold", 0.5f}, {"value", -2.0f}}));
  checkForward("LogSigmoid", [](double x) { return -softplus(-x); });
  checkGrad("LogSigmoidGrad", [](double x) { return 1 - sigmoid(x); });
}

TEST(KernelActivationMore, ThresholdIntegers) {
  HostTensor x = HostTensor::ints(ACL_INT64, {4}, {-3, 1, 2, 5}), y(ACL_INT64, {4});
  run(makeCall("ThresholdV2D", {&x}, {&y}, attrs({{"threshold", 1.5f}, {"value", 9.0f}})));
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{9, 9, 2, 5}));
}

TEST(KernelActivationMore, ThresholdGradPassesNan) {
  // threshold_backward: features <= threshold ? 0 : g, so a NaN feature keeps g
  EXPECT_EQ(runFloatOp("ThresholdGradV2D", ACL_FLOAT, {{2, 3, 4}, {NAN, 0.5f, 0.7f}}, attrs({{"threshold", 0.5f}})),
            (std::vector<float>{2, 0, 4}));
}

TEST(KernelActivationMore, PReluBroadcastAndGrads) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const auto xv = roundedTo(dt, randomFloats(2 * 3 * 4, -3, 3, 1));
    const auto wv = roundedTo(dt, {0.1f, -0.5f, 2.0f});
    const auto gv = roundedTo(dt, randomFloats(xv.size(), -1, 1, 2));
    HostTensor x = HostTensor::floats(dt, {2, 3, 4}, xv), w = HostTensor::floats(dt, {1, 3, 1}, wv),
               g = HostTensor::floats(dt, {2, 3, 4}, gv), y(dt, {2, 3, 4}), dx(dt, {2, 3, 4}), dw(dt, {2, 3, 4});
    run(makeCall("PRelu", {&x, &w}, {&y}));
    run(makeCall("PReluGrad", {&g, &x, &w}, {&dx}));
    run(makeCall("PReluWeightGrad", {&g, &x}, {&dw}));
    std::vector<double> wy, wdx, wdw;
    for (size_t i = 0; i < xv.size(); ++i) {
      const double s = wv[(i / 4) % 3], xi = xv[i], gi = gv[i];
      wy.push_back(xi > 0 ? xi : s * xi);
      wdx.push_back(xi > 0 ? gi : s * gi);
      wdw.push_back(xi > 0 ? 0.0 : xi * gi);
    }
    expectNear(dt, y.toFloats(), wy);
    expectNear(dt, dx.toFloats(), wdx);
    expectNear(dt, dw.toFloats(), wdw);
  }
}

TEST(KernelActivationMore, LogitAndGrad) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const auto x = roundedTo(dt, randomFloats(1000, 0.01f, 0.99f, 3));
    const auto g = roundedTo(dt, randomFloats(1000, -1, 1, 4));
    const double eps = static_cast<double>(0.2f);
    std::vector<double> plain, clamped, dplain, dclamped;
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = x[i], z = std::min(std::max(v, eps), 1 - eps);
      plain.push_back(std::log(v / (1 - v)));
      clamped.push_back(std::log(z / (1 - z)));
      dplain.push_back(g[i] / (v * (1 - v)));
      dclamped.push_back(v < eps || v > 1 - eps ? 0.0 : g[i] / (v * (1 - v)));
    }
    expectNear(dt, runFloatOp("Logit", dt, {x}), plain, 1, 2);
    expectNear(dt, runFloatOp("Logit", dt, {x}, attrs({{"eps", 0.2f}})), clamped, 1, 2);
    expectNear(dt, runFloatOp("LogitGrad", dt, {g, x}), dplain, 1, 2);
    expectNear(dt, runFloatOp("LogitGrad", dt, {g, x}, attrs({{"eps", 0.2f}})), dclamped, 1, 2);
  }
  // outside [0, 1] without eps: NaN
  EXPECT_TRUE(std::isnan(runFloatOp("LogitGrad", ACL_FLOAT, {{1.0f}, {1.5f}})[0]));
}

TEST(KernelActivationMore, SmoothL1AndHuber) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const auto x = roundedTo(dt, randomFloats(1000, -3, 3, 5)), t = roundedTo(dt, randomFloats(1000, -3, 3, 6));
    const auto g = roundedTo(dt, randomFloats(1000, -1, 1, 7));
    const double beta = 0.75;
    std::vector<double> sl1, dsl1, hub, dhub;
    for (size_t i = 0; i < x.size(); ++i) {
      const double d = x[i] - static_cast<double>(t[i]), ad = std::fabs(d);
      sl1.push_back(ad < beta ? 0.5 * d * d / beta : ad - 0.5 * beta);
      dsl1.push_back(ad >= beta ? (d > 0 ? g[i] : -g[i]) : d * g[i] / beta);
      hub.push_back(ad < beta ? 0.5 * d * d : beta * (ad - 0.5 * beta));
      dhub.push_back(ad >= beta ? (d > 0 ? g[i] * beta : -g[i] * beta) : d * g[i]);
    }
    const AttrMap s = attrs({{"sigma", 0.75f}}), h = attrs({{"delta", 0.75f}});
    expectNear(dt, runFloatOp("SmoothL1LossV2", dt, {x, t}, s), sl1, 1, 2);
    expectNear(dt, runFloatOp("SmoothL1LossGradV2", dt, {x, t, g}, s), dsl1, 1, 2);
    expectNear(dt, runFloatOp("HuberLoss", dt, {x, t}, h), hub, 1, 2);
    expectNear(dt, runFloatOp("HuberLossGrad", dt, {x, t, g}, h), dhub, 1, 2);
  }
  // beta = 0 is the L1 loss, its gradient the sign (no 0/0 at x == y, where
  // PyTorch's order of tests, x <= -beta first, gives -g)
  EXPECT_EQ(runFloatOp("SmoothL1LossV2", ACL_FLOAT, {{2, -1}, {0.5f, -1}}, attrs({{"sigma", 0.0f}})),
            (std::vector<float>{1.5f, 0}));
  EXPECT_EQ(runFloatOp("SmoothL1LossGradV2", ACL_FLOAT, {{2, -1}, {0.5f, -1}, {3, 3}}, attrs({{"sigma", 0.0f}})),
            (std::vector<float>{3, -3}));
}

TEST(KernelActivationMore, SoftMargin) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const auto x = roundedTo(dt, randomFloats(1000, -4, 4, 8)), g = roundedTo(dt, randomFloats(1000, -1, 1, 9));
    std::vector<float> t;
    for (size_t i = 0; i < x.size(); ++i) t.push_back(i % 3 == 0 ? -1.0f : 1.0f);
    std::vector<double> loss, grad;
    for (size_t i = 0; i < x.size(); ++i) {
      const double z = std::exp(-static_cast<double>(x[i]) * t[i]);
      loss.push_back(std::log1p(z));
      grad.push_back(-t[i] * z / (1 + z) * g[i]);
    }
    expectNear(dt, runFloatOp("SoftMarginLoss", dt, {x, t}), loss, 1, 2);
    expectNear(dt, runFloatOp("SoftMarginLossGrad", dt, {x, t, g}), grad, 1, 2);
  }
}

TEST(KernelActivationMore, PrivateFormatsAndEmpty) {
  expectPrivateFormatMatchesNd("Mish", {}, 1);
  expectPrivateFormatMatchesNd("SoftplusV2Grad", {}, 2);
  expectPrivateFormatMatchesNd("HuberLossGrad", {}, 3);
  for (const char* op : {"Elu", "LogSigmoid"}) {
    HostTensor x(ACL_FLOAT16, {3, 0}), y(ACL_FLOAT16, {3, 0});
    run(makeCall(op, {&x}, {&y}));
  }
}

TEST(KernelActivationMore, ValidationErrors) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {4}, {1, 2, 3, 4}), y(ACL_FLOAT, {4});
  EXPECT_KERNEL_ERROR(makeCall("ThresholdV2D", {&x}, {&y}, attrs({{"threshold", 1.0f}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "missing required attribute 'value'");
  HostTensor xi = HostTensor::ints(ACL_INT32, {4}, {1, 2, 3, 4}), yi(ACL_INT32, {4});
  EXPECT_KERNEL_ERROR(makeCall("Mish", {&xi}, {&yi}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x dtype int32");
  HostTensor w = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, 3});
  EXPECT_KERNEL_ERROR(makeCall("PRelu", {&x, &w}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input weight shape [3] does not broadcast to output shape [4]");
  HostTensor yh(ACL_FLOAT16, {4});
  EXPECT_KERNEL_ERROR(makeCall("HuberLoss", {&x, &x}, {&yh}), ACL_ERROR_OP_INPUT_NOT_MATCH, "dtype");
  EXPECT_KERNEL_ERROR(makeCall("EluGradV2", {&x, &x}, {&y}, attrs({{"is_result", std::string("yes")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "is_result");
}
