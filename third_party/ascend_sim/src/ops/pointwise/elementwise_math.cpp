// Pointwise math (OPS.md "Pointwise math and activations"): rounding,
// exponentials and logarithms, trigonometric and hyperbolic functions, and
// the float classification ops. ElementwiseSpec table rows (Note [Elementwise
// engine]): fp32 math with the C library's float functions, as PyTorch's CPU
// kernels evaluate them, rounded once to the output dtype.
//
// Integer inputs: the rounding ops, Signbit, IsPosInf/IsNegInf and NanToNum
// accept them (identity or the obvious answer, as torch does); every other op
// is float only (the plugin promotes integers to float first).
#include <cmath>

#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

using P = const float*;

constexpr float kPiF = 3.14159265358979323846f;

struct IdentityInt {
  int64_t operator()(int64_t a, P) const { return a; }
};
struct FloorOp : IdentityInt {
  using IdentityInt::operator();
  float operator()(float a, P) const { return std::floor(a); }
};
struct CeilOp : IdentityInt {
  using IdentityInt::operator();
  float operator()(float a, P) const { return std::ceil(a); }
};
struct TruncOp : IdentityInt {
  using IdentityInt::operator();
  float operator()(float a, P) const { return std::trunc(a); }
};
// Round half to even; attr `decimals` d: nearbyint(x * 10^d) / 10^d, or for
// d < 0 nearbyint(x / 10^-d) * 10^-d (torch.round(decimals=d)), 10^|d|
// computed in double and rounded to fp32 as PyTorch's CPU kernel does.
struct RoundOp : IdentityInt {
  using IdentityInt::operator();
  float operator()(float a, P p) const {
    const float d = p[0];
    if (d == 0) return std::nearbyint(a);
    const float scale = static_cast<float>(std::pow(10.0, std::fabs(d)));
    return d > 0 ? std::nearbyint(a * scale) / scale : std::nearbyint(a / scale) * scale;
  }
};
struct ExpOp {  // base: -1 = e, else base^x
  float operator()(float a, P p) const {
    if (p[0] == -1.0f) return std::exp(a);
    if (p[0] == 2.0f) return std::exp2(a);
    return std::pow(p[0], a);
  }
};
struct LogOp {  // base: -1 = e, 2, 10, else log(x) / log(base)
  float operator()(float a, P p) const {
    if (p[0] == -1.0f) return std::log(a);
    if (p[0] == 2.0f) return std::log2(a);
    if (p[0] == 10.0f) return std::log10(a);
    return std::log(a) / std::log(p[0]);
  }
};
#define ASCEND_SIM_FN(Name, fn) \
  struct Name {                 \
    float operator()(float a, P) const { return fn(a); } \
  };
ASCEND_SIM_FN(Expm1Op, std::expm1)
ASCEND_SIM_FN(Log1pOp, std::log1p)
ASCEND_SIM_FN(ErfOp, std::erf)
ASCEND_SIM_FN(ErfcOp, std::erfc)
ASCEND_SIM_FN(SinOp, std::sin)
ASCEND_SIM_FN(CosOp, std::cos)
ASCEND_SIM_FN(TanOp, std::tan)
ASCEND_SIM_FN(AsinOp, std::asin)
ASCEND_SIM_FN(AcosOp, std::acos)
ASCEND_SIM_FN(AtanOp, std::atan)
ASCEND_SIM_FN(SinhOp, std::sinh)
ASCEND_SIM_FN(CoshOp, std::cosh)
ASCEND_SIM_FN(AsinhOp, std::asinh)
ASCEND_SIM_FN(AcoshOp, std::acosh)
ASCEND_SIM_FN(AtanhOp, std::atanh)
#undef ASCEND_SIM_FN

struct SincOp {  // sin(pi x) / (pi x), 1 at 0
  float operator()(float a, P) const {
    if (a == 0.0f) return 1.0f;
    const float t = kPiF * a;
    return std::sin(t) / t;
  }
};
struct AngleOp {  // argument of a real number: pi below 0, NaN stays NaN
  float operator()(float a, P) const { return a != a ? a : (a < 0 ? kPiF : 0.0f); }
};
struct SignbitOp {  // bool output
  float operator()(float a, P) const { return std::signbit(a) ? 1.0f : 0.0f; }
  int64_t operator()(int64_t a, P) const { return a < 0 ? 1 : 0; }
};
struct IsPosInfOp {
  float operator()(float a, P) const { return a == INFINITY ? 1.0f : 0.0f; }
  int64_t operator()(int64_t, P) const { return 0; }
};
struct IsNegInfOp {
  float operator()(float a, P) const { return a == -INFINITY ? 1.0f : 0.0f; }
  int64_t operator()(int64_t, P) const { return 0; }
};
struct NanToNumOp : IdentityInt {  // params: nan, posinf, neginf (the plugin resolves torch's defaults)
  using IdentityInt::operator();
  float operator()(float a, P p) const {
    if (a != a) return p[0];
    if (a == INFINITY) return p[1];
    if (a == -INFINITY) return p[2];
    return a;
  }
};

#define NUMERIC(name, Op, ...) \
  {name, 1, {"x", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F1(Op), ASCEND_SIM_I1(Op), -1, {__VA_ARGS__}}
#define FLOAT(name, Op, ...) \
  {name, 1, {"x", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F1(Op), nullptr, -1, {__VA_ARGS__}}
#define TO_BOOL(name, Op) \
  {name, 1, {"x", "y"}, kNumericTypes | kBoolType, OutDtype::kBool, ASCEND_SIM_F1(Op), ASCEND_SIM_I1(Op)}

const ElementwiseSpec kSpecs[] = {
    NUMERIC("Floor", FloorOp),
    NUMERIC("Ceil", CeilOp),
    NUMERIC("Trunc", TruncOp),
    NUMERIC("Round", RoundOp, {"decimals", 0.0f, false}),
    FLOAT("Exp", ExpOp, {"base", -1.0f, false}),
    FLOAT("Log", LogOp, {"base", -1.0f, false}),
    FLOAT("Expm1", Expm1Op),
    FLOAT("Log1p", Log1pOp),
    FLOAT("Erf", ErfOp),
    FLOAT("Erfc", ErfcOp),
    FLOAT("Sin", SinOp),
    FLOAT("Cos", CosOp),
    FLOAT("Tan", TanOp),
    FLOAT("Asin", AsinOp),
    FLOAT("Acos", AcosOp),
    FLOAT("Atan", AtanOp),
    FLOAT("Sinh", SinhOp),
    FLOAT("Cosh", CoshOp),
    FLOAT("Asinh", AsinhOp),
    FLOAT("Acosh", AcoshOp),
    FLOAT("Atanh", AtanhOp),
    FLOAT("Sinc", SincOp),
    FLOAT("Angle", AngleOp),
    TO_BOOL("SignBit", SignbitOp),
    TO_BOOL("IsPosInf", IsPosInfOp),
    TO_BOOL("IsNegInf", IsNegInfOp),
    NUMERIC("NanToNum", NanToNumOp, {"nan", 0.0f, false}, {"posinf", 3.4028234663852886e38f, false},
            {"neginf", -3.4028234663852886e38f, false}),
};
#undef NUMERIC
#undef FLOAT
#undef TO_BOOL

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
