// The fused kernels torch_npu's LLM custom ops call: FastGelu / FastGeluGrad,
// RmsNorm / RmsNormGrad, RotaryMul / RotaryMulGrad and
// SoftmaxCrossEntropyWithLogits, against references computed here in double
// from the textbook formulas (not the kernels' stable rewrites).
#include <cmath>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

// The tolerance of a result of dtype `dt`: fp32 math rounded once, plus the fp32 error of a row's sums.
std::function<double(double)> tol(aclDataType dt) { return oneRounding(dt, 1e-5, 1e-5); }

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

TEST(KernelFastGelu, ForwardAndGradientAreXTimesSigmoid) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<float> xv = stored(dt, randomFloats(300, -12, 12, 1)), dyv = stored(dt, randomFloats(300, -2, 2, 2));
    xv[0] = -90.0f;  // exp(1.702 * 90) overflows fp32: the stable form must not
    xv[1] = 90.0f;
    xv[2] = 0.0f;
    HostTensor x = HostTensor::floats(dt, {3, 100}, xv), dy = HostTensor::floats(dt, {3, 100}, dyv);
    HostTensor y(dt, {3, 100}), dx(dt, {3, 100});
    run(makeCall("FastGelu", {&x}, {&y}));
    run(makeCall("FastGeluGrad", {&dy, &x}, {&dx}));
    std::vector<double> want_y, want_dx;
    for (size_t i = 0; i < xv.size(); ++i) {
      const double s = sigmoid(1.702 * xv[i]);
      want_y.push_back(xv[i] * s);
      want_dx.push_back(dyv[i] * (s + 1.702 * xv[i] * s * (1 - s)));
    }
    expectNearReference(y.toFloats(), want_y, tol(dt), "y");
    expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
  }
}

TEST(KernelRmsNorm, ForwardAndBackwardMatchTheReference) {
  const int64_t m = 6, n = 3 * 37;  // x [2, 3, 3, 37], gamma [3, 37]
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    const std::vector<float> xv = stored(dt, randomFloats(m * n, -3, 5, 3)),
                             gv = stored(dt, randomFloats(n, 0.5, 1.5, 4)),
                             dyv = stored(dt, randomFloats(m * n, -1, 1, 5));
    HostTensor x = HostTensor::floats(dt, {2, 3, 3, 37}, xv), g = HostTensor::floats(dt, {3, 37}, gv),
               dy = HostTensor::floats(dt, {2, 3, 3, 37}, dyv);
    HostTensor y(dt, {2, 3, 3, 37}), rstd(ACL_FLOAT, {2, 3, 1, 1});
    const float eps = 1e-6f;
    run(makeCall("RmsNorm", {&x, &g}, {&y, &rstd}, attrs({{"epsilon", eps}})));
    HostTensor dx(dt, {2, 3, 3, 37}), dgamma(ACL_FLOAT, {3, 37});
    run(makeCall("RmsNormGrad", {&dy, &x, &rstd, &g}, {&dx, &dgamma}));

    std::vector<double> want_y, want_rstd, want_dx, want_dg(n, 0.0);
    for (int64_t i = 0; i < m; ++i) {
      double ms = 0;
      for (int64_t j = 0; j < n; ++j) ms += double(xv[i * n + j]) * xv[i * n + j];
      const double r = 1.0 / std::sqrt(ms / n + eps);
      want_rstd.push_back(r);
      // d/dx_k of x_j * r * g_j, summed with dy_j: r * dy_k g_k - x_k r^3 / n * S(dy g x).
      double sgx = 0;
      for (int64_t j = 0; j < n; ++j) sgx += double(dyv[i * n + j]) * gv[j] * xv[i * n + j];
      for (int64_t j = 0; j < n; ++j) {
        want_y.push_back(xv[i * n + j] * r * gv[j]);
        want_dx.push_back(r * dyv[i * n + j] * gv[j] - xv[i * n + j] * r * r * r / n * sgx);
        want_dg[j] += double(dyv[i * n + j]) * xv[i * n + j] * r;
      }
    }
    expectNearReference(y.toFloats(), want_y, tol(dt), "y");
    expectNearReference(rstd.toFloats(), want_rstd, tol(ACL_FLOAT), "rstd");
    expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
    expectNearReference(dgamma.toFloats(), want_dg, tol(dt == ACL_FLOAT ? ACL_FLOAT : ACL_FLOAT16), "dgamma");
  }
}

TEST(KernelRmsNorm, EmptyAndBadInputs) {
  HostTensor x(ACL_FLOAT, {0, 4}), g(ACL_FLOAT, {4}), y(ACL_FLOAT, {0, 4}), rstd(ACL_FLOAT, {0, 1});
  run(makeCall("RmsNorm", {&x, &g}, {&y, &rstd}));
  HostTensor x2(ACL_FLOAT, {2, 4}), y2(ACL_FLOAT, {2, 4}), r2(ACL_FLOAT, {2, 1}), g3(ACL_FLOAT, {3});
  EXPECT_KERNEL_ERROR(makeCall("RmsNorm", {&x2, &g3}, {&y2, &r2}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "gamma shape [3] must be the trailing dims of x shape [2,4]");
  HostTensor r16(ACL_FLOAT16, {2, 1});
  EXPECT_KERNEL_ERROR(makeCall("RmsNorm", {&x2, &g}, {&y2, &r16}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "rstd");
  HostTensor r3(ACL_FLOAT, {3, 1});
  EXPECT_KERNEL_ERROR(makeCall("RmsNorm", {&x2, &g}, {&y2, &r3}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "one value per row (2 rows)");
  HostTensor xi(ACL_INT32, {2, 4}), yi(ACL_INT32, {2, 4});
  EXPECT_KERNEL_ERROR(makeCall("RmsNorm", {&xi, &g}, {&yi, &r2}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
}

// AddRmsNorm: x = x1 + x2 rounded to the dtype (against a double sum rounded
// once), and y / rstd equal RmsNorm's of that x bit for bit.
TEST(KernelAddRmsNorm, TheSumIsRoundedOnceAndTheNormIsRmsNormsBits) {
  const Shape shape = {3, 5, 48};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    const std::vector<float> a = stored(dt, randomFloats(720, -3, 3, 11)), b = stored(dt, randomFloats(720, -3, 3, 12));
    HostTensor x1 = HostTensor::floats(dt, shape, a), x2 = HostTensor::floats(dt, shape, b),
               g = HostTensor::floats(dt, {48}, stored(dt, randomFloats(48, 0.5, 1.5, 13)));
    HostTensor y(dt, shape), rstd(ACL_FLOAT, {3, 5, 1}), x(dt, shape);
    run(makeCall("AddRmsNorm", {&x1, &x2, &g}, {&y, &rstd, &x}, attrs({{"epsilon", 1e-5f}})));
    std::vector<float> want_x;  // the exact sum of two fp32-representable values, rounded once
    for (size_t i = 0; i < a.size(); ++i) want_x.push_back(roundTo(dt, static_cast<float>(double(a[i]) + b[i])));
    expectSameBits(x.toFloats(), want_x, "x");
    HostTensor y_ref(dt, shape), rstd_ref(ACL_FLOAT, {3, 5, 1});
    run(makeCall("RmsNorm", {&x, &g}, {&y_ref, &rstd_ref}, attrs({{"epsilon", 1e-5f}})));
    expectSameBits(y.toFloats(), y_ref.toFloats(), "y");
    expectSameBits(rstd.toFloats(), rstd_ref.toFloats(), "rstd");
  }
  HostTensor e(ACL_FLOAT, {0, 4}), g4(ACL_FLOAT, {4}), r0(ACL_FLOAT, {0, 1});
  run(makeCall("AddRmsNorm", {&e, &e, &g4}, {&e, &r0, &e}));
  HostTensor x1(ACL_FLOAT, {2, 4}), x2(ACL_FLOAT, {2, 5}), h2(ACL_FLOAT16, {2, 4}), r2(ACL_FLOAT, {2, 1});
  EXPECT_KERNEL_ERROR(makeCall("AddRmsNorm", {&x1, &x2, &g4}, {&x1, &r2, &x1}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x2 shape [2,5]");
  EXPECT_KERNEL_ERROR(makeCall("AddRmsNorm", {&x1, &h2, &g4}, {&x1, &r2, &x1}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x2 dtype float16 does not match x1 dtype float32");
}

// y = x * r1 + rotate_half(x) * r2 with r1/r2 broadcast over x's leading dims.
struct RotaryCase {
  Shape x, r;
};

TEST(KernelRotaryMul, ForwardAndBackwardMatchTheReference) {
  const RotaryCase cases[] = {{{2, 3, 5, 8}, {1, 1, 5, 8}},   // cos/sin per position, broadcast over batch and heads
                              {{2, 3, 5, 8}, {2, 1, 5, 8}},   // per batch
                              {{4, 6}, {4, 6}},               // no broadcast
                              {{3, 2, 4}, {4}}};              // one table row for every row
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (const RotaryCase& c : cases) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " x " + shapeToString(c.x) + " r " + shapeToString(c.r));
      const int64_t xn = numelOf(c.x), rn = numelOf(c.r), d = c.x.back(), h = d / 2;
      const auto xv = stored(dt, randomFloats(xn, -2, 2, 6)), dyv = stored(dt, randomFloats(xn, -1, 1, 7)),
                 cv = stored(dt, randomFloats(rn, -1, 1, 8)), sv = stored(dt, randomFloats(rn, -1, 1, 9));
      HostTensor x = HostTensor::floats(dt, c.x, xv), dy = HostTensor::floats(dt, c.x, dyv),
                 r1 = HostTensor::floats(dt, c.r, cv), r2 = HostTensor::floats(dt, c.r, sv);
      HostTensor y(dt, c.x), dx(dt, c.x), dr1(dt, c.r), dr2(dt, c.r);
      run(makeCall("RotaryMul", {&x, &r1, &r2}, {&y}));
      run(makeCall("RotaryMulGrad", {&dy, &x, &r1, &r2}, {&dx, &dr1, &dr2}));

      // Reference through the broadcast index map, the gradient by the chain rule element by element.
      const Shape bs = broadcastStrides(c.r, c.x);
      std::vector<double> want_y(xn), want_dx(xn, 0.0), want_dr1(rn, 0.0), want_dr2(rn, 0.0);
      const Shape xs = contiguousStrides(c.x);
      for (int64_t e = 0; e < xn; ++e) {
        int64_t ro = 0;
        for (size_t k = 0; k < c.x.size(); ++k) ro += (e / xs[k]) % c.x[k] * bs[k];
        const int64_t j = e % d, partner = j < h ? e + h : e - h;
        const double sign = j < h ? -1.0 : 1.0, rot = sign * xv[partner];
        want_y[e] = xv[e] * double(cv[ro]) + rot * sv[ro];
        want_dx[e] += dyv[e] * double(cv[ro]);
        want_dx[partner] += dyv[e] * double(sv[ro]) * sign;  // y[e] reads x[partner] through rot
        want_dr1[ro] += double(dyv[e]) * xv[e];
        want_dr2[ro] += double(dyv[e]) * rot;
      }
      expectNearReference(y.toFloats(), want_y, tol(dt), "y");
      expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
      expectNearReference(dr1.toFloats(), want_dr1, tol(dt), "dr1");
      expectNearReference(dr2.toFloats(), want_dr2, tol(dt), "dr2");
    }
  }
}

TEST(KernelRotaryMul, NeedBackwardFalseLeavesTheTablesAndBadInputs) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 4}, randomFloats(8, -1, 1, 1)), r(ACL_FLOAT, {1, 4});
  HostTensor dx(ACL_FLOAT, {2, 4}), dr1 = HostTensor::floats(ACL_FLOAT, {1, 4}, {7, 7, 7, 7}),
                                  dr2 = HostTensor::floats(ACL_FLOAT, {1, 4}, {7, 7, 7, 7});
  run(makeCall("RotaryMulGrad", {&x, &x, &r, &r}, {&dx, &dr1, &dr2}, attrs({{"need_backward", false}})));
  EXPECT_EQ(dr1.toFloats(), std::vector<float>(4, 7.0f));
  EXPECT_EQ(dr2.toFloats(), std::vector<float>(4, 7.0f));

  HostTensor x5(ACL_FLOAT, {2, 5}), r5(ACL_FLOAT, {2, 5}), y5(ACL_FLOAT, {2, 5});
  EXPECT_KERNEL_ERROR(makeCall("RotaryMul", {&x5, &r5, &r5}, {&y5}), ACL_ERROR_OP_INPUT_NOT_MATCH, "even last dim");
  HostTensor y(ACL_FLOAT, {2, 4}), r3(ACL_FLOAT, {3, 4}), rhalf(ACL_FLOAT, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("RotaryMul", {&x, &r3, &r3}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must broadcast to x shape [2,4]");
  EXPECT_KERNEL_ERROR(makeCall("RotaryMul", {&x, &rhalf, &rhalf}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "with the same last dim");
  EXPECT_KERNEL_ERROR(makeCall("RotaryMul", {&x, &r, &r3}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "must have one shape");
  HostTensor empty(ACL_FLOAT, {0, 4}), empty_y(ACL_FLOAT, {0, 4});
  run(makeCall("RotaryMul", {&empty, &r, &r}, {&empty_y}));
}

TEST(KernelSoftmaxCrossEntropy, LossAndBackpropMatchTheReference) {
  const int64_t n = 5, c = 150;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const auto xv = stored(dt, randomFloats(n * c, -8, 8, 10));
    std::vector<float> lv = randomFloats(n * c, 0, 1, 11);
    for (int64_t i = 0; i < n; ++i) {  // each row a distribution
      double s = 0;
      for (int64_t j = 0; j < c; ++j) s += lv[i * c + j];
      for (int64_t j = 0; j < c; ++j) lv[i * c + j] = static_cast<float>(lv[i * c + j] / s);
    }
    lv = stored(dt, lv);
    HostTensor x = HostTensor::floats(dt, {n, c}, xv), labels = HostTensor::floats(dt, {n, c}, lv);
    HostTensor loss(dt, {n}), backprop(dt, {n, c});
    run(makeCall("SoftmaxCrossEntropyWithLogits", {&x, &labels}, {&loss, &backprop}));
    std::vector<double> want_loss, want_bp;
    for (int64_t i = 0; i < n; ++i) {
      double z = 0;
      for (int64_t j = 0; j < c; ++j) z += std::exp(double(xv[i * c + j]));
      double l = 0;
      for (int64_t j = 0; j < c; ++j) {
        l -= lv[i * c + j] * (xv[i * c + j] - std::log(z));
        want_bp.push_back(std::exp(double(xv[i * c + j])) / z - lv[i * c + j]);
      }
      want_loss.push_back(l);
    }
    expectNearReference(loss.toFloats(), want_loss, tol(dt), "loss");
    expectNearReference(backprop.toFloats(), want_bp, tol(dt), "backprop");
  }
  HostTensor x3(ACL_FLOAT, {2, 3, 4}), l3(ACL_FLOAT, {2, 3, 4}), loss(ACL_FLOAT, {2}), bp(ACL_FLOAT, {2, 3, 4});
  EXPECT_KERNEL_ERROR(makeCall("SoftmaxCrossEntropyWithLogits", {&x3, &l3}, {&loss, &bp}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [N, C]");
  HostTensor x2(ACL_FLOAT, {2, 4}), l2(ACL_FLOAT, {2, 3}), bp2(ACL_FLOAT, {2, 4});
  EXPECT_KERNEL_ERROR(makeCall("SoftmaxCrossEntropyWithLogits", {&x2, &l2}, {&loss, &bp2}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "labels");
  HostTensor e(ACL_FLOAT, {0, 4}), el(ACL_FLOAT, {0}), ebp(ACL_FLOAT, {0, 4});
  run(makeCall("SoftmaxCrossEntropyWithLogits", {&e, &e}, {&el, &ebp}));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
