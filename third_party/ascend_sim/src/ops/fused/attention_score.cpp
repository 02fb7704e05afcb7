// AttentionScore / AttentionScoreGrad (OPS.md "Fused attention"): the fused
// BERT attention of torch_npu's npu_fused_attention_score family, one AI Core
// kernel per direction.
//
// Note [AttentionScore]
// query, key, value are [B, N, S, D] (N heads of size D); attention_mask is
// ADDITIVE (0 to attend, a large negative value to mask), broadcast to
// [B, N, Sq, Skv]; drop_mask holds one byte per [B, N, Sq, Skv] element
// (nonzero = kept), as DropOutGenMaskV3 writes it. Per head (b, n), in fp32:
//   Cube:   S = q k^T
//   Vector: P = softmax(scale * S + mask)        -> softmax_output (rounded once)
//           Pd = P * drop_mask / keep_prob       (from the rounded P, rounded again for the Cube)
//   Cube:   ctx = Pd v                           -> attention_score
// attention_score is the context in [B, Sq, N, D] order (torch_npu's
// [B * Sq, N * D] "permute and merge heads" output), written straight from
// the Cube's rows. The gradient, from the saved (rounded) softmax_output P:
//   Cube:   dv = Pd^T dy,   dPd = dy v^T
//   Vector: dP = dPd * drop_mask / keep_prob,   dS = scale * P * (dP - sum_j P dP)
//   Cube:   dq = dS k,   dk = dS^T q
// dy and the three gradients are [B, S, N, D] (torch_npu's
// AttentionScoreGrad writes them in the context's order; npu_fused_attention_
// score_backward returns them permuted back to [B, N, S, D] views). The
// scale is an attribute here (CANN passes it as a one-element input).
// torch_npu's transpose flags (query_transpose, ...) select stored-transposed
// operand layouts this kernel does not take; the plugin refuses them.
#include <algorithm>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "ops/fused/attention_util.h"
#include "ops/linalg/cube_gemm.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

// fp32 Vector passes over each [Sq, Skv] matrix: forward: scale + mask, max,
// exp, sum, normalise, the drop mask, two casts; gradient: the drop mask
// twice, P * dP and its sum, dS, two casts.
constexpr int kForwardScorePasses = 8;
constexpr int kGradScorePasses = 7;

AttentionDims scoreDims(const OpCall& call, const TensorArg& q, const TensorArg& k, const TensorArg& v) {
  for (const auto& [t, name] : {std::pair<const TensorArg*, const char*>{&q, "query"}, {&k, "key"}, {&v, "value"}})
    if (t->shape.size() != 4)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string("input ") + name + " shape " + shapeToString(t->shape) + " must be 4-D [B, N, S, D]");
  checkDtype(call, q, "input query", kFloatTypes);
  checkSameDtype(call, q, "query", k, "input key");
  checkSameDtype(call, q, "query", v, "input value");
  if (k.shape[0] != q.shape[0] || k.shape[1] != q.shape[1] || k.shape[3] != q.shape[3])
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "key " + shapeToString(k.shape) + " must match query " + shapeToString(q.shape) + " in B, N and D");
  checkShapeEq(call, v, "input value", k.shape, "key shape");
  if (q.shape[3] == 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "the head size D of query " + shapeToString(q.shape) + " must be positive");
  AttentionDims g;
  g.layout = AttnLayout::kBNSD;
  g.b = q.shape[0], g.n = g.n_kv = q.shape[1], g.sq = q.shape[2], g.skv = k.shape[2], g.d = q.shape[3];
  return g;
}

// The [B, S, N, D] ("context order") view of the same heads.
AttentionDims contextOrder(AttentionDims g) {
  g.layout = AttnLayout::kBSND;
  return g;
}

void checkDropMask(const OpCall& call, const TensorArg& m, const AttentionDims& g) {
  checkDtype(call, m, "input drop_mask", dtBit(ACL_UINT8));
  if (m.numel() != g.b * g.n * g.sq * g.skv)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input drop_mask has " + std::to_string(m.numel()) + " bytes; it holds one per [B, N, Sq, Skv] element (" +
             std::to_string(g.b * g.n * g.sq * g.skv) + ")");
}

// z[j] = 1 / keep_prob where row i of head (b, n) keeps position j, else 0.
void dropFactors(const uint8_t* mask, const AttentionDims& g, int64_t bi, int64_t ni, int64_t i, float keep, float* z) {
  const uint8_t* row = mask + ((bi * g.n + ni) * g.sq + i) * g.skv;
  for (int64_t j = 0; j < g.skv; ++j) z[j] = row[j] != 0 ? 1.0f / keep : 0.0f;
}

// The [Sq, Skv] matrix of head (b, n) of a [B, N, Sq, Skv] tensor.
int64_t scoreOffset(const AttentionDims& g, int64_t bi, int64_t ni) { return (bi * g.n + ni) * g.sq * g.skv; }

// ---- AttentionScore: query, key, value, attention_mask, drop_mask; attrs scale, keep_prob
//      -> attention_score [B, Sq, N, D], softmax_output [B, N, Sq, Skv] ----
struct ForwardProblem {
  AttentionDims g;
  Broadcast4 mask;
};

ForwardProblem forwardProblemOf(const OpCall& call) {
  checkArity(call, 5, 5, 2);
  const TensorArg& q = call.inputs[0];
  ForwardProblem p{scoreDims(call, q, call.inputs[1], call.inputs[2]), {}};
  checkSameDtype(call, q, "query", call.inputs[3], "input attention_mask");
  p.mask = broadcastOf(call, call.inputs[3], "attention_mask", p.g, false);
  checkDropMask(call, call.inputs[4], p.g);
  attrFloat(call, "scale");
  keepProbAttr(call);
  const AttentionDims& g = p.g;
  checkSameDtype(call, q, "query", call.outputs[0], "output attention_score");
  checkShapeEq(call, call.outputs[0], "output attention_score", {g.b, g.sq, g.n, g.d}, "[B, Sq, N, D]");
  checkSameDtype(call, q, "query", call.outputs[1], "output softmax_output");
  checkShapeEq(call, call.outputs[1], "output softmax_output", {g.b, g.n, g.sq, g.skv}, "[B, N, Sq, Skv]");
  return p;
}

void validateAttentionScore(const OpCall& call) { forwardProblemOf(call); }

void computeAttentionScore(const OpCall& call) {
  const ForwardProblem p = forwardProblemOf(call);
  const AttentionDims& g = p.g;
  const AttentionDims ctx_order = contextOrder(g);
  const TensorArg &q = call.inputs[0], &k = call.inputs[1], &v = call.inputs[2];
  const auto* drop = static_cast<const uint8_t*>(call.inputs[4].data);
  const TensorArg &out = call.outputs[0], &probs_out = call.outputs[1];
  const float scale = attrFloat(call, "scale"), keep = keepProbAttr(call);
  const CubeRounding rnd = cubeRoundingOf(call);
  std::vector<UnitCounters> cnt(static_cast<size_t>(g.b * g.n));
  parallelFor(g.b * g.n, [&](int64_t t) {
    const int64_t bi = t / g.n, ni = t % g.n;
    const HeadMatrix qh = headOf(g, g.n, g.sq, bi, ni), kh = headOf(g, g.n, g.skv, bi, ni);
    std::vector<float> s(static_cast<size_t>(g.sq * g.skv)), tmp(g.skv), z(g.skv), o(static_cast<size_t>(g.sq * g.d));
    cubeGemm(GmMatrix{q.dtype, q.data, qh.offset, qh.row_stride, 1},
             GmMatrix{k.dtype, k.data, kh.offset, 1, kh.row_stride}, g.sq, g.skv, g.d, rnd, s.data(), &cnt[t]);
    finishProduct(call, s.data(), g.sq * g.skv, &cnt[t]);
    for (int64_t i = 0; i < g.sq; ++i) {
      float* row = s.data() + i * g.skv;
      loadFloat(p.mask.dtype, p.mask.data, bi * p.mask.sb + ni * p.mask.sn + i * p.mask.si, p.mask.sj, g.skv,
                tmp.data());
      for (int64_t j = 0; j < g.skv; ++j) row[j] = row[j] * scale + tmp[j];
      softmaxRow(row, g.skv, tmp.data());
      storeFloat(probs_out.dtype, probs_out.data, scoreOffset(g, bi, ni) + i * g.skv, g.skv, row);
      if (roundLikeInput(q.dtype, call.ctx.fp16_saturation, row, g.skv)) cnt[t].fp16_overflow = true;
      dropFactors(drop, g, bi, ni, i, keep, z.data());
      for (int64_t j = 0; j < g.skv; ++j) row[j] *= z[j];  // Pd from the stored P, as the gradient rebuilds it
    }
    if (roundLikeInput(q.dtype, call.ctx.fp16_saturation, s.data(), g.sq * g.skv)) cnt[t].fp16_overflow = true;
    cubeGemm(GmMatrix{ACL_FLOAT, s.data(), 0, g.skv, 1}, GmMatrix{v.dtype, v.data, kh.offset, kh.row_stride, 1}, g.sq,
             g.d, g.skv, rnd, o.data(), &cnt[t]);
    finishProduct(call, o.data(), g.sq * g.d, &cnt[t]);
    const HeadMatrix oh = headOf(ctx_order, g.n, g.sq, bi, ni);
    for (int64_t i = 0; i < g.sq; ++i)
      storeFloat(out.dtype, out.data, oh.offset + i * oh.row_stride, g.d, o.data() + i * g.d);
  });
  reportOverflow(call, cnt);
}

KernelCost costAttentionScore(const OpCall& call) {
  const AttentionDims g = forwardProblemOf(call).g;
  return attentionCost(call, g, {{g.sq, g.skv, g.d}, {g.sq, g.d, g.skv}}, kForwardScorePasses, 0);
}

// ---- AttentionScoreGrad: softmax_output, dy [B, Sq, N, D], value, key, query, drop_mask;
//      attrs scale, keep_prob -> value_dw, query_dx, key_dw (each [B, S, N, D]) ----
AttentionDims gradDimsOf(const OpCall& call) {
  checkArity(call, 6, 6, 3);
  const TensorArg &v = call.inputs[2], &k = call.inputs[3], &q = call.inputs[4];
  const AttentionDims g = scoreDims(call, q, k, v);
  checkSameDtype(call, q, "query", call.inputs[0], "input softmax_output");
  checkShapeEq(call, call.inputs[0], "input softmax_output", {g.b, g.n, g.sq, g.skv}, "[B, N, Sq, Skv]");
  checkSameDtype(call, q, "query", call.inputs[1], "input dy");
  checkShapeEq(call, call.inputs[1], "input dy", {g.b, g.sq, g.n, g.d}, "[B, Sq, N, D]");
  checkDropMask(call, call.inputs[5], g);
  attrFloat(call, "scale");
  keepProbAttr(call);
  const char* names[] = {"output value_dw", "output query_dx", "output key_dw"};
  const int64_t seq[] = {g.skv, g.sq, g.skv};
  for (size_t o = 0; o < 3; ++o) {
    checkSameDtype(call, q, "query", call.outputs[o], names[o]);
    checkShapeEq(call, call.outputs[o], names[o], {g.b, seq[o], g.n, g.d}, "[B, S, N, D]");
  }
  return g;
}

void validateAttentionScoreGrad(const OpCall& call) { gradDimsOf(call); }

void computeAttentionScoreGrad(const OpCall& call) {
  const AttentionDims g = gradDimsOf(call);
  const AttentionDims ctx_order = contextOrder(g);
  const TensorArg &probs_in = call.inputs[0], &dy = call.inputs[1], &v = call.inputs[2], &k = call.inputs[3],
                  &q = call.inputs[4];
  const auto* drop = static_cast<const uint8_t*>(call.inputs[5].data);
  const float scale = attrFloat(call, "scale"), keep = keepProbAttr(call);
  const CubeRounding rnd = cubeRoundingOf(call);
  const bool sat = call.ctx.fp16_saturation;
  std::vector<UnitCounters> cnt(static_cast<size_t>(g.b * g.n));
  parallelFor(g.b * g.n, [&](int64_t t) {
    const int64_t bi = t / g.n, ni = t % g.n;
    const int64_t ss = g.sq * g.skv;
    const HeadMatrix qh = headOf(g, g.n, g.sq, bi, ni), kh = headOf(g, g.n, g.skv, bi, ni);
    const HeadMatrix dqh = headOf(ctx_order, g.n, g.sq, bi, ni), dkh = headOf(ctx_order, g.n, g.skv, bi, ni);
    std::vector<float> probs(ss), z(ss), pd(ss), dpd(ss), dq(g.sq * g.d), dkv(g.skv * g.d), tmp(g.skv);
    loadFloat(probs_in.dtype, probs_in.data, scoreOffset(g, bi, ni), 1, ss, probs.data());
    for (int64_t i = 0; i < g.sq; ++i) dropFactors(drop, g, bi, ni, i, keep, z.data() + i * g.skv);
    for (int64_t e = 0; e < ss; ++e) pd[e] = probs[e] * z[e];
    if (roundLikeInput(q.dtype, sat, pd.data(), ss)) cnt[t].fp16_overflow = true;
    const GmMatrix dy_head{dy.dtype, dy.data, dqh.offset, dqh.row_stride, 1};
    auto store = [&](const TensorArg& o, const HeadMatrix& h, int64_t rows, const std::vector<float>& m) {
      for (int64_t r = 0; r < rows; ++r) storeFloat(o.dtype, o.data, h.offset + r * h.row_stride, g.d, &m[r * g.d]);
    };
    cubeGemm(GmMatrix{ACL_FLOAT, pd.data(), 0, 1, g.skv}, dy_head, g.skv, g.d, g.sq, rnd, dkv.data(), &cnt[t]);
    finishProduct(call, dkv.data(), g.skv * g.d, &cnt[t]);
    store(call.outputs[0], dkh, g.skv, dkv);  // value_dw = Pd^T dy
    cubeGemm(dy_head, GmMatrix{v.dtype, v.data, kh.offset, 1, kh.row_stride}, g.sq, g.skv, g.d, rnd, dpd.data(),
             &cnt[t]);
    finishProduct(call, dpd.data(), ss, &cnt[t]);
    for (int64_t i = 0; i < g.sq; ++i) {
      float* ds = dpd.data() + i * g.skv;  // dPd -> dP -> dS in place
      const float* pr = probs.data() + i * g.skv;
      const float* zr = z.data() + i * g.skv;
      for (int64_t j = 0; j < g.skv; ++j) tmp[j] = pr[j] * (ds[j] *= zr[j]);
      const float dot = pairwiseSum(tmp.data(), g.skv, reduceBlockElems(ACL_FLOAT));
      for (int64_t j = 0; j < g.skv; ++j) ds[j] = scale * pr[j] * (ds[j] - dot);
    }
    if (roundLikeInput(q.dtype, sat, dpd.data(), ss)) cnt[t].fp16_overflow = true;
    cubeGemm(GmMatrix{ACL_FLOAT, dpd.data(), 0, g.skv, 1}, GmMatrix{k.dtype, k.data, kh.offset, kh.row_stride, 1}, g.sq,
             g.d, g.skv, rnd, dq.data(), &cnt[t]);
    finishProduct(call, dq.data(), g.sq * g.d, &cnt[t]);
    store(call.outputs[1], dqh, g.sq, dq);  // query_dx = dS k
    cubeGemm(GmMatrix{ACL_FLOAT, dpd.data(), 0, 1, g.skv}, GmMatrix{q.dtype, q.data, qh.offset, qh.row_stride, 1},
             g.skv, g.d, g.sq, rnd, dkv.data(), &cnt[t]);
    finishProduct(call, dkv.data(), g.skv * g.d, &cnt[t]);
    store(call.outputs[2], dkh, g.skv, dkv);  // key_dw = dS^T q
  });
  reportOverflow(call, cnt);
}

KernelCost costAttentionScoreGrad(const OpCall& call) {
  const AttentionDims g = gradDimsOf(call);
  // Products per head (m, n, k): dv, dPd, dq, dk.
  return attentionCost(call, g, {{g.skv, g.d, g.sq}, {g.sq, g.skv, g.d}, {g.sq, g.d, g.skv}, {g.skv, g.d, g.sq}},
                       kGradScorePasses, 0);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AttentionScore", &validateAttentionScore, &computeAttentionScore,
                                     &costAttentionScore});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AttentionScoreGrad", &validateAttentionScoreGrad, &computeAttentionScoreGrad,
                                     &costAttentionScoreGrad});

}  // namespace
}  // namespace ascend_sim
