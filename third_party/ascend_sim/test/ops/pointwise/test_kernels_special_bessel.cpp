// Bessel, Airy and Zeta kernels and the orthogonal polynomials against
// references computed here by other methods: quadrature of the integral
// representations (J, K), libstdc++'s cylindrical functions (Y), the Airy
// power series, explicit sums of the polynomials; fp32 and fp16, edge values.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "pointwise_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

const double kPi = 3.14159265358979323846;

// ∫_a^b f by composite Simpson with n (even) panels.
double simpson(const std::function<double(double)>& f, double a, double b, int n) {
  const double h = (b - a) / n;
  double s = f(a) + f(b);
  for (int i = 1; i < n; ++i) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return s * h / 3;
}

// J_nu(x) = (1/pi) ∫_0^pi cos(nu t - x sin t) dt
double besselJRef(int nu, double x) {
  return simpson([&](double t) { return std::cos(nu * t - x * std::sin(t)); }, 0, kPi, 2000) / kPi;
}
// K_nu(x) = ∫_0^∞ exp(-x cosh t) cosh(nu t) dt (the integrand is negligible past t = 12)
double besselKRef(int nu, double x) {
  return simpson([&](double t) { return std::exp(-x * std::cosh(t)) * std::cosh(nu * t); }, 0, 12, 6000);
}
// Ai(x) = c1 f(x) - c2 g(x) from its Maclaurin series (|x| <= 4)
double airyRef(double x) {
  const double c1 = 0.355028053887817239260, c2 = 0.258819403792806798405;
  double f = 1, g = x, tf = 1, tg = x;
  for (int k = 1; k < 60; ++k) {
    tf *= x * x * x / ((3.0 * k - 1) * (3.0 * k));
    tg *= x * x * x / ((3.0 * k) * (3.0 * k + 1));
    f += tf;
    g += tg;
  }
  return c1 * f - c2 * g;
}

double factorial(int n) { return std::tgamma(n + 1.0); }
double binomial(int n, int k) { return factorial(n) / (factorial(k) * factorial(n - k)); }

// Closed forms and explicit sums of the polynomials of degree n.
double polynomialRef(const std::string& op, double x, int n) {
  const bool shifted = op.rfind("Shifted", 0) == 0;
  const double y = shifted ? 2 * x - 1 : x, t = std::acos(std::max(-1.0, std::min(1.0, y)));
  const char last = op.back();
  if (op.find("Chebyshev") != std::string::npos) {
    if (last == 'T') return std::cos(n * t);
    if (last == 'U') return std::sin((n + 1) * t) / std::sin(t);
    if (last == 'V') return std::cos((n + 0.5) * t) / std::cos(t / 2);
    return std::sin((n + 0.5) * t) / std::sin(t / 2);
  }
  double s = 0;
  if (op == "HermitePolynomialH")
    for (int m = 0; 2 * m <= n; ++m) s += (m % 2 ? -1 : 1) * std::pow(2 * x, n - 2 * m) / (factorial(m) * factorial(n - 2 * m));
  if (op == "HermitePolynomialHe")
    for (int m = 0; 2 * m <= n; ++m)
      s += (m % 2 ? -1 : 1) * std::pow(x, n - 2 * m) / (factorial(m) * factorial(n - 2 * m) * std::pow(2.0, m));
  if (op.rfind("Hermite", 0) == 0) return s * factorial(n);
  if (op == "LaguerrePolynomialL")
    for (int k = 0; k <= n; ++k) s += binomial(n, k) * (k % 2 ? -1 : 1) * std::pow(x, k) / factorial(k);
  if (op == "LegendrePolynomialP") {
    for (int k = 0; k <= n; ++k) s += binomial(n, k) * binomial(n, k) * std::pow(x - 1, n - k) * std::pow(x + 1, k);
    s /= std::pow(2.0, n);
  }
  return s;
}

}  // namespace

TEST(KernelSpecialBessel, AgainstIndependentReferences) {
  struct Case {
    const char* op;
    float lo, hi;
    std::function<double(double)> ref;
  };
  const std::vector<Case> cases = {
      {"BesselJ0", -20, 20, [](double x) { return besselJRef(0, x); }},
      {"BesselJ1", -20, 20, [](double x) { return besselJRef(1, x); }},
      {"BesselY0", 0.1f, 20, [](double x) { return std::cyl_neumann(0.0, x); }},
      {"BesselY1", 0.1f, 20, [](double x) { return std::cyl_neumann(1.0, x); }},
      {"BesselK0", 0.05f, 10, [](double x) { return besselKRef(0, x); }},
      {"BesselK1", 0.05f, 10, [](double x) { return besselKRef(1, x); }},
      {"BesselK0e", 0.05f, 10, [](double x) { return besselKRef(0, x) * std::exp(x); }},
      {"BesselK1e", 0.05f, 10, [](double x) { return besselKRef(1, x) * std::exp(x); }},
      {"SphericalBesselJ0", -20, 20, [](double x) { return x == 0 ? 1 : std::sin(x) / x; }},
      {"AiryAi", -4, 4, airyRef},
      {"Angle", -3, 3, [](double x) { return x < 0 ? static_cast<double>(3.14159265358979323846f) : 0.0; }},
  };
  for (const Case& c : cases)
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(std::string(c.op) + " " + dtypeName(dt));
      const auto x = roundedTo(dt, randomFloats(600, c.lo, c.hi, 9));
      std::vector<double> want;
      for (float v : x) want.push_back(c.ref(v));
      expectNear(dt, runFloatOp(c.op, dt, {x}), want, 10);
    }
}

TEST(KernelSpecialBessel, EdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  auto one = [](const char* op, float x) { return runFloatOp(op, ACL_FLOAT, {{x}})[0]; };
  EXPECT_EQ(one("BesselY0", 0), -inf);
  EXPECT_TRUE(std::isnan(one("BesselY1", -1)));
  EXPECT_TRUE(std::isnan(one("BesselJ0", inf)));
  EXPECT_EQ(one("BesselK0", 0), inf);
  EXPECT_TRUE(std::isnan(one("BesselK1", -2)));
  EXPECT_EQ(one("BesselK0", inf), 0.0f);
  EXPECT_NEAR(one("BesselK1e", 1000), std::sqrt(kPi / 2000) * (1 + 3.0 / 8000), 2e-7);  // asymptotic range
  EXPECT_EQ(one("SphericalBesselJ0", inf), 0.0f);
  EXPECT_TRUE(std::isnan(one("AiryAi", -inf)));
  EXPECT_EQ(one("AiryAi", 200), 0.0f);
  EXPECT_TRUE(std::isnan(one("Angle", NAN)));
  // Zeta: ζ(2, 1) = π²/6, ζ(4, 2) = π⁴/90 - 1, x = 1 pole, x < 1 NaN, q a non-positive integer: inf
  auto two = [](const char* op, float a, float b) { return runFloatOp(op, ACL_FLOAT, {{a}, {b}})[0]; };
  EXPECT_NEAR(two("Zeta", 2, 1), kPi * kPi / 6, 1e-6);
  EXPECT_NEAR(two("Zeta", 4, 2), std::pow(kPi, 4) / 90 - 1, 1e-6);
  EXPECT_EQ(two("Zeta", 1, 3), inf);
  EXPECT_TRUE(std::isnan(two("Zeta", 0.5f, 3)));
  EXPECT_EQ(two("Zeta", 3, -2), inf);
  EXPECT_TRUE(std::isnan(two("Zeta", 3.7f, inf)));
  EXPECT_EQ(two("Zeta", 3.7f, -inf), inf);
  EXPECT_EQ(two("Zeta", inf, 1), 1.0f);
  EXPECT_EQ(two("Zeta", inf, 0.5f), inf);
  EXPECT_TRUE(std::isnan(two("Zeta", inf, 2)));
}

TEST(KernelSpecialBessel, OrthogonalPolynomials) {
  const std::vector<std::string> ops = {
      "ChebyshevPolynomialT", "ChebyshevPolynomialU", "ChebyshevPolynomialV", "ChebyshevPolynomialW",
      "ShiftedChebyshevPolynomialT", "ShiftedChebyshevPolynomialU", "ShiftedChebyshevPolynomialV",
      "ShiftedChebyshevPolynomialW", "HermitePolynomialH", "HermitePolynomialHe", "LaguerrePolynomialL",
      "LegendrePolynomialP"};
  for (const std::string& op : ops) {
    const bool shifted = op.rfind("Shifted", 0) == 0;
    // inside the orthogonality interval, off its ends (the closed forms divide by sin/cos there)
    std::vector<float> x = randomFloats(400, shifted ? 0.01f : -0.99f, 0.99f, 3), n(400);
    for (size_t i = 0; i < n.size(); ++i) n[i] = static_cast<float>(i % 11) + (i % 3 == 0 ? 0.7f : 0.0f);
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(op + " " + dtypeName(dt));
      const auto xr = roundedTo(dt, x);
      std::vector<double> want;
      for (size_t i = 0; i < x.size(); ++i) want.push_back(polynomialRef(op, xr[i], static_cast<int>(n[i])));
      expectNear(dt, runFloatOp(op, dt, {xr, n}), want, 10);
    }
    // negative or non-finite degree: 0; a large degree inside (-1, 1) stays finite
    // (Hermite polynomials grow like sqrt(n!) and overflow)
    const auto y = runFloatOp(op, ACL_FLOAT, {{0.5f, 0.5f, 0.5f}, {-1, NAN, 1000}});
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_EQ(y[1], 0.0f);
    if (op.rfind("Hermite", 0) != 0) { EXPECT_TRUE(std::isfinite(y[2])) << op; }
  }
}

TEST(KernelSpecialBessel, Frexp) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> v = {0.0f, -0.0f, 1.0f, -3.0f, 0.3f, 1e-40f, 6e4f, inf, NAN};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const auto x = roundedTo(dt, v);
    HostTensor xt = HostTensor::floats(dt, {3, 3}, x), m(dt, {3, 3}), e(ACL_INT32, {3, 3});
    run(makeCall("Frexp", {&xt}, {&m, &e}));
    const auto mv = m.toFloats();
    const auto ev = e.toInts();
    for (size_t i = 0; i < x.size(); ++i) {
      if (!std::isfinite(x[i]) || x[i] == 0) {
        EXPECT_TRUE(std::isnan(x[i]) ? std::isnan(mv[i]) : mv[i] == x[i]) << i;
        EXPECT_EQ(ev[i], 0) << i;
        continue;
      }
      // |m| in [0.5, 1) and m * 2^e reproduces x exactly
      EXPECT_GE(std::fabs(mv[i]), 0.5f) << i;
      EXPECT_LT(std::fabs(mv[i]), 1.0f) << i;
      EXPECT_EQ(std::ldexp(static_cast<double>(mv[i]), static_cast<int>(ev[i])), static_cast<double>(x[i])) << i;
    }
  }
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2}, {1, 2}), m(ACL_FLOAT, {2}), e64(ACL_INT64, {2}), e(ACL_INT32, {3});
  EXPECT_KERNEL_ERROR(makeCall("Frexp", {&x}, {&m, &e64}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output exponent dtype int64");
  EXPECT_KERNEL_ERROR(makeCall("Frexp", {&x}, {&m, &e}), ACL_ERROR_OP_INPUT_NOT_MATCH, "output exponent shape [3]");
  HostTensor empty(ACL_FLOAT, {0}), me(ACL_FLOAT, {0}), ee(ACL_INT32, {0});
  run(makeCall("Frexp", {&empty}, {&me, &ee}));
}
