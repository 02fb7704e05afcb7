// Binary (and ternary) pointwise math (OPS.md "Pointwise math and
// activations"): remainders and divisions, atan2/hypot/logaddexp, copysign,
// fmax/fmin, nextafter, heaviside, lerp, gcd/lcm and the bitwise ops.
// ElementwiseSpec table rows (Note [Elementwise engine]); each functor follows
// PyTorch's CPU scalar formula in fp32 (floats) or int64 wrapped to the
// output dtype (integers and bool).
#include <cmath>
#include <string>

#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

using P = const float*;

constexpr float kInvLn2 = 1.44269504088896340736f;

[[noreturn]] void divisionByZero(const char* op, int64_t a) {
  throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION,
                    std::string(op) + ": integer division by zero (x1 = " + std::to_string(a) + ")");
}

struct FloorModOp {  // torch.remainder: the result has the divisor's sign
  float operator()(float a, float b, P) const {
    float m = std::fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
  }
  int64_t operator()(int64_t a, int64_t b, P) const {
    if (b == 0) divisionByZero("FloorMod", a);
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
};
struct ModOp {  // torch.fmod: the result has the dividend's sign
  float operator()(float a, float b, P) const { return std::fmod(a, b); }
  int64_t operator()(int64_t a, int64_t b, P) const {
    if (b == 0) divisionByZero("Mod", a);
    return b == -1 ? 0 : a % b;
  }
};
struct TruncateDivOp {  // division rounded toward zero
  float operator()(float a, float b, P) const { return std::trunc(a / b); }
  int64_t operator()(int64_t a, int64_t b, P) const {
    if (b == 0) divisionByZero("TruncateDiv", a);
    return b == -1 ? wrapNeg(a) : a / b;
  }
};
struct Atan2Op {
  float operator()(float a, float b, P) const { return std::atan2(a, b); }
};
struct HypotOp {
  float operator()(float a, float b, P) const { return std::hypot(a, b); }
};
struct LogAddExpOp {  // log(e^a + e^b); equal infinities give themselves
  float operator()(float a, float b, P) const {
    if (std::isinf(a) && a == b) return a;
    const float m = a < b ? b : a;  // std::max: a NaN in either operand still reaches the sum
    return m + std::log1p(std::exp(-std::fabs(a - b)));
  }
};
struct LogAddExp2Op {  // log2(2^a + 2^b)
  float operator()(float a, float b, P) const {
    if (std::isinf(a) && a == b) return a;
    const float m = a < b ? b : a;  // std::max: a NaN in either operand still reaches the sum
    return m + std::log1p(std::exp2(-std::fabs(a - b))) * kInvLn2;
  }
};
struct CopysignOp {
  float operator()(float a, float b, P) const { return std::copysign(a, b); }
};
struct FmaxOp {  // NaN is ignored unless both are NaN
  float operator()(float a, float b, P) const { return std::fmax(a, b); }
  int64_t operator()(int64_t a, int64_t b, P) const { return a < b ? b : a; }
};
struct FminOp {
  float operator()(float a, float b, P) const { return std::fmin(a, b); }
  int64_t operator()(int64_t a, int64_t b, P) const { return b < a ? b : a; }
};
struct NextAfterOp {  // fp32 only: the step is one fp32 ulp
  float operator()(float a, float b, P) const { return std::nextafter(a, b); }
};
struct HeavisideOp {  // (x, values): values where x == 0, else x > 0
  float operator()(float x, float v, P) const { return x == 0 ? v : (x > 0 ? 1.0f : 0.0f); }
  int64_t operator()(int64_t x, int64_t v, P) const { return x == 0 ? v : (x > 0 ? 1 : 0); }
};
struct LerpOp {  // (start, end, weight): the two-sided form of PyTorch 1.13's CPU kernel (w < 0.5, signed)
  float operator()(float s, float e, float w, P) const {
    return w < 0.5f ? s + w * (e - s) : e - (e - s) * (1.0f - w);
  }
};
int64_t gcd(int64_t a, int64_t b) {
  a = a < 0 ? wrapNeg(a) : a;
  b = b < 0 ? wrapNeg(b) : b;
  while (a != 0) {
    const int64_t c = a;
    a = b % a;
    b = c;
  }
  return b;
}
struct GcdOp {
  int64_t operator()(int64_t a, int64_t b, P) const { return gcd(a, b); }
};
struct LcmOp {
  int64_t operator()(int64_t a, int64_t b, P) const {
    const int64_t g = gcd(a, b);
    if (g == 0) return 0;
    const int64_t l = wrapMul(a / g, b);
    return l < 0 ? wrapNeg(l) : l;
  }
};
struct BitAndOp {
  int64_t operator()(int64_t a, int64_t b, P) const { return a & b; }
};
struct BitOrOp {
  int64_t operator()(int64_t a, int64_t b, P) const { return a | b; }
};
struct BitXorOp {
  int64_t operator()(int64_t a, int64_t b, P) const { return a ^ b; }
};
// Shifts in the int64 domain, wrapped to the dtype afterwards: a shift count
// outside [0, width) gives 0 (left) or the sign fill (right), as torch does;
// for narrower dtypes the wrap discards exactly the bits torch's narrow shift
// never produced.
struct LeftShiftOp {
  int64_t operator()(int64_t a, int64_t b, P) const {
    if (b < 0 || b >= 64) return 0;
    return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
  }
};
struct RightShiftOp {
  int64_t operator()(int64_t a, int64_t b, P) const {
    if (b < 0 || b >= 64) return a < 0 ? -1 : 0;
    return a >> b;
  }
};

constexpr DtypeMask kIntAndBool = kIntTypes | kBoolType;

#define FLOAT2(name, Op, types) {name, 2, {"x1", "x2", "y"}, types, OutDtype::kSame, ASCEND_SIM_F2(Op), nullptr}
#define NUM2(name, Op, types) \
  {name, 2, {"x1", "x2", "y"}, types, OutDtype::kSame, ASCEND_SIM_F2(Op), ASCEND_SIM_I2(Op)}
#define INT2(name, Op, types) {name, 2, {"x1", "x2", "y"}, types, OutDtype::kSame, nullptr, ASCEND_SIM_I2(Op)}
#define FAULTING(name, Op)                                                                               \
  {name, 2, {"x1", "x2", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F2(Op), ASCEND_SIM_I2(Op), -1, {}, \
   /*int_may_fault=*/true}

const ElementwiseSpec kSpecs[] = {
    FAULTING("FloorMod", FloorModOp),
    FAULTING("Mod", ModOp),
    FAULTING("TruncateDiv", TruncateDivOp),
    FLOAT2("Atan2", Atan2Op, kFloatTypes),
    FLOAT2("Hypot", HypotOp, kFloatTypes),
    FLOAT2("LogAddExp", LogAddExpOp, kFloatTypes),
    FLOAT2("LogAddExp2", LogAddExp2Op, kFloatTypes),
    FLOAT2("Copysign", CopysignOp, kFloatTypes),
    NUM2("Fmax", FmaxOp, kNumericTypes),
    NUM2("Fmin", FminOp, kNumericTypes),
    FLOAT2("NextAfter", NextAfterOp, dtBit(ACL_FLOAT)),
    NUM2("Heaviside", HeavisideOp, kAllTypes),
    {"Lerp", 3, {"start", "end", "weight", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F3(LerpOp), nullptr},
    INT2("Gcd", GcdOp, kIntTypes),
    INT2("Lcm", LcmOp, kIntTypes),
    INT2("BitwiseAnd", BitAndOp, kIntAndBool),
    INT2("BitwiseOr", BitOrOp, kIntAndBool),
    INT2("BitwiseXor", BitXorOp, kIntAndBool),
    INT2("LeftShift", LeftShiftOp, kIntTypes),
    INT2("RightShift", RightShiftOp, kIntTypes),
};
#undef FLOAT2
#undef NUM2
#undef INT2
#undef FAULTING

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
