// Special functions in double precision, for the elementwise kernels of
// elementwise_special.cpp.
//
// Note [Special functions in double]
// The device evaluates these with fp32 polynomial and rational approximations
// whose coefficients are not public. The simulator instead evaluates each
// function to (nearly) double accuracy and rounds once to the output dtype,
// so a result is within one rounding of the exact value — and within a few
// fp32 ulps of PyTorch's CPU kernels, whose float versions are themselves a
// few ulps off. Edge cases (poles, domain limits, NaN, infinities) follow
// PyTorch's CPU kernels (aten/src/ATen/native/Math.h). Every function is
// pure: no global state (lgamma's signgam is never touched).
#pragma once

#include <cstdint>

namespace ascend_sim {
namespace special {

double lgammaPure(double x);              // log|Γ(x)|, without touching signgam
double digamma(double x);                 // ψ(x); ψ(±0) = ∓inf, ψ(negative integer) = NaN
double hurwitzZeta(double s, double q);   // ζ(s, q) = Σ_k (q + k)^-s, s > 1
double polygamma(int n, double x);        // ψ^(n)(x), n >= 0
double erfinv(double y);                  // erf^-1, ±1 -> ±inf, |y| > 1 -> NaN
double ndtri(double p);                   // Φ^-1(p), 0 -> -inf, 1 -> inf
double erfcx(double x);                   // exp(x²) erfc(x)
double logNdtr(double x);                 // log Φ(x)
double besselI0(double x);                // modified Bessel functions of the first kind (±inf -> NaN)
double besselI0e(double x);               // exp(-|x|) I0(x)
double besselI1(double x);
double besselI1e(double x);               // exp(-|x|) I1(x)
double igamma(double a, double x);        // regularized lower incomplete gamma P(a, x)
double igammac(double a, double x);       // regularized upper incomplete gamma Q(a, x)

// special_bessel.cpp: Bessel functions of the first/second kind (±inf -> NaN,
// as PyTorch's CPU kernels), modified Bessel K (K(0) = inf, K(x < 0) = NaN),
// spherical j0 and Airy Ai (Ai(±inf) = NaN, 0 beyond x = 103.892).
double besselJ0(double x);
double besselJ1(double x);
double besselY0(double x);                // Y(0) = -inf, Y(x < 0) = NaN
double besselY1(double x);
double besselK0(double x);
double besselK1(double x);
double besselK0e(double x);               // exp(x) K0(x)
double besselK1e(double x);               // exp(x) K1(x)
double sphericalBesselJ0(double x);       // sin(x)/x, 1 at 0, 0 at ±inf
double airyAi(double x);

// special_polynomials.cpp: orthogonal polynomials of degree n (n < 0 gives 0)
// by their three-term recurrences in double.
enum class Polynomial {
  kChebyshevT, kChebyshevU, kChebyshevV, kChebyshevW,
  kShiftedChebyshevT, kShiftedChebyshevU, kShiftedChebyshevV, kShiftedChebyshevW,
  kHermiteH, kHermiteHe, kLaguerreL, kLegendreP,
};
double polynomial(Polynomial kind, double x, int64_t n);

}  // namespace special
}  // namespace ascend_sim
