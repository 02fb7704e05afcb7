// The shared forward pass of the fused attention kernels
// (ops/fused/attention_forward.h).
//
// Note [Valid lengths of inference attention]
// PromptFlashAttention and IncreFlashAttention take per-batch valid lengths
// (torch_npu's actual_seq_lengths / actual_seq_lengths_kv): a KV cache is
// allocated for the longest sequence and filled up to each batch's length.
// The products of batch b cover only its kv_len[b] key positions — the rest
// of the cache is never read, so whatever it holds (NaN included) cannot
// reach the output, and the cost model charges only the rows read — and its
// query rows past q_len[b] are written as 0. Masks and the band apply inside
// the valid range as usual.
#include "ops/fused/attention_forward.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "aicore/thread_pool.h"
#include "ops/linalg/cube_gemm.h"

namespace ascend_sim {
namespace {

constexpr int64_t kStatsLanes = 8;  // softmax_max / softmax_sum: [B, N, Sq, 8]
constexpr int64_t kRowsPerTask = 128;

void storeStats(const TensorArg* max_out, const TensorArg* sum_out, int64_t at, const RowStats& st) {
  if (!max_out) return;
  const std::vector<float> mx(kStatsLanes, st.max), sm(kStatsLanes, st.sum);
  storeFloat(ACL_FLOAT, max_out->data, at * kStatsLanes, kStatsLanes, mx.data());
  storeFloat(ACL_FLOAT, sum_out->data, at * kStatsLanes, kStatsLanes, sm.data());
}

}  // namespace

void fusedAttentionForward(const OpCall& call, const AttentionProblem& p, const TensorArg& out,
                           const TensorArg* max_out, const TensorArg* sum_out) {
  const AttentionDims& g = p.dims;
  const TensorArg &q = call.inputs[0], &k = call.inputs[1], &v = call.inputs[2];
  const int64_t tiles = (g.sq + kRowsPerTask - 1) / kRowsPerTask;
  const int64_t tasks = g.b * g.n * tiles;
  const CubeRounding rnd = cubeRoundingOf(call);
  const RowStats empty_row{-std::numeric_limits<float>::infinity(), 0.0f};
  std::vector<UnitCounters> cnt(static_cast<size_t>(tasks));
  parallelFor(tasks, [&](int64_t t) {
    const int64_t bi = t / (g.n * tiles), ni = t / tiles % g.n, i0 = t % tiles * kRowsPerTask;
    const int64_t rows = std::min(kRowsPerTask, g.sq - i0);
    const int64_t valid = std::clamp<int64_t>(p.queryLen(bi) - i0, 0, rows), cols = p.keyLen(bi);
    const HeadMatrix qh = headOf(g, g.n, g.sq, bi, ni), kvh = headOf(g, g.n_kv, g.skv, bi, ni / g.group());
    const int64_t stats_row = (bi * g.n + ni) * g.sq + i0;
    std::vector<float> s(static_cast<size_t>(valid * cols)), score(cols), tmp(cols), factor(cols);
    std::vector<float> o(static_cast<size_t>(rows * g.d), 0.0f);
    if (valid > 0 && cols > 0) {
      const GmMatrix q_blk{q.dtype, q.data, qh.offset + i0 * qh.row_stride, qh.row_stride, 1};
      const GmMatrix k_t{k.dtype, k.data, kvh.offset, 1, kvh.row_stride};  // (d, j) = k[j][d]
      cubeGemm(q_blk, k_t, valid, cols, g.d, rnd, s.data(), &cnt[t]);
      finishProduct(call, s.data(), valid * cols, &cnt[t]);
      for (int64_t r = 0; r < valid; ++r) {
        const int64_t i = i0 + r;
        float* row = s.data() + r * cols;
        scoreRow(p, bi, ni, i, row, score.data(), cols);
        const RowStats st = softmaxRow(score.data(), cols, tmp.data());
        dropoutRow(p, bi, ni, i, factor.data(), cols);
        for (int64_t j = 0; j < cols; ++j) row[j] = score[j] * factor[j];
        storeStats(max_out, sum_out, stats_row + r, st);
      }
      if (roundLikeInput(q.dtype, call.ctx.fp16_saturation, s.data(), valid * cols)) cnt[t].fp16_overflow = true;
      const GmMatrix probs{ACL_FLOAT, s.data(), 0, cols, 1};
      const GmMatrix v_head{v.dtype, v.data, kvh.offset, kvh.row_stride, 1};
      cubeGemm(probs, v_head, valid, g.d, cols, rnd, o.data(), &cnt[t]);
      finishProduct(call, o.data(), valid * g.d, &cnt[t]);
    }
    for (int64_t r = (cols > 0 ? valid : 0); r < rows; ++r) storeStats(max_out, sum_out, stats_row + r, empty_row);
    for (int64_t r = 0; r < rows; ++r)
      storeFloat(out.dtype, out.data, qh.offset + (i0 + r) * qh.row_stride, g.d, o.data() + r * g.d);
  });
  reportOverflow(call, cnt);
}

}  // namespace ascend_sim
