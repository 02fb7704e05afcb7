// FlashAttentionScoreGrad (OPS.md "Fused attention"): dq, dk, dv (and dpse)
// of FlashAttentionScore as ONE AI Core kernel that recomputes the
// probabilities from the saved softmax stats (flash-attention style).
//
// Note [Fused attention gradient]
// Per query head (b, n), with P recomputed from softmax_max / softmax_sum
// (bitwise the forward's P) and the dropout factors Z (0 or 1/keep_prob)
// regenerated from (seed, offset) (Note [Attention dropout]):
//   Cube:   S   = q k^T                       (recompute)
//   Vector: P, Pd = P * Z                     (rounded like the input)
//   Cube:   dV += Pd^T dy
//   Cube:   dPd = dy v^T
//   Vector: D_i = sum_d dy_id * out_id        (= sum_j Pd_ij dPd_ij, from attention_in)
//           dS  = scale * P * (dPd * Z - D)   (= dpse; rounded like the input)
//   Cube:   dq  = dS k,   dK += dS^T q
// Five Cube products; no [Sq, Skv] matrix goes to HBM. One simulated task per
// (b, kv head) owns the dk / dv rows of that head: it accumulates the query
// heads of its group in ascending order in fp32 and rounds once. dpse is
// summed over its broadcast dims in ascending (b, n, i, j) order in fp32.
#include <algorithm>
#include <vector>

#include "aicore/thread_pool.h"
#include "ops/fused/attention_util.h"
#include "ops/linalg/cube_gemm.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

constexpr int64_t kStatsLanes = 8;
// fp32 Vector passes over each [Sq, Skv] matrix: scores (+ mask), exp and
// normalise, dPd * Z - D, times P and scale, the two casts for the Cube;
// dropout adds the Philox draw and Pd = P * Z.
constexpr int kScorePasses = 7;
constexpr int kDropoutPasses = 2;
constexpr int kRowPasses = 2;  // dy * out and its row sums, over [Sq, D]

// inputs: query, key, value, dy, [pse], [atten_mask], softmax_max, softmax_sum, attention_in
// outputs: dq, dk, dv, [dpse]
struct GradOperands {
  size_t max_in, sum_in, out_in;
};

GradOperands operandsOf(const AttentionProblem& p) {
  const size_t first = 4 + optionalInputCount(p.attrs);
  return {first, first + 1, first + 2};
}

void validateFlashAttentionGrad(const OpCall& call) {
  // Base formats; the exact counts follow from has_pse / has_atten_mask (below).
  checkArity(call, 7, 9, call.outputs.size());
  const AttentionProblem p = attentionProblemOf(call, 4);
  const GradOperands ops = operandsOf(p);
  if (call.inputs.size() != ops.out_in + 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(ops.out_in + 1) + " inputs (query, key, value, dy" +
             (p.attrs.has_pse ? ", pse" : "") + (p.attrs.has_mask ? ", atten_mask" : "") +
             ", softmax_max, softmax_sum, attention_in), got " + std::to_string(call.inputs.size()));
  if (call.outputs.size() != (p.attrs.has_pse ? 4u : 3u))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string("expected ") + (p.attrs.has_pse ? "4 outputs (dq, dk, dv, dpse)" : "3 outputs (dq, dk, dv)") +
             ", got " + std::to_string(call.outputs.size()));
  const AttentionDims& g = p.dims;
  const TensorArg& q = call.inputs[0];
  for (const auto& [idx, name] : {std::pair<size_t, const char*>{3, "input dy"}, {ops.out_in, "input attention_in"}}) {
    checkSameDtype(call, q, "query", call.inputs[idx], name);
    checkShapeEq(call, call.inputs[idx], name, q.shape, "query shape");
  }
  const Shape stats = {g.b, g.n, g.sq, kStatsLanes};
  for (const auto& [idx, name] :
       {std::pair<size_t, const char*>{ops.max_in, "input softmax_max"}, {ops.sum_in, "input softmax_sum"}}) {
    checkDtype(call, call.inputs[idx], name, dtBit(ACL_FLOAT));
    checkShapeEq(call, call.inputs[idx], name, stats, "[B, N, Sq, 8]");
  }
  const char* names[] = {"output dq", "output dk", "output dv", "output dpse"};
  for (size_t k = 0; k < call.outputs.size(); ++k) {
    checkSameDtype(call, q, "query", call.outputs[k], names[k]);
    const Shape& want = k == 3 ? call.inputs[4].shape : call.inputs[std::min<size_t>(k, 2)].shape;
    checkShapeEq(call, call.outputs[k], names[k], want, k == 3 ? "pse shape" : k == 0 ? "query shape" : "key shape");
  }
}

// The gradient of one query head, added to the kv head's fp32 dk / dv.
struct HeadGrad {
  const OpCall& call;
  const AttentionProblem& p;
  GradOperands ops;
  CubeRounding rnd;
  float* dpse_full;  // [B, N, Sq, Skv] fp32, or null without pse

  void run(int64_t bi, int64_t ni, float* dk, float* dv, UnitCounters* cnt) const {
    const AttentionDims& g = p.dims;
    const TensorArg &q = call.inputs[0], &k = call.inputs[1], &v = call.inputs[2], &dy = call.inputs[3];
    const HeadMatrix qh = headOf(g, g.n, g.sq, bi, ni), kvh = headOf(g, g.n_kv, g.skv, bi, ni / g.group());
    const int64_t ss = g.sq * g.skv;
    std::vector<float> probs(ss), z(ss), dpd(ss), part(g.skv * g.d), dq(g.sq * g.d), row(g.skv), dy_row(g.d),
        o_row(g.d);
    const GmMatrix q_head{q.dtype, q.data, qh.offset, qh.row_stride, 1};
    const GmMatrix dy_head{dy.dtype, dy.data, qh.offset, qh.row_stride, 1};
    const GmMatrix k_head{k.dtype, k.data, kvh.offset, kvh.row_stride, 1};
    const GmMatrix k_t{k.dtype, k.data, kvh.offset, 1, kvh.row_stride};
    const GmMatrix v_t{v.dtype, v.data, kvh.offset, 1, kvh.row_stride};
    // (j, i) of an [Sq, Skv] fp32 buffer: its transpose as a Cube operand.
    auto transposed = [&](const std::vector<float>& m) { return GmMatrix{ACL_FLOAT, m.data(), 0, 1, g.skv}; };
    auto plain = [&](const std::vector<float>& m) { return GmMatrix{ACL_FLOAT, m.data(), 0, g.skv, 1}; };
    auto accumulate = [&](float* acc) {
      for (int64_t e = 0; e < g.skv * g.d; ++e) acc[e] += part[e];
    };
    const bool sat = call.ctx.fp16_saturation;

    cubeGemm(q_head, k_t, g.sq, g.skv, g.d, rnd, dpd.data(), cnt);  // S (dpd's buffer is free until dPd)
    finishProduct(call, dpd.data(), ss, cnt);
    for (int64_t i = 0; i < g.sq; ++i) {
      float* pr = probs.data() + i * g.skv;
      scoreRow(p, bi, ni, i, dpd.data() + i * g.skv, pr, g.skv);
      const int64_t at = ((bi * g.n + ni) * g.sq + i) * kStatsLanes;
      RowStats st;
      loadFloat(ACL_FLOAT, call.inputs[ops.max_in].data, at, 1, 1, &st.max);
      loadFloat(ACL_FLOAT, call.inputs[ops.sum_in].data, at, 1, 1, &st.sum);
      probabilitiesRow(pr, g.skv, st);
      dropoutRow(p, bi, ni, i, z.data() + i * g.skv, g.skv);
    }
    std::vector<float> pd(ss);  // Pd = P * Z, as the forward's second product saw it
    for (int64_t e = 0; e < ss; ++e) pd[e] = probs[e] * z[e];
    if (roundLikeInput(q.dtype, sat, pd.data(), ss)) cnt->fp16_overflow = true;
    cubeGemm(transposed(pd), dy_head, g.skv, g.d, g.sq, rnd, part.data(), cnt);  // Pd^T dy
    finishProduct(call, part.data(), g.skv * g.d, cnt);
    accumulate(dv);
    cubeGemm(dy_head, v_t, g.sq, g.skv, g.d, rnd, dpd.data(), cnt);  // dPd = dy v^T
    finishProduct(call, dpd.data(), ss, cnt);
    const TensorArg& out = call.inputs[ops.out_in];
    for (int64_t i = 0; i < g.sq; ++i) {
      loadFloat(dy.dtype, dy.data, qh.offset + i * qh.row_stride, 1, g.d, dy_row.data());
      loadFloat(out.dtype, out.data, qh.offset + i * qh.row_stride, 1, g.d, o_row.data());
      for (int64_t c = 0; c < g.d; ++c) dy_row[c] *= o_row[c];
      const float di = pairwiseSum(dy_row.data(), g.d, reduceBlockElems(ACL_FLOAT));
      float* ds = dpd.data() + i * g.skv;  // dS overwrites dPd row by row
      const float* pr = probs.data() + i * g.skv;
      const float* zr = z.data() + i * g.skv;
      for (int64_t j = 0; j < g.skv; ++j) ds[j] = pr[j] * (ds[j] * zr[j] - di) * p.attrs.scale;
      if (dpse_full) std::copy(ds, ds + g.skv, dpse_full + ((bi * g.n + ni) * g.sq + i) * g.skv);
    }
    if (roundLikeInput(q.dtype, sat, dpd.data(), ss)) cnt->fp16_overflow = true;
    cubeGemm(plain(dpd), k_head, g.sq, g.d, g.skv, rnd, dq.data(), cnt);  // dq = dS k
    finishProduct(call, dq.data(), g.sq * g.d, cnt);
    const TensorArg& dq_out = call.outputs[0];
    for (int64_t i = 0; i < g.sq; ++i)
      storeFloat(dq_out.dtype, dq_out.data, qh.offset + i * qh.row_stride, g.d, dq.data() + i * g.d);
    cubeGemm(transposed(dpd), q_head, g.skv, g.d, g.sq, rnd, part.data(), cnt);  // dS^T q
    finishProduct(call, part.data(), g.skv * g.d, cnt);
    accumulate(dk);
  }
};

// dpse = dpse_full summed over the dims pse broadcasts, in ascending order.
void reduceDpse(const AttentionProblem& p, const std::vector<float>& full, const TensorArg& dpse) {
  const AttentionDims& g = p.dims;
  std::vector<float> acc(static_cast<size_t>(dpse.numel()), 0.0f);
  const Broadcast4& s = p.pse;
  for (int64_t bi = 0, e = 0; bi < g.b; ++bi)
    for (int64_t ni = 0; ni < g.n; ++ni)
      for (int64_t i = 0; i < g.sq; ++i)
        for (int64_t j = 0; j < g.skv; ++j, ++e) acc[bi * s.sb + ni * s.sn + i * s.si + j * s.sj] += full[e];
  storeFloat(dpse.dtype, dpse.data, 0, dpse.numel(), acc.data());
}

void computeFlashAttentionGrad(const OpCall& call) {
  const AttentionProblem p = attentionProblemOf(call, 4);
  const AttentionDims& g = p.dims;
  std::vector<float> dpse_full(p.attrs.has_pse ? static_cast<size_t>(g.b * g.n * g.sq * g.skv) : 0);
  const HeadGrad head{call, p, operandsOf(p), cubeRoundingOf(call), p.attrs.has_pse ? dpse_full.data() : nullptr};
  const int64_t tasks = g.b * g.n_kv;
  std::vector<UnitCounters> cnt(static_cast<size_t>(tasks));
  parallelFor(tasks, [&](int64_t t) {
    const int64_t bi = t / g.n_kv, hk = t % g.n_kv;
    std::vector<float> dk(static_cast<size_t>(g.skv * g.d), 0.0f), dv(dk.size(), 0.0f);
    for (int64_t ni = hk * g.group(); ni < (hk + 1) * g.group(); ++ni) head.run(bi, ni, dk.data(), dv.data(), &cnt[t]);
    const HeadMatrix kvh = headOf(g, g.n_kv, g.skv, bi, hk);
    for (int64_t j = 0; j < g.skv; ++j) {
      storeFloat(call.outputs[1].dtype, call.outputs[1].data, kvh.offset + j * kvh.row_stride, g.d, &dk[j * g.d]);
      storeFloat(call.outputs[2].dtype, call.outputs[2].data, kvh.offset + j * kvh.row_stride, g.d, &dv[j * g.d]);
    }
  });
  if (p.attrs.has_pse) reduceDpse(p, dpse_full, call.outputs[3]);
  reportOverflow(call, cnt);
}

KernelCost costFlashAttentionGrad(const OpCall& call) {
  const AttentionProblem p = attentionProblemOf(call, 4);
  const AttentionDims& g = p.dims;
  const int passes = kScorePasses + (p.attrs.keep_prob < 1.0f ? kDropoutPasses : 0);
  // Products per head (m, n, k): S, dV, dPd, dq, dK.
  return attentionCost(call, g,
                       {{g.sq, g.skv, g.d}, {g.skv, g.d, g.sq}, {g.sq, g.skv, g.d}, {g.sq, g.d, g.skv},
                        {g.skv, g.d, g.sq}},
                       passes, kRowPasses);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"FlashAttentionScoreGrad", &validateFlashAttentionGrad,
                                     &computeFlashAttentionGrad, &costFlashAttentionGrad});

}  // namespace
}  // namespace ascend_sim
