// complex64 arithmetic on the Vector unit (OPS.md "Complex numbers"): the
// complex variants of the table ops Add, Sub, Mul, RealDiv, Neg, Sign and
// Angle, Equal, NotEqual and SelectV2 (Note [Complex variants of table ops]
// in elementwise.h), and the
// complex-only ops ComplexAbs, Conj, Real, Imag and Complex, CANN's names.
// Numerics and work split: Note [Complex elementwise kernels].
//
// Note [Complex division]
// RealDiv uses the textbook formula, in fp32 with each operation rounded:
//   (a + bi) / (c + di) = ((a·c + b·d) + (b·c − a·d)·i) / (c·c + d·d),
// the form of PyTorch 1.13's vectorised CPU kernel, not Smith's scaled form
// (c10::complex's scalar operator/, numpy). So c·c + d·d overflows to inf
// when |c + di| exceeds about 1.8e19 (the quotient becomes 0 or NaN) and
// underflows below about 1e-19 where the scaled form stays finite, and
// dividing by 0 gives NaN in both parts (0 / 0), as on PyTorch's CPU.
#include <cmath>
#include <string>

#include "ops/pointwise/complex_elementwise.h"

namespace ascend_sim {
namespace {

float re(Complex64 z) { return z.real(); }
float im(Complex64 z) { return z.imag(); }

void computeAdd(const OpCall& call) {
  mapElements2<Complex64, Complex64>(call, [](Complex64 a, Complex64 b) {
    return Complex64(re(a) + re(b), im(a) + im(b));
  });
}

void computeSub(const OpCall& call) {
  mapElements2<Complex64, Complex64>(call, [](Complex64 a, Complex64 b) {
    return Complex64(re(a) - re(b), im(a) - im(b));
  });
}

void computeMul(const OpCall& call) {
  mapElements2<Complex64, Complex64>(call, [](Complex64 a, Complex64 b) {
    return Complex64(re(a) * re(b) - im(a) * im(b), re(a) * im(b) + im(a) * re(b));
  });
}

void computeRealDiv(const OpCall& call) {  // Note [Complex division]
  mapElements2<Complex64, Complex64>(call, [](Complex64 a, Complex64 b) {
    const float denominator = re(b) * re(b) + im(b) * im(b);
    return Complex64((re(a) * re(b) + im(a) * im(b)) / denominator,
                     (im(a) * re(b) - re(a) * im(b)) / denominator);
  });
}

void computeNeg(const OpCall& call) {
  mapElements<Complex64, Complex64>(call, [](Complex64 z) { return Complex64(-re(z), -im(z)); });
}

void computeConj(const OpCall& call) {
  mapElements<Complex64, Complex64>(call, [](Complex64 z) { return Complex64(re(z), -im(z)); });
}

// PyTorch's sgn: z / |z| part by part, 0 for z = 0 (an infinite part gives
// inf / inf = NaN, as there).
void computeSign(const OpCall& call) {
  mapElements<Complex64, Complex64>(call, [](Complex64 z) {
    const float magnitude = std::hypot(re(z), im(z));
    return magnitude == 0.0f ? Complex64(0.0f, 0.0f) : Complex64(re(z) / magnitude, im(z) / magnitude);
  });
}

void computeComplexAbs(const OpCall& call) {
  mapElements<float, Complex64>(call, [](Complex64 z) { return std::hypot(re(z), im(z)); });
}

void computeAngle(const OpCall& call) {
  mapElements<float, Complex64>(call, [](Complex64 z) { return std::atan2(im(z), re(z)); });
}

void computeReal(const OpCall& call) {
  mapElements<float, Complex64>(call, [](Complex64 z) { return re(z); });
}

void computeImag(const OpCall& call) {
  mapElements<float, Complex64>(call, [](Complex64 z) { return im(z); });
}

void computeEqual(const OpCall& call) {
  mapElements2<bool, Complex64>(call, [](Complex64 a, Complex64 b) { return a == b; });
}

void computeNotEqual(const OpCall& call) {
  mapElements2<bool, Complex64>(call, [](Complex64 a, Complex64 b) { return a != b; });
}

void computeSelectV2(const OpCall& call) {
  const bool* condition = static_cast<const bool*>(call.inputs[0].data);
  const Complex64* a = static_cast<const Complex64*>(call.inputs[1].data);
  const Complex64* b = static_cast<const Complex64*>(call.inputs[2].data);
  Complex64* y = static_cast<Complex64*>(call.outputs[0].data);
  forEachElementRun(call, [&](const int64_t* off, int64_t len, const int64_t* st) {
    for (int64_t i = 0; i < len; ++i)
      y[off[0] + i * st[0]] = condition[off[1] + i * st[1]] ? a[off[2] + i * st[2]] : b[off[3] + i * st[3]];
  });
}

void computeComplex(const OpCall& call) {
  mapElements2<Complex64, float>(call, [](float real, float imag) { return Complex64(real, imag); });
}

struct ComplexOp {
  const char* op;
  int num_inputs;
  const char* names[4];         // input names, then the output name
  aclDataType in, out;          // every input's dtype; the output's
  void (*compute)(const OpCall& call);
  bool table_variant;           // the complex variant of a table op, else an op of its own
  bool condition_first;         // input 0 is a bool condition (SelectV2), the others of dtype `in`
};

constexpr aclDataType kC64 = ACL_COMPLEX64, kF32 = ACL_FLOAT, kBool = ACL_BOOL;

const ComplexOp kOps[] = {
    {"Add", 2, {"x1", "x2", "y"}, kC64, kC64, &computeAdd, true, false},
    {"Sub", 2, {"x1", "x2", "y"}, kC64, kC64, &computeSub, true, false},
    {"Mul", 2, {"x1", "x2", "y"}, kC64, kC64, &computeMul, true, false},
    {"RealDiv", 2, {"x1", "x2", "y"}, kC64, kC64, &computeRealDiv, true, false},
    {"Neg", 1, {"x", "y"}, kC64, kC64, &computeNeg, true, false},
    {"Sign", 1, {"x", "y"}, kC64, kC64, &computeSign, true, false},
    {"Angle", 1, {"x", "y"}, kC64, kF32, &computeAngle, true, false},
    {"Equal", 2, {"x1", "x2", "y"}, kC64, kBool, &computeEqual, true, false},
    {"NotEqual", 2, {"x1", "x2", "y"}, kC64, kBool, &computeNotEqual, true, false},
    {"SelectV2", 3, {"condition", "x1", "x2", "y"}, kC64, kC64, &computeSelectV2, true, true},
    {"Conj", 1, {"input", "output"}, kC64, kC64, &computeConj, false, false},
    {"ComplexAbs", 1, {"x", "y"}, kC64, kF32, &computeComplexAbs, false, false},
    {"Real", 1, {"input", "output"}, kC64, kF32, &computeReal, false, false},
    {"Imag", 1, {"input", "output"}, kC64, kF32, &computeImag, false, false},
    {"Complex", 2, {"real", "imag", "out"}, kF32, kC64, &computeComplex, false, false},
};

const ComplexOp& opOf(const OpCall& call) {
  for (const ComplexOp& op : kOps)
    if (call.op_type == op.op) return op;
  fail(call, ACL_ERROR_OP_NOT_FOUND, "not a complex elementwise op");
}

// The table ops' rules (counts, base formats, one input dtype, NumPy
// broadcasting to exactly the output shape) with the op's fixed dtypes.
void validateComplexOp(const OpCall& call) {
  const ComplexOp& op = opOf(call);
  checkArity(call, op.num_inputs, op.num_inputs, 1);
  const int first = op.condition_first ? 1 : 0;  // the first input of dtype op.in
  const TensorArg& x0 = call.inputs[first];
  const TensorArg& y = call.outputs[0];
  const std::string yname = std::string("output ") + op.names[op.num_inputs];
  if (op.condition_first) checkDtype(call, call.inputs[0], "input condition", dtBit(ACL_BOOL));
  for (int k = first + 1; k < op.num_inputs; ++k)
    checkSameDtype(call, x0, op.names[first], call.inputs[k], op.names[k]);
  checkDtype(call, x0, std::string("input ") + op.names[first], dtBit(op.in));
  checkDtype(call, y, yname, dtBit(op.out));
  Shape broadcast;
  for (int k = 0; k < op.num_inputs; ++k) {
    checkBroadcast(call, call.inputs[k], op.names[k], y);
    Shape next;
    broadcastShapes(broadcast, call.inputs[k].shape, &next);
    broadcast = next;
  }
  if (broadcast != y.shape)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         yname + " shape " + shapeToString(y.shape) + " does not equal the broadcast shape " +
             shapeToString(broadcast) + " of the inputs");
}

void computeComplexOp(const OpCall& call) { opOf(call).compute(call); }

bool registerAll() {
  for (const ComplexOp& op : kOps) {
    const KernelDef def{op.op, &validateComplexOp, &computeComplexOp, &elementwiseWalkCost};
    if (op.table_variant)
      registerComplexVariant(def);
    else
      registerKernel(def);
  }
  return true;
}

const bool kRegistered = registerAll();

}  // namespace
}  // namespace ascend_sim
