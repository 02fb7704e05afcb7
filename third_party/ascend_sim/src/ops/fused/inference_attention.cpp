// PromptFlashAttention and IncreFlashAttention (OPS.md "Fused attention"):
// the inference forms of fused attention behind torch_npu's
// npu_prompt_flash_attention (the prompt, "prefill": every query position at
// once) and npu_incre_flash_attention (one new token per sequence against its
// KV cache, "decode"). ONE AI Core kernel each, the forward of
// FlashAttentionScore without dropout or softmax stats
// (Note [Fused attention on the AI Core]), with per-batch valid lengths
// (Note [Valid lengths of inference attention]).
//
// Note [Inference attention masks]
// atten_mask is bool / int8 / uint8, nonzero = masked out. PromptFlashAttention
// takes [Sq, Skv], [B|1, Sq, Skv] or [B|1, 1|N, Sq, Skv]; sparse_mode 0 applies
// the mask and, only when a mask is given, the band i - pre_tokens <= j <=
// i + next_tokens (no mask: no masking at all, as CANN's defaultMask mode);
// sparse_mode 1 applies the mask alone. IncreFlashAttention has one query
// position: its mask is [B, Skv], [B, 1, Skv] or [B, 1|N, 1, Skv], and it has
// no band. The valid lengths are host arrays in CANN (actual_seq_lengths,
// actual_seq_lengths_kv); here they are list attributes of B values (or one,
// for every batch), each within the tensor's sequence length.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/fused/attention_forward.h"

namespace ascend_sim {
namespace {

constexpr int64_t kDefaultTokens = 2147483647;
constexpr int64_t kTokensLimit = int64_t{1} << 40;
// fp32 Vector passes over each score row: scale (+ pse), mask select, row
// max, exp, row sum, normalise and cast for the Cube.
constexpr int kScorePasses = 6;

bool isIncremental(const OpCall& call) { return call.op_type == "IncreFlashAttention"; }

// A rank-2/3 mask seen as the rank-4 operand broadcastOf reads.
TensorArg maskAsRank4(const OpCall& call, const TensorArg& mask) {
  TensorArg m = mask;
  const bool incremental = isIncremental(call);
  if (incremental && m.shape.size() == 2) m.shape = {m.shape[0], 1, 1, m.shape[1]};  // [B, Skv]
  if (m.shape.size() == 3) m.shape.insert(m.shape.begin() + (incremental ? 2 : 1), 1);
  return m;
}

// actual_seq_lengths-style attribute: B values (or one for all), each in [0, limit].
std::vector<int64_t> lengthsOf(const OpCall& call, const char* name, int64_t batch, int64_t limit) {
  std::vector<int64_t> l = attrInts(call, name, {});
  if (l.empty()) return l;
  if (l.size() == 1) l.assign(static_cast<size_t>(batch), l[0]);
  if (static_cast<int64_t>(l.size()) != batch)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + name + "' has " + std::to_string(l.size()) + " values for a batch of " +
             std::to_string(batch) + " (give one per batch, or one for all)");
  for (int64_t v : l)
    if (v < 0 || v > limit)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           std::string("attribute '") + name + "' value " + std::to_string(v) + " is outside [0, " +
               std::to_string(limit) + "], the sequence length of the tensor");
  return l;
}

AttentionProblem inferenceProblemOf(const OpCall& call) {
  checkArity(call, 3, 5, 1);
  AttentionProblem p;
  const TensorArg& q = call.inputs[0];
  checkDtype(call, q, "input query", kFloatTypes);
  checkSameDtype(call, q, "query", call.inputs[1], "input key");
  checkSameDtype(call, q, "query", call.inputs[2], "input value");
  const std::string layout = attrString(call, "input_layout", "BSH");
  if (layout == "SBH") fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "input_layout SBH is not supported (BSH, BSND or BNSD)");
  p.dims = attentionDimsOf(call, "num_heads", "BSH");
  const AttentionDims& g = p.dims;
  const int64_t kv_heads = attrInt(call, "num_key_value_heads", 0);
  if (kv_heads != 0 && kv_heads != g.n_kv)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "num_key_value_heads is " + std::to_string(kv_heads) + " but key " + shapeToString(call.inputs[1].shape) +
             " has " + std::to_string(g.n_kv) + " heads");
  if (isIncremental(call) && g.sq != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "query " + shapeToString(q.shape) +
             " must have one position (S = 1): the incremental step attends one new "
             "token per sequence; use PromptFlashAttention for a prompt");
  AttentionAttrs& a = p.attrs;
  a.scale = attrFloat(call, "scale_value", 1.0f);
  a.has_pse = attrBool(call, "has_pse_shift", false);
  a.has_mask = attrBool(call, "has_atten_mask", false);
  attrInt(call, "inner_precise", 1);  // accepted: one implementation (fp32 softmax) serves every mode
  if (!isIncremental(call)) {
    a.sparse_mode = attrInt(call, "sparse_mode", 0);
    if (a.sparse_mode != 0 && a.sparse_mode != 1)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "sparse_mode " + std::to_string(a.sparse_mode) +
               " is not supported (0: atten_mask and, with a mask, the pre_tokens/next_tokens band; 1: atten_mask "
               "only)");
    a.pre_tockens = std::clamp(attrInt(call, "pre_tokens", kDefaultTokens), -kTokensLimit, kTokensLimit);
    a.next_tockens = std::clamp(attrInt(call, "next_tokens", 0), -kTokensLimit, kTokensLimit);
    a.band = a.sparse_mode == 0 && a.has_mask;
    p.q_len = lengthsOf(call, "actual_seq_lengths", g.b, g.sq);
    p.kv_len = lengthsOf(call, "actual_seq_lengths_kv", g.b, g.skv);
  } else {
    p.kv_len = lengthsOf(call, "actual_seq_lengths", g.b, g.skv);
  }
  const size_t want = 3 + optionalInputCount(a);
  if (call.inputs.size() != want)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(want) + " inputs (query, key, value" + (a.has_pse ? ", pse_shift" : "") +
             (a.has_mask ? ", atten_mask" : "") + "), got " + std::to_string(call.inputs.size()));
  size_t next = 3;
  if (a.has_pse) {
    const TensorArg& pse = call.inputs[next++];
    checkSameDtype(call, q, "query", pse, "input pse_shift");
    p.pse = broadcastOf(call, pse, "pse_shift", g, false);
  }
  if (a.has_mask) {
    const TensorArg& mask = call.inputs[next++];
    checkDtype(call, mask, "input atten_mask", dtBit(ACL_BOOL) | dtBit(ACL_INT8) | dtBit(ACL_UINT8));
    p.mask = broadcastOf(call, maskAsRank4(call, mask), "atten_mask", g, !isIncremental(call));
  }
  return p;
}

void validateInferenceAttention(const OpCall& call) {
  const AttentionProblem p = inferenceProblemOf(call);
  checkSameDtype(call, call.inputs[0], "query", call.outputs[0], "output attention_out");
  checkShapeEq(call, call.outputs[0], "output attention_out", call.inputs[0].shape, "query shape");
}

void computeInferenceAttention(const OpCall& call) {
  fusedAttentionForward(call, inferenceProblemOf(call), call.outputs[0], nullptr, nullptr);
}

// Cost of the rows actually attended: per batch, q_len x kv_len scores per
// head; HBM traffic of q, the output, the optional operands, and of k and v
// only up to each batch's valid length (the cache beyond it is not read).
KernelCost costInferenceAttention(const OpCall& call) {
  const AttentionProblem p = inferenceProblemOf(call);
  const AttentionDims& g = p.dims;
  const VectorUnit& vec = vectorUnit();
  KernelCost c;
  c.core = CoreType::kAiCore;
  double kv_rows = 0;
  for (int64_t bi = 0; bi < g.b; ++bi) {
    const int64_t sq = p.queryLen(bi), skv = p.keyLen(bi);
    const double heads = static_cast<double>(g.n);
    c.cube_macs += heads * (cubeUnit().padded_macs(sq, skv, g.d) + cubeUnit().padded_macs(sq, g.d, skv));
    c.flops += heads * (4.0 * static_cast<double>(sq * skv * g.d) + kScorePasses * static_cast<double>(sq * skv));
    c.vector_repeats += heads * (kScorePasses * vec.repeats(sq * skv, ACL_FLOAT) + vec.repeats(sq * g.d, ACL_FLOAT));
    kv_rows += static_cast<double>(skv);
  }
  const double elem = static_cast<double>(dtypeSize(call.inputs[0].dtype));
  c.mte_bytes = tensorBytes(call.inputs[0]) + tensorBytes(call.outputs[0]) +
                2.0 * kv_rows * static_cast<double>(g.n_kv * g.d) * elem;
  for (size_t i = 3; i < call.inputs.size(); ++i) c.mte_bytes += tensorBytes(call.inputs[i]);
  c.block_dim = static_cast<uint32_t>(std::clamp<int64_t>(attentionTasks(g), 1, 1 << 30));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PromptFlashAttention", &validateInferenceAttention, &computeInferenceAttention,
                                     &costInferenceAttention});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"IncreFlashAttention", &validateInferenceAttention, &computeInferenceAttention,
                                     &costInferenceAttention});

}  // namespace
}  // namespace ascend_sim
