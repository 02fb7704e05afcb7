// Orthogonal polynomials (torch.special.*_polynomial_*) in double by their
// three-term recurrences p_{k+1} = (a_k x + b_k) p_k - c_k p_{k-1}; the
// shifted Chebyshev polynomials are the plain ones at 2x - 1; inside (-1, 1)
// a Chebyshev polynomial of degree > 64 uses its closed trigonometric form.
// A negative degree gives 0, as in PyTorch.
#include <cmath>
#include <cstdint>

#include "ops/pointwise/special_functions.h"

namespace ascend_sim {
namespace special {
namespace {

// p_1 and the recurrence step of each family (the shifted ones map x first).
struct Family {
  double p1;
  double next(double x, double p, double q, int64_t k) const {  // p = p_{k-1}, q = p_k
    switch (kind) {
      case Polynomial::kHermiteH: return 2 * x * q - 2.0 * static_cast<double>(k) * p;
      case Polynomial::kHermiteHe: return x * q - static_cast<double>(k) * p;
      case Polynomial::kLaguerreL: return ((2.0 * k + 1 - x) * q - static_cast<double>(k) * p) / (k + 1.0);
      case Polynomial::kLegendreP: return ((2.0 * k + 1) * x * q - static_cast<double>(k) * p) / (k + 1.0);
      default: return 2 * x * q - p;  // the Chebyshev families
    }
  }
  Polynomial kind;
};

Family familyOf(Polynomial kind, double x) {
  switch (kind) {
    case Polynomial::kChebyshevT: case Polynomial::kShiftedChebyshevT: return {x, kind};
    case Polynomial::kChebyshevU: case Polynomial::kShiftedChebyshevU: return {2 * x, kind};
    case Polynomial::kChebyshevV: case Polynomial::kShiftedChebyshevV: return {2 * x - 1, kind};
    case Polynomial::kChebyshevW: case Polynomial::kShiftedChebyshevW: return {2 * x + 1, kind};
    case Polynomial::kHermiteH: return {2 * x, kind};
    case Polynomial::kHermiteHe: return {x, kind};
    case Polynomial::kLaguerreL: return {1 - x, kind};
    case Polynomial::kLegendreP: return {x, kind};
  }
  return {x, kind};
}

bool isShifted(Polynomial kind) {
  return kind == Polynomial::kShiftedChebyshevT || kind == Polynomial::kShiftedChebyshevU ||
         kind == Polynomial::kShiftedChebyshevV || kind == Polynomial::kShiftedChebyshevW;
}

// Chebyshev polynomials inside (-1, 1) in closed form (θ = acos x): no loop for a large n.
double chebyshevTrig(Polynomial kind, double x, int64_t n) {
  const double t = std::acos(x), m = static_cast<double>(n);
  switch (kind) {
    case Polynomial::kChebyshevT: case Polynomial::kShiftedChebyshevT: return std::cos(m * t);
    case Polynomial::kChebyshevU: case Polynomial::kShiftedChebyshevU: return std::sin((m + 1) * t) / std::sin(t);
    case Polynomial::kChebyshevV: case Polynomial::kShiftedChebyshevV: return std::cos((m + 0.5) * t) / std::cos(t / 2);
    default: return std::sin((m + 0.5) * t) / std::sin(t / 2);
  }
}

bool isChebyshev(Polynomial kind) {
  return kind != Polynomial::kHermiteH && kind != Polynomial::kHermiteHe && kind != Polynomial::kLaguerreL &&
         kind != Polynomial::kLegendreP;
}

}  // namespace

double polynomial(Polynomial kind, double x, int64_t n) {
  if (n < 0) return 0;
  if (isShifted(kind)) x = 2 * x - 1;
  if (n == 0) return 1;
  if (isChebyshev(kind) && n > 64 && std::fabs(x) < 1) return chebyshevTrig(kind, x, n);
  const Family f = familyOf(kind, x);
  double p = 1, q = f.p1;
  for (int64_t k = 1; k < n && std::isfinite(q); ++k) {  // once infinite or NaN it stays so
    const double r = f.next(x, p, q, k);
    p = q;
    q = r;
  }
  return q;
}

}  // namespace special
}  // namespace ascend_sim
