// RepeatInterleave against the definition: per-slice and single counts,
// zero counts, inner axes, every dtype, and its faults and errors.
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

TEST(KernelRepeatInterleave, MatchesDefinition) {
  struct Case {
    Shape x;
    std::vector<int64_t> rep;
    int64_t axis;
  };
  const std::vector<Case> cases = {{{5}, {2, 0, 3, 1, 1}, 0}, {{3, 4}, {1, 3, 0}, 0}, {{3, 4}, {2}, 1},
                                   {{2, 3, 2}, {0, 2, 1}, -2}, {{4}, {0, 0, 0, 0}, 0}};
  for (const Case& c : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_BOOL}) {
      SCOPED_TRACE(shapeToString(c.x) + " repeats " + shapeToString(c.rep) + " " + dtypeName(dt));
      std::vector<int64_t> v(static_cast<size_t>(numelOf(c.x)));
      for (size_t i = 0; i < v.size(); ++i) v[i] = dt == ACL_BOOL ? static_cast<int64_t>(i % 2) : static_cast<int64_t>(i) + 1;
      const HostTensor x = HostTensor::ints(dt, c.x, v);
      const HostTensor r = HostTensor::ints(ACL_INT64, {static_cast<int64_t>(c.rep.size())}, c.rep);
      const size_t axis = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.x.size()) : c.axis);
      std::vector<int64_t> counts = c.rep;
      if (counts.size() == 1) counts.assign(static_cast<size_t>(c.x[axis]), counts[0]);
      int64_t total = 0;
      for (int64_t n : counts) total += n;
      Shape ys = c.x;
      ys[axis] = total;
      HostTensor y(dt, ys);
      run(makeCall("RepeatInterleave", {&x, &r}, {&y}, attrs({{"axis", c.axis}})));
      // Reference: for every output slice, the source slice it repeats.
      std::vector<int64_t> src_of;
      for (size_t i = 0; i < counts.size(); ++i)
        for (int64_t k = 0; k < counts[i]; ++k) src_of.push_back(static_cast<int64_t>(i));
      int64_t outer = 1, inner = 1;
      for (size_t d = 0; d < axis; ++d) outer *= c.x[d];
      for (size_t d = axis + 1; d < c.x.size(); ++d) inner *= c.x[d];
      std::vector<int64_t> want;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t s : src_of)
          for (int64_t i = 0; i < inner; ++i) want.push_back(v[static_cast<size_t>((o * c.x[axis] + s) * inner + i)]);
      EXPECT_EQ(y.toInts(), want);
    }
  }
}

TEST(KernelRepeatInterleave, FaultsAndErrors) {
  const HostTensor x = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, 3});
  const HostTensor neg = HostTensor::ints(ACL_INT64, {3}, {1, -1, 2});
  HostTensor y(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("RepeatInterleave", {&x, &neg}, {&y}), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "repeats[1] = -1 is negative");
  const HostTensor r = HostTensor::ints(ACL_INT32, {3}, {1, 1, 2});
  EXPECT_KERNEL_ERROR(makeCall("RepeatInterleave", {&x, &r}, {&y}), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "the repeats add up to 4, but output y has 2 slices");
  const HostTensor r2 = HostTensor::ints(ACL_INT64, {2}, {1, 1});
  EXPECT_KERNEL_ERROR(makeCall("RepeatInterleave", {&x, &r2}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "1 or 3 elements");
  const HostTensor rf(ACL_FLOAT, {3});
  EXPECT_KERNEL_ERROR(makeCall("RepeatInterleave", {&x, &rf}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input repeats");
  HostTensor y2(ACL_FLOAT, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("RepeatInterleave", {&x, &r}, {&y2}), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
  const HostTensor s(ACL_FLOAT, {});
  EXPECT_KERNEL_ERROR(makeCall("RepeatInterleave", {&s, &r}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "rank >= 1");
}
