// Shared parts of the fused attention kernels (ops/fused/attention_util.h).
#include "ops/fused/attention_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/random/philox.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

constexpr int64_t kQueryTileRows = 128;  // query rows per simulated task (the kernel's q block)
constexpr int64_t kDefaultTockens = 2147483647;
// pre_tockens / next_tockens beyond any sequence length mean "no limit"; they
// are clamped so that i +- tockens cannot overflow.
constexpr int64_t kTockensLimit = int64_t{1} << 40;

AttnLayout layoutOf(const OpCall& call, const char* fallback) {
  const std::string s = attrString(call, "input_layout", fallback);
  if (s == "BSH") return AttnLayout::kBSH;
  if (s == "SBH") return AttnLayout::kSBH;
  if (s == "BNSD") return AttnLayout::kBNSD;
  if (s == "BSND") return AttnLayout::kBSND;
  fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
       "attribute 'input_layout' must be one of BSH, SBH, BNSD, BSND, got '" + s + "'");
}

bool isRank3(AttnLayout l) { return l == AttnLayout::kBSH || l == AttnLayout::kSBH; }

// (batch, positions, heads, channels) of a q/k/v tensor; heads = 0 for the
// 3-D layouts, whose heads follow from H and the head size.
struct Split {
  int64_t b, s, heads, hidden;
};

Split splitOf(const OpCall& call, AttnLayout l, const TensorArg& t, const char* name) {
  const size_t rank = isRank3(l) ? 3 : 4;
  if (t.shape.size() != rank)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(name) + " shape " + shapeToString(t.shape) + " must be " + std::to_string(rank) +
             "-D for input_layout " + attrString(call, "input_layout", ""));
  const Shape& s = t.shape;
  switch (l) {
    case AttnLayout::kBSH: return {s[0], s[1], 0, s[2]};
    case AttnLayout::kSBH: return {s[1], s[0], 0, s[2]};
    case AttnLayout::kBSND: return {s[0], s[1], s[2], s[3]};
    case AttnLayout::kBNSD: return {s[0], s[2], s[1], s[3]};
  }
  return {};
}

}  // namespace

AttentionDims attentionDimsOf(const OpCall& call, const char* heads_attr, const char* default_layout) {
  AttentionDims g;
  g.layout = layoutOf(call, default_layout);
  const int64_t head_num = attrInt(call, heads_attr);
  if (head_num <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + heads_attr + "' must be positive, got " + std::to_string(head_num));
  const Split q = splitOf(call, g.layout, call.inputs[0], "query");
  const Split k = splitOf(call, g.layout, call.inputs[1], "key");
  checkShapeEq(call, call.inputs[2], "input value", call.inputs[1].shape, "key shape");
  g.b = q.b, g.sq = q.s, g.skv = k.s, g.n = head_num;
  if (isRank3(g.layout)) {
    if (q.hidden % head_num != 0)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string(heads_attr) + " " + std::to_string(head_num) + " does not divide the hidden size " +
               std::to_string(q.hidden) + " of query " + shapeToString(call.inputs[0].shape));
    g.d = q.hidden / head_num;
    if (g.d == 0 || k.hidden % g.d != 0)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "the hidden size " + std::to_string(k.hidden) + " of key " + shapeToString(call.inputs[1].shape) +
               " is not a multiple of the head size " + std::to_string(g.d));
    g.n_kv = k.hidden / g.d;
  } else {
    if (q.heads != head_num)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "query " + shapeToString(call.inputs[0].shape) + " has " + std::to_string(q.heads) + " heads but " +
               heads_attr + " is " + std::to_string(head_num));
    if (k.hidden != q.hidden)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "key " + shapeToString(call.inputs[1].shape) + " must have the head size " + std::to_string(q.hidden) +
               " of query " + shapeToString(call.inputs[0].shape));
    g.d = q.hidden;
    g.n_kv = k.heads;
  }
  if (k.b != g.b)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "key " + shapeToString(call.inputs[1].shape) + " and query " + shapeToString(call.inputs[0].shape) +
             " have different batch sizes");
  if (g.n_kv == 0 || g.n % g.n_kv != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "key/value have " + std::to_string(g.n_kv) + " heads, which must divide the " + std::to_string(g.n) +
             " query heads");
  return g;
}

namespace {

AttentionAttrs attrsOf(const OpCall& call) {
  AttentionAttrs a;
  a.scale = attrFloat(call, "scale_value", 1.0f);
  a.keep_prob = keepProbAttr(call);
  a.pre_tockens = std::clamp(attrInt(call, "pre_tockens", kDefaultTockens), -kTockensLimit, kTockensLimit);
  a.next_tockens = std::clamp(attrInt(call, "next_tockens", kDefaultTockens), -kTockensLimit, kTockensLimit);
  a.sparse_mode = attrInt(call, "sparse_mode", 0);
  if (a.sparse_mode != 0 && a.sparse_mode != 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "sparse_mode " + std::to_string(a.sparse_mode) +
             " is not supported (0: atten_mask and the pre_tockens/next_tockens band, 1: atten_mask only)");
  a.band = a.sparse_mode == 0;
  a.seed = static_cast<uint64_t>(attrInt(call, "seed", 0));
  a.offset = static_cast<uint64_t>(attrInt(call, "offset", 0));
  a.has_pse = attrBool(call, "has_pse", false);
  a.has_mask = attrBool(call, "has_atten_mask", false);
  attrInt(call, "inner_precise", 0);  // accepted: one implementation (fp32 softmax) serves every mode
  return a;
}

}  // namespace

Broadcast4 broadcastOf(const OpCall& call, const TensorArg& t, const std::string& name, const AttentionDims& g,
                       bool allow_2d) {
  const Shape full = {g.b, g.n, g.sq, g.skv};
  Shape s = t.shape;
  if (allow_2d && s.size() == 2) s.insert(s.begin(), {1, 1});
  bool ok = s.size() == 4;
  for (size_t i = 0; ok && i < 4; ++i) ok = s[i] == full[i] || s[i] == 1;
  if (!ok)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(t.shape) + " does not broadcast to [B, N, Sq, Skv] = " + shapeToString(full) +
             (allow_2d ? " (or [Sq, Skv])" : ""));
  Broadcast4 v;
  v.data = t.data;
  v.dtype = t.dtype;
  int64_t stride = 1;
  int64_t* strides[4] = {&v.sb, &v.sn, &v.si, &v.sj};
  for (int i = 3; i >= 0; --i) {
    *strides[i] = s[i] == 1 ? 0 : stride;
    stride *= s[i];
  }
  return v;
}

size_t optionalInputCount(const AttentionAttrs& a) { return (a.has_pse ? 1 : 0) + (a.has_mask ? 1 : 0); }

AttentionProblem attentionProblemOf(const OpCall& call, size_t first_optional) {
  AttentionProblem p;
  p.attrs = attrsOf(call);
  const TensorArg& q = call.inputs[0];
  checkDtype(call, q, "input query", kFloatTypes);
  checkSameDtype(call, q, "query", call.inputs[1], "input key");
  checkSameDtype(call, q, "query", call.inputs[2], "input value");
  p.dims = attentionDimsOf(call, "head_num", "");
  size_t next = first_optional;
  if (call.inputs.size() < first_optional + optionalInputCount(p.attrs))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "has_pse / has_atten_mask announce " + std::to_string(optionalInputCount(p.attrs)) +
             " optional inputs after input " + std::to_string(first_optional - 1) + ", but the call has only " +
             std::to_string(call.inputs.size()) + " inputs");
  if (p.attrs.has_pse) {
    const TensorArg& pse = call.inputs[next++];
    checkSameDtype(call, q, "query", pse, "input pse");
    p.pse = broadcastOf(call, pse, "pse", p.dims, false);
  }
  if (p.attrs.has_mask) {
    const TensorArg& mask = call.inputs[next++];
    checkDtype(call, mask, "input atten_mask", dtBit(ACL_BOOL) | dtBit(ACL_UINT8));
    p.mask = broadcastOf(call, mask, "atten_mask", p.dims, true);
  }
  return p;
}

HeadMatrix headOf(const AttentionDims& g, int64_t heads, int64_t seq, int64_t bi, int64_t ni) {
  switch (g.layout) {
    case AttnLayout::kBSH:
    case AttnLayout::kBSND: return {(bi * seq * heads + ni) * g.d, heads * g.d};
    case AttnLayout::kSBH: return {(bi * heads + ni) * g.d, g.b * heads * g.d};
    case AttnLayout::kBNSD: return {(bi * heads + ni) * seq * g.d, g.d};
  }
  return {};
}

Shape layoutShape(const AttentionDims& g, int64_t heads, int64_t seq) {
  switch (g.layout) {
    case AttnLayout::kBSH: return {g.b, seq, heads * g.d};
    case AttnLayout::kSBH: return {seq, g.b, heads * g.d};
    case AttnLayout::kBSND: return {g.b, seq, heads, g.d};
    case AttnLayout::kBNSD: return {g.b, heads, seq, g.d};
  }
  return {};
}

void scoreRow(const AttentionProblem& p, int64_t bi, int64_t ni, int64_t i, const float* s, float* score,
              int64_t cols) {
  const int64_t n = cols;
  const float scale = p.attrs.scale;
  if (p.pse.data) {
    loadFloat(p.pse.dtype, p.pse.data, bi * p.pse.sb + ni * p.pse.sn + i * p.pse.si, p.pse.sj, n, score);
    for (int64_t j = 0; j < n; ++j) score[j] = (s[j] + score[j]) * scale;
  } else {
    for (int64_t j = 0; j < n; ++j) score[j] = s[j] * scale;
  }
  constexpr float kMasked = -std::numeric_limits<float>::infinity();
  if (p.mask.data) {
    const uint8_t* m = static_cast<const uint8_t*>(p.mask.data) + bi * p.mask.sb + ni * p.mask.sn + i * p.mask.si;
    for (int64_t j = 0; j < n; ++j)
      if (m[j * p.mask.sj] != 0) score[j] = kMasked;
  }
  if (p.attrs.band) {
    // Kept: i - pre_tockens <= j <= i + next_tockens.
    const int64_t lo = std::max<int64_t>(0, i - p.attrs.pre_tockens);
    const int64_t hi = std::min<int64_t>(n, i + p.attrs.next_tockens + 1);
    for (int64_t j = 0; j < n; ++j)
      if (j < lo || j >= hi) score[j] = kMasked;
  }
}

RowStats softmaxRow(float* row, int64_t n, float* tmp) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float m = -kInf;
  for (int64_t j = 0; j < n; ++j)
    if (row[j] > m || row[j] != row[j]) m = row[j];
  if (m == -kInf) {  // nothing to attend to
    std::fill(row, row + n, 0.0f);
    return {m, 0.0f};
  }
  for (int64_t j = 0; j < n; ++j) tmp[j] = row[j] = std::exp(row[j] - m);
  const RowStats stats{m, pairwiseSum(tmp, n, reduceBlockElems(ACL_FLOAT))};
  for (int64_t j = 0; j < n; ++j) row[j] = row[j] / stats.sum;
  return stats;
}

void probabilitiesRow(float* row, int64_t n, const RowStats& stats) {
  if (stats.sum == 0.0f) {
    std::fill(row, row + n, 0.0f);
    return;
  }
  for (int64_t j = 0; j < n; ++j) row[j] = std::exp(row[j] - stats.max) / stats.sum;
}

void dropoutRow(const AttentionProblem& p, int64_t bi, int64_t ni, int64_t i, float* factor, int64_t cols) {
  const int64_t n = cols;
  const float keep = p.attrs.keep_prob;
  if (keep >= 1.0f) {
    std::fill(factor, factor + n, 1.0f);
    return;
  }
  const float inv = 1.0f / keep;
  const uint64_t x0 = static_cast<uint64_t>(((bi * p.dims.n + ni) * p.dims.sq + i) * p.dims.skv);
  uint32_t block[4] = {0, 0, 0, 0};
  for (int64_t j = 0; j < n; ++j) {
    const uint64_t x = x0 + static_cast<uint64_t>(j);
    if (j == 0 || x % 4 == 0) philox4x32_10(p.attrs.offset + x / 4, p.attrs.seed, block);
    factor[j] = philoxUnit(block[x % 4]) < keep ? inv : 0.0f;
  }
}

bool roundLikeInput(aclDataType dt, bool saturate, float* v, int64_t n) {
  if (dt == ACL_FLOAT16) return roundCubeOperands(saturate ? CubeRounding::kFp16Saturate : CubeRounding::kFp16, v, n);
  if (dt == ACL_BF16)
    for (int64_t j = 0; j < n; ++j) v[j] = bf16ToFloat(floatToBf16(v[j]));
  return false;
}

void finishProduct(const OpCall& call, float* c, int64_t n, UnitCounters* cnt) {
  if (call.inputs[0].dtype != ACL_FLOAT || call.ctx.precision != PrecisionMode::kForceFp16) return;
  if (roundCubeOperands(call.ctx.fp16_saturation ? CubeRounding::kFp16Saturate : CubeRounding::kFp16, c, n))
    cnt->fp16_overflow = true;
}

int64_t attentionTasks(const AttentionDims& g) {
  return g.b * g.n * ((g.sq + kQueryTileRows - 1) / kQueryTileRows);
}

float keepProbAttr(const OpCall& call) {
  const float keep = attrFloat(call, "keep_prob", 1.0f);
  if (!(keep > 0.0f && keep <= 1.0f))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'keep_prob' must be in (0, 1], got " + std::to_string(keep));
  return keep;
}

KernelCost fusedKernelCost(const OpCall& call, const std::vector<CubeProduct>& products,
                           const std::vector<std::pair<int, int64_t>>& passes, int64_t tasks) {
  KernelCost c;
  c.core = CoreType::kAiCore;
  for (const CubeProduct& p : products) {
    c.cube_macs += p.count * cubeUnit().padded_macs(p.m, p.n, p.k);
    c.flops += 2.0 * p.count * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  }
  for (const auto& [count, elems] : passes) {
    c.vector_repeats += count * vectorUnit().repeats(elems, ACL_FLOAT);
    c.flops += count * static_cast<double>(elems);
  }
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  c.block_dim = static_cast<uint32_t>(std::clamp<int64_t>(tasks, 1, 1 << 30));
  return c;
}

KernelCost attentionCost(const OpCall& call, const AttentionDims& g, const std::vector<std::vector<int64_t>>& products,
                         int score_passes, int row_passes) {
  const double heads = static_cast<double>(g.b * g.n);
  std::vector<CubeProduct> cube;
  for (const std::vector<int64_t>& mnk : products) cube.push_back({mnk[0], mnk[1], mnk[2], heads});
  // Vector passes per head: score_passes over [Sq, Skv], row_passes over [Sq, D].
  const VectorUnit& vec = vectorUnit();
  KernelCost c = fusedKernelCost(call, cube, {}, attentionTasks(g));
  c.vector_repeats = heads * (score_passes * vec.repeats(g.sq * g.skv, ACL_FLOAT) +
                              row_passes * vec.repeats(g.sq * g.d, ACL_FLOAT));
  c.flops += heads * score_passes * static_cast<double>(g.sq * g.skv);
  return c;
}

void reportOverflow(const OpCall& call, const std::vector<UnitCounters>& cnt) {
  bool overflow = false;
  for (const UnitCounters& u : cnt) overflow = overflow || u.fp16_overflow;
  if (overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

}  // namespace ascend_sim
