// Cast to and from float64 (CANN's Cast supports DT_DOUBLE; frameworks create
// float64 scalars on the device, e.g. index_put_ with a Python float).
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

}  // namespace
}  // namespace ascend_sim
