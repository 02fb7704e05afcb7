// Bincount and Histogram against counts computed here.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(KernelBincount, CountsAndWeightedSums) {
  const std::vector<int64_t> v = {3, 0, 3, 7, 1, 3, 0};
  const std::vector<float> w = {0.5f, 1, 2, -1, 0.25f, 4, 3};
  for (aclDataType dt : {ACL_INT32, ACL_INT64, ACL_UINT8}) {
    HostTensor x = HostTensor::ints(dt, {7}, v), y(ACL_INT64, {10});
    run(makeCall("Bincount", {&x}, {&y}, attrs({{"size", int64_t{10}}})));
    EXPECT_EQ(y.toInts(), (std::vector<int64_t>{2, 1, 0, 3, 0, 0, 0, 1, 0, 0}));
  }
  HostTensor x = HostTensor::ints(ACL_INT64, {7}, v);
  for (aclDataType wt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor wts = HostTensor::floats(wt, {7}, w), y(ACL_FLOAT, {8});
    run(makeCall("Bincount", {&x, &wts}, {&y}, attrs({{"size", int64_t{8}}})));
    EXPECT_EQ(y.toFloats(), (std::vector<float>{4, 0.25f, 0, 6.5f, 0, 0, 0, -1}));
  }
  // float64 weights and result: the sums in double.
  HostTensor wd(ACL_DOUBLE, {7}), yd(ACL_DOUBLE, {8});
  const double wdv[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7};
  std::memcpy(wd.data(), wdv, sizeof wdv);
  run(makeCall("Bincount", {&x, &wd}, {&yd}, attrs({{"size", int64_t{8}}})));
  const auto* r = static_cast<const double*>(yd.data());
  EXPECT_EQ(r[0], 0.2 + 0.7);
  EXPECT_EQ(r[3], 0.1 + 0.3 + 0.6);
  // Empty input, zero size.
  HostTensor e(ACL_INT64, {0}), ye(ACL_INT64, {3}), y0(ACL_INT64, {0});
  run(makeCall("Bincount", {&e}, {&ye}, attrs({{"size", int64_t{3}}})));
  EXPECT_EQ(ye.toInts(), (std::vector<int64_t>{0, 0, 0}));
  run(makeCall("Bincount", {&e}, {&y0}, attrs({{"size", int64_t{0}}})));
}

TEST(KernelBincount, FaultsAndValidation) {
  HostTensor x = HostTensor::ints(ACL_INT64, {3}, {1, 5, 2}), y(ACL_INT64, {5});
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&x}, {&y}, attrs({{"size", int64_t{5}}})), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "element 1 is 5, outside [0, 5)");
  HostTensor neg = HostTensor::ints(ACL_INT64, {2}, {0, -1}), y2(ACL_INT64, {2});
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&neg}, {&y2}, attrs({{"size", int64_t{2}}})), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "is -1");
  HostTensor xf(ACL_FLOAT, {3}), x2(ACL_INT64, {2, 2}), w(ACL_FLOAT, {2}), yf(ACL_FLOAT, {5});
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&xf}, {&y}, attrs({{"size", int64_t{5}}})), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "input x");
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&x2}, {&y}, attrs({{"size", int64_t{5}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "1-D");
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&x, &w}, {&yf}, attrs({{"size", int64_t{5}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input weights shape [2]");
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&x}, {&yf}, attrs({{"size", int64_t{5}}})), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "output y");
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&x}, {&y}, attrs({{"size", int64_t{4}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [5]");
  EXPECT_KERNEL_ERROR(makeCall("Bincount", {&x}, {&y}, {}), ACL_ERROR_OP_ATTR_NOT_MATCH, "size");
}

TEST(KernelHistogram, BinsEdgesOutsideAndNaN) {
  const std::vector<float> v = {0, 0.5f, 1, 1.99f, 2, 3.999f, 4, -0.01f, 4.01f, kNaN, 2.5f};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {11}, v), y(dt, {4});
    run(makeCall("Histogram", {&x}, {&y}, attrs({{"bins", int64_t{4}}, {"min", 0.0f}, {"max", 4.0f}})));
    // bins [0,1) [1,2) [2,3) [3,4]; fp16 rounds 1.99 to 1.990 and 3.999 to 4.0 (the last bin either way).
    EXPECT_EQ(y.toFloats(), (std::vector<float>{2, 2, 2, 2}));
  }
  // Against a direct count on random data with an offset range.
  const auto r = randomFloats(2000, -3, 5, 101);
  HostTensor x = HostTensor::floats(ACL_FLOAT, {40, 50}, r), y(ACL_FLOAT, {7});
  run(makeCall("Histogram", {&x}, {&y}, attrs({{"bins", int64_t{7}}, {"min", -1.0f}, {"max", 3.5f}})));
  std::vector<float> want(7, 0);
  for (float e : r) {
    if (e < -1.0f || e > 3.5f) continue;
    const double pos = (static_cast<double>(e) + 1.0) * 7.0 / 4.5;
    want[std::min<int64_t>(6, static_cast<int64_t>(pos))] += 1;
  }
  EXPECT_EQ(y.toFloats(), want);
  HostTensor e(ACL_FLOAT, {0}), ye(ACL_FLOAT, {3});
  run(makeCall("Histogram", {&e}, {&ye}, attrs({{"bins", int64_t{3}}, {"min", 0.0f}, {"max", 1.0f}})));
  EXPECT_EQ(ye.toFloats(), (std::vector<float>{0, 0, 0}));
}

TEST(KernelHistogram, Validation) {
  HostTensor x(ACL_FLOAT, {4}), y(ACL_FLOAT, {3}), yi(ACL_INT64, {3}), xi(ACL_INT32, {4}), yi32(ACL_INT32, {3});
  auto at = [](int64_t bins, float lo, float hi) { return attrs({{"bins", bins}, {"min", lo}, {"max", hi}}); };
  EXPECT_KERNEL_ERROR(makeCall("Histogram", {&x}, {&y}, at(0, 0, 1)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "'bins' must be > 0");
  EXPECT_KERNEL_ERROR(makeCall("Histogram", {&x}, {&y}, at(3, 1, 1)), ACL_ERROR_OP_ATTR_NOT_MATCH, "min < max");
  EXPECT_KERNEL_ERROR(makeCall("Histogram", {&x}, {&y}, at(3, 0, INFINITY)), ACL_ERROR_OP_ATTR_NOT_MATCH, "finite");
  EXPECT_KERNEL_ERROR(makeCall("Histogram", {&x}, {&y}, at(4, 0, 1)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [3]");
  EXPECT_KERNEL_ERROR(makeCall("Histogram", {&x}, {&yi}, at(3, 0, 1)), ACL_ERROR_OP_INPUT_NOT_MATCH, "int64");
  EXPECT_KERNEL_ERROR(makeCall("Histogram", {&xi}, {&yi32}, at(3, 0, 1)), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
