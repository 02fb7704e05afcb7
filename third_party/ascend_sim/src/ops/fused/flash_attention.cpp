// FlashAttentionScore (OPS.md "Fused attention"): softmax(scale * (q k^T +
// pse), masked) with dropout, times v, as ONE AI Core kernel.
//
// Note [Fused attention on the AI Core]
// Each simulated task takes a 128-row block of queries of one head (b, n):
//   Cube:   S = q_blk k^T                      [rows, Skv], fp32 accumulation
//   Vector: scores, masks, softmax, dropout    (Note [Attention scores]) -> P
//   Vector: P rounded to the input dtype (fp32 inputs: the precision mode)
//   Cube:   out_blk = P v                      [rows, D], fp32, one rounding
// S and P live in on-chip buffers only: HBM sees q, k, v, pse, atten_mask,
// the output and the softmax stats — never a [Sq, Skv] matrix, which is what
// makes the op cheaper than BatchMatMul + SoftmaxV2 + BatchMatMul.
// Numerics: the whole score row is one softmax (max, exp, pairwise sum,
// division), so the result equals the unfused math with P rounded to the
// input dtype before the second product; the running-max rescaling of a
// tiled kernel is not modelled. Every task writes its own output rows and
// stats, so results do not depend on the host's threads.
#include <string>
#include <vector>

#include "ops/fused/attention_forward.h"

namespace ascend_sim {
namespace {

constexpr int64_t kStatsLanes = 8;  // softmax_max / softmax_sum: [B, N, Sq, 8]
// fp32 Vector passes over each [Sq, Skv] score matrix: scale (+ pse), mask
// select, row max, exp, row sum, normalise and cast for the Cube; dropout
// adds the Philox draw and the select.
constexpr int kScorePasses = 6;
constexpr int kDropoutPasses = 2;

void validateFlashAttention(const OpCall& call) {
  checkArity(call, 3, 5, 3);
  const AttentionProblem p = attentionProblemOf(call, 3);
  const size_t want = 3 + optionalInputCount(p.attrs);
  if (call.inputs.size() != want)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(want) + " inputs (query, key, value" + (p.attrs.has_pse ? ", pse" : "") +
             (p.attrs.has_mask ? ", atten_mask" : "") + "), got " + std::to_string(call.inputs.size()));
  const AttentionDims& g = p.dims;
  const Shape stats = {g.b, g.n, g.sq, kStatsLanes};
  for (int k = 0; k < 2; ++k) {
    const std::string name = k == 0 ? "output softmax_max" : "output softmax_sum";
    checkDtype(call, call.outputs[k], name, dtBit(ACL_FLOAT));
    checkShapeEq(call, call.outputs[k], name, stats, "[B, N, Sq, 8]");
  }
  checkSameDtype(call, call.inputs[0], "query", call.outputs[2], "output attention_out");
  checkShapeEq(call, call.outputs[2], "output attention_out", call.inputs[0].shape, "query shape");
}

void computeFlashAttention(const OpCall& call) {
  const AttentionProblem p = attentionProblemOf(call, 3);
  fusedAttentionForward(call, p, call.outputs[2], &call.outputs[0], &call.outputs[1]);
}

KernelCost costFlashAttention(const OpCall& call) {
  const AttentionProblem p = attentionProblemOf(call, 3);
  const AttentionDims& g = p.dims;
  const int passes = kScorePasses + (p.attrs.keep_prob < 1.0f ? kDropoutPasses : 0);
  // Products per head: S = q k^T [Sq, Skv, D], out = P v [Sq, D, Skv];
  // one Vector pass over [Sq, D] stores the output.
  return attentionCost(call, g, {{g.sq, g.skv, g.d}, {g.sq, g.d, g.skv}}, passes, 1);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"FlashAttentionScore", &validateFlashAttention, &computeFlashAttention,
                                     &costFlashAttention});

}  // namespace
}  // namespace ascend_sim
