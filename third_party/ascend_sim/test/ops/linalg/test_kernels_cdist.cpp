// Cdist / CdistGrad (Note [Cdist numerics]) against double references: the
// distance for p = 0, 1, 1.5, 2, 3, inf and the gradient as central finite
// differences of the double distance (away from kinks), fp32 and fp16,
// empty sets and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

double dist(const std::vector<double>& a, const std::vector<double>& b, double p) {
  double acc = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double d = std::fabs(a[k] - b[k]);
    if (p == 0) acc += d != 0;
    else if (std::isinf(p)) acc = std::max(acc, d);
    else acc += std::pow(d, p);
  }
  return (p == 0 || std::isinf(p)) ? acc : std::pow(acc, 1 / p);
}

std::vector<double> row(const std::vector<float>& v, int64_t r, int64_t m) {
  return std::vector<double>(v.begin() + r * m, v.begin() + (r + 1) * m);
}

const float kPs[] = {0.0f, 1.0f, 1.5f, 2.0f, 3.0f, std::numeric_limits<float>::infinity()};

}  // namespace

TEST(KernelCdist, DistanceAndFiniteDifferenceGradient) {
  const int64_t B = 2, P = 3, R = 4, M = 5;
  for (float p : kPs) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE("p " + std::to_string(p) + " " + dtypeName(dt));
      const HostTensor x1 = HostTensor::floats(dt, {B, P, M}, randomFloats(B * P * M, -2, 2, 1));
      const HostTensor x2 = HostTensor::floats(dt, {B, R, M}, randomFloats(B * R * M, -2, 2, 2));
      HostTensor y(dt, {B, P, R});
      run(makeCall("Cdist", {&x1, &x2}, {&y}, attrs({{"p", p}})));
      const std::vector<float> a = x1.toFloats(), c = x2.toFloats(), got = y.toFloats();
      const double tol = dt == ACL_FLOAT ? 1e-5 : 2e-3;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < P; ++i)
          for (int64_t j = 0; j < R; ++j) {
            const double want = dist(row(a, b * P + i, M), row(c, b * R + j, M), p);
            EXPECT_NEAR(got[static_cast<size_t>((b * P + i) * R + j)], want, tol * (1 + want));
          }
      // Gradient of L = Σ g·dist w.r.t. x1 by central differences. The inf
      // norm's gradient picks the |d| equal to the stored distance: with
      // fp16 that distance is rounded, so only fp32 is compared there.
      if (std::isinf(p) && dt == ACL_FLOAT16) continue;
      const HostTensor g = HostTensor::floats(dt, {B, P, R}, randomFloats(B * P * R, -1, 1, 3));
      HostTensor dx(dt, {B, P, M});
      run(makeCall("CdistGrad", {&g, &x1, &x2, &y}, {&dx}, attrs({{"p", p}})));
      const std::vector<float> gv = g.toFloats(), dg = dx.toFloats();
      for (int64_t e = 0; e < B * P * M; ++e) {
        const int64_t b = e / (P * M), i = e / M % P, k = e % M;
        double want = 0;
        for (int64_t j = 0; j < R; ++j) {
          std::vector<double> lo = row(a, b * P + i, M), hi = lo;
          const std::vector<double> other = row(c, b * R + j, M);
          lo[static_cast<size_t>(k)] -= 1e-4, hi[static_cast<size_t>(k)] += 1e-4;
          want += gv[static_cast<size_t>((b * P + i) * R + j)] * (p == 0 ? 0 : (dist(hi, other, p) - dist(lo, other, p)) / 2e-4);
        }
        EXPECT_NEAR(dg[static_cast<size_t>(e)], want, (dt == ACL_FLOAT ? 1e-3 : 2e-2) * (1 + std::fabs(want))) << e;
      }
    }
  }
}

TEST(KernelCdist, EmptySetsAndErrors) {
  const HostTensor x1(ACL_FLOAT, {2, 0, 5}), x2 = HostTensor::floats(ACL_FLOAT, {2, 3, 5}, randomFloats(30, -1, 1, 4));
  HostTensor y(ACL_FLOAT, {2, 0, 3});
  run(makeCall("Cdist", {&x1, &x2}, {&y}, attrs({{"p", 2.0f}})));
  const HostTensor a(ACL_FLOAT, {2, 3, 5}), b(ACL_FLOAT, {2, 4, 6});
  HostTensor out(ACL_FLOAT, {2, 3, 4});
  EXPECT_KERNEL_ERROR(makeCall("Cdist", {&a, &b}, {&out}, attrs({{"p", 2.0f}})), ACL_ERROR_OP_INPUT_NOT_MATCH, "input x2");
  const HostTensor b2(ACL_FLOAT, {2, 4, 5});
  EXPECT_KERNEL_ERROR(makeCall("Cdist", {&a, &b2}, {&out}, attrs({{"p", -1.0f}})), ACL_ERROR_OP_ATTR_NOT_MATCH, ">= 0");
  HostTensor wrong(ACL_FLOAT, {2, 4, 3});
  EXPECT_KERNEL_ERROR(makeCall("Cdist", {&a, &b2}, {&wrong}, attrs({{"p", 2.0f}})), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
  const HostTensor a2(ACL_FLOAT, {3, 5});
  EXPECT_KERNEL_ERROR(makeCall("Cdist", {&a2, &b2}, {&out}, attrs({{"p", 2.0f}})), ACL_ERROR_OP_INPUT_NOT_MATCH, "3-D");
  const HostTensor ai(ACL_INT32, {2, 3, 5}), bi(ACL_INT32, {2, 4, 5});
  EXPECT_KERNEL_ERROR(makeCall("Cdist", {&ai, &bi}, {&out}, attrs({{"p", 2.0f}})), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "x1");
  HostTensor dx(ACL_FLOAT, {2, 3, 5});
  EXPECT_KERNEL_ERROR(makeCall("CdistGrad", {&wrong, &a, &b2, &out}, {&dx}, attrs({{"p", 2.0f}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input grad");
}
