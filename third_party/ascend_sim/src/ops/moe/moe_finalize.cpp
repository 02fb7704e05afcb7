// MoeFinalizeRouting and its gradient MoeFinalizeRoutingV2Grad (OPS.md
// "Mixture-of-experts kernels"), on the Vector unit: the un-permutation of a
// mixture-of-experts layer, which weights each token's K expert outputs and
// adds them (with the residuals) back into the token's row.
//
// Note [MoE finalize routing]
// expanded [A, H] (the experts' outputs in expanded-row order, A <= N*K);
// expanded_src_to_dst_row [N*K] (MoeInitRouting's expanded_row_idx); optional
// skip1, skip2 [N, H], bias [E, H], scales [N, K], expert_idx [N, K] (which
// bias row each choice adds; needed with bias). N is the output's rows and
// K = N*K / N. Per output row i, in fp32, rounded once:
//   out[i] = skip1[i] + skip2[i] + sum_{k=0..K-1} scales[i][k] * (expanded[d] + bias[expert_idx[i][k]])
//            with d = expanded_src_to_dst_row[k * N + i]
// a missing skip or bias is 0, missing scales are 1; a choice whose d >= A
// (its token was past MoeInitRouting's active rows) adds nothing.
// The optional inputs are present per attrs has_skip1, has_skip2, has_bias,
// has_scales, has_expert_idx, in CANN's input order.
// MoeFinalizeRoutingV2Grad, for grad_y [N, H]: inputs grad_y,
// expanded_row_idx, expanded_x [A, H] and optional scales, expert_idx, bias
// (attrs has_scales, has_expert_idx, has_bias); outputs
//   grad_expanded_x[d] = scales[i][k] * grad_y[i]     (rows no choice reads: 0)
//   grad_scales[i][k]  = sum_j grad_y[i][j] * (expanded_x[d][j] + bias[e][j])   (0 for a dropped choice)
// The skips' gradients are grad_y itself, and bias's the sum of
// grad_expanded_x's rows per expert: no kernel of their own.
#include <algorithm>
#include <string>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

enum FinalizeOperand : int { kSkip1 = 0, kSkip2, kBias, kScales, kExpertIdx, kOptionals };
const char* const kOptionalNames[kOptionals] = {"skip1", "skip2", "bias", "scales", "expert_idx"};

// Where each operand sits in call.inputs (-1: absent).
struct FinalizeLayout {
  int expanded = 0, dst = -1;
  int opt[kOptionals] = {-1, -1, -1, -1, -1};
  int64_t n = 0, k = 0, h = 0, rows = 0;  // rows = A
};

const TensorArg* operand(const OpCall& call, const FinalizeLayout& l, int which) {
  return l.opt[which] < 0 ? nullptr : &call.inputs[static_cast<size_t>(l.opt[which])];
}

constexpr size_t kDstFirst = static_cast<size_t>(-1);

// Reads the has_* attributes and checks the operands' shapes. The optional
// operands `order` (in input order) start at input `first`; `dst_after` is how
// many of them come before expanded_src_to_dst_row (the forward's sits
// between scales and expert_idx), or kDstFirst: it is input 1.
FinalizeLayout finalizeLayoutOf(const OpCall& call, const std::vector<int>& order, int first, size_t dst_after,
                                int64_t n, const std::string& expanded_name) {
  FinalizeLayout l;
  int next = first;
  if (dst_after == kDstFirst) l.dst = 1;
  for (size_t j = 0; j <= order.size(); ++j) {
    if (j == dst_after) l.dst = next++;
    if (j == order.size()) break;
    const std::string flag = std::string("has_") + kOptionalNames[order[j]];
    if (attrBool(call, flag.c_str(), false)) l.opt[order[j]] = next++;
  }
  if (static_cast<int>(call.inputs.size()) != next)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(next) + " inputs for the has_* attributes, got " +
             std::to_string(call.inputs.size()));
  const TensorArg &x = call.inputs[0], &dst = call.inputs[static_cast<size_t>(l.dst)];
  checkDtype(call, x, "input " + expanded_name, kFloatTypes);
  checkDtype(call, dst, "input expanded_src_to_dst_row", dtBit(ACL_INT32));
  if (x.shape.size() != 2 || dst.shape.size() != 1 || n <= 0 || dst.shape[0] % n != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         expanded_name + " must be [rows, H] and expanded_src_to_dst_row [N * K] for N = " + std::to_string(n) +
             " output rows, got " + shapeToString(x.shape) + " and " + shapeToString(dst.shape));
  l.n = n;
  l.k = dst.shape[0] / n;
  l.h = x.shape[1];
  l.rows = x.shape[0];
  if (l.rows > l.n * l.k)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         expanded_name + " has " + std::to_string(l.rows) + " rows, more than N * K = " + std::to_string(l.n * l.k));
  const Shape want[kOptionals] = {{l.n, l.h}, {l.n, l.h}, {-1, l.h}, {l.n, l.k}, {l.n, l.k}};
  for (int which : order) {
    const TensorArg* t = operand(call, l, which);
    if (t == nullptr) continue;
    const std::string name = std::string("input ") + kOptionalNames[which];
    if (which == kExpertIdx) {
      checkDtype(call, *t, name, dtBit(ACL_INT32));
    } else {
      checkSameDtype(call, x, expanded_name, *t, name);
    }
    Shape w = want[which];
    if (which == kBias && t->shape.size() == 2) w[0] = t->shape[0];  // [E, H], any E
    checkShapeEq(call, *t, name, w, which == kBias ? "[experts, H]" : "[N, H] or [N, K]");
  }
  if (l.opt[kBias] >= 0 && l.opt[kExpertIdx] < 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "bias needs expert_idx (which expert's bias each choice adds)");
  return l;
}

// The destination rows [N*K] and, with a bias, each choice's expert [N*K] (row-major [N, K]).
struct Choices {
  std::vector<int64_t> dst, expert;
};

Choices choicesOf(const OpCall& call, const FinalizeLayout& l) {
  Choices c;
  const int64_t pairs = l.n * l.k;
  c.dst.resize(static_cast<size_t>(pairs));
  loadInt(ACL_INT32, call.inputs[static_cast<size_t>(l.dst)].data, 0, 1, pairs, c.dst.data());
  for (int64_t d : c.dst)
    if (d < 0 || d >= pairs)
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "expanded_src_to_dst_row holds " + std::to_string(d) + ", outside [0, " + std::to_string(pairs) + ")");
  if (const TensorArg* bias = operand(call, l, kBias)) {
    c.expert.resize(static_cast<size_t>(pairs));
    loadInt(ACL_INT32, operand(call, l, kExpertIdx)->data, 0, 1, pairs, c.expert.data());
    for (int64_t e : c.expert)
      if (e < 0 || e >= bias->shape[0])
        fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
             "expert_idx holds " + std::to_string(e) + ", outside bias's " + std::to_string(bias->shape[0]) +
                 " experts");
  }
  return c;
}

std::vector<float> loadAll(const TensorArg* t) {
  if (t == nullptr) return {};
  std::vector<float> v(static_cast<size_t>(t->numel()));
  loadFloat(t->dtype, t->data, 0, 1, t->numel(), v.data());
  return v;
}

// Calls fn(d, s, b) for each choice k of token row i that reached the experts
// (d < rows): its expanded row d, its scale s (1 without scales) and its
// expert's bias row b (null without bias).
template <typename Fn>
void forEachChoice(const FinalizeLayout& l, const Choices& c, const std::vector<float>& scales,
                   const std::vector<float>& bias, int64_t i, Fn fn) {
  for (int64_t k = 0; k < l.k; ++k) {
    const int64_t d = c.dst[k * l.n + i];
    if (d >= l.rows) continue;
    fn(d, scales.empty() ? 1.0f : scales[i * l.k + k], bias.empty() ? nullptr : &bias[c.expert[i * l.k + k] * l.h], k);
  }
}

// --- forward ---------------------------------------------------------------------

const std::vector<int> kForwardOrder = {kSkip1, kSkip2, kBias, kScales, kExpertIdx};

FinalizeLayout forwardLayoutOf(const OpCall& call) {
  const TensorArg& out = call.outputs[0];
  if (out.shape.size() != 2)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH, "output out must be [N, H], got " + shapeToString(out.shape));
  return finalizeLayoutOf(call, kForwardOrder, 1, 4, out.shape[0], "expanded_permuted_rows");
}

void validateMoeFinalizeRouting(const OpCall& call) {
  checkArity(call, 2, 7, 1);
  const FinalizeLayout l = forwardLayoutOf(call);
  checkSameDtype(call, call.inputs[0], "expanded_permuted_rows", call.outputs[0], "output out");
  checkShapeEq(call, call.outputs[0], "output out", {l.n, l.h}, "[N, H]");
  if (attrInt(call, "drop_pad_mode", 0) != 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr drop_pad_mode must be 0 (the drop-and-pad layout is not modelled)");
}

void computeMoeFinalizeRouting(const OpCall& call) {
  const FinalizeLayout l = forwardLayoutOf(call);
  const Choices c = choicesOf(call, l);
  const std::vector<float> skip1 = loadAll(operand(call, l, kSkip1)), skip2 = loadAll(operand(call, l, kSkip2)),
                           bias = loadAll(operand(call, l, kBias)), scales = loadAll(operand(call, l, kScales));
  const TensorArg &x = call.inputs[0], &out = call.outputs[0];
  std::vector<float> acc(static_cast<size_t>(l.h)), row(static_cast<size_t>(l.h));
  for (int64_t i = 0; i < l.n; ++i) {
    for (int64_t j = 0; j < l.h; ++j)
      acc[j] = (skip1.empty() ? 0.0f : skip1[i * l.h + j]) + (skip2.empty() ? 0.0f : skip2[i * l.h + j]);
    forEachChoice(l, c, scales, bias, i, [&](int64_t d, float s, const float* b, int64_t) {
      loadFloat(x.dtype, x.data, d * l.h, 1, l.h, row.data());
      for (int64_t j = 0; j < l.h; ++j) acc[j] += s * (row[j] + (b ? b[j] : 0.0f));
    });
    storeFloat(out.dtype, out.data, i * l.h, l.h, acc.data());
  }
}

KernelCost costMoeFinalizeRouting(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 3.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

// --- gradient --------------------------------------------------------------------

const std::vector<int> kGradOrder = {kScales, kExpertIdx, kBias};

// inputs: grad_y [N, H], expanded_row_idx, expanded_x [A, H], then the optionals;
// outputs: grad_expanded_x [A, H], grad_scales [N, K].
FinalizeLayout gradLayoutOf(const OpCall& call) {
  if (call.inputs.size() < 3 || call.inputs[0].shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "needs grad_y [N, H], expanded_row_idx and expanded_x");
  FinalizeLayout l = finalizeLayoutOf(call, kGradOrder, 3, kDstFirst, call.inputs[0].shape[0], "grad_y");
  const TensorArg &gy = call.inputs[0], &x = call.inputs[2];
  checkSameDtype(call, gy, "grad_y", x, "input expanded_x");
  if (x.shape.size() != 2 || x.shape[1] != gy.shape[1] || x.shape[0] > l.n * l.k)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input expanded_x must be [A <= N * K, H] with H = " + std::to_string(gy.shape[1]) + ", got " +
             shapeToString(x.shape));
  l.rows = x.shape[0];
  return l;
}

void validateMoeFinalizeRoutingGrad(const OpCall& call) {
  checkArity(call, 3, 6, 2);
  const FinalizeLayout l = gradLayoutOf(call);
  const TensorArg& gy = call.inputs[0];
  checkSameDtype(call, gy, "grad_y", call.outputs[0], "output grad_expanded_x");
  checkShapeEq(call, call.outputs[0], "output grad_expanded_x", {l.rows, l.h}, "expanded_x's shape");
  checkSameDtype(call, gy, "grad_y", call.outputs[1], "output grad_scales");
  checkShapeEq(call, call.outputs[1], "output grad_scales", {l.n, l.k}, "[N, K]");
}

void computeMoeFinalizeRoutingGrad(const OpCall& call) {
  const FinalizeLayout l = gradLayoutOf(call);
  const Choices c = choicesOf(call, l);
  const std::vector<float> bias = loadAll(operand(call, l, kBias)), scales = loadAll(operand(call, l, kScales));
  const TensorArg &gy = call.inputs[0], &x = call.inputs[2], &gx = call.outputs[0], &gs = call.outputs[1];
  std::vector<float> g(static_cast<size_t>(l.h)), row(static_cast<size_t>(l.h)), out(static_cast<size_t>(l.h));
  std::vector<float> grad_scales(static_cast<size_t>(l.n * l.k), 0.0f);
  std::vector<char> written(static_cast<size_t>(l.rows), 0);
  for (int64_t i = 0; i < l.n; ++i) {
    loadFloat(gy.dtype, gy.data, i * l.h, 1, l.h, g.data());
    forEachChoice(l, c, scales, bias, i, [&](int64_t d, float s, const float* b, int64_t k) {
      loadFloat(x.dtype, x.data, d * l.h, 1, l.h, row.data());
      float dot = 0.0f;
      for (int64_t j = 0; j < l.h; ++j) {
        out[j] = s * g[j];
        dot += g[j] * (row[j] + (b ? b[j] : 0.0f));
      }
      grad_scales[i * l.k + k] = dot;
      storeFloat(gx.dtype, gx.data, d * l.h, l.h, out.data());
      written[d] = 1;
    });
  }
  std::fill(out.begin(), out.end(), 0.0f);
  for (int64_t d = 0; d < l.rows; ++d)
    if (!written[d]) storeFloat(gx.dtype, gx.data, d * l.h, l.h, out.data());
  storeFloat(gs.dtype, gs.data, 0, l.n * l.k, grad_scales.data());
}

KernelCost costMoeFinalizeRoutingGrad(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 4.0 * static_cast<double>(call.inputs[2].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MoeFinalizeRouting", &validateMoeFinalizeRouting, &computeMoeFinalizeRouting,
                                     &costMoeFinalizeRouting});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MoeFinalizeRoutingV2Grad", &validateMoeFinalizeRoutingGrad,
                                     &computeMoeFinalizeRoutingGrad, &costMoeFinalizeRoutingGrad});

}  // namespace
}  // namespace ascend_sim
