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
#include <algorithm>
#include <vector>

#include "aicore/thread_pool.h"
#include "ops/fused/attention_util.h"
#include "ops/linalg/cube_gemm.h"

namespace ascend_sim {
namespace {

constexpr int64_t kStatsLanes = 8;  // softmax_max / softmax_sum: [B, N, Sq, 8]
constexpr int64_t kRowsPerTask = 128;
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
  const AttentionDims& g = p.dims;
  const TensorArg &q = call.inputs[0], &k = call.inputs[1], &v = call.inputs[2];
  const TensorArg &max_out = call.outputs[0], &sum_out = call.outputs[1], &out = call.outputs[2];
  const int64_t tiles = (g.sq + kRowsPerTask - 1) / kRowsPerTask;
  const int64_t tasks = g.b * g.n * tiles;
  const CubeRounding rnd = cubeRoundingOf(call);
  std::vector<UnitCounters> cnt(static_cast<size_t>(tasks));
  parallelFor(tasks, [&](int64_t t) {
    const int64_t bi = t / (g.n * tiles), ni = t / tiles % g.n, i0 = t % tiles * kRowsPerTask;
    const int64_t rows = std::min(kRowsPerTask, g.sq - i0);
    const HeadMatrix qh = headOf(g, g.n, g.sq, bi, ni), kvh = headOf(g, g.n_kv, g.skv, bi, ni / g.group());
    std::vector<float> s(static_cast<size_t>(rows * g.skv)), score(g.skv), tmp(g.skv), factor(g.skv), o(rows * g.d);
    const GmMatrix q_blk{q.dtype, q.data, qh.offset + i0 * qh.row_stride, qh.row_stride, 1};
    const GmMatrix k_t{k.dtype, k.data, kvh.offset, 1, kvh.row_stride};  // (d, j) = k[j][d]
    cubeGemm(q_blk, k_t, rows, g.skv, g.d, rnd, s.data(), &cnt[t]);
    finishProduct(call, s.data(), rows * g.skv, &cnt[t]);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      float* row = s.data() + r * g.skv;
      scoreRow(p, bi, ni, i, row, score.data());
      const RowStats st = softmaxRow(score.data(), g.skv, tmp.data());
      dropoutRow(p, bi, ni, i, factor.data());
      for (int64_t j = 0; j < g.skv; ++j) row[j] = score[j] * factor[j];
      const std::vector<float> mx(kStatsLanes, st.max), sm(kStatsLanes, st.sum);
      const int64_t at = ((bi * g.n + ni) * g.sq + i) * kStatsLanes;
      storeFloat(ACL_FLOAT, max_out.data, at, kStatsLanes, mx.data());
      storeFloat(ACL_FLOAT, sum_out.data, at, kStatsLanes, sm.data());
    }
    if (roundLikeInput(q.dtype, call.ctx.fp16_saturation, s.data(), rows * g.skv)) cnt[t].fp16_overflow = true;
    const GmMatrix probs{ACL_FLOAT, s.data(), 0, g.skv, 1};
    const GmMatrix v_head{v.dtype, v.data, kvh.offset, kvh.row_stride, 1};
    cubeGemm(probs, v_head, rows, g.d, g.skv, rnd, o.data(), &cnt[t]);
    finishProduct(call, o.data(), rows * g.d, &cnt[t]);
    for (int64_t r = 0; r < rows; ++r)
      storeFloat(out.dtype, out.data, qh.offset + (i0 + r) * qh.row_stride, g.d, o.data() + r * g.d);
  });
  reportOverflow(call, cnt);
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
