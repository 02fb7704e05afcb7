// Pointwise math kernels (OPS.md "Pointwise math and activations"): unary and
// binary math against double references computed here (the special
// functions against independent identities: erf(erfinv(y)) = y, quadrature
// for the Bessel functions, closed forms of the incomplete gamma, a numeric
// derivative of lgamma for digamma), fp32 within a few ulps and fp16 within
// one rounding; integer paths, private formats, empty tensors, validation.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernel/format_access.h"
#include "kernel_test_util.h"
#include "pointwise_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

const double kPi = 3.14159265358979323846;

struct UnaryCase {
  const char* op;
  float lo, hi;  // sample range
  std::function<double(double)> ref;
  AttrMap attrs = {};
  double abs_scale = 1.0;  // absolute slack of the fp32 check (in units of 1e-6)
  // Set for inverse functions: the check is inverse(y) ≈ x instead of y ≈ ref(x).
  std::function<double(double)> inverse = nullptr;
};

// (1/pi) ∫_0^pi exp(x cos t) cos(nu t) dt by composite Simpson (I_nu, nu = 0, 1).
double besselQuadrature(int nu, double x, bool scaled) {
  const int n = 2000;
  const double h = kPi / n, shift = scaled ? std::fabs(x) : 0.0;
  double s = 0;
  for (int i = 0; i <= n; ++i) {
    const double t = i * h, w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    s += w * std::exp(x * std::cos(t) - shift) * std::cos(nu * t);
  }
  return s * h / 3 / kPi;
}

// ψ(x) as the central difference of lgamma (error ~1e-9 for the ranges used).
double digammaRef(double x) {
  const double h = 1e-5;
  return (std::lgamma(x + h) - std::lgamma(x - h)) / (2 * h);
}

// ψ(x) for x < 0 by the reflection formula from digammaRef(1 - x).
// Negative integers are poles: NaN.
double digammaNegativeRef(double x) {
  if (x == std::trunc(x)) return std::nan("");
  return digammaRef(1 - x) - kPi / std::tan(kPi * x);
}

// ψ'(x) = Σ_k 1/(x+k)²: 1000 terms, then the tail ∫ plus its first corrections.
double trigammaRef(double x) {
  const int n = 1000;
  double s = 0;
  for (int k = n - 1; k >= 0; --k) s += 1.0 / ((x + k) * (x + k));
  const double a = x + n;
  return s + 1 / a + 0.5 / (a * a) + 1 / (6 * a * a * a) - 1 / (30 * std::pow(a, 5));
}

const std::vector<UnaryCase>& unaryCases() {
  static const std::vector<UnaryCase> cases = {
      {"Floor", -50, 50, [](double x) { return std::floor(x); }},
      {"Ceil", -50, 50, [](double x) { return std::ceil(x); }},
      {"Trunc", -50, 50, [](double x) { return std::trunc(x); }},
      {"Round", -50, 50, [](double x) { return std::nearbyint(x); }},
      {"Exp", -10, 10, [](double x) { return std::pow(2.0, x); }, attrs({{"base", 2.0f}})},
      {"Log", 0.01f, 100, [](double x) { return std::log10(x); }, attrs({{"base", 10.0f}})},
      {"Log", 0.01f, 100, [](double x) { return std::log2(x); }, attrs({{"base", 2.0f}})},
      {"Log", 0.01f, 100, [](double x) { return std::log(x); }},
      {"Expm1", -5, 5, [](double x) { return std::expm1(x); }},
      {"Log1p", -0.9f, 10, [](double x) { return std::log1p(x); }},
      {"Erf", -4, 4, [](double x) { return std::erf(x); }},
      {"Erfc", -4, 9, [](double x) { return std::erfc(x); }, {}, 1e-30},
      {"Sin", -10, 10, [](double x) { return std::sin(x); }},
      {"Cos", -10, 10, [](double x) { return std::cos(x); }},
      {"Tan", -1.5f, 1.5f, [](double x) { return std::tan(x); }},
      {"Asin", -1, 1, [](double x) { return std::asin(x); }},
      {"Acos", -1, 1, [](double x) { return std::acos(x); }},
      {"Atan", -10, 10, [](double x) { return std::atan(x); }},
      {"Sinh", -8, 8, [](double x) { return std::sinh(x); }},
      {"Cosh", -8, 8, [](double x) { return std::cosh(x); }},
      {"Asinh", -50, 50, [](double x) { return std::asinh(x); }},
      {"Acosh", 1, 50, [](double x) { return std::acosh(x); }},
      {"Atanh", -0.99f, 0.99f, [](double x) { return std::atanh(x); }},
      {"Sinc", -6, 6, [](double x) { return x == 0 ? 1.0 : std::sin(kPi * x) / (kPi * x); }},
      {"Lgamma", 0.1f, 30, [](double x) { return std::lgamma(x); }},
      {"Digamma", 0.2f, 30, digammaRef, {}, 10},
      {"Digamma", -4.9f, -0.1f, digammaNegativeRef, {}, 10},
      {"Polygamma", 0.5f, 20, trigammaRef, attrs({{"n", int64_t{1}}}), 10},
      {"Erfinv", -0.999f, 0.999f, nullptr, {}, 1, [](double y) { return std::erf(y); }},
      {"Ndtri", 0.001f, 0.999f, nullptr, {}, 10, [](double y) { return 0.5 * std::erfc(-y / std::sqrt(2.0)); }},
      {"Erfcx", -3, 30, [](double x) { return x < 25 ? std::exp(x * x) * std::erfc(x) : 1 / (x * std::sqrt(kPi)) * (1 - 0.5 / (x * x) + 0.75 / (x * x * x * x)); }},
      {"LogNdtr", -20, 5, [](double x) { return std::log(0.5 * std::erfc(-x / std::sqrt(2.0))); }},
      {"BesselI0", -11, 11, [](double x) { return besselQuadrature(0, x, false); }},
      {"BesselI0e", -40, 40, [](double x) { return besselQuadrature(0, x, true); }},
      {"BesselI1", -11, 11, [](double x) { return besselQuadrature(1, x, false); }},
      {"BesselI1e", -40, 40, [](double x) { return besselQuadrature(1, x, true); }},
      {"Entr", 0, 10, [](double x) { return x == 0 ? 0.0 : -x * std::log(x); }},
  };
  return cases;
}

}  // namespace

TEST(KernelPointwiseMath, UnaryAgainstDoubleReferences) {
  for (const UnaryCase& c : unaryCases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(std::string(c.op) + " " + dtypeName(dt));
      const std::vector<float> x = roundedTo(dt, randomFloats(2000, c.lo, c.hi, 11));
      std::vector<float> y = runFloatOp(c.op, dt, {x}, c.attrs);
      std::vector<double> want;
      for (size_t i = 0; i < x.size(); ++i) {
        if (c.inverse) {
          want.push_back(x[i]);
          y[i] = static_cast<float>(c.inverse(y[i]));
        } else {
          want.push_back(c.ref(x[i]));
        }
      }
      // An inverse function's fp16 result is one fp16 rounding off; mapped back
      // through a slope up to ~2 (erf near 0) that is about two x roundings.
      expectNear(dt, y, want, c.abs_scale, c.inverse ? 3.0 : 1.0);
    }
  }
}

TEST(KernelPointwiseMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  auto one = [](const char* op, float x, AttrMap a = {}) { return runFloatOp(op, ACL_FLOAT, {{x}}, a)[0]; };
  EXPECT_EQ(one("Digamma", 0.0f), -inf);
  EXPECT_EQ(one("Digamma", -0.0f), inf);
  EXPECT_TRUE(std::isnan(one("Digamma", -2.0f)));
  EXPECT_EQ(one("Erfinv", 1.0f), inf);
  EXPECT_EQ(one("Erfinv", -1.0f), -inf);
  EXPECT_TRUE(std::isnan(one("Erfinv", 1.5f)));
  EXPECT_EQ(one("Ndtri", 0.0f), -inf);
  EXPECT_EQ(one("Ndtri", 1.0f), inf);
  EXPECT_EQ(one("Entr", -1.0f), -inf);
  EXPECT_EQ(one("Sinc", 0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(one("BesselI0", inf)));  // PyTorch's CPU value
  EXPECT_TRUE(std::isnan(one("BesselI1", -inf)));
  EXPECT_EQ(one("BesselI0e", inf), 0.0f);
  EXPECT_EQ(one("Round", 2.5f), 2.0f);  // half to even
  EXPECT_EQ(one("Round", -3.5f), -4.0f);
  EXPECT_NEAR(one("Round", 1.23456f, attrs({{"decimals", int64_t{3}}})), 1.235f, 1e-6);
  EXPECT_EQ(one("Round", 1234.5f, attrs({{"decimals", int64_t{-2}}})), 1200.0f);
  EXPECT_TRUE(std::isnan(one("Polygamma", 1.0f, attrs({{"n", int64_t{-1}}}))));
  // polygamma n = 0 is digamma; n = 3 vs its series 6 Σ 1/(x+k)^4
  EXPECT_NEAR(one("Polygamma", 2.5f, attrs({{"n", int64_t{0}}})), digammaRef(2.5), 1e-6);
  double s = 0;
  for (int k = 200000; k >= 0; --k) s += 6.0 / std::pow(2.5 + k, 4);
  EXPECT_NEAR(one("Polygamma", 2.5f, attrs({{"n", int64_t{3}}})), s, 1e-6 * s);
  // classification and nan_to_num
  const std::vector<float> v = {NAN, inf, -inf, -0.0f, 0.0f, -2.0f, 3.0f};
  EXPECT_EQ(runToBool("SignBit", ACL_FLOAT, v), (std::vector<int64_t>{0, 0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(runToBool("IsPosInf", ACL_FLOAT, v), (std::vector<int64_t>{0, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(runToBool("IsNegInf", ACL_FLOAT, v), (std::vector<int64_t>{0, 0, 1, 0, 0, 0, 0}));
  const auto n2n = runFloatOp("NanToNum", ACL_FLOAT, {v}, attrs({{"nan", 1.0f}, {"posinf", 2.0f}, {"neginf", -5.0f}}));
  EXPECT_EQ(n2n, (std::vector<float>{1, 2, -5, -0.0f, 0, -2, 3}));
  const auto n2d = runFloatOp("NanToNum", ACL_FLOAT16, {v}, attrs({{"posinf", 65504.0f}, {"neginf", -65504.0f}}));
  EXPECT_EQ(n2d, (std::vector<float>{0, 65504, -65504, -0.0f, 0, -2, 3}));
}

TEST(KernelPointwiseMath, IntegerPaths) {
  const std::vector<int64_t> a = {7, -7, 7, -7, 0, 9, -128, 127};
  const std::vector<int64_t> b = {2, 2, -2, -2, 3, 4, -1, 5};
  for (aclDataType dt : {ACL_INT32, ACL_INT64, ACL_INT8}) {
    SCOPED_TRACE(dtypeName(dt));
    EXPECT_EQ(runIntOp("Floor", dt, {a}), a);
    EXPECT_EQ(runIntOp("Round", dt, {a}), a);
    EXPECT_EQ(runIntOp("FloorMod", dt, {a, b}), (std::vector<int64_t>{1, 1, -1, -1, 0, 1, 0, 2}));
    EXPECT_EQ(runIntOp("Mod", dt, {a, b}), (std::vector<int64_t>{1, -1, 1, -1, 0, 1, 0, 2}));
    // -128 / -1 wraps in int8 as torch does
    EXPECT_EQ(runIntOp("TruncateDiv", dt, {a, b}),
              (std::vector<int64_t>{3, -3, -3, 3, 0, 2, dt == ACL_INT8 ? -128 : 128, 25}));
    EXPECT_EQ(runIntOp("Gcd", dt, {a, b}), (std::vector<int64_t>{1, 1, 1, 1, 3, 1, 1, 1}));
    EXPECT_EQ(runIntOp("Lcm", dt, {{4, -6, 0, 21}, {6, 4, 5, 6}}), (std::vector<int64_t>{12, 12, 0, 42}));
    EXPECT_EQ(runIntOp("BitwiseAnd", dt, {{12, -1, 5}, {10, 7, 0}}), (std::vector<int64_t>{8, 7, 0}));
    EXPECT_EQ(runIntOp("BitwiseOr", dt, {{12, -8, 5}, {10, 7, 0}}), (std::vector<int64_t>{14, -1, 5}));
    EXPECT_EQ(runIntOp("BitwiseXor", dt, {{12, -1, 5}, {10, 7, 5}}), (std::vector<int64_t>{6, -8, 0}));
    EXPECT_EQ(runIntOp("RightShift", dt, {{-16, 16, -1, 100}, {2, 2, 70, -1}}), (std::vector<int64_t>{-4, 4, -1, 0}));
    EXPECT_EQ(runIntOp("Fmax", dt, {{1, -5}, {3, -6}}), (std::vector<int64_t>{3, -5}));
    EXPECT_EQ(runIntOp("Heaviside", dt, {{-3, 0, 4}, {9, 9, 9}}), (std::vector<int64_t>{0, 9, 1}));
    EXPECT_EQ(runIntOp("NanToNum", dt, {a}), a);
    EXPECT_EQ(runIntOp("SignBit", dt, {{-1, 0, 1}}, ACL_BOOL), (std::vector<int64_t>{1, 0, 0}));
  }
  // shifts: counts past the width give 0 (left); narrower dtypes wrap
  EXPECT_EQ(runIntOp("LeftShift", ACL_INT32, {{1, 1, 3, 1}, {31, 32, 1, -1}}),
            (std::vector<int64_t>{INT32_MIN, 0, 6, 0}));
  EXPECT_EQ(runIntOp("LeftShift", ACL_INT8, {{1, 3}, {7, 7}}), (std::vector<int64_t>{-128, -128}));
  EXPECT_EQ(runIntOp("LeftShift", ACL_INT64, {{1}, {63}}), (std::vector<int64_t>{INT64_MIN}));
  // bool bitwise ops
  EXPECT_EQ(runIntOp("BitwiseXor", ACL_BOOL, {{1, 1, 0}, {1, 0, 0}}), (std::vector<int64_t>{0, 1, 0}));
}

TEST(KernelPointwiseMath, IntegerDivisionByZeroFaults) {
  for (const char* op : {"FloorMod", "Mod", "TruncateDiv"}) {
    HostTensor a = HostTensor::ints(ACL_INT32, {2}, {3, 4}), b = HostTensor::ints(ACL_INT32, {2}, {1, 0});
    HostTensor y(ACL_INT32, {2});
    EXPECT_KERNEL_ERROR(makeCall(op, {&a, &b}, {&y}), ACL_ERROR_RT_AICORE_EXCEPTION, "division by zero (x1 = 4)");
  }
}

TEST(KernelPointwiseMath, BinaryAgainstDoubleReferences) {
  using Ref2 = std::function<double(double, double)>;
  struct Case {
    const char* op;
    float lo1, hi1, lo2, hi2;
    Ref2 ref;
  };
  const std::vector<Case> cases = {
      {"FloorMod", -20, 20, -5, 5, [](double a, double b) { return a - std::floor(a / b) * b; }},
      {"Mod", -20, 20, -5, 5, [](double a, double b) { return std::fmod(a, b); }},
      {"TruncateDiv", -20, 20, -5, 5, [](double a, double b) { return std::trunc(a / b); }},
      {"Atan2", -5, 5, -5, 5, [](double a, double b) { return std::atan2(a, b); }},
      {"Hypot", -5, 5, -5, 5, [](double a, double b) { return std::sqrt(a * a + b * b); }},
      {"LogAddExp", -30, 30, -30, 30, [](double a, double b) { return std::log(std::exp(a) + std::exp(b)); }},
      {"LogAddExp2", -30, 30, -30, 30, [](double a, double b) { return std::log2(std::exp2(a) + std::exp2(b)); }},
      {"Xlogy", -3, 3, 0.01f, 10, [](double a, double b) { return a * std::log(b); }},
      {"Xlog1py", -3, 3, -0.9f, 10, [](double a, double b) { return a * std::log1p(b); }},
      {"Copysign", -3, 3, -3, 3, [](double a, double b) { return std::copysign(a, b); }},
      {"Fmax", -3, 3, -3, 3, [](double a, double b) { return std::max(a, b); }},
      {"Fmin", -3, 3, -3, 3, [](double a, double b) { return std::min(a, b); }},
      {"Heaviside", -3, 3, -3, 3, [](double a, double b) { return a == 0 ? b : (a > 0 ? 1.0 : 0.0); }},
  };
  for (const Case& c : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(std::string(c.op) + " " + dtypeName(dt));
      const std::vector<float> a = roundedTo(dt, randomFloats(1500, c.lo1, c.hi1, 3));
      std::vector<float> b = roundedTo(dt, randomFloats(1500, c.lo2, c.hi2, 4));
      for (float& v : b)
        if (v == 0) v = 1;  // keep the quotients of FloorMod/Mod/TruncateDiv finite
      const std::vector<float> y = runFloatOp(c.op, dt, {a, b});
      std::vector<double> want;
      for (size_t i = 0; i < a.size(); ++i) want.push_back(c.ref(a[i], b[i]));
      // FloorMod/Mod lose the quotient's digits: absolute error up to |b| ulps of |a/b|
      expectNear(dt, y, want, std::string(c.op).find("Mod") != std::string::npos ? 20 : 1);
    }
  }
}

TEST(KernelPointwiseMath, BinaryEdgeCases) {
  const float inf = std::numeric_limits<float>::infinity();
  auto two = [](const char* op, float a, float b) { return runFloatOp(op, ACL_FLOAT, {{a}, {b}})[0]; };
  EXPECT_EQ(two("LogAddExp", inf, inf), inf);
  EXPECT_EQ(two("LogAddExp", -inf, -inf), -inf);
  EXPECT_TRUE(std::isnan(two("LogAddExp", NAN, 1)));
  EXPECT_EQ(two("Xlogy", 0, 0), 0.0f);
  EXPECT_TRUE(std::isnan(two("Xlogy", 0, NAN)));
  EXPECT_EQ(two("Fmax", NAN, 2), 2.0f);
  EXPECT_EQ(two("Fmin", 2, NAN), 2.0f);
  EXPECT_EQ(two("FloorMod", -1, inf), inf);  // fmod(-1, inf) = -1, sign differs: -1 + inf
  EXPECT_EQ(two("Copysign", 2, -0.0f), -2.0f);
  EXPECT_EQ(two("NextAfter", 1, 2), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(two("NextAfter", 0, -1), -std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(two("Heaviside", 0, 0.5f), 0.5f);
  // floor division as Python defines it, and PyTorch 1.13's signed lerp branch
  EXPECT_EQ(two("FloorDiv", 1, -inf), -1.0f);
  EXPECT_EQ(two("FloorDiv", -1, inf), -1.0f);
  EXPECT_EQ(two("FloorDiv", 7, 0), inf);
  EXPECT_EQ(two("FloorDiv", -7.5f, 2), -4.0f);
  EXPECT_EQ(runFloatOp("Lerp", ACL_FLOAT, {{0}, {-inf}, {-inf}})[0], inf);  // start + w (end - start)
  // incomplete gamma: PyTorch's edge order before NaN
  EXPECT_EQ(two("Igamma", inf, NAN), 0.0f);
  EXPECT_EQ(two("Igammac", NAN, inf), 0.0f);
}

TEST(KernelPointwiseMath, IncompleteGammaClosedForms) {
  // Q(n, x) = e^-x Σ_{k<n} x^k / k!; P(1/2, x) = erf(sqrt x)
  const std::vector<float> x = randomFloats(500, 0.01f, 25, 5);
  for (float a : {1.0f, 3.0f, 7.0f, 0.5f}) {
    const std::vector<float> av(x.size(), a);
    const auto p = runFloatOp("Igamma", ACL_FLOAT, {av, x});
    const auto q = runFloatOp("Igammac", ACL_FLOAT, {av, x});
    for (size_t i = 0; i < x.size(); ++i) {
      double want_q;
      if (a == 0.5f) {
        want_q = std::erfc(std::sqrt(static_cast<double>(x[i])));
      } else {
        double term = 1, sum = 1;
        for (int k = 1; k < static_cast<int>(a); ++k) sum += (term *= x[i] / k);
        want_q = std::exp(-static_cast<double>(x[i])) * sum;
      }
      ASSERT_NEAR(q[i], want_q, 4e-6 * want_q + 1e-7) << "a " << a << " x " << x[i];
      ASSERT_NEAR(p[i], 1 - want_q, 4e-6 * (1 - want_q) + 1e-7) << "a " << a << " x " << x[i];
    }
  }
  auto two = [](const char* op, float a, float b) { return runFloatOp(op, ACL_FLOAT, {{a}, {b}})[0]; };
  EXPECT_TRUE(std::isnan(two("Igamma", -1, 1)));
  EXPECT_EQ(two("Igamma", 0, 1), 1.0f);
  EXPECT_EQ(two("Igammac", 2, 0), 1.0f);
  EXPECT_EQ(two("Igamma", 2, INFINITY), 1.0f);
}

TEST(KernelPointwiseMath, LerpBothSides) {
  const std::vector<float> s = randomFloats(400, -5, 5, 1), e = randomFloats(400, -5, 5, 2),
                           w = randomFloats(400, -1, 2, 3);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const auto sr = roundedTo(dt, s), er = roundedTo(dt, e), wr = roundedTo(dt, w);
    const auto y = runFloatOp("Lerp", dt, {sr, er, wr});
    std::vector<double> want;
    for (size_t i = 0; i < s.size(); ++i) want.push_back(sr[i] + static_cast<double>(wr[i]) * (er[i] - sr[i]));
    expectNear(dt, y, want, 10);
  }
}

TEST(KernelPointwiseMath, PrivateFormatsAndEmpty) {
  for (const char* op : {"Sin", "Digamma", "Round"}) expectPrivateFormatMatchesNd(op, {}, 1);
  for (const char* op : {"Atan2", "FloorMod", "Xlogy"}) expectPrivateFormatMatchesNd(op, {}, 2);
  for (const char* op : {"Erfinv", "Atan2", "Lerp"}) {
    const int nin = std::string(op) == "Lerp" ? 3 : (std::string(op) == "Atan2" ? 2 : 1);
    std::vector<HostTensor> ins(static_cast<size_t>(nin), HostTensor(ACL_FLOAT, {0, 3}));
    HostTensor y(ACL_FLOAT, {0, 3});
    OpCall c;
    c.op_type = op;
    for (const auto& t : ins) c.inputs.push_back(t.arg());
    c.outputs.push_back(y.arg());
    run(c);
  }
}

TEST(KernelPointwiseMath, ValidationErrors) {
  HostTensor xi = HostTensor::ints(ACL_INT32, {4}, {1, 2, 3, 4}), yi(ACL_INT32, {4});
  EXPECT_KERNEL_ERROR(makeCall("Sin", {&xi}, {&yi}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x dtype int32");
  HostTensor x = HostTensor::floats(ACL_FLOAT, {4}, {1, 2, 3, 4}), y(ACL_FLOAT, {4}), yb(ACL_BOOL, {4});
  EXPECT_KERNEL_ERROR(makeCall("BitwiseAnd", {&x, &x}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "dtype float32");
  EXPECT_KERNEL_ERROR(makeCall("SignBit", {&x}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output y dtype float32");
  EXPECT_KERNEL_ERROR(makeCall("Polygamma", {&x}, {&y}), ACL_ERROR_OP_ATTR_NOT_MATCH, "missing required attribute 'n'");
  HostTensor xh = HostTensor::floats(ACL_FLOAT16, {4}, {1, 2, 3, 4}), yh(ACL_FLOAT16, {4});
  EXPECT_KERNEL_ERROR(makeCall("NextAfter", {&xh, &xh}, {&yh}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "float16");
  HostTensor x3 = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Atan2", {&x, &x3}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x2 shape [3] does not broadcast to output shape [4]");
  HostTensor xl = HostTensor::ints(ACL_INT64, {4}, {1, 2, 3, 4});
  EXPECT_KERNEL_ERROR(makeCall("Gcd", {&xi, &xl}, {&yi}), ACL_ERROR_OP_INPUT_NOT_MATCH, "dtype");
}
