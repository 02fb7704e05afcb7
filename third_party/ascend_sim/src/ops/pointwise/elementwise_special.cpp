// Special functions (OPS.md "Pointwise math and activations"): Lgamma,
// Digamma, Polygamma, Erfinv, Ndtri, LogNdtr, Erfcx, the Bessel and Airy
// functions, Zeta, the orthogonal polynomials, Entr, Xlogy, Xlog1py, Igamma,
// Igammac. ElementwiseSpec table
// rows (Note [Elementwise engine]), float dtypes only. The transcendental
// ones are evaluated in double and rounded once (Note [Special functions in
// double]); Lgamma, Entr, Xlogy and Xlog1py are fp32 formulas as on the CPU.
#include <cmath>

#include "ops/pointwise/elementwise_ops.h"
#include "ops/pointwise/special_functions.h"

namespace ascend_sim {
namespace {

using P = const float*;

#define ASCEND_SIM_SPECIAL(Name, fn) \
  struct Name {                      \
    float operator()(float a, P) const { return static_cast<float>(special::fn(a)); } \
  };
ASCEND_SIM_SPECIAL(DigammaOp, digamma)
ASCEND_SIM_SPECIAL(ErfinvOp, erfinv)
ASCEND_SIM_SPECIAL(NdtriOp, ndtri)
ASCEND_SIM_SPECIAL(LogNdtrOp, logNdtr)
ASCEND_SIM_SPECIAL(ErfcxOp, erfcx)
ASCEND_SIM_SPECIAL(I0Op, besselI0)
ASCEND_SIM_SPECIAL(I0eOp, besselI0e)
ASCEND_SIM_SPECIAL(I1Op, besselI1)
ASCEND_SIM_SPECIAL(I1eOp, besselI1e)
ASCEND_SIM_SPECIAL(J0Op, besselJ0)
ASCEND_SIM_SPECIAL(J1Op, besselJ1)
ASCEND_SIM_SPECIAL(Y0Op, besselY0)
ASCEND_SIM_SPECIAL(Y1Op, besselY1)
ASCEND_SIM_SPECIAL(K0Op, besselK0)
ASCEND_SIM_SPECIAL(K1Op, besselK1)
ASCEND_SIM_SPECIAL(K0eOp, besselK0e)
ASCEND_SIM_SPECIAL(K1eOp, besselK1e)
ASCEND_SIM_SPECIAL(SphericalJ0Op, sphericalBesselJ0)
ASCEND_SIM_SPECIAL(AiryAiOp, airyAi)
#undef ASCEND_SIM_SPECIAL

struct LgammaOp {  // fp32 lgammaf_r: std::lgamma would write the global signgam
  float operator()(float a, P) const {
    int sign = 0;
    return lgammaf_r(a, &sign);
  }
};
struct PolygammaOp {  // params: n (the plugin rejects n < 0; here it gives NaN)
  float operator()(float a, P p) const {
    if (p[0] < 0) return NAN;
    return static_cast<float>(special::polygamma(static_cast<int>(p[0]), a));
  }
};
struct EntrOp {  // -x log x; 0 at 0, -inf for x < 0
  float operator()(float a, P) const {
    if (a != a) return a;
    if (a > 0) return -a * std::log(a);
    return a == 0 ? 0.0f : -INFINITY;
  }
};
struct XlogyOp {  // NaN if y is NaN, else 0 where x == 0, else x log y
  float operator()(float x, float y, P) const {
    if (y != y) return y;
    if (x == 0) return 0;
    return x * std::log(y);
  }
};
struct Xlog1pyOp {
  float operator()(float x, float y, P) const {
    if (y != y) return y;
    if (x == 0) return 0;
    return x * std::log1p(y);
  }
};
struct ZetaOp {  // Hurwitz zeta ζ(x, q)
  float operator()(float x, float q, P) const { return static_cast<float>(special::hurwitzZeta(x, q)); }
};
// (x, n): the degree n is truncated to an integer; a non-finite n gives 0
// (PyTorch's float-to-int64 conversion yields INT64_MIN there: a negative degree).
template <special::Polynomial K>
struct PolynomialOp {
  float operator()(float x, float n, P) const {
    if (!std::isfinite(n)) return 0.0f;
    return static_cast<float>(special::polynomial(K, x, static_cast<int64_t>(n)));
  }
};
using special::Polynomial;

struct IgammaOp {
  float operator()(float a, float x, P) const { return static_cast<float>(special::igamma(a, x)); }
};
struct IgammacOp {
  float operator()(float a, float x, P) const { return static_cast<float>(special::igammac(a, x)); }
};

#define UNARY(name, Op, ...) \
  {name, 1, {"x", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F1(Op), nullptr, -1, {__VA_ARGS__}}
#define BINARY(name, Op) {name, 2, {"x1", "x2", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(Op), nullptr}

const ElementwiseSpec kSpecs[] = {
    UNARY("Lgamma", LgammaOp),
    UNARY("Digamma", DigammaOp),
    UNARY("Polygamma", PolygammaOp, {"n", 0.0f, true}),
    UNARY("Erfinv", ErfinvOp),
    UNARY("Ndtri", NdtriOp),
    UNARY("LogNdtr", LogNdtrOp),
    UNARY("Erfcx", ErfcxOp),
    UNARY("BesselI0", I0Op),
    UNARY("BesselI0e", I0eOp),
    UNARY("BesselI1", I1Op),
    UNARY("BesselI1e", I1eOp),
    UNARY("Entr", EntrOp),
    BINARY("Xlogy", XlogyOp),
    BINARY("Xlog1py", Xlog1pyOp),
    UNARY("BesselJ0", J0Op),
    UNARY("BesselJ1", J1Op),
    UNARY("BesselY0", Y0Op),
    UNARY("BesselY1", Y1Op),
    UNARY("BesselK0", K0Op),
    UNARY("BesselK1", K1Op),
    UNARY("BesselK0e", K0eOp),
    UNARY("BesselK1e", K1eOp),
    UNARY("SphericalBesselJ0", SphericalJ0Op),
    UNARY("AiryAi", AiryAiOp),
    BINARY("Zeta", ZetaOp),
    BINARY("ChebyshevPolynomialT", PolynomialOp<Polynomial::kChebyshevT>),
    BINARY("ChebyshevPolynomialU", PolynomialOp<Polynomial::kChebyshevU>),
    BINARY("ChebyshevPolynomialV", PolynomialOp<Polynomial::kChebyshevV>),
    BINARY("ChebyshevPolynomialW", PolynomialOp<Polynomial::kChebyshevW>),
    BINARY("ShiftedChebyshevPolynomialT", PolynomialOp<Polynomial::kShiftedChebyshevT>),
    BINARY("ShiftedChebyshevPolynomialU", PolynomialOp<Polynomial::kShiftedChebyshevU>),
    BINARY("ShiftedChebyshevPolynomialV", PolynomialOp<Polynomial::kShiftedChebyshevV>),
    BINARY("ShiftedChebyshevPolynomialW", PolynomialOp<Polynomial::kShiftedChebyshevW>),
    BINARY("HermitePolynomialH", PolynomialOp<Polynomial::kHermiteH>),
    BINARY("HermitePolynomialHe", PolynomialOp<Polynomial::kHermiteHe>),
    BINARY("LaguerrePolynomialL", PolynomialOp<Polynomial::kLaguerreL>),
    BINARY("LegendrePolynomialP", PolynomialOp<Polynomial::kLegendreP>),
    BINARY("Igamma", IgammaOp),
    BINARY("Igammac", IgammacOp),
};
#undef UNARY
#undef BINARY

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
