// Bessel and Airy functions in double (Note [Special functions in double]):
// J0/J1/Y0/Y1 from the C library, K0/K1 from std::cyl_bessel_k (their
// exponentially scaled forms by the asymptotic series beyond x = 30, where
// K underflows), Ai from its Bessel representations (DLMF 9.6.6, 9.6.7).
// Infinities and domain edges follow PyTorch's CPU kernels.
#include <cmath>
#include <limits>

#include "ops/pointwise/special_functions.h"

namespace ascend_sim {
namespace special {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// e^x K_nu(x) ~ sqrt(pi / 2x) Σ_k a_k(nu) / x^k for large x (nu = 0, 1).
double besselKAsymptoticScaled(int nu, double x) {
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 40; ++k) {
    const double odd = 2.0 * k - 1;
    term *= (mu - odd * odd) / (k * 8.0 * x);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * 1e-17) break;
  }
  return sum * std::sqrt(kPi / (2 * x));
}

// K_nu(x) for x > 0, or its scaled form e^x K_nu(x).
double besselK(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNan;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  if (x > 30) return scaled ? besselKAsymptoticScaled(nu, x) : besselKAsymptoticScaled(nu, x) * std::exp(-x);
  const double k = std::cyl_bessel_k(static_cast<double>(nu), x);
  return scaled ? k * std::exp(x) : k;
}

}  // namespace

double besselJ0(double x) { return std::isinf(x) ? kNan : ::j0(x); }
double besselJ1(double x) { return std::isinf(x) ? kNan : ::j1(x); }
double besselY0(double x) {
  if (x == 0) return -kInf;
  if (x < 0 || std::isinf(x)) return kNan;
  return ::y0(x);
}
double besselY1(double x) {
  if (x == 0) return -kInf;
  if (x < 0 || std::isinf(x)) return kNan;
  return ::y1(x);
}
double besselK0(double x) { return besselK(0, x, false); }
double besselK1(double x) { return besselK(1, x, false); }
double besselK0e(double x) { return besselK(0, x, true); }
double besselK1e(double x) { return besselK(1, x, true); }

double sphericalBesselJ0(double x) {
  if (std::isinf(x)) return 0;
  if (x == 0) return 1;
  return std::sin(x) / x;
}

double airyAi(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kNan;
  if (x > 103.892) return 0;
  if (x == 0) return 0.355028053887817239260;  // 1 / (3^(2/3) Γ(2/3))
  const double t = std::fabs(x), zeta = 2.0 / 3.0 * t * std::sqrt(t);
  if (x > 0) return std::sqrt(x / 3) / kPi * std::cyl_bessel_k(1.0 / 3.0, zeta);
  // Ai(-t) = sqrt(t)/2 (J_{1/3}(ζ) - Y_{1/3}(ζ)/sqrt(3))
  return std::sqrt(t) / 2 * (std::cyl_bessel_j(1.0 / 3.0, zeta) - std::cyl_neumann(1.0 / 3.0, zeta) / std::sqrt(3.0));
}

}  // namespace special
}  // namespace ascend_sim
