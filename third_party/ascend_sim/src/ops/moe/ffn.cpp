// FFN (OPS.md "Mixture-of-experts kernels"), on the AI Core: a transformer's
// feed-forward block, or a mixture-of-experts layer's experts, in one launch
// (torch_npu's npu_ffn, an inference kernel: CANN has no gradient for it).
//
// Note [FFN]
// inputs: x [.., K1], weight1, weight2, then bias1 and bias2 when attrs
// has_bias1 / has_bias2 say so. Without attr expert_tokens: weight1 [K1, N1],
// weight2 [K2, N2], bias1 [N1], bias2 [N2], and every row of x is one token.
// With expert_tokens (E counts, summing to x's rows M): weight1 [E, K1, N1],
// weight2 [E, K2, N2], bias1 [E, N1], bias2 [E, N2], and expert e takes the
// next expert_tokens[e] rows of x. Per token row and its expert:
//   h = activation(x · W1 + b1)     the product on the Cube (fp32 accumulate),
//                                    bias and activation in fp32 on the Vector,
//                                    h rounded to x's dtype (the workspace
//                                    between the two products is of x's dtype)
//   y = h · W2 + b2                  rounded once to y's dtype (x's)
// attr activation: "fastgelu" (x·sigmoid(1.702x), FastGelu's), "gelu" (the
// tanh form, as CANN's Gelu), "relu", "silu", or the gated "geglu",
// "swiglu", "reglu": with a = the first N1/2 columns and b = the rest,
// h = act(a) · b for act gelu (tanh form), silu, relu, so that K2 = N1/2;
// otherwise K2 = N1. x, weight1 and weight2 are fp32, fp16 or bf16, all one
// dtype; biases fp32 or x's dtype. attr inner_precise (0 high precision, 1
// high performance) is accepted and does not change the numerics here.
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"
#include "ops/activation/gelu_math.h"
#include "ops/linalg/cube_gemm.h"

namespace ascend_sim {
namespace {

enum class FfnActivation { kFastGelu, kGelu, kRelu, kSilu, kGeGlu, kSwiGlu, kReGlu };

struct FfnProblem {
  FfnActivation act = FfnActivation::kRelu;
  bool gated = false;
  int64_t m = 0, k1 = 0, n1 = 0, k2 = 0, n2 = 0, experts = 0;  // experts = 0: one weight pair
  std::vector<int64_t> tokens;                                 // per expert
  const TensorArg* bias1 = nullptr;
  const TensorArg* bias2 = nullptr;
};

FfnActivation activationOf(const OpCall& call) {
  const std::string name = attrString(call, "activation", "");
  if (name == "fastgelu") return FfnActivation::kFastGelu;
  if (name == "gelu") return FfnActivation::kGelu;
  if (name == "relu") return FfnActivation::kRelu;
  if (name == "silu") return FfnActivation::kSilu;
  if (name == "geglu") return FfnActivation::kGeGlu;
  if (name == "swiglu") return FfnActivation::kSwiGlu;
  if (name == "reglu") return FfnActivation::kReGlu;
  fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
       "attr activation \"" + name + "\" is not one of fastgelu, gelu, relu, silu, geglu, swiglu, reglu");
}

float sigmoidTimes(float v, float alpha) { return v / (1.0f + std::exp(-alpha * v)); }

float activate(FfnActivation act, float v) {
  switch (act) {
    case FfnActivation::kFastGelu: return sigmoidTimes(v, 1.702f);
    case FfnActivation::kGelu:
    case FfnActivation::kGeGlu: return gelumath::gelu(v, true);
    case FfnActivation::kSilu:
    case FfnActivation::kSwiGlu: return sigmoidTimes(v, 1.0f);
    case FfnActivation::kRelu:
    case FfnActivation::kReGlu: return v > 0.0f ? v : 0.0f;
  }
  return v;
}

void checkFfnBias(const OpCall& call, const TensorArg& bias, const std::string& name, const TensorArg& x,
                  const Shape& want) {
  if (bias.dtype != ACL_FLOAT) checkSameDtype(call, x, "x", bias, name + " (or float32)");
  checkShapeEq(call, bias, name, want, want.size() == 2 ? "[E, N] of its weight" : "[N] of its weight");
}

FfnProblem ffnProblemOf(const OpCall& call) {
  const bool has_b1 = attrBool(call, "has_bias1", false), has_b2 = attrBool(call, "has_bias2", false);
  const size_t want_inputs = 3 + (has_b1 ? 1 : 0) + (has_b2 ? 1 : 0);
  if (call.inputs.size() != want_inputs)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "x, weight1, weight2 and the biases has_bias1 / has_bias2 name are " + std::to_string(want_inputs) +
             " inputs, got " + std::to_string(call.inputs.size()));
  const TensorArg &x = call.inputs[0], &w1 = call.inputs[1], &w2 = call.inputs[2];
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", w1, "input weight1");
  checkSameDtype(call, x, "x", w2, "input weight2");
  FfnProblem p;
  p.act = activationOf(call);
  p.gated = p.act == FfnActivation::kGeGlu || p.act == FfnActivation::kSwiGlu || p.act == FfnActivation::kReGlu;
  if (x.shape.size() < 2 || x.shape.size() > 8)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x shape " + shapeToString(x.shape) + " must have 2 to 8 dims");
  p.k1 = x.shape.back();
  p.m = numelOf(Shape(x.shape.begin(), x.shape.end() - 1));
  p.tokens = attrInts(call, "expert_tokens", {});
  p.experts = static_cast<int64_t>(p.tokens.size());
  const size_t wrank = p.experts > 0 ? 3 : 2;
  if (w1.shape.size() != wrank || w2.shape.size() != wrank ||
      (p.experts > 0 && (w1.shape[0] != p.experts || w2.shape[0] != p.experts)))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "inputs weight1 " + shapeToString(w1.shape) + " and weight2 " + shapeToString(w2.shape) + " must be " +
             (p.experts > 0 ? "[E, K, N] with E = " + std::to_string(p.experts) + " experts" : std::string("[K, N]")));
  const size_t lead = wrank - 2;
  p.n1 = w1.shape[lead + 1];
  p.k2 = w2.shape[lead];
  p.n2 = w2.shape[lead + 1];
  if (w1.shape[lead] != p.k1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input weight1 " + shapeToString(w1.shape) + " does not multiply x rows of length " + std::to_string(p.k1));
  const int64_t h_cols = p.gated ? p.n1 / 2 : p.n1;
  if ((p.gated && p.n1 % 2 != 0) || p.k2 != h_cols)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input weight2 " + shapeToString(w2.shape) + " must take the activation's " + std::to_string(h_cols) +
             " columns (N1 = " + std::to_string(p.n1) + (p.gated ? ", halved by the gated activation)" : ")"));
  if (p.experts > 0) {
    int64_t sum = 0;
    for (int64_t t : p.tokens) {
      if (t < 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr expert_tokens holds a negative count");
      sum += t;
    }
    if (sum != p.m)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attr expert_tokens sums to " + std::to_string(sum) + " tokens, x has " + std::to_string(p.m) + " rows");
  }
  size_t next = 3;
  const auto biasShape = [&](int64_t n) { return p.experts > 0 ? Shape{p.experts, n} : Shape{n}; };
  if (has_b1) {
    p.bias1 = &call.inputs[next++];
    checkFfnBias(call, *p.bias1, "input bias1", x, biasShape(p.n1));
  }
  if (has_b2) {
    p.bias2 = &call.inputs[next++];
    checkFfnBias(call, *p.bias2, "input bias2", x, biasShape(p.n2));
  }
  Shape want_y = x.shape;
  want_y.back() = p.n2;
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", want_y, "x's shape with N2 last");
  attrInt(call, "inner_precise", 0);
  return p;
}

void validateFfn(const OpCall& call) {
  checkArity(call, 3, 5, 1);
  const int64_t precise = attrInt(call, "inner_precise", 0);
  if (precise != 0 && precise != 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr inner_precise = " + std::to_string(precise) + " must be 0 or 1");
  ffnProblemOf(call);
}

// Adds row `e` of a bias (n floats) to every one of the m rows of c.
void addBias(const TensorArg* bias, int64_t e, int64_t m, int64_t n, float* c) {
  if (bias == nullptr) return;
  std::vector<float> b(static_cast<size_t>(n));
  loadFloat(bias->dtype, bias->data, e * n, 1, n, b.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * n + j] += b[j];
}

void computeFfn(const OpCall& call) {
  const FfnProblem p = ffnProblemOf(call);
  const TensorArg &x = call.inputs[0], &w1 = call.inputs[1], &w2 = call.inputs[2], &y = call.outputs[0];
  const CubeRounding rnd = cubeRoundingOf(call);
  const int64_t groups = p.experts > 0 ? p.experts : 1;
  std::vector<int64_t> starts(static_cast<size_t>(groups), 0);
  for (int64_t e = 1; e < groups; ++e) starts[e] = starts[e - 1] + p.tokens[e - 1];
  std::vector<UnitCounters> cnt(static_cast<size_t>(groups));
  parallelFor(groups, [&](int64_t e) {
    const int64_t rows = p.experts > 0 ? p.tokens[e] : p.m, start = starts[e];
    if (rows == 0) return;
    std::vector<float> c1(static_cast<size_t>(rows * p.n1), 0.0f), h(static_cast<size_t>(rows * p.k2));
    const GmMatrix a{x.dtype, x.data, start * p.k1, p.k1, 1};
    if (p.k1 > 0)
      cubeGemm(a, GmMatrix{w1.dtype, w1.data, e * p.k1 * p.n1, p.n1, 1}, rows, p.n1, p.k1, rnd, c1.data(), &cnt[e]);
    addBias(p.bias1, e, rows, p.n1, c1.data());
    for (int64_t i = 0; i < rows; ++i) {
      const float* row = &c1[static_cast<size_t>(i * p.n1)];
      for (int64_t j = 0; j < p.k2; ++j)
        h[i * p.k2 + j] = p.gated ? activate(p.act, row[j]) * row[j + p.k2] : activate(p.act, row[j]);
    }
    // The workspace between the two products holds h in x's dtype.
    std::vector<unsigned char> workspace(static_cast<size_t>(rows * p.k2) * dtypeSize(x.dtype));
    storeFloat(x.dtype, workspace.data(), 0, rows * p.k2, h.data());
    std::vector<float> c2(static_cast<size_t>(rows * p.n2), 0.0f);
    const GmMatrix hm{x.dtype, workspace.data(), 0, p.k2, 1};
    if (p.k2 > 0)
      cubeGemm(hm, GmMatrix{w2.dtype, w2.data, e * p.k2 * p.n2, p.n2, 1}, rows, p.n2, p.k2, rnd, c2.data(), &cnt[e]);
    addBias(p.bias2, e, rows, p.n2, c2.data());
    storeFloat(y.dtype, y.data, start * p.n2, rows * p.n2, c2.data());
  });
  for (const UnitCounters& u : cnt)
    if (u.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costFfn(const OpCall& call) {
  const FfnProblem p = ffnProblemOf(call);
  KernelCost c;
  c.core = CoreType::kAiCore;
  const int64_t groups = p.experts > 0 ? p.experts : 1;
  for (int64_t e = 0; e < groups; ++e) {
    const int64_t rows = p.experts > 0 ? p.tokens[e] : p.m;
    c.cube_macs += cubeUnit().padded_macs(rows, p.n1, p.k1) + cubeUnit().padded_macs(rows, p.n2, p.k2);
    c.flops += 2.0 * static_cast<double>(rows) * static_cast<double>(p.n1 * p.k1 + p.n2 * p.k2);
  }
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  c.mte_bytes += tensorBytes(call.outputs[0]);
  // The activation on the Vector (fp32 in UB), and h written to and read back from the workspace.
  const double h_bytes = static_cast<double>(p.m * p.k2 * dtypeSize(call.inputs[0].dtype));
  c.vector_bytes = static_cast<double>(p.m * p.n1) * 4.0 + h_bytes;
  c.mte_bytes += 2.0 * h_bytes;
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"FFN", &validateFfn, &computeFfn, &costFfn});

}  // namespace
}  // namespace ascend_sim
