// GroupNorm / GroupNormGrad (Note [Group norm numerics]) against a double
// reference: the forward from the definition, the gradients as central
// finite differences of that forward (dx, dgamma, dbeta of Σ dy·y), fp32 and
// fp16, with and without gamma / beta, empty batches, large means
// (cancellation), thread-count independence and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

struct Ref {
  std::vector<double> y, mean, rstd;
};

// y, mean, rstd of group norm in double.
Ref groupNorm(const std::vector<double>& x, const Shape& s, int64_t groups, const std::vector<double>& gamma,
              const std::vector<double>& beta, double eps) {
  const int64_t n = s[0], c = s[1], hw = numelOf(s) / std::max<int64_t>(1, n * c), m = c / groups * hw;
  Ref r;
  r.y.resize(x.size());
  for (int64_t q = 0; q < n * groups; ++q) {
    double mu = 0, var = 0;
    for (int64_t i = 0; i < m; ++i) mu += x[q * m + i];
    mu = m ? mu / m : 0;
    for (int64_t i = 0; i < m; ++i) var += (x[q * m + i] - mu) * (x[q * m + i] - mu);
    var = var / m;  // M = 0: NaN, as PyTorch
    const double rs = 1 / std::sqrt(var + eps);
    r.mean.push_back(mu);
    r.rstd.push_back(rs);
    for (int64_t i = 0; i < m; ++i) {
      const int64_t ch = (q % groups) * (c / groups) + i / hw;
      r.y[q * m + i] = (x[q * m + i] - mu) * rs * gamma[ch] + beta[ch];
    }
  }
  return r;
}

double dot(const std::vector<double>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

std::vector<double> toDouble(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

void expectNear(const std::vector<float>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
}

struct GnCase {
  Shape x;
  int64_t groups;
  bool affine;
};

OpCall forwardCall(const HostTensor& x, const HostTensor& gamma, const HostTensor& beta, HostTensor& y,
                   HostTensor& mean, HostTensor& rstd, const GnCase& k) {
  OpCall c = makeCall("GroupNorm", {&x}, {&y, &mean, &rstd},
                      attrs({{"num_groups", k.groups}, {"epsilon", 1e-5f}, {"has_gamma", k.affine},
                             {"has_beta", k.affine}}));
  if (k.affine) c.inputs.push_back(gamma.arg()), c.inputs.push_back(beta.arg());
  return c;
}

}  // namespace

TEST(KernelGroupNorm, ForwardAndFiniteDifferenceGradients) {
  const std::vector<GnCase> cases = {{{2, 6, 3, 4}, 3, true}, {{3, 4, 5}, 2, false}, {{2, 8}, 4, true},
                                     {{1, 4, 130}, 1, true}, {{0, 4, 3}, 2, true}};
  for (const GnCase& k : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(shapeToString(k.x) + " groups " + std::to_string(k.groups) + " " + dtypeName(dt) +
                   (k.affine ? " affine" : ""));
      const int64_t c = k.x[1], n = k.x[0], numel = numelOf(k.x);
      const HostTensor x = HostTensor::floats(dt, k.x, randomFloats(numel, -2, 3, 1));
      const HostTensor gamma = HostTensor::floats(dt, {c}, randomFloats(c, 0.5, 1.5, 2));
      const HostTensor beta = HostTensor::floats(dt, {c}, randomFloats(c, -1, 1, 3));
      HostTensor y(dt, k.x), mean(dt, {n, k.groups}), rstd(dt, {n, k.groups});
      run(forwardCall(x, gamma, beta, y, mean, rstd, k));
      const std::vector<double> xd = toDouble(x.toFloats());
      std::vector<double> gd(c, 1.0), bd(c, 0.0);
      if (k.affine) gd = toDouble(gamma.toFloats()), bd = toDouble(beta.toFloats());
      const Ref ref = groupNorm(xd, k.x, k.groups, gd, bd, 1e-5);
      const double tol = dt == ACL_FLOAT ? 2e-5 : 2e-3;
      expectNear(y.toFloats(), ref.y, tol, "y");
      expectNear(mean.toFloats(), ref.mean, tol, "mean");
      expectNear(rstd.toFloats(), ref.rstd, tol, "rstd");

      // Gradients of L = Σ dy·y by central differences of the double forward.
      const HostTensor dy = HostTensor::floats(dt, k.x, randomFloats(numel, -1, 1, 4));
      HostTensor dx(dt, k.x), dgamma(dt, {c}), dbeta(dt, {c});
      OpCall gc = makeCall("GroupNormGrad", {&dy, &x, &mean, &rstd}, {&dx, &dgamma, &dbeta},
                           attrs({{"num_groups", k.groups}, {"has_gamma", k.affine}}));
      if (k.affine) gc.inputs.push_back(gamma.arg());
      run(gc);
      const std::vector<float> g = dy.toFloats();
      const double h = 1e-4;
      auto loss = [&](const std::vector<double>& xx, const std::vector<double>& gg, const std::vector<double>& bb) {
        return dot(groupNorm(xx, k.x, k.groups, gg, bb, 1e-5).y, g);
      };
      std::vector<double> want_dx(xd.size()), want_dg(c), want_db(c);
      for (size_t i = 0; i < xd.size(); ++i) {
        std::vector<double> a = xd, b = xd;
        a[i] += h, b[i] -= h;
        want_dx[i] = (loss(a, gd, bd) - loss(b, gd, bd)) / (2 * h);
      }
      for (int64_t i = 0; i < c; ++i) {
        std::vector<double> a = gd, b = gd;
        a[i] += h, b[i] -= h;
        want_dg[i] = (loss(xd, a, bd) - loss(xd, b, bd)) / (2 * h);
        a = bd, b = bd;
        a[i] += h, b[i] -= h;
        want_db[i] = (loss(xd, gd, a) - loss(xd, gd, b)) / (2 * h);
      }
      // fp16: mean / rstd are read back rounded, so the gradients carry that rounding.
      const double gtol = dt == ACL_FLOAT ? 2e-4 : 1e-2;
      expectNear(dx.toFloats(), want_dx, gtol, "dx");
      expectNear(dgamma.toFloats(), want_dg, gtol, "dgamma");
      expectNear(dbeta.toFloats(), want_db, gtol, "dbeta");
    }
  }
}

TEST(KernelGroupNorm, LargeMeanIsStable) {
  // x = 1000 + small noise: a one-pass E[x²] − E[x]² in fp32 would lose the variance.
  const GnCase k{{2, 4, 64}, 2, false};
  std::vector<float> v = randomFloats(numelOf(k.x), -1, 1, 9);
  for (float& e : v) e += 1000.0f;
  const HostTensor x = HostTensor::floats(ACL_FLOAT, k.x, v);
  HostTensor y(ACL_FLOAT, k.x), mean(ACL_FLOAT, {2, 2}), rstd(ACL_FLOAT, {2, 2});
  run(forwardCall(x, x, x, y, mean, rstd, k));
  const Ref ref = groupNorm(toDouble(x.toFloats()), k.x, 2, std::vector<double>(4, 1.0), std::vector<double>(4, 0.0), 1e-5);
  expectNear(rstd.toFloats(), ref.rstd, 1e-4, "rstd");
  expectNear(y.toFloats(), ref.y, 1e-3, "y");
}

TEST(KernelGroupNorm, ThreadCountIndependence) {
  const GnCase k{{16, 32, 9, 9}, 8, true};
  const HostTensor x = HostTensor::floats(ACL_FLOAT16, k.x, randomFloats(numelOf(k.x), -2, 2, 5));
  const HostTensor gamma = HostTensor::floats(ACL_FLOAT16, {32}, randomFloats(32, 0.5, 1.5, 6));
  std::vector<std::vector<float>> r;
  for (int threads : {1, 0}) {
    setHostThreadLimitForTesting(threads);
    HostTensor y(ACL_FLOAT16, k.x), mean(ACL_FLOAT16, {16, 8}), rstd(ACL_FLOAT16, {16, 8});
    run(forwardCall(x, gamma, gamma, y, mean, rstd, k));
    HostTensor dx(ACL_FLOAT16, k.x), dg(ACL_FLOAT16, {32}), db(ACL_FLOAT16, {32});
    OpCall gc = makeCall("GroupNormGrad", {&x, &x, &mean, &rstd, &gamma}, {&dx, &dg, &db},
                         attrs({{"num_groups", int64_t{8}}, {"has_gamma", true}}));
    run(gc);
    r.push_back(y.toFloats());
    r.push_back(dx.toFloats());
    r.push_back(dg.toFloats());
  }
  setHostThreadLimitForTesting(0);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(r[i], r[i + 3]) << i;
}

TEST(KernelGroupNorm, ValidationErrors) {
  const HostTensor x(ACL_FLOAT, {2, 6, 4});
  HostTensor y(ACL_FLOAT, {2, 6, 4}), mean(ACL_FLOAT, {2, 3}), rstd(ACL_FLOAT, {2, 3});
  auto call = [&](int64_t groups) {
    return makeCall("GroupNorm", {&x}, {&y, &mean, &rstd}, attrs({{"num_groups", groups}, {"epsilon", 1e-5f}}));
  };
  EXPECT_KERNEL_ERROR(call(4), ACL_ERROR_OP_ATTR_NOT_MATCH, "must be positive and divide C = 6");
  EXPECT_KERNEL_ERROR(call(0), ACL_ERROR_OP_ATTR_NOT_MATCH, "must be positive");
  EXPECT_KERNEL_ERROR(call(2), ACL_ERROR_OP_INPUT_NOT_MATCH, "output mean");
  OpCall missing = call(3);
  missing.attrs.set("has_gamma", true);
  EXPECT_KERNEL_ERROR(missing, ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 2 inputs");
  const HostTensor gamma(ACL_FLOAT, {5});
  OpCall bad_gamma = call(3);
  bad_gamma.attrs.set("has_gamma", true);
  bad_gamma.inputs.push_back(gamma.arg());
  EXPECT_KERNEL_ERROR(bad_gamma, ACL_ERROR_OP_INPUT_NOT_MATCH, "input gamma");
  const HostTensor x1(ACL_FLOAT, {6});
  EXPECT_KERNEL_ERROR(makeCall("GroupNorm", {&x1}, {&y, &mean, &rstd}, attrs({{"num_groups", int64_t{3}}, {"epsilon", 1e-5f}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "rank >= 2");
  const HostTensor xi(ACL_INT32, {2, 6, 4});
  EXPECT_KERNEL_ERROR(makeCall("GroupNorm", {&xi}, {&y, &mean, &rstd}, attrs({{"num_groups", int64_t{3}}, {"epsilon", 1e-5f}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x");
  HostTensor dx(ACL_FLOAT, {2, 6, 4}), dg(ACL_FLOAT, {6}), db(ACL_FLOAT, {5});
  EXPECT_KERNEL_ERROR(makeCall("GroupNormGrad", {&x, &x, &mean, &rstd}, {&dx, &dg, &db}, attrs({{"num_groups", int64_t{3}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output dbeta");
}
