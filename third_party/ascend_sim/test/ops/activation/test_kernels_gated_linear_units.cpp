// SwiGlu / SwiGluGrad and GeGluV2 / GeGluGradV2 (Note [Gated linear units]) against references
// computed here in double from the definitions: every split dim, both halves activated, both
// GELU forms, fp32 / fp16 / bf16, empty inputs, and the errors.
#include <cmath>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::function<double(double)> tol(aclDataType dt) { return oneRounding(dt, 2e-6, 1e-6); }

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }
double gelu(double v, bool tanh_form) {
  if (!tanh_form) return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
}
double geluDerivative(double v, bool tanh_form) {
  if (!tanh_form) return 0.5 * (1 + std::erf(v / std::sqrt(2.0))) + v * std::exp(-v * v / 2) / std::sqrt(2 * M_PI);
  const double k = std::sqrt(2 / M_PI), t = std::tanh(k * (v + 0.044715 * v * v * v));
  return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * 0.044715 * v * v);
}

// Offsets of the halves of x [outer][2 * half][inner] (the split dim in the middle).
struct Split {
  int64_t outer, half, inner;
  int64_t a(int64_t o, int64_t m, int64_t i) const { return (o * 2 * half + m) * inner + i; }
  int64_t b(int64_t o, int64_t m, int64_t i) const { return (o * 2 * half + half + m) * inner + i; }
  int64_t h(int64_t o, int64_t m, int64_t i) const { return (o * half + m) * inner + i; }
};

struct Case {
  Shape x, half;
  int64_t dim;
  Split split;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> v = {
      {{3, 2, 10}, {3, 2, 5}, -1, {6, 5, 1}},
      {{4, 6, 5}, {4, 3, 5}, 1, {4, 3, 5}},
      {{8, 3}, {4, 3}, 0, {1, 4, 3}},
      {{2, 4, 3}, {2, 2, 3}, -2, {2, 2, 3}},
  };
  return v;
}

}  // namespace

TEST(KernelSwiGlu, ForwardAndGradientMatchTheDefinition) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (const Case& c : cases()) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " dim " + std::to_string(c.dim));
      const Split& s = c.split;
      const std::vector<float> xv = stored(dt, randomFloats(numelOf(c.x), -6, 6, 1)),
                               dyv = stored(dt, randomFloats(numelOf(c.half), -2, 2, 2));
      HostTensor x = HostTensor::floats(dt, c.x, xv), dy = HostTensor::floats(dt, c.half, dyv);
      HostTensor y(dt, c.half), dx(dt, c.x);
      run(makeCall("SwiGlu", {&x}, {&y}, attrs({{"dim", c.dim}})));
      run(makeCall("SwiGluGrad", {&dy, &x}, {&dx}, attrs({{"dim", c.dim}})));
      std::vector<double> want_y(numelOf(c.half)), want_dx(numelOf(c.x));
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t m = 0; m < s.half; ++m)
          for (int64_t i = 0; i < s.inner; ++i) {
            const double a = xv[s.a(o, m, i)], b = xv[s.b(o, m, i)], g = dyv[s.h(o, m, i)], sg = sigmoid(a);
            want_y[s.h(o, m, i)] = a * sg * b;
            want_dx[s.a(o, m, i)] = g * b * (sg + a * sg * (1 - sg));
            want_dx[s.b(o, m, i)] = g * a * sg;
          }
      expectNearReference(y.toFloats(), want_y, tol(dt), "y");
      expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
    }
}

TEST(KernelGeGlu, ForwardAndGradientMatchTheDefinition) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (const Case& c : cases())
      for (int64_t approximate : {0, 1})
        for (bool left : {false, true}) {
          SCOPED_TRACE(std::string(dtypeName(dt)) + " dim " + std::to_string(c.dim) + " approximate " +
                       std::to_string(approximate) + (left ? " left" : " right"));
          const Split& s = c.split;
          const std::vector<float> xv = stored(dt, randomFloats(numelOf(c.x), -4, 4, 3)),
                                   dyv = stored(dt, randomFloats(numelOf(c.half), -2, 2, 4));
          HostTensor x = HostTensor::floats(dt, c.x, xv), dy = HostTensor::floats(dt, c.half, dyv);
          HostTensor y(dt, c.half), g(dt, c.half), dx(dt, c.x);
          const AttrMap a = attrs({{"dim", c.dim}, {"approximate", approximate}, {"activate_left", left}});
          run(makeCall("GeGluV2", {&x}, {&y, &g}, a));
          run(makeCall("GeGluGradV2", {&dy, &x, &g}, {&dx}, a));
          const std::vector<float> gv = g.toFloats();
          std::vector<double> want_y(numelOf(c.half)), want_g(want_y.size()), want_dx(numelOf(c.x));
          for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t m = 0; m < s.half; ++m)
              for (int64_t i = 0; i < s.inner; ++i) {
                const int64_t act = left ? s.a(o, m, i) : s.b(o, m, i), other = left ? s.b(o, m, i) : s.a(o, m, i);
                const int64_t h = s.h(o, m, i);
                want_g[h] = gelu(xv[act], approximate == 1);
                want_y[h] = xv[other] * double(gv[h]);  // y takes gelu as stored
                want_dx[other] = dyv[h] * double(gv[h]);
                want_dx[act] = dyv[h] * xv[other] * geluDerivative(xv[act], approximate == 1);
              }
          expectNearReference(gv, want_g, tol(dt), "gelu");
          expectNearReference(y.toFloats(), want_y, tol(dt), "y");
          // gelu' of the tanh form cancels in fp32 (0.5 (1 + t) against the t' term for negative inputs):
          // its fp32 error is absolute, about 1e-6 of the operands' scale
          const auto dx_tol = [&](double ref) { return tol(dt)(ref) + (dt == ACL_FLOAT ? 1e-5 : 0.0); };
          expectNearReference(dx.toFloats(), want_dx, dx_tol, "dx");
        }
}

TEST(KernelGatedLinearUnits, EmptyInputsCostsAndErrors) {
  HostTensor e(ACL_FLOAT, {0, 4}), eh(ACL_FLOAT, {0, 2});
  run(makeCall("SwiGlu", {&e}, {&eh}));  // nothing to do, no error
  HostTensor x(ACL_FLOAT, {3, 5}), y(ACL_FLOAT, {3, 2});
  EXPECT_KERNEL_ERROR(makeCall("SwiGlu", {&x}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "odd size 5 at dim 1");
  HostTensor x4(ACL_FLOAT, {3, 4}), y2(ACL_FLOAT, {3, 2}), g2(ACL_FLOAT, {3, 2}), y3(ACL_FLOAT, {3, 3});
  EXPECT_KERNEL_ERROR(makeCall("SwiGlu", {&x4}, {&y2}, attrs({{"dim", int64_t{2}}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "dim");
  EXPECT_KERNEL_ERROR(makeCall("SwiGlu", {&x4}, {&y3}), ACL_ERROR_OP_INPUT_NOT_MATCH, "dim halved");
  EXPECT_KERNEL_ERROR(makeCall("GeGluV2", {&x4}, {&y2, &g2}, attrs({{"approximate", int64_t{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "0 (erf) or 1 (tanh)");
  HostTensor scalar(ACL_FLOAT, {}), i4(ACL_INT32, {3, 4});
  EXPECT_KERNEL_ERROR(makeCall("SwiGlu", {&scalar}, {&y2}), ACL_ERROR_OP_INPUT_NOT_MATCH, "0-d");
  EXPECT_KERNEL_ERROR(makeCall("SwiGlu", {&i4}, {&y2}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "dtype int32 is not supported");
  HostTensor dy_bad(ACL_FLOAT, {3, 4}), dx(ACL_FLOAT, {3, 4});
  EXPECT_KERNEL_ERROR(makeCall("SwiGluGrad", {&dy_bad, &x4}, {&dx}), ACL_ERROR_OP_INPUT_NOT_MATCH, "input dy");
  const KernelCost cost = kernel("SwiGlu").cost(makeCall("SwiGlu", {&x4}, {&y2}));
  EXPECT_EQ(cost.core, CoreType::kVector);
  EXPECT_GT(cost.flops, 0);
}

}  // namespace test
}  // namespace ascend_sim
