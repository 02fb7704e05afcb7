// Binary and ternary elementwise ops (OPS.md "Elementwise"): arithmetic,
// comparisons, logical ops, SelectV2. See Note [Elementwise engine].
#include <cmath>

#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

using P = const float*;

struct AddOp {
  float operator()(float a, float b, P) const { return a + b; }
  int64_t operator()(int64_t a, int64_t b, P) const { return wrapAdd(a, b); }
};
struct SubOp {
  float operator()(float a, float b, P) const { return a - b; }
  int64_t operator()(int64_t a, int64_t b, P) const { return wrapAdd(a, wrapNeg(b)); }
};
struct MulOp {
  float operator()(float a, float b, P) const { return a * b; }
  int64_t operator()(int64_t a, int64_t b, P) const { return wrapMul(a, b); }
};
struct DivOp {
  float operator()(float a, float b, P) const { return a / b; }
};
// Float floor division as PyTorch (and Python) define it: from fmod, so that
// e.g. 1 // -inf = -1 and the quotient is exact where a / b would round.
struct FloorDivOp {
  float operator()(float a, float b, P) const {
    if (b == 0) return a / b;  // IEEE: ±inf or NaN
    const float mod = std::fmod(a, b);
    float div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0f;
    if (div == 0) return std::copysign(0.0f, a / b);
    float floordiv = std::floor(div);
    if (div - floordiv > 0.5f) floordiv += 1.0f;
    return floordiv;
  }
  int64_t operator()(int64_t a, int64_t b, P) const {
    if (b == 0) throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION,
                                  "FloorDiv: integer division by zero (x1 = " + std::to_string(a) + ")");
    if (b == -1) return wrapNeg(a);
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  }
};
struct MaxOp {  // NaN propagates
  float operator()(float a, float b, P) const { return a != a ? a : (b != b ? b : (a < b ? b : a)); }
  int64_t operator()(int64_t a, int64_t b, P) const { return a < b ? b : a; }
};
struct MinOp {
  float operator()(float a, float b, P) const { return a != a ? a : (b != b ? b : (b < a ? b : a)); }
  int64_t operator()(int64_t a, int64_t b, P) const { return b < a ? b : a; }
};
struct PowOp {
  float operator()(float a, float b, P) const { return std::pow(a, b); }
  int64_t operator()(int64_t a, int64_t e, P) const {
    if (e < 0) return a == 1 ? 1 : (a == -1 ? ((e & 1) ? -1 : 1) : 0);
    int64_t r = 1;
    while (e) {
      if (e & 1) r = wrapMul(r, a);
      a = wrapMul(a, a);
      e >>= 1;
    }
    return r;
  }
};
struct AxpyOp {  // y = x1 + alpha * x2; integers use alpha truncated to an integer
  float operator()(float a, float b, P p) const { return a + p[0] * b; }
  int64_t operator()(int64_t a, int64_t b, P p) const {
    return wrapAdd(a, wrapMul(static_cast<int64_t>(p[0]), b));
  }
};

#define ASCEND_SIM_CMP(Name, expr)                                                      \
  struct Name {                                                                         \
    float operator()(float a, float b, P) const { return (expr) ? 1.0f : 0.0f; }        \
    int64_t operator()(int64_t a, int64_t b, P) const { return (expr) ? 1 : 0; }        \
  };
ASCEND_SIM_CMP(EqOp, a == b)
ASCEND_SIM_CMP(NeOp, a != b)
ASCEND_SIM_CMP(LtOp, a < b)
ASCEND_SIM_CMP(LeOp, a <= b)
ASCEND_SIM_CMP(GtOp, a > b)
ASCEND_SIM_CMP(GeOp, a >= b)
ASCEND_SIM_CMP(AndOp, a != 0 && b != 0)
ASCEND_SIM_CMP(OrOp, a != 0 || b != 0)
#undef ASCEND_SIM_CMP

struct SelectOp {
  float operator()(float c, float a, float b, P) const { return c != 0 ? a : b; }
  int64_t operator()(int64_t c, int64_t a, int64_t b, P) const { return c != 0 ? a : b; }
};

#define ARITH(name, Op, types) \
  {name, 2, {"x1", "x2", "y"}, types, OutDtype::kSame, ASCEND_SIM_F2(Op), ASCEND_SIM_I2(Op)}
#define COMPARE(name, Op) \
  {name, 2, {"x1", "x2", "y"}, kAllTypes, OutDtype::kBool, ASCEND_SIM_F2(Op), ASCEND_SIM_I2(Op)}

const ElementwiseSpec kSpecs[] = {
    ARITH("Add", AddOp, kAllTypes),
    ARITH("Sub", SubOp, kNumericTypes),
    ARITH("Mul", MulOp, kAllTypes),
    {"RealDiv", 2, {"x1", "x2", "y"}, kFloatTypes, OutDtype::kSame, ASCEND_SIM_F2(DivOp), nullptr},
    {"FloorDiv", 2, {"x1", "x2", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F2(FloorDivOp),
     ASCEND_SIM_I2(FloorDivOp), -1, {}, /*int_may_fault=*/true},
    ARITH("Maximum", MaxOp, kAllTypes),
    ARITH("Minimum", MinOp, kAllTypes),
    ARITH("Pow", PowOp, kNumericTypes),
    {"Axpy", 2, {"x1", "x2", "y"}, kNumericTypes, OutDtype::kSame, ASCEND_SIM_F2(AxpyOp),
     ASCEND_SIM_I2(AxpyOp), -1, {{"alpha", 1.0f, true}}},
    COMPARE("Equal", EqOp),
    COMPARE("NotEqual", NeOp),
    COMPARE("Less", LtOp),
    COMPARE("LessEqual", LeOp),
    COMPARE("Greater", GtOp),
    COMPARE("GreaterEqual", GeOp),
    {"LogicalAnd", 2, {"x1", "x2", "y"}, kBoolType, OutDtype::kBool, nullptr, ASCEND_SIM_I2(AndOp)},
    {"LogicalOr", 2, {"x1", "x2", "y"}, kBoolType, OutDtype::kBool, nullptr, ASCEND_SIM_I2(OrOp)},
    {"SelectV2", 3, {"condition", "x1", "x2", "y"}, kAllTypes, OutDtype::kSame,
     ASCEND_SIM_F3(SelectOp), ASCEND_SIM_I3(SelectOp), 0},
};
#undef ARITH
#undef COMPARE

const bool kRegistered = (registerElementwiseSpecs(kSpecs, sizeof(kSpecs) / sizeof(kSpecs[0])), true);

}  // namespace
}  // namespace ascend_sim
