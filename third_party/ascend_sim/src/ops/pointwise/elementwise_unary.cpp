// Unary elementwise ops and Cast (OPS.md "Elementwise"; Exp and Log, which take a
// `base` attribute, live with the other math functions in elementwise_math.cpp). Float math is fp32
// (expf, logf, ...) rounded once to the output dtype; see Note [Elementwise engine].
// Cast is the identity in the input's compute domain: the conversion rules
// live in storeFloat/storeInt (Note [Compute domains]).
#include <cmath>

#include "common/dtype.h"
#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

using P = const float*;

struct NegOp {
  float operator()(float a, P) const { return -a; }
  int64_t operator()(int64_t a, P) const { return wrapNeg(a); }
};
struct AbsOp {
  float operator()(float a, P) const { return std::fabs(a); }
  int64_t operator()(int64_t a, P) const { return a < 0 ? wrapNeg(a) : a; }
};
struct SquareOp {
  float operator()(float a, P) const { return a * a; }
  int64_t operator()(int64_t a, P) const { return wrapMul(a, a); }
};
struct SignOp {  // NaN -> 0 and -0 -> +0, as PyTorch's CPU and CUDA kernels ((0 < a) - (a < 0))
  float operator()(float a, P) const { return a > 0 ? 1.0f : (a < 0 ? -1.0f : 0.0f); }
  int64_t operator()(int64_t a, P) const { return a > 0 ? 1 : (a < 0 ? -1 : 0); }
};
struct ReluOp {  // NaN -> NaN, relu(-0) = +0
  float operator()(float a, P) const { return a > 0 ? a : (a != a ? a : 0.0f); }
  int64_t operator()(int64_t a, P) const { return a > 0 ? a : 0; }
};
// Relu on fp16 bits (Note [fp16 ops on their bits]): a negative number or -0
// becomes +0, anything else is kept; a NaN gets the fp32 path's bits (the
// round trip through fp32 quiets it). Branch-free so that it vectorises; the
// rare NaN is fixed up afterwards.
void reluHalf(const uint16_t* const* in, uint16_t* o, int64_t n) {
  const uint16_t* a = in[0];
  uint16_t any_nan = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t h = a[i];
    const bool nan = (h & 0x7fff) > 0x7c00;
    any_nan |= static_cast<uint16_t>(nan);
    o[i] = ((h & 0x8000) && !nan) ? uint16_t{0} : h;
  }
  if (!any_nan) return;
  for (int64_t i = 0; i < n; ++i)
    if ((o[i] & 0x7fff) > 0x7c00) o[i] = floatToHalf(halfToFloat(o[i]));
}

struct NotOp {
  int64_t operator()(int64_t a, P) const { return a == 0 ? 1 : 0; }
};
struct SqrtOp { float operator()(float a, P) const { return std::sqrt(a); } };
struct RsqrtOp { float operator()(float a, P) const { return 1.0f / std::sqrt(a); } };
struct SigmoidOp { float operator()(float a, P) const { return 1.0f / (1.0f + std::exp(-a)); } };
struct TanhOp { float operator()(float a, P) const { return std::tanh(a); } };
struct ReciprocalOp { float operator()(float a, P) const { return 1.0f / a; } };
struct PowerOp {  // (shift + scale * x) ^ power; params = power, scale, shift
  float operator()(float a, P p) const { return std::pow(p[2] + p[1] * a, p[0]); }
};

#define NUMERIC(name, Op) \
  {name, 1, {"x", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F1(Op), ASCEND_SIM_I1(Op)}
#define FLOAT_ONLY(name, Op) \
  {name, 1, {"x", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F1(Op), nullptr}

// One spec per line, as in the other tables.
// clang-format off
const ElementwiseSpec kSpecs[] = {
    NUMERIC("Neg", NegOp),
    NUMERIC("Abs", AbsOp),
    NUMERIC("Square", SquareOp),
    NUMERIC("Sign", SignOp),
    {"Relu", 1, {"x", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F1(ReluOp), ASCEND_SIM_I1(ReluOp), -1, {}, false,
     {}, &reluHalf},
    FLOAT_ONLY("Sqrt", SqrtOp),
    FLOAT_ONLY("Rsqrt", RsqrtOp),
    FLOAT_ONLY("Sigmoid", SigmoidOp),
    FLOAT_ONLY("Tanh", TanhOp),
    FLOAT_ONLY("Reciprocal", ReciprocalOp),
    {"LogicalNot", 1, {"x", "y"}, kBoolType, OutDtype::kBool, nullptr, ASCEND_SIM_I1(NotOp)},
    {"Power", 1, {"x", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F1(PowerOp), nullptr, -1,
     {{"power", 1.0f, false}, {"scale", 1.0f, false}, {"shift", 0.0f, false}}},
    {"Cast", 1, {"x", "y"}, kStorageTypes, OutDtype::kAny, &copyChunkF32, &copyChunkI64},
};
// clang-format on
#undef NUMERIC
#undef FLOAT_ONLY

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
