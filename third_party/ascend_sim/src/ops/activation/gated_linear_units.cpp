// SwiGlu, SwiGluGrad, GeGluV2, GeGluGradV2 (OPS.md "Gated linear units") on the Vector unit:
// the gated feed-forward activations of LLaMA-style (SwiGLU) and T5 / GLM-style (GeGLU)
// transformers, one kernel each way where an unfused graph runs Split, an activation, Mul (and
// for the gradient about six more).
//
// Note [Gated linear units]
// x is split along attr `dim` (default -1, that dim even) into halves A (first) and B (second);
// outputs and gradients of the halves have x's shape with that dim halved. Per element, in fp32,
// each output rounded once to x's dtype (GeGluV2's y takes gelu as stored, i.e. rounded, as
// torch_npu's reference computes it):
//   SwiGlu       y = silu(A) * B, silu(a) = a / (1 + exp(-a))   (PyTorch's CPU silu)
//   SwiGluGrad   s = 1 / (1 + exp(-a)):  dA = dy * B * (s * (1 + a * (1 - s))),  dB = dy * silu(A)
//   GeGluV2      the activated half G and the other half O: G = B, O = A by default, G = A and
//                O = B with attr `activate_left`; gelu = gelu(G) (attr `approximate`: 0 erf, 1 tanh,
//                default 1: gelu_math.h), y = O * gelu; outputs y and gelu
//   GeGluGradV2  inputs dy, x and the forward's gelu: dO = dy * gelu,  dG = gelu'(G) * (dy * O)
// Work split: one task per run of the dims before `dim` (its two halves are contiguous).
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"
#include "ops/activation/gelu_math.h"

namespace ascend_sim {
namespace {

enum class GluOp { kSwiGlu, kSwiGluGrad, kGeGlu, kGeGluGrad };

GluOp opOf(const OpCall& call) {
  if (call.op_type == "SwiGluGrad") return GluOp::kSwiGluGrad;
  if (call.op_type == "GeGluV2") return GluOp::kGeGlu;
  if (call.op_type == "GeGluGradV2") return GluOp::kGeGluGrad;
  return GluOp::kSwiGlu;
}

// x as [outer][2][half][inner] around attr `dim`.
struct Halves {
  int64_t outer = 1, half = 0, inner = 1;
  Shape half_shape;                             // x's shape with `dim` halved
  int64_t run() const { return half * inner; }  // elements of one half of one outer index
};

Halves halvesOf(const OpCall& call, const TensorArg& x) {
  if (x.shape.empty()) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x is 0-d: it has no dim to split into halves");
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "dim", -1), "dim");
  if (s.dim % 2 != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input x shape " + shapeToString(x.shape) + " has an odd size " + std::to_string(s.dim) + " at dim " +
             std::to_string(s.axis) + ": it must split into two halves");
  Halves h;
  h.outer = s.outer, h.half = s.dim / 2, h.inner = s.inner;
  h.half_shape = x.shape;
  h.half_shape[static_cast<size_t>(s.axis)] = h.half;
  return h;
}

bool tanhForm(const OpCall& call) {
  const int64_t approximate = attrInt(call, "approximate", 1);
  if (approximate != 0 && approximate != 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'approximate' is " + std::to_string(approximate) + ": 0 (erf) or 1 (tanh)");
  return approximate == 1;
}

void checkOperand(const OpCall& call, const TensorArg& x, const TensorArg& t, const std::string& name,
                  const Shape& want, const char* what) {
  checkSameDtype(call, x, "x", t, name);
  checkShapeEq(call, t, name, want, what);
}

// Operands: SwiGlu x -> y; SwiGluGrad dy, x -> dx; GeGluV2 x -> y, gelu; GeGluGradV2 dy, x, gelu -> dx.
Halves validateCall(const OpCall& call) {
  const GluOp op = opOf(call);
  const size_t inputs = op == GluOp::kSwiGlu || op == GluOp::kGeGlu ? 1 : op == GluOp::kSwiGluGrad ? 2 : 3;
  checkArity(call, inputs, inputs, op == GluOp::kGeGlu ? 2 : 1);
  const bool grad = op == GluOp::kSwiGluGrad || op == GluOp::kGeGluGrad;
  const TensorArg& x = call.inputs[grad ? 1 : 0];
  checkDtype(call, x, "input x", kFloatTypes);
  const Halves h = halvesOf(call, x);
  if (op == GluOp::kGeGlu || op == GluOp::kGeGluGrad) (void)tanhForm(call);
  if (grad) {
    checkOperand(call, x, call.inputs[0], "input dy", h.half_shape, "x's shape with dim halved");
    if (op == GluOp::kGeGluGrad)
      checkOperand(call, x, call.inputs[2], "input gelu", h.half_shape, "x's shape with dim halved");
    checkOperand(call, x, call.outputs[0], "output dx", x.shape, "x's shape");
  } else {
    checkOperand(call, x, call.outputs[0], "output y", h.half_shape, "x's shape with dim halved");
    if (op == GluOp::kGeGlu)
      checkOperand(call, x, call.outputs[1], "output gelu", h.half_shape, "x's shape with dim halved");
  }
  return h;
}

void validateGlu(const OpCall& call) { (void)validateCall(call); }

// Loads `n` values of t from element `offset`.
void load(const TensorArg& t, int64_t offset, int64_t n, float* dst) { loadFloat(t.dtype, t.data, offset, 1, n, dst); }
void store(const TensorArg& t, int64_t offset, int64_t n, const float* src) {
  storeFloat(t.dtype, t.data, offset, n, src);
}

void computeGlu(const OpCall& call) {
  const Halves h = validateCall(call);
  const GluOp op = opOf(call);
  const int64_t run = h.run();
  if (run == 0 || h.outer == 0) return;
  const bool tanh_form = op == GluOp::kGeGlu || op == GluOp::kGeGluGrad ? tanhForm(call) : false;
  const bool left = attrBool(call, "activate_left", false);
  const TensorArg& x = call.inputs[op == GluOp::kSwiGlu || op == GluOp::kGeGlu ? 0 : 1];
  parallelFor(h.outer, h.outer * run * 2, [&](int64_t o) {
    std::vector<float> a(static_cast<size_t>(run)), b(a.size()), g(a.size()), r1(a.size()), r2(a.size());
    load(x, o * 2 * run, run, a.data());
    load(x, o * 2 * run + run, run, b.data());
    const int64_t out = o * run;  // offset of this run in the halved operands
    switch (op) {
      case GluOp::kSwiGlu:
        for (int64_t i = 0; i < run; ++i) r1[i] = a[i] / (1.0f + std::exp(-a[i])) * b[i];
        store(call.outputs[0], out, run, r1.data());
        break;
      case GluOp::kSwiGluGrad:
        load(call.inputs[0], out, run, g.data());
        for (int64_t i = 0; i < run; ++i) {
          const float s = 1.0f / (1.0f + std::exp(-a[i]));
          r1[i] = g[i] * b[i] * (s * (1.0f + a[i] * (1.0f - s)));
          r2[i] = g[i] * (a[i] / (1.0f + std::exp(-a[i])));
        }
        store(call.outputs[0], o * 2 * run, run, r1.data());
        store(call.outputs[0], o * 2 * run + run, run, r2.data());
        break;
      case GluOp::kGeGlu: {
        const std::vector<float>& act = left ? a : b;
        const std::vector<float>& other = left ? b : a;
        for (int64_t i = 0; i < run; ++i) r2[i] = gelumath::gelu(act[i], tanh_form);
        store(call.outputs[1], out, run, r2.data());
        load(call.outputs[1], out, run, r2.data());  // y multiplies the gelu output as stored (rounded)
        for (int64_t i = 0; i < run; ++i) r1[i] = other[i] * r2[i];
        store(call.outputs[0], out, run, r1.data());
        break;
      }
      case GluOp::kGeGluGrad: {
        const std::vector<float>& act = left ? a : b;
        const std::vector<float>& other = left ? b : a;
        std::vector<float> gelu(a.size());
        load(call.inputs[0], out, run, g.data());
        load(call.inputs[2], out, run, gelu.data());
        std::vector<float>& d_act = left ? r1 : r2;
        std::vector<float>& d_other = left ? r2 : r1;
        for (int64_t i = 0; i < run; ++i) {
          d_other[i] = g[i] * gelu[i];
          d_act[i] = gelumath::geluGrad(g[i] * other[i], act[i], tanh_form);
        }
        store(call.outputs[0], o * 2 * run, run, r1.data());
        store(call.outputs[0], o * 2 * run + run, run, r2.data());
        break;
      }
    }
  });
}

// Vector cost: operands once each; flops per element of a half.
KernelCost costGlu(const OpCall& call) {
  const Halves h = validateCall(call);
  KernelCost c = vectorCost(call);
  const double per = opOf(call) == GluOp::kSwiGlu ? 5 : opOf(call) == GluOp::kGeGlu ? 12 : 16;
  c.flops = per * static_cast<double>(h.outer * h.run());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SwiGlu", &validateGlu, &computeGlu, &costGlu});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SwiGluGrad", &validateGlu, &computeGlu, &costGlu});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GeGluV2", &validateGlu, &computeGlu, &costGlu});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GeGluGradV2", &validateGlu, &computeGlu, &costGlu});

}  // namespace
}  // namespace ascend_sim
