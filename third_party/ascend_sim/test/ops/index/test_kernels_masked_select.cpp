// MaskedSelect and NonZero: selections whose output size depends on the data.
#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace {

using namespace ascend_sim::test;

TEST(KernelMaskedSelect, SelectsInRowMajorOrder) {
  auto x = HostTensor::floats(ACL_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto mask = HostTensor::ints(ACL_BOOL, {2, 3}, {1, 0, 1, 0, 0, 1});
  HostTensor y(ACL_FLOAT, {3});
  run(makeCall("MaskedSelect", {&x, &mask}, {&y}));
  EXPECT_EQ(y.toFloats(), (std::vector<float>{1, 3, 6}));
}

TEST(KernelMaskedSelect, CountMismatchIsADeviceFault) {
  auto x = HostTensor::ints(ACL_INT64, {4}, {7, 8, 9, 10});
  auto mask = HostTensor::ints(ACL_BOOL, {4}, {1, 1, 0, 1});
  HostTensor y(ACL_INT64, {2});
  const ErrorResult e = runExpectError(makeCall("MaskedSelect", {&x, &mask}, {&y}));
  EXPECT_EQ(e.code, ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(e.msg.find("selects 3 elements but the output was sized for 2"), std::string::npos) << e.msg;
}

TEST(KernelMaskedSelect, ValidatesShapesAndDtypes) {
  auto x = HostTensor::floats(ACL_FLOAT, {2, 2}, {1, 2, 3, 4});
  auto bad_mask = HostTensor::ints(ACL_INT32, {2, 2}, {1, 0, 0, 1});
  HostTensor y(ACL_FLOAT, {2});
  EXPECT_EQ(runExpectError(makeCall("MaskedSelect", {&x, &bad_mask}, {&y})).code, ACL_ERROR_OP_UNSUPPORTED_DTYPE);
  auto short_mask = HostTensor::ints(ACL_BOOL, {4}, {1, 0, 0, 1});
  EXPECT_EQ(runExpectError(makeCall("MaskedSelect", {&x, &short_mask}, {&y})).code, ACL_ERROR_OP_INPUT_NOT_MATCH);
}

TEST(KernelNonZero, IndicesOfTrueElements) {
  auto x = HostTensor::ints(ACL_BOOL, {2, 3}, {0, 1, 0, 1, 0, 1});
  HostTensor y(ACL_INT64, {3, 2});
  run(makeCall("NonZero", {&x}, {&y}));
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{0, 1, 1, 0, 1, 2}));
  HostTensor wrong(ACL_INT64, {3, 3});
  EXPECT_EQ(runExpectError(makeCall("NonZero", {&x}, {&wrong})).code, ACL_ERROR_OP_INPUT_NOT_MATCH);
}

}  // namespace
}  // namespace ascend_sim
