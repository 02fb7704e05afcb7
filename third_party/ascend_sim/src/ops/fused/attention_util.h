// What the fused attention kernels share (OPS.md "Fused attention"):
// FlashAttentionScore(Grad) and the inference kernels PromptFlashAttention /
// IncreFlashAttention: the layouts of q/k/v, the attributes, the scores with
// their masks, the softmax rows, the dropout mask and the cost.
//
// Note [Attention layouts]
// input_layout says how q, k, v (and attention_out, dy, dq, dk, dv) store
// the element (batch b, head n, position s, channel d), H = N * D:
//   BSH [B,S,H], BSND [B,S,N,D]:  ((b * S + s) * N + n) * D + d
//   SBH [S,B,H]:                  ((s * B + b) * N + n) * D + d
//   BNSD [B,N,S,D]:               ((b * N + n) * S + s) * D + d
// The D channels of one (b, n, s) are contiguous and consecutive positions of
// one head are a fixed stride apart, so every head is a strided [S, D] matrix
// that the Cube loads as it is: no transposes around the kernel. key and
// value may have fewer heads N_kv than query (N % N_kv == 0, grouped-query
// attention): query head n reads kv head n / (N / N_kv).
//
// Note [Attention scores]
// Row i of head (b, n), against key position j:
//   score_ij = scale * (S_ij + pse_ij),   S = q k^T on the Cube (fp32)
// (torch_npu's default pse_type 1: the positional bias is added before the
// scale), in fp32, or -inf when j is masked out for i: atten_mask is nonzero
// at (b, n, i, j) (broadcast), or, with the band on (FlashAttentionScore's
// sparse_mode 0), j - i > next_tockens or i - j > pre_tockens. The inference
// kernels add per-batch valid lengths (Note [Valid lengths of inference
// attention]): only key positions j < kv_len[b] are scored at all. Softmax per row: m = the max of the scores
// (-inf when every position is masked), p_j = exp(score_j - m), l = the sum of
// p (Note [Pairwise blocks], fp32 block size), P_j = p_j / l. A row with no
// position left has m = -inf, l = 0 and P = 0, so its output (and gradient)
// is 0. softmax_max / softmax_sum hold m and l, each replicated 8 times.
//
// Note [Attention dropout]
// With keep_prob < 1 the probability P_ij of head (b, n) is kept with
// probability keep_prob and scaled by 1 / keep_prob: kept iff u_x < keep_prob
// where u_x is element x = ((b * N + n) * Sq + i) * Skv + j of the Philox
// stream (seed, offset) of PhiloxRandomUniform (Note [Philox streams]) — the
// very mask StatelessBernoulli(p = keep_prob, seed, offset) writes for a
// [B, N, Sq, Skv] tensor. The gradient kernel regenerates it from the same
// seed and offset; nothing of it is stored in HBM.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

enum class AttnLayout { kBSH, kSBH, kBNSD, kBSND };

struct AttentionDims {
  AttnLayout layout = AttnLayout::kBSH;
  int64_t b = 0, n = 0, n_kv = 0, sq = 0, skv = 0, d = 0;
  int64_t group() const { return n / n_kv; }
};

// Where one head of a q/k/v-shaped tensor lives: row s (position) starts at
// offset + s * row_stride; its D channels are contiguous.
struct HeadMatrix {
  int64_t offset = 0, row_stride = 0;
};
// Head `ni` of batch `bi` of a tensor with `heads` heads and `seq` positions.
HeadMatrix headOf(const AttentionDims& g, int64_t heads, int64_t seq, int64_t bi, int64_t ni);

// The shape of a tensor with `heads` heads and `seq` positions in g's layout.
Shape layoutShape(const AttentionDims& g, int64_t heads, int64_t seq);

// A rank-4 operand broadcast to [B, N, Sq, Skv] (pse, atten_mask): element
// (b, n, i, j) at data[b * sb + n * sn + i * si + j * sj] (0 strides broadcast).
struct Broadcast4 {
  const void* data = nullptr;
  aclDataType dtype = ACL_DT_UNDEFINED;
  int64_t sb = 0, sn = 0, si = 0, sj = 0;
};

struct AttentionAttrs {
  float scale = 1.0f, keep_prob = 1.0f;
  int64_t pre_tockens = 0, next_tockens = 0, sparse_mode = 0;
  bool band = false;  // mask i - j > pre_tockens and j - i > next_tockens
  uint64_t seed = 0, offset = 0;
  bool has_pse = false, has_mask = false;
};

// Everything a kernel needs to know about one call.
struct AttentionProblem {
  AttentionDims dims;
  AttentionAttrs attrs;
  Broadcast4 pse, mask;  // data null when absent (or during validate)
  // Valid query / key positions per batch (empty: all Sq / Skv).
  std::vector<int64_t> q_len, kv_len;
  int64_t queryLen(int64_t bi) const { return q_len.empty() ? dims.sq : q_len[static_cast<size_t>(bi)]; }
  int64_t keyLen(int64_t bi) const { return kv_len.empty() ? dims.skv : kv_len[static_cast<size_t>(bi)]; }
};

// The dims of q, k, v (inputs 0..2) in the call's input_layout (attribute
// absent: default_layout; "" makes it required), with `heads_attr` naming the
// query head count (head_num, num_heads).
AttentionDims attentionDimsOf(const OpCall& call, const char* heads_attr, const char* default_layout);
// The broadcast view of a [B|1, N|1, Sq|1, Skv|1] operand (or, with
// allow_2d, [Sq|1, Skv|1]); `name` appears in errors.
Broadcast4 broadcastOf(const OpCall& call, const TensorArg& t, const std::string& name, const AttentionDims& g,
                       bool allow_2d);

// Validates the attributes and q, k, v (inputs 0..2, one float dtype, one
// layout) plus the optional pse / atten_mask at inputs `first_optional`..
// (present per the has_pse / has_atten_mask attributes), and returns the
// problem. The kernels check their other operands themselves.
AttentionProblem attentionProblemOf(const OpCall& call, size_t first_optional);
// Inputs taken by the optional operands (0, 1 or 2).
size_t optionalInputCount(const AttentionAttrs& a);

// Row i of head (b, n) over key positions j < cols: score[j] = scale * (s[j]
// + pse) or -inf where masked (Note [Attention scores]). score must not
// overlap s.
void scoreRow(const AttentionProblem& p, int64_t bi, int64_t ni, int64_t i, const float* s, float* score, int64_t cols);

// Softmax stats of a score row.
struct RowStats {
  float max = 0, sum = 0;
};
// Turns a score row into probabilities in place and returns (m, l).
// `tmp` has room for n floats.
RowStats softmaxRow(float* row, int64_t n, float* tmp);
// The same probabilities from stats saved by the forward pass.
void probabilitiesRow(float* row, int64_t n, const RowStats& stats);

// factor[j] = 1 / keep_prob if position j < cols of row i of head (b, n) is
// kept by the dropout, else 0 (all 1 when keep_prob == 1). Note [Attention
// dropout].
void dropoutRow(const AttentionProblem& p, int64_t bi, int64_t ni, int64_t i, float* factor, int64_t cols);

// Rounds v[0..n) to the input dtype dt (fp16 / bf16) before a Cube product,
// saturating fp16 on a saturation-mode chip; fp32 is left to the precision
// mode (cubeRoundingOf). Returns true if an fp16 value saturated.
bool roundLikeInput(aclDataType dt, bool saturate, float* v, int64_t n);

// force_fp16 with fp32 inputs: a Cube product's fp32 result c[0..n) is
// rounded through fp16, as MatMul's (Note [MatMul on the Cube]).
void finishProduct(const OpCall& call, float* c, int64_t n, UnitCounters* cnt);
// Reports an fp16 intermediate overflow of any task to the launch (ctx.overflow).
void reportOverflow(const OpCall& call, const std::vector<UnitCounters>& cnt);

// Simulated tasks: (b, n, 128-row query tile) blocks (the block dim).
int64_t attentionTasks(const AttentionDims& g);

// attr keep_prob (default 1), checked to be in (0, 1].
float keepProbAttr(const OpCall& call);

// One Cube product of a fused kernel, `count` times.
struct CubeProduct {
  int64_t m, n, k;
  double count = 1;
};
// Cost of a fused AI Core kernel: its Cube products, fp32 Vector passes over
// element counts ((passes, elements) pairs), every input read and every
// output written once, over `tasks` blocks.
KernelCost fusedKernelCost(const OpCall& call, const std::vector<CubeProduct>& products,
                           const std::vector<std::pair<int, int64_t>>& passes, int64_t tasks);

// Cost of a fused attention kernel: `products` Cube products of the shapes
// given as (m, n, k) per head, `score_passes` fp32 Vector passes over each
// [Sq, Skv] score matrix, `row_passes` over each [Sq, D] head, and HBM traffic
// of the operands only (every input read, every output written once).
KernelCost attentionCost(const OpCall& call, const AttentionDims& g,
                         const std::vector<std::vector<int64_t>>& products, int score_passes, int row_passes);

}  // namespace ascend_sim
