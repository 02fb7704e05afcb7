// ReverseV2 and Roll against a coordinate reference (flip: n − 1 − j; roll:
// (j − shift) mod n), every dtype, negative and repeated dims, large and
// negative shifts, 0-d and empty tensors, and validation errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

// y flat position p -> x flat position, with a per-dim map of coordinates.
std::vector<int64_t> expected(const Shape& s, const std::vector<int64_t>& x,
                              const std::function<int64_t(size_t, int64_t)>& map) {
  std::vector<int64_t> y(x.size());
  for (size_t p = 0; p < x.size(); ++p) {
    int64_t rem = static_cast<int64_t>(p), src = 0, mul = 1;
    for (size_t d = s.size(); d-- > 0;) {
      const int64_t j = rem % s[d];
      rem /= s[d];
      src += map(d, j) * mul;
      mul *= s[d];
    }
    y[p] = x[static_cast<size_t>(src)];
  }
  return y;
}

std::vector<int64_t> values(aclDataType dt, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = dt == ACL_BOOL ? (i % 3 == 0) : (i * 7) % 113 - 50;
  return v;
}

}  // namespace

TEST(KernelReverseRoll, ReverseMatchesCoordinates) {
  struct Case {
    Shape s;
    std::vector<int64_t> axis;
  };
  const std::vector<Case> cases = {{{2, 3, 4}, {0, 2}}, {{2, 3, 4}, {-1}}, {{5, 1, 7}, {1, 0}}, {{9}, {0}},
                                   {{3, 0, 2}, {1}},    {{}, {0}},          {{2, 3, 4}, {}}};
  for (const Case& c : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_INT8, ACL_BOOL}) {
      SCOPED_TRACE(shapeToString(c.s) + " axis " + shapeToString(c.axis) + " " + dtypeName(dt));
      const std::vector<int64_t> v = values(dt, numelOf(c.s));
      const HostTensor x = HostTensor::ints(dt, c.s, v);
      HostTensor y(dt, c.s);
      run(makeCall("ReverseV2", {&x}, {&y}, attrs({{"axis", c.axis}})));
      std::vector<bool> flip(c.s.size(), false);
      for (int64_t a : c.axis)
        if (!c.s.empty()) flip[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(c.s.size()) : a)] = true;
      EXPECT_EQ(y.toInts(), expected(c.s, v, [&](size_t d, int64_t j) { return flip[d] ? c.s[d] - 1 - j : j; }));
    }
  }
}

TEST(KernelReverseRoll, RollMatchesCoordinates) {
  struct Case {
    Shape s;
    std::vector<int64_t> shifts, dims;
  };
  const std::vector<Case> cases = {{{2, 3, 4}, {1, -2}, {0, 2}}, {{2, 3, 4}, {7}, {-1}},  {{5, 6}, {2, 3}, {1, 1}},
                                   {{12}, {-25}, {0}},           {{3, 0, 2}, {4}, {1}},  {{}, {3}, {0}},
                                   {{4, 5}, {0}, {0}}};
  for (const Case& c : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_BOOL}) {
      SCOPED_TRACE(shapeToString(c.s) + " shifts " + shapeToString(c.shifts) + " dims " + shapeToString(c.dims) + " " +
                   dtypeName(dt));
      const std::vector<int64_t> v = values(dt, numelOf(c.s));
      const HostTensor x = HostTensor::ints(dt, c.s, v);
      HostTensor y(dt, c.s);
      run(makeCall("Roll", {&x}, {&y}, attrs({{"shifts", c.shifts}, {"dims", c.dims}})));
      std::vector<int64_t> total(c.s.size(), 0);
      for (size_t i = 0; i < c.dims.size(); ++i)
        if (!c.s.empty()) total[static_cast<size_t>(c.dims[i] < 0 ? c.dims[i] + static_cast<int64_t>(c.s.size()) : c.dims[i])] += c.shifts[i];
      EXPECT_EQ(y.toInts(), expected(c.s, v, [&](size_t d, int64_t j) {
                  int64_t i = j;
                  for (int64_t k = 0; k < (total[d] < 0 ? -total[d] : total[d]); ++k) i += total[d] < 0 ? 1 : -1;
                  return ((i % c.s[d]) + c.s[d]) % c.s[d];
                }));
    }
  }
}

TEST(KernelReverseRoll, ValidationErrors) {
  const HostTensor x(ACL_FLOAT, {2, 3});
  HostTensor y(ACL_FLOAT, {2, 3}), wrong(ACL_FLOAT, {3, 2});
  EXPECT_KERNEL_ERROR(makeCall("ReverseV2", {&x}, {&y}, attrs({{"axis", std::vector<int64_t>{1, -1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "lists dim 1 twice");
  EXPECT_KERNEL_ERROR(makeCall("ReverseV2", {&x}, {&y}, attrs({{"axis", std::vector<int64_t>{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "out of range for rank 2");
  EXPECT_KERNEL_ERROR(makeCall("ReverseV2", {&x}, {&wrong}, attrs({{"axis", std::vector<int64_t>{0}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
  EXPECT_KERNEL_ERROR(makeCall("ReverseV2", {&x}, {&y}), ACL_ERROR_OP_ATTR_NOT_MATCH, "axis");
  EXPECT_KERNEL_ERROR(makeCall("Roll", {&x}, {&y},
                               attrs({{"shifts", std::vector<int64_t>{1, 2}}, {"dims", std::vector<int64_t>{0}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "differ in length");
  HostTensor half(ACL_FLOAT16, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Roll", {&x}, {&half},
                               attrs({{"shifts", std::vector<int64_t>{1}}, {"dims", std::vector<int64_t>{0}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "dtype");
}
