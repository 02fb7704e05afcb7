// Cross against the definition (double): dims 0 / last / middle, broadcast
// operands, fp32 / fp16 / integers, empty tensors and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

// Row-major coordinates / offsets of a broadcast operand.
int64_t offsetIn(const Shape& s, const Shape& y, std::vector<int64_t> c) {
  const size_t lead = y.size() - s.size();
  int64_t off = 0;
  for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : c[lead + d]);
  return off;
}

}  // namespace

TEST(KernelCross, MatchesDefinition) {
  struct Case {
    Shape a, b, y;
    int64_t dim;
  };
  const std::vector<Case> cases = {{{4, 3}, {4, 3}, {4, 3}, 1},        {{3, 5}, {3, 5}, {3, 5}, 0},
                                   {{2, 3, 4}, {1, 3, 4}, {2, 3, 4}, -2}, {{5, 1, 3}, {4, 3}, {5, 4, 3}, 2},
                                   {{0, 3}, {0, 3}, {0, 3}, 1}};
  for (const Case& k : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64}) {
      SCOPED_TRACE(shapeToString(k.a) + " x " + shapeToString(k.b) + " " + dtypeName(dt));
      const bool f = isFloatDtype(dt);
      const HostTensor a = HostTensor::floats(dt, k.a, f ? randomFloats(numelOf(k.a), -2, 2, 1) : std::vector<float>(numelOf(k.a), 0));
      std::vector<int64_t> ai(numelOf(k.a)), bi(numelOf(k.b));
      for (size_t i = 0; i < ai.size(); ++i) ai[i] = static_cast<int64_t>(i * 7 % 13) - 6;
      for (size_t i = 0; i < bi.size(); ++i) bi[i] = static_cast<int64_t>(i * 5 % 11) - 5;
      const HostTensor A = f ? a : HostTensor::ints(dt, k.a, ai);
      const HostTensor B = f ? HostTensor::floats(dt, k.b, randomFloats(numelOf(k.b), -2, 2, 2)) : HostTensor::ints(dt, k.b, bi);
      HostTensor y(dt, k.y);
      run(makeCall("Cross", {&A, &B}, {&y}, attrs({{"dim", k.dim}})));
      const std::vector<float> av = A.toFloats(), bv = B.toFloats(), got = y.toFloats();
      const size_t dim = static_cast<size_t>(k.dim < 0 ? k.dim + static_cast<int64_t>(k.y.size()) : k.dim);
      for (int64_t p = 0; p < numelOf(k.y); ++p) {
        std::vector<int64_t> c(k.y.size());
        int64_t rem = p;
        for (size_t d = k.y.size(); d-- > 0;) c[d] = rem % k.y[d], rem /= k.y[d];
        auto at = [&](const std::vector<float>& v, const Shape& s, int64_t comp) {
          std::vector<int64_t> cc = c;
          cc[dim] = comp;
          return static_cast<double>(v[static_cast<size_t>(offsetIn(s, k.y, cc))]);
        };
        const int64_t i = c[dim], j = (i + 1) % 3, l = (i + 2) % 3;
        const double want = at(av, k.a, j) * at(bv, k.b, l) - at(av, k.a, l) * at(bv, k.b, j);
        EXPECT_NEAR(got[static_cast<size_t>(p)], want, dt == ACL_FLOAT16 ? 1e-2 * (1 + std::fabs(want)) : 1e-5) << p;
      }
    }
  }
}

TEST(KernelCross, ValidationErrors) {
  const HostTensor a(ACL_FLOAT, {4, 3}), b(ACL_FLOAT, {4, 3}), b1(ACL_FLOAT, {4, 1}), bi(ACL_INT32, {4, 3});
  HostTensor y(ACL_FLOAT, {4, 3}), wrong(ACL_FLOAT, {5, 3});
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&a, &b}, {&y}, attrs({{"dim", int64_t{0}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must have size 3 in dim 0");
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&a, &b1}, {&y}, attrs({{"dim", int64_t{1}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x2 shape [4,1] must have size 3 in dim 1 of the output (no broadcasting there)");
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&a, &b}, {&wrong}, attrs({{"dim", int64_t{1}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "does not broadcast");
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&a, &bi}, {&y}, attrs({{"dim", int64_t{1}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "dtype");
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&a, &b}, {&y}), ACL_ERROR_OP_ATTR_NOT_MATCH, "dim");
}
