// ReduceStdV2 and ReduceNansum against double-precision references.
#include <cmath>
#include <limits>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

AttrMap stdAttrs(std::vector<int64_t> dim, int64_t correction, bool if_std, bool keepdim = false) {
  return attrs({{"dim", dim}, {"correction", correction}, {"if_std", if_std}, {"keepdim", keepdim}});
}

// Mean and variance (correction c) of a sequence, in double.
std::pair<double, double> meanVar(const std::vector<double>& s, int64_t c) {
  double m = 0;
  for (double v : s) m += v;
  m /= static_cast<double>(s.size());
  double q = 0;
  for (double v : s) q += (v - m) * (v - m);
  return {m, q / std::max<double>(0, static_cast<double>(s.size()) - static_cast<double>(c))};
}

TEST(KernelReduceStdV2, VarStdAndMeanOverAxes) {
  const int64_t A = 3, B = 130, C = 5;
  const auto v = randomFloats(A * B * C, -2, 3, 71);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {A, B, C}, v);
    const auto rx = x.toFloats();
    const double tol = dt == ACL_FLOAT ? 1e-5 : 2e-3;
    for (int64_t correction : {0, 1, 2}) {
      for (bool if_std : {false, true}) {
        // axis 1 (strided sequences, tiled path), keepdim
        HostTensor y(dt, {A, 1, C}), m(dt, {A, 1, C});
        run(makeCall("ReduceStdV2", {&x}, {&y, &m}, stdAttrs({1}, correction, if_std, true)));
        for (int64_t i = 0; i < A; ++i)
          for (int64_t k = 0; k < C; ++k) {
            std::vector<double> seq;
            for (int64_t j = 0; j < B; ++j) seq.push_back(rx[(i * B + j) * C + k]);
            const auto mv = meanVar(seq, correction);
            const double want = if_std ? std::sqrt(mv.second) : mv.second;
            ASSERT_NEAR(y.toFloats()[i * C + k], want, tol * (1 + want));
            ASSERT_NEAR(m.toFloats()[i * C + k], mv.first, tol);
          }
      }
    }
    // axes {0, 2} and all axes
    HostTensor y2(dt, {B}), m2(dt, {B});
    run(makeCall("ReduceStdV2", {&x}, {&y2, &m2}, stdAttrs({0, -1}, 1, false)));
    for (int64_t j = 0; j < B; ++j) {
      std::vector<double> seq;
      for (int64_t i = 0; i < A; ++i)
        for (int64_t k = 0; k < C; ++k) seq.push_back(rx[(i * B + j) * C + k]);
      ASSERT_NEAR(y2.toFloats()[j], meanVar(seq, 1).second, tol * 4);
    }
    HostTensor y3(dt, {}), m3(dt, {});
    run(makeCall("ReduceStdV2", {&x}, {&y3, &m3}, stdAttrs({}, 1, true)));
    std::vector<double> all(rx.begin(), rx.end());
    EXPECT_NEAR(y3.toFloats()[0], std::sqrt(meanVar(all, 1).second), tol * 4);
    EXPECT_NEAR(m3.toFloats()[0], meanVar(all, 1).first, tol);
  }
}

TEST(KernelReduceStdV2, TwoPassIsAccurateForALargeOffset) {
  // 1e4 + small noise: the one-pass E[x^2] - E[x]^2 form loses every digit in fp32.
  const int64_t n = 1000;
  auto noise = randomFloats(n, -1, 1, 72);
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = 10000.0f + noise[i];
  HostTensor x = HostTensor::floats(ACL_FLOAT, {n}, v), y(ACL_FLOAT, {}), m(ACL_FLOAT, {});
  run(makeCall("ReduceStdV2", {&x}, {&y, &m}, stdAttrs({0}, 1, false)));
  std::vector<double> seq(v.begin(), v.end());
  const double want = meanVar(seq, 1).second;
  EXPECT_NEAR(y.toFloats()[0], want, 1e-3 * want);
}

TEST(KernelReduceStdV2, DegenerateCountsAndEmptyInputs) {
  // n - correction <= 0: inf for a nonzero sum of squares, NaN for zero.
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 2}, {1, 3, 2, 2}), y(ACL_FLOAT, {2}), m(ACL_FLOAT, {2});
  run(makeCall("ReduceStdV2", {&x}, {&y, &m}, stdAttrs({1}, 2, false)));
  EXPECT_TRUE(std::isinf(y.toFloats()[0]));
  EXPECT_TRUE(std::isnan(y.toFloats()[1]));
  EXPECT_EQ(m.toFloats(), (std::vector<float>{2, 2}));
  // Reducing zero elements: NaN mean and variance.
  HostTensor e(ACL_FLOAT, {3, 0}), ye(ACL_FLOAT, {3}), me(ACL_FLOAT, {3});
  run(makeCall("ReduceStdV2", {&e}, {&ye, &me}, stdAttrs({1}, 1, false)));
  for (float f : ye.toFloats()) EXPECT_TRUE(std::isnan(f));
  for (float f : me.toFloats()) EXPECT_TRUE(std::isnan(f));
  // Empty output: nothing to do.
  HostTensor e2(ACL_FLOAT, {0, 4}), ye2(ACL_FLOAT, {0}), me2(ACL_FLOAT, {0});
  run(makeCall("ReduceStdV2", {&e2}, {&ye2, &me2}, stdAttrs({1}, 1, false)));
  // NaN propagates.
  HostTensor xn = HostTensor::floats(ACL_FLOAT, {3}, {1, kNaN, 2}), yn(ACL_FLOAT, {}), mn(ACL_FLOAT, {});
  run(makeCall("ReduceStdV2", {&xn}, {&yn, &mn}, stdAttrs({}, 1, true)));
  EXPECT_TRUE(std::isnan(yn.toFloats()[0]));
  // A 0-d input reduces one element.
  HostTensor x0 = HostTensor::floats(ACL_FLOAT, {}, {5}), y0(ACL_FLOAT, {}), m0(ACL_FLOAT, {});
  run(makeCall("ReduceStdV2", {&x0}, {&y0, &m0}, stdAttrs({0}, 0, false)));
  EXPECT_EQ(y0.toFloats()[0], 0.0f);
  EXPECT_EQ(m0.toFloats()[0], 5.0f);
}

TEST(KernelReduceStdV2, Validation) {
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2}), m(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("ReduceStdV2", {&x}, {&y, &m}, stdAttrs({0}, 1, false)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [2] does not match");
  EXPECT_KERNEL_ERROR(makeCall("ReduceStdV2", {&x}, {&y, &m}, stdAttrs({1, -1}, 1, false)),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "names axis 1 twice");
  EXPECT_KERNEL_ERROR(makeCall("ReduceStdV2", {&x}, {&y, &m}, stdAttrs({2}, 1, false)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "out of range");
  HostTensor xi(ACL_INT32, {2, 3}), yi(ACL_INT32, {2}), mi(ACL_INT32, {2});
  EXPECT_KERNEL_ERROR(makeCall("ReduceStdV2", {&xi}, {&yi, &mi}, stdAttrs({1}, 1, false)),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  HostTensor mh(ACL_FLOAT16, {2});
  EXPECT_KERNEL_ERROR(makeCall("ReduceStdV2", {&x}, {&y, &mh}, stdAttrs({1}, 1, false)),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output mean");
  EXPECT_KERNEL_ERROR(makeCall("ReduceStdV2", {&x}, {&y}, stdAttrs({1}, 1, false)), ACL_ERROR_OP_OUTPUT_NOT_MATCH,
                      "expected 2 outputs");
  HostTensor xf(ACL_FLOAT, {1, 1, 2, 2, 16}), yf(ACL_FLOAT, {1}), mf(ACL_FLOAT, {1});
  xf.setFormat(ACL_FORMAT_NC1HWC0);
  EXPECT_KERNEL_ERROR(makeCall("ReduceStdV2", {&xf}, {&yf, &mf}, stdAttrs({1, 2, 3, 4}, 1, false)),
                      ACL_ERROR_OP_UNSUPPORTED_FORMAT, "");
}

TEST(KernelReduceNansum, NaNCountsAsZero) {
  const std::vector<float> v = {1, kNaN, 2, kNaN, kNaN, kNaN, -3, 0.5f};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {2, 4}, v), y(dt, {2}), y0(dt, {4});
    run(makeCall("ReduceNansum", {&x}, {&y}, attrs({{"axes", std::vector<int64_t>{1}}})));
    EXPECT_EQ(y.toFloats(), (std::vector<float>{3, -2.5f}));
    run(makeCall("ReduceNansum", {&x}, {&y0}, attrs({{"axes", std::vector<int64_t>{0}}})));
    EXPECT_EQ(y0.toFloats(), (std::vector<float>{1, 0, -1, 0.5f}));
  }
  // Long sequences: the sum of the non-NaN elements.
  const int64_t n = 500;
  auto r = randomFloats(n, -1, 1, 73);
  double want = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 7 == 0) r[i] = kNaN;
    else want += r[i];
  }
  HostTensor xl = HostTensor::floats(ACL_FLOAT, {n}, r), yl(ACL_FLOAT, {});
  run(makeCall("ReduceNansum", {&xl}, {&yl}, attrs({{"axes", std::vector<int64_t>{}}})));
  EXPECT_NEAR(yl.toFloats()[0], want, 1e-4);
  // Integers are plain sums; empty reductions give 0.
  HostTensor xi = HostTensor::ints(ACL_INT32, {2, 2}, {1, 2, 3, 4}), yi(ACL_INT32, {2});
  run(makeCall("ReduceNansum", {&xi}, {&yi}, attrs({{"axes", std::vector<int64_t>{0}}})));
  EXPECT_EQ(yi.toInts(), (std::vector<int64_t>{4, 6}));
  HostTensor e(ACL_FLOAT, {2, 0}), ye(ACL_FLOAT, {2});
  run(makeCall("ReduceNansum", {&e}, {&ye}, attrs({{"axes", std::vector<int64_t>{1}}})));
  EXPECT_EQ(ye.toFloats(), (std::vector<float>{0, 0}));
  HostTensor xf(ACL_FLOAT, {2, 2}), yb(ACL_INT32, {2});
  EXPECT_KERNEL_ERROR(makeCall("ReduceNansum", {&xf}, {&yb}, attrs({{"axes", std::vector<int64_t>{0}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
