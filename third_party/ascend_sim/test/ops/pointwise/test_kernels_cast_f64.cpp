// float64 as a storage dtype (Cast, Fill, the data-movement ops; CANN's Cast
// supports DT_DOUBLE, frameworks create float64 tensors on the device) and
// int16 as an ordinary integer dtype.
#include <gtest/gtest.h>

#include <cstring>

#include "common/dtype.h"
#include "kernel_test_util.h"

namespace ascend_sim {
namespace {

using namespace ascend_sim::test;

TEST(KernelCastDouble, WidensExactlyAndNarrowsWithOneRounding) {
  auto x = HostTensor::floats(ACL_FLOAT, {3}, {1.5f, -0.1f, 3e38f});
  HostTensor d(ACL_DOUBLE, {3});
  run(makeCall("Cast", {&x}, {&d}));
  double got[3];
  std::memcpy(got, d.data(), sizeof(got));
  EXPECT_EQ(got[0], 1.5);
  EXPECT_EQ(got[1], static_cast<double>(-0.1f));
  EXPECT_EQ(got[2], static_cast<double>(3e38f));
  HostTensor back(ACL_FLOAT16, {3});
  run(makeCall("Cast", {&d}, {&back}));
  EXPECT_EQ(back.toFloats()[0], 1.5f);
  EXPECT_EQ(back.toFloats()[1], halfToFloat(floatToHalf(-0.1f)));  // one rounding
}

TEST(KernelCastDouble, OtherOpsStillRejectFloat64) {
  HostTensor a(ACL_DOUBLE, {2}), b(ACL_DOUBLE, {2}), y(ACL_DOUBLE, {2});
  EXPECT_EQ(runExpectError(makeCall("Add", {&a, &b}, {&y})).code, ACL_ERROR_OP_UNSUPPORTED_DTYPE);
}

TEST(KernelStorageDtypes, Float64FillAndMovesAreExact) {
  const double third = 1.0 / 3.0;
  HostTensor value(ACL_DOUBLE, {}), y(ACL_DOUBLE, {5});
  std::memcpy(value.data(), &third, sizeof(double));
  run(makeCall("Fill", {&value}, {&y}));
  double got[5];
  std::memcpy(got, y.data(), sizeof(got));
  for (double g : got) EXPECT_EQ(g, third);  // not rounded through fp32
  HostTensor ivalue = HostTensor::ints(ACL_INT64, {}, {(int64_t{1} << 40) + 1}), z(ACL_DOUBLE, {2});
  run(makeCall("Fill", {&ivalue}, {&z}));
  std::memcpy(got, z.data(), 2 * sizeof(double));
  EXPECT_EQ(got[0], static_cast<double>((int64_t{1} << 40) + 1));
  // AsStrided and Transpose move float64 bit for bit.
  HostTensor m(ACL_DOUBLE, {2, 3}), t(ACL_DOUBLE, {3, 2}), s(ACL_DOUBLE, {3, 2});
  double mv[6] = {third, 2, 3, 4, 5, -third};
  std::memcpy(m.data(), mv, sizeof(mv));
  run(makeCall("Transpose", {&m}, {&t}, attrs({{"perm", std::vector<int64_t>{1, 0}}})));
  HostTensor flat(ACL_DOUBLE, {6});
  std::memcpy(flat.data(), mv, sizeof(mv));
  run(makeCall("AsStrided", {&flat}, {&s},
               attrs({{"size", std::vector<int64_t>{3, 2}}, {"stride", std::vector<int64_t>{1, 3}},
                      {"storage_offset", int64_t{0}}})));
  double tv[6], sv[6];
  std::memcpy(tv, t.data(), sizeof(tv));
  std::memcpy(sv, s.data(), sizeof(sv));
  const double want[6] = {third, 4, 2, 5, 3, -third};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(tv[i], want[i]);
    EXPECT_EQ(sv[i], want[i]);
  }
}

TEST(KernelStorageDtypes, Int16ArithmeticWrapsAndCasts) {
  auto a = HostTensor::ints(ACL_INT16, {3}, {32767, -5, 100}), b = HostTensor::ints(ACL_INT16, {3}, {1, 7, -300});
  HostTensor sum(ACL_INT16, {3}), as_float(ACL_FLOAT, {3});
  run(makeCall("Add", {&a, &b}, {&sum}));
  EXPECT_EQ(sum.toInts(), (std::vector<int64_t>{-32768, 2, -200}));  // two's-complement wrap, as the CPU
  run(makeCall("Cast", {&a}, {&as_float}));
  EXPECT_EQ(as_float.toFloats(), (std::vector<float>{32767, -5, 100}));
}

}  // namespace
}  // namespace ascend_sim
