// MultiHeadAttention / MultiHeadAttentionGrad (OPS.md "Fused attention"): a
// whole nn.MultiheadAttention layer — the three input projections, the
// attention and the output projection — as ONE AI Core kernel per
// direction, torch_npu's npu_multi_head_attention (+ _backward).
//
// Note [MultiHeadAttention]
// query [B*T, Eq], key [B*S, Ek], value [B*S, Ev] (T = tgt_len, S = src_len,
// rows batch-major), weights [E, E*] as nn.Linear stores them (y = x W^T + b),
// E = H * D heads; attn_mask is ADDITIVE, broadcast to [B, H, T, S]. Forward,
// fp32 inside, each result rounded once to the input dtype:
//   Cube:   Q = (query Wq^T + bq) / sqrt(D), K = key Wk^T + bk, V = value Wv^T + bv
//                                    -> query_res / key_res / value_res [B, H, L, D]
//   per head (b, h):
//   Cube:   scores = Q K^T + mask;  Vector: P = softmax(scores)  -> attn_scores
//                                    (fp32 with softmax_use_float, else the dtype)
//           R = round(P) * Z / keep_prob                         -> attn_res
//   Cube:   context = R V  (heads merged back to [B*T, E])       -> context
//   Cube:   y = context Wo^T + bo                                -> y
// Z is the dropout bit mask (Note [Dropout bit masks]) over [B, H, T, S]:
// the dropout_mask input when given, else drawn from the Philox stream
// (seed, offset) exactly as DropOutGenMask would; it is returned as output
// dropout_mask. keep_prob = 1 keeps everything. The gradient reuses the
// saved results (no recompute) and returns all eleven gradients; the bias
// gradients are the column sums of the projections' gradients, [1, E]:
//   dWo = dy^T context, dbo = sum dy, dC = dy Wo
//   per head: dV = R^T dC_h, dR = dC_h V^T, dP = dR * Z / keep_prob,
//             dS = P (dP - sum_j P dP)       (P = attn_scores),
//             dQ = dS K / sqrt(D), dK = dS^T Q
//   dWq = dQ^T query, dquery = dQ Wq, dbq = sum dQ (and so on for k, v).
// Every Cube operand produced inside (dC, dS, dQ, dK, dV) is rounded to the
// input dtype first, as the fused kernel's workspace holds it.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "ops/fused/attention_util.h"
#include "ops/linalg/cube_gemm.h"
#include "ops/random/dropout_mask.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

constexpr int kForwardScorePasses = 8;  // + mask, max, exp, sum, normalise, round, dropout, cast
constexpr int kGradScorePasses = 6;     // dropout, P * dP, its sum, dS, two casts
constexpr int kProjectionPasses = 2;    // bias (and scale), cast
constexpr int64_t kRowsPerTask = 64;    // rows of one projection product per simulated task

struct MhaDims {
  int64_t b = 0, h = 0, d = 0, t = 0, s = 0;
  int64_t eq = 0, ek = 0, ev = 0;  // feature sizes of query, key, value
  int64_t e() const { return h * d; }
};

const char* const kProjNames[] = {"query", "key", "value"};
const char* const kBiasAttrs[] = {"has_query_bias", "has_key_bias", "has_value_bias", "has_out_proj_bias"};

// The dims from the attributes and query / key / value (inputs 0..2) and
// their weights (inputs w0..w0+2), checked.
MhaDims mhaDimsOf(const OpCall& call, size_t w0) {
  MhaDims m;
  m.h = attrInt(call, "attn_head_num");
  m.d = attrInt(call, "attn_dim_per_head");
  m.s = attrInt(call, "src_len");
  m.t = attrInt(call, "tgt_len");
  if (m.h <= 0 || m.d <= 0 || m.s <= 0 || m.t <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attn_head_num, attn_dim_per_head, src_len and tgt_len must be positive, got " + std::to_string(m.h) + ", " +
             std::to_string(m.d) + ", " + std::to_string(m.s) + ", " + std::to_string(m.t));
  const TensorArg& q = call.inputs[0];
  checkDtype(call, q, "input query", kFloatTypes);
  int64_t* features[] = {&m.eq, &m.ek, &m.ev};
  for (size_t i = 0; i < 3; ++i) {
    const TensorArg &x = call.inputs[i], &w = call.inputs[w0 + i];
    const std::string name = kProjNames[i];
    const int64_t len = i == 0 ? m.t : m.s;
    checkSameDtype(call, q, "query", x, "input " + name);
    checkSameDtype(call, q, "query", w, "input " + name + "_weight");
    if (x.shape.size() != 2 || x.shape[0] % len != 0)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "input " + name + " shape " + shapeToString(x.shape) + " must be [B * " + (i == 0 ? "tgt_len" : "src_len") +
               ", features] with " + (i == 0 ? "tgt_len " : "src_len ") + std::to_string(len));
    *features[i] = x.shape[1];
    checkShapeEq(call, w, "input " + name + "_weight", {m.e(), x.shape[1]},
                 "[attn_head_num * attn_dim_per_head, " + name + " features]");
  }
  m.b = q.shape[0] / m.t;
  for (size_t i = 1; i < 3; ++i)
    if (call.inputs[i].shape[0] != m.b * m.s)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string("input ") + kProjNames[i] + " shape " + shapeToString(call.inputs[i].shape) +
               " must have B * src_len = " + std::to_string(m.b * m.s) + " rows (B = " + std::to_string(m.b) +
               " from query)");
  return m;
}

int64_t scoreElems(const MhaDims& m) { return m.b * m.h * m.t * m.s; }

// Input dropout_mask: the uint8 bit mask (Note [Dropout bit masks]) of the [B, H, T, S] scores.
void checkBitMask(const OpCall& call, const TensorArg& mask, const MhaDims& m) {
  checkDtype(call, mask, "input dropout_mask", dtBit(ACL_UINT8));
  checkShapeEq(call, mask, "input dropout_mask", {dropoutMaskBytes(scoreElems(m))},
               "the bit mask of [B, H, T, S] (ceil(n / 128) * 16 bytes)");
}
Shape headsShape(const MhaDims& m, int64_t len) { return {m.b, m.h, len, m.d}; }
int64_t headOffset(const MhaDims& m, int64_t len, int64_t bi, int64_t hi) { return (bi * m.h + hi) * len * m.d; }

// c [m][n] = a [m][k] b [k][n] on the Cube, rows split over simulated tasks
// (each row's result does not depend on the split).
void rowParallelGemm(const OpCall& call, const GmMatrix& a, const GmMatrix& b, int64_t m, int64_t n, int64_t k,
                     CubeRounding rnd, float* c, std::vector<UnitCounters>& cnt) {
  const int64_t tasks = (m + kRowsPerTask - 1) / kRowsPerTask;
  std::vector<UnitCounters> local(static_cast<size_t>(tasks));
  parallelFor(tasks, [&](int64_t t) {
    const int64_t r0 = t * kRowsPerTask, rows = std::min(kRowsPerTask, m - r0);
    const GmMatrix blk{a.dtype, a.base, a.offset + r0 * a.rs, a.rs, a.cs};
    cubeGemm(blk, b, rows, n, k, rnd, c + r0 * n, &local[t]);
    finishProduct(call, c + r0 * n, rows * n, &local[t]);
  });
  cnt.insert(cnt.end(), local.begin(), local.end());
}

// Column sums of an fp32 [rows, cols] matrix, rows in ascending order.
std::vector<float> columnSums(const std::vector<float>& a, int64_t rows, int64_t cols) {
  std::vector<float> s(static_cast<size_t>(cols), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) s[c] += a[r * cols + c];
  return s;
}

// ---- MultiHeadAttention: query, key, value, query_weight, key_weight, value_weight, attn_mask,
//      out_proj_weight, [query_bias], [key_bias], [value_bias], [out_proj_bias], [dropout_mask]
//      -> y, dropout_mask, query_res, key_res, value_res, attn_scores, attn_res, context ----
struct ForwardProblem {
  MhaDims m;
  AttentionDims scores;  // [B, H, T, S] for the mask's broadcast
  Broadcast4 mask;
  const TensorArg* bias[4] = {nullptr, nullptr, nullptr, nullptr};
  const TensorArg* dropout_mask = nullptr;
};

ForwardProblem forwardProblemOf(const OpCall& call) {
  if (call.inputs.size() < 8 || call.outputs.size() != 8)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected at least 8 inputs (query, key, value, three weights, attn_mask, out_proj_weight) and 8 outputs, "
         "got " +
             std::to_string(call.inputs.size()) + " and " + std::to_string(call.outputs.size()));
  ForwardProblem p;
  p.m = mhaDimsOf(call, 3);
  const MhaDims& m = p.m;
  const TensorArg& q = call.inputs[0];
  p.scores.layout = AttnLayout::kBNSD;
  p.scores.b = m.b, p.scores.n = p.scores.n_kv = m.h, p.scores.sq = m.t, p.scores.skv = m.s, p.scores.d = m.d;
  checkSameDtype(call, q, "query", call.inputs[6], "input attn_mask");
  p.mask = broadcastOf(call, call.inputs[6], "attn_mask", p.scores, false);
  checkSameDtype(call, q, "query", call.inputs[7], "input out_proj_weight");
  checkShapeEq(call, call.inputs[7], "input out_proj_weight", {m.e(), m.e()}, "[E, E]");
  size_t next = 8;
  const bool has_mask = attrBool(call, "has_dropout_mask", false);
  size_t expected = 8 + (has_mask ? 1 : 0);
  for (const char* a : kBiasAttrs) expected += attrBool(call, a, false) ? 1 : 0;
  if (call.inputs.size() != expected)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "the has_*_bias / has_dropout_mask attributes announce " + std::to_string(expected) +
             " inputs, the call has " + std::to_string(call.inputs.size()));
  const char* bias_names[] = {"input query_bias", "input key_bias", "input value_bias", "input out_proj_bias"};
  for (size_t i = 0; i < 4; ++i) {
    if (!attrBool(call, kBiasAttrs[i], false)) continue;
    p.bias[i] = &call.inputs[next++];
    checkSameDtype(call, q, "query", *p.bias[i], bias_names[i]);
    checkShapeEq(call, *p.bias[i], bias_names[i], {m.e()}, "[E]");
  }
  if (has_mask) {
    p.dropout_mask = &call.inputs[next++];
    checkBitMask(call, *p.dropout_mask, m);
  }
  keepProbAttr(call);
  attrInt(call, "seed", 0);
  attrInt(call, "offset", 0);
  const bool use_float = attrBool(call, "softmax_use_float", true);
  const Shape outs[] = {{m.b * m.t, m.e()},   {dropoutMaskBytes(scoreElems(m))},
                        headsShape(m, m.t),   headsShape(m, m.s),
                        headsShape(m, m.s),   {m.b, m.h, m.t, m.s},
                        {m.b, m.h, m.t, m.s}, {m.b * m.t, m.e()}};
  const char* names[] = {"output y",         "output dropout_mask", "output query_res", "output key_res",
                         "output value_res", "output attn_scores",  "output attn_res",  "output context"};
  for (size_t o = 0; o < 8; ++o) {
    const aclDataType want = o == 1 ? ACL_UINT8 : (o == 5 && use_float) ? ACL_FLOAT : q.dtype;
    checkDtype(call, call.outputs[o], names[o], dtBit(want));
    checkShapeEq(call, call.outputs[o], names[o], outs[o], "the shape npu_multi_head_attention returns");
  }
  return p;
}

void validateMultiHeadAttention(const OpCall& call) { forwardProblemOf(call); }

// x W^T + b (times `scale`) for rows [r0, r0 + rows) of projection input x, in fp32.
void project(const OpCall& call, const TensorArg& x, const TensorArg& w, const TensorArg* bias, int64_t r0,
             int64_t rows, int64_t e, float scale, CubeRounding rnd, float* out, UnitCounters* cnt) {
  const int64_t in = x.shape[1];
  cubeGemm(GmMatrix{x.dtype, x.data, r0 * in, in, 1}, GmMatrix{w.dtype, w.data, 0, 1, in}, rows, e, in, rnd, out, cnt);
  finishProduct(call, out, rows * e, cnt);
  std::vector<float> b(static_cast<size_t>(e), 0.0f);
  if (bias) loadFloat(bias->dtype, bias->data, 0, 1, e, b.data());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < e; ++c) out[r * e + c] = (out[r * e + c] + b[c]) * scale;
}

void computeMultiHeadAttention(const OpCall& call) {
  const ForwardProblem p = forwardProblemOf(call);
  const MhaDims& m = p.m;
  const int64_t e = m.e();
  const TensorArg& q = call.inputs[0];
  const CubeRounding rnd = cubeRoundingOf(call);
  const float keep = keepProbAttr(call);
  const TensorArg &y = call.outputs[0], &mask_out = call.outputs[1], &scores_out = call.outputs[5],
                  &res_out = call.outputs[6], &ctx_out = call.outputs[7];
  auto* bits = static_cast<uint8_t*>(mask_out.data);
  if (p.dropout_mask)
    std::copy_n(static_cast<const uint8_t*>(p.dropout_mask->data), mask_out.numel(), bits);
  else
    generateDropoutBits(static_cast<uint64_t>(attrInt(call, "seed", 0)),
                        static_cast<uint64_t>(attrInt(call, "offset", 0)), keep, scoreElems(m), bits);
  std::vector<UnitCounters> cnt(static_cast<size_t>(m.b * m.h + 3 * m.b));
  // Projections, one task per (tensor, batch): rounded once into query_res / key_res / value_res.
  const float q_scale = 1.0f / std::sqrt(static_cast<float>(m.d));
  parallelFor(3 * m.b, [&](int64_t task) {
    const int64_t which = task / m.b, bi = task % m.b, len = which == 0 ? m.t : m.s;
    std::vector<float> proj(static_cast<size_t>(len * e));
    project(call, call.inputs[which], call.inputs[3 + which], p.bias[which], bi * len, len, e,
            which == 0 ? q_scale : 1.0f, rnd, proj.data(), &cnt[m.b * m.h + task]);
    const TensorArg& out = call.outputs[2 + which];
    for (int64_t hi = 0; hi < m.h; ++hi)
      for (int64_t l = 0; l < len; ++l)
        storeFloat(out.dtype, out.data, headOffset(m, len, bi, hi) + l * m.d, m.d, &proj[l * e + hi * m.d]);
  });
  const TensorArg &qr = call.outputs[2], &kr = call.outputs[3], &vr = call.outputs[4];
  parallelFor(m.b * m.h, [&](int64_t task) {
    const int64_t bi = task / m.h, hi = task % m.h;
    std::vector<float> s(static_cast<size_t>(m.t * m.s)), tmp(m.s), ctx(static_cast<size_t>(m.t * m.d));
    cubeGemm(GmMatrix{qr.dtype, qr.data, headOffset(m, m.t, bi, hi), m.d, 1},
             GmMatrix{kr.dtype, kr.data, headOffset(m, m.s, bi, hi), 1, m.d}, m.t, m.s, m.d, rnd, s.data(), &cnt[task]);
    finishProduct(call, s.data(), m.t * m.s, &cnt[task]);
    const int64_t base = task * m.t * m.s;  // (b, h) row block of [B, H, T, S]
    for (int64_t i = 0; i < m.t; ++i) {
      float* row = s.data() + i * m.s;
      loadFloat(p.mask.dtype, p.mask.data, bi * p.mask.sb + hi * p.mask.sn + i * p.mask.si, p.mask.sj, m.s, tmp.data());
      for (int64_t j = 0; j < m.s; ++j) row[j] += tmp[j];
      softmaxRow(row, m.s, tmp.data());
      storeFloat(scores_out.dtype, scores_out.data, base + i * m.s, m.s, row);
    }
    if (roundLikeInput(q.dtype, call.ctx.fp16_saturation, s.data(), m.t * m.s)) cnt[task].fp16_overflow = true;
    for (int64_t x = 0; x < m.t * m.s; ++x)
      s[x] = keep >= 1.0f ? s[x] : dropoutMaskBit(bits, base + x) ? s[x] / keep : 0.0f;
    storeFloat(res_out.dtype, res_out.data, base, m.t * m.s, s.data());
    cubeGemm(GmMatrix{res_out.dtype, res_out.data, base, m.s, 1},
             GmMatrix{vr.dtype, vr.data, headOffset(m, m.s, bi, hi), m.d, 1}, m.t, m.d, m.s, rnd, ctx.data(),
             &cnt[task]);
    finishProduct(call, ctx.data(), m.t * m.d, &cnt[task]);
    for (int64_t i = 0; i < m.t; ++i)
      storeFloat(ctx_out.dtype, ctx_out.data, (bi * m.t + i) * e + hi * m.d, m.d, &ctx[i * m.d]);
  });
  parallelFor(m.b, [&](int64_t bi) {
    std::vector<float> out(static_cast<size_t>(m.t * e));
    project(call, ctx_out, call.inputs[7], p.bias[3], bi * m.t, m.t, e, 1.0f, rnd, out.data(), &cnt[m.b * m.h + bi]);
    storeFloat(y.dtype, y.data, bi * m.t * e, m.t * e, out.data());
  });
  reportOverflow(call, cnt);
}

KernelCost costMultiHeadAttention(const OpCall& call) {
  const MhaDims m = forwardProblemOf(call).m;
  const int64_t e = m.e();
  const double heads = static_cast<double>(m.b * m.h);
  return fusedKernelCost(
      call,
      {{m.b * m.t, e, m.eq},
       {m.b * m.s, e, m.ek},
       {m.b * m.s, e, m.ev},
       {m.b * m.t, e, e},
       {m.t, m.s, m.d, heads},
       {m.t, m.d, m.s, heads}},
      {{kForwardScorePasses, scoreElems(m)}, {kProjectionPasses, (2 * m.b * m.t + 2 * m.b * m.s) * e}}, m.b * m.h);
}

// ---- MultiHeadAttentionGrad: query, key, value, query_weight, key_weight, value_weight,
//      out_proj_weight, query_res, key_res, value_res, attn_scores, attn_res, context, y_grad,
//      [dropout_mask] -> the weight grads (q, k, v, out_proj), the input grads (q, k, v),
//      the bias grads (q, k, v, out_proj, each [1, E]) ----
MhaDims gradDimsOf(const OpCall& call) {
  const float keep = keepProbAttr(call);
  const size_t inputs = keep < 1.0f ? 15 : 14;
  if (call.inputs.size() != inputs || call.outputs.size() != 11)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(inputs) + " inputs (dropout_mask only with keep_prob < 1) and 11 outputs, got " +
             std::to_string(call.inputs.size()) + " and " + std::to_string(call.outputs.size()));
  const MhaDims m = mhaDimsOf(call, 3);
  const TensorArg& q = call.inputs[0];
  const Shape score = {m.b, m.h, m.t, m.s};
  struct Want {
    size_t at;
    const char* name;
    Shape shape;
  };
  const Want wants[] = {{6, "input out_proj_weight", {m.e(), m.e()}},
                        {7, "input query_res", headsShape(m, m.t)},
                        {8, "input key_res", headsShape(m, m.s)},
                        {9, "input value_res", headsShape(m, m.s)},
                        {11, "input attn_res", score},
                        {12, "input context", {m.b * m.t, m.e()}},
                        {13, "input y_grad", {m.b * m.t, m.e()}}};
  for (const Want& w : wants) {
    checkSameDtype(call, q, "query", call.inputs[w.at], w.name);
    checkShapeEq(call, call.inputs[w.at], w.name, w.shape, "the forward's shape");
  }
  checkDtype(call, call.inputs[10], "input attn_scores", dtBit(ACL_FLOAT) | dtBit(q.dtype));
  checkShapeEq(call, call.inputs[10], "input attn_scores", score, "[B, H, T, S]");
  if (keep < 1.0f) { checkBitMask(call, call.inputs[14], m); }
  const Shape outs[] = {{m.e(), m.eq},     {m.e(), m.ek},     {m.e(), m.ev},     {m.e(), m.e()},
                        {m.b * m.t, m.eq}, {m.b * m.s, m.ek}, {m.b * m.s, m.ev}, {1, m.e()},
                        {1, m.e()},        {1, m.e()},        {1, m.e()}};
  for (size_t o = 0; o < 11; ++o) {
    const std::string name = "output " + std::to_string(o);
    checkSameDtype(call, q, "query", call.outputs[o], name);
    checkShapeEq(call, call.outputs[o], name, outs[o], "its input's shape");
  }
  return m;
}

void validateMultiHeadAttentionGrad(const OpCall& call) { gradDimsOf(call); }

void storeRows(const TensorArg& out, const std::vector<float>& v) {
  storeFloat(out.dtype, out.data, 0, out.numel(), v.data());
}

void computeMultiHeadAttentionGrad(const OpCall& call) {
  const MhaDims m = gradDimsOf(call);
  const int64_t e = m.e(), bt = m.b * m.t, bs = m.b * m.s;
  const TensorArg& q = call.inputs[0];
  const aclDataType dt = q.dtype;
  const bool sat = call.ctx.fp16_saturation;
  const CubeRounding rnd = cubeRoundingOf(call);
  const float keep = keepProbAttr(call);
  const auto* bits = keep < 1.0f ? static_cast<const uint8_t*>(call.inputs[14].data) : nullptr;
  const TensorArg &qr = call.inputs[7], &kr = call.inputs[8], &vr = call.inputs[9], &probs = call.inputs[10],
                  &res = call.inputs[11], &ctx = call.inputs[12], &dy = call.inputs[13];
  std::vector<UnitCounters> cnt(static_cast<size_t>(m.b * m.h + 1));  // the heads' tasks, then the rounding
  auto rounded = [&](std::vector<float>& v) {
    if (roundLikeInput(dt, sat, v.data(), static_cast<int64_t>(v.size()))) cnt[m.b * m.h].fp16_overflow = true;
  };
  // Output projection: dWo = dy^T context, dbo = sum dy, dC = dy Wo.
  std::vector<float> dy_f(static_cast<size_t>(bt * e)), grad(static_cast<size_t>(e * e));
  loadFloat(dy.dtype, dy.data, 0, 1, bt * e, dy_f.data());
  rowParallelGemm(call, GmMatrix{dt, dy.data, 0, 1, e}, GmMatrix{dt, ctx.data, 0, e, 1}, e, e, bt, rnd, grad.data(),
                  cnt);
  storeRows(call.outputs[3], grad);
  storeRows(call.outputs[10], columnSums(dy_f, bt, e));
  std::vector<float> dc(static_cast<size_t>(bt * e));
  rowParallelGemm(call, GmMatrix{dt, dy.data, 0, e, 1}, GmMatrix{dt, call.inputs[6].data, 0, e, 1}, bt, e, e, rnd,
                  dc.data(), cnt);
  rounded(dc);
  // Per head: the attention's gradient into the projections' gradients dQ, dK, dV ([rows, E], fp32).
  std::vector<float> dq(static_cast<size_t>(bt * e)), dk(static_cast<size_t>(bs * e)), dv(dk.size());
  const float q_scale = 1.0f / std::sqrt(static_cast<float>(m.d));
  parallelFor(m.b * m.h, [&](int64_t task) {
    const int64_t bi = task / m.h, hi = task % m.h, ss = m.t * m.s, base = task * ss;
    const GmMatrix dc_head{ACL_FLOAT, dc.data(), bi * m.t * e + hi * m.d, e, 1};
    std::vector<float> part(static_cast<size_t>(std::max(m.t, m.s) * m.d)), ds(ss), pr(ss), tmp(m.s);
    auto scatter = [&](std::vector<float>& to, int64_t len, float scale) {
      for (int64_t l = 0; l < len; ++l)
        for (int64_t c = 0; c < m.d; ++c) to[(bi * len + l) * e + hi * m.d + c] = part[l * m.d + c] * scale;
    };
    cubeGemm(GmMatrix{dt, res.data, base, 1, m.s}, dc_head, m.s, m.d, m.t, rnd, part.data(), &cnt[task]);
    finishProduct(call, part.data(), m.s * m.d, &cnt[task]);
    scatter(dv, m.s, 1.0f);  // dV = R^T dC
    cubeGemm(dc_head, GmMatrix{dt, vr.data, headOffset(m, m.s, bi, hi), 1, m.d}, m.t, m.s, m.d, rnd, ds.data(),
             &cnt[task]);  // dR = dC V^T
    finishProduct(call, ds.data(), ss, &cnt[task]);
    loadFloat(probs.dtype, probs.data, base, 1, ss, pr.data());
    for (int64_t i = 0; i < m.t; ++i) {
      float* row = ds.data() + i * m.s;
      const float* p_row = pr.data() + i * m.s;
      for (int64_t j = 0; j < m.s; ++j) {
        if (bits) row[j] = dropoutMaskBit(bits, base + i * m.s + j) ? row[j] / keep : 0.0f;
        tmp[j] = p_row[j] * row[j];
      }
      const float dot = pairwiseSum(tmp.data(), m.s, reduceBlockElems(ACL_FLOAT));
      for (int64_t j = 0; j < m.s; ++j) row[j] = p_row[j] * (row[j] - dot);
    }
    if (roundLikeInput(dt, sat, ds.data(), ss)) cnt[task].fp16_overflow = true;
    cubeGemm(GmMatrix{ACL_FLOAT, ds.data(), 0, m.s, 1}, GmMatrix{dt, kr.data, headOffset(m, m.s, bi, hi), m.d, 1}, m.t,
             m.d, m.s, rnd, part.data(), &cnt[task]);
    finishProduct(call, part.data(), m.t * m.d, &cnt[task]);
    scatter(dq, m.t, q_scale);  // dQ = dS K / sqrt(D)
    cubeGemm(GmMatrix{ACL_FLOAT, ds.data(), 0, 1, m.s}, GmMatrix{dt, qr.data, headOffset(m, m.t, bi, hi), m.d, 1}, m.s,
             m.d, m.t, rnd, part.data(), &cnt[task]);
    finishProduct(call, part.data(), m.s * m.d, &cnt[task]);
    scatter(dk, m.s, 1.0f);  // dK = dS^T Q
  });
  // Input projections: dW = dX^T x, dx = dX W, db = sum dX.
  std::vector<float>* proj_grads[] = {&dq, &dk, &dv};
  for (size_t i = 0; i < 3; ++i) {
    std::vector<float>& dp = *proj_grads[i];
    rounded(dp);
    const TensorArg &x = call.inputs[i], &w = call.inputs[3 + i];
    const int64_t rows = x.shape[0], in = x.shape[1];
    std::vector<float> dw(static_cast<size_t>(e * in)), dx(static_cast<size_t>(rows * in));
    rowParallelGemm(call, GmMatrix{ACL_FLOAT, dp.data(), 0, 1, e}, GmMatrix{dt, x.data, 0, in, 1}, e, in, rows, rnd,
                    dw.data(), cnt);
    storeRows(call.outputs[i], dw);
    rowParallelGemm(call, GmMatrix{ACL_FLOAT, dp.data(), 0, e, 1}, GmMatrix{dt, w.data, 0, in, 1}, rows, in, e, rnd,
                    dx.data(), cnt);
    storeRows(call.outputs[4 + i], dx);
    storeRows(call.outputs[7 + i], columnSums(dp, rows, e));
  }
  reportOverflow(call, cnt);
}

KernelCost costMultiHeadAttentionGrad(const OpCall& call) {
  const MhaDims m = gradDimsOf(call);
  const int64_t e = m.e(), bt = m.b * m.t, bs = m.b * m.s;
  const double heads = static_cast<double>(m.b * m.h);
  const std::vector<CubeProduct> products = {{e, e, bt},
                                             {bt, e, e},
                                             {e, m.eq, bt},
                                             {bt, m.eq, e},
                                             {e, m.ek, bs},
                                             {bs, m.ek, e},
                                             {e, m.ev, bs},
                                             {bs, m.ev, e},  // the projections
                                             {m.s, m.d, m.t, heads},
                                             {m.t, m.s, m.d, heads},
                                             {m.t, m.d, m.s, heads},
                                             {m.s, m.d, m.t, heads}};  // per head
  return fusedKernelCost(call, products,
                         {{kGradScorePasses, scoreElems(m)}, {kProjectionPasses, (2 * bt + 2 * bs) * e}}, m.b * m.h);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MultiHeadAttention", &validateMultiHeadAttention, &computeMultiHeadAttention,
                                     &costMultiHeadAttention});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MultiHeadAttentionGrad", &validateMultiHeadAttentionGrad,
                                     &computeMultiHeadAttentionGrad, &costMultiHeadAttentionGrad});

}  // namespace
}  // namespace ascend_sim
