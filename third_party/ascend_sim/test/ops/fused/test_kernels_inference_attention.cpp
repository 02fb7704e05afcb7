// PromptFlashAttention / IncreFlashAttention against the double reference of
// attention_reference.h: layouts, fp32 / fp16 / bf16, masks of every accepted
// shape, the band only with a mask, grouped-query heads, per-batch valid
// lengths over a cache whose unused rows hold NaN, errors, and a cost that
// follows the valid lengths rather than the cache's allocation.
#include <limits>
#include <string>

#include "attention_test_util.h"
#include "cost/cost_model.h"

namespace ascend_sim {
namespace test {
namespace {

const char* const kLayouts[] = {"BSH", "BSND", "BNSD"};

// One inference attention call: the logical q/k/v, what the kernel is given,
// and the equivalent AttentionCase of the reference.
struct Inference {
  std::string op = "PromptFlashAttention";
  std::string layout = "BSH";
  aclDataType dt = ACL_FLOAT;
  int64_t b = 1, n = 1, n_kv = 1, sq = 1, skv = 1, d = 16;
  float scale = 1.0f;
  int64_t pre = 2147483647, next = 0, sparse_mode = 0;
  std::vector<int64_t> q_len, kv_len;  // attributes (empty: absent)
  std::vector<int64_t> mask_values;
  Shape mask_shape;
  std::vector<float> q, k, v;  // logical [B, H, S, D], rounded to dt

  bool incremental() const { return op == "IncreFlashAttention"; }
  Heads qHeads() const { return {b, n, sq, d}; }
  Heads kvHeads() const { return {b, n_kv, skv, d}; }
  int64_t qLen(int64_t bi) const { return q_len.empty() ? sq : q_len[q_len.size() == 1 ? 0 : bi]; }
  int64_t kvLen(int64_t bi) const { return kv_len.empty() ? skv : kv_len[kv_len.size() == 1 ? 0 : bi]; }

  void randomInputs(uint32_t seed) {
    q = rounded(dt, randomFloats(b * n * sq * d, -1, 1, seed));
    k = rounded(dt, randomFloats(b * n_kv * skv * d, -1, 1, seed + 1));
    v = rounded(dt, randomFloats(b * n_kv * skv * d, -1, 1, seed + 2));
  }
  // The mask as the reference sees it: [B, N, Sq, Skv] logical.
  std::vector<uint8_t> logicalMask() const {
    if (mask_values.empty()) return {};
    Shape s4 = mask_shape;
    if (incremental() && s4.size() == 2) s4 = {s4[0], 1, 1, s4[1]};
    if (s4.size() == 2) s4.insert(s4.begin(), {1, 1});
    if (s4.size() == 3) s4.insert(s4.begin() + (incremental() ? 2 : 1), 1);
    AttentionCase c = referenceCase();
    return broadcast4(std::vector<uint8_t>(mask_values.begin(), mask_values.end()), s4, c);
  }
  AttentionCase referenceCase() const {
    AttentionCase c;
    c.b = b, c.n = n, c.n_kv = n_kv, c.sq = sq, c.skv = skv, c.d = d, c.scale = scale;
    c.pre = pre, c.next = next;
    c.band = !incremental() && sparse_mode == 0 && !mask_values.empty();
    return c;
  }
  AttrMap attributes() const {
    AttrMap a = attrs(
        {{"num_heads", n}, {"input_layout", layout}, {"scale_value", scale}, {"has_atten_mask", !mask_values.empty()}});
    if (!incremental()) {
      a.set("pre_tokens", pre);
      a.set("next_tokens", next);
      a.set("sparse_mode", sparse_mode);
      if (!kv_len.empty()) a.set("actual_seq_lengths_kv", kv_len);
      if (!q_len.empty()) a.set("actual_seq_lengths", q_len);
    } else if (!kv_len.empty()) {
      a.set("actual_seq_lengths", kv_len);
    }
    return a;
  }
};

// Runs the kernel with NaN in every cache row past the valid lengths and
// compares with the reference, where those rows are masked out (and invalid
// query rows have nothing to attend: 0).
void checkAgainstReference(const Inference& p, const std::string& what) {
  SCOPED_TRACE(what + " " + p.op + " " + p.layout + " " + dtypeName(p.dt));
  AttentionCase c = p.referenceCase();
  std::vector<uint8_t> mask = p.logicalMask();
  if (mask.empty()) mask.assign(static_cast<size_t>(c.b * c.n * c.sq * c.skv), 0);
  std::vector<float> k_cache = p.k, v_cache = p.v;
  const Heads kvh = p.kvHeads();
  for (int64_t bi = 0; bi < p.b; ++bi)
    for (int64_t ni = 0; ni < p.n; ++ni)
      for (int64_t i = 0; i < p.sq; ++i)
        for (int64_t j = 0; j < p.skv; ++j)
          if (i >= p.qLen(bi) || j >= p.kvLen(bi)) mask[c.idx4(bi, ni, i, j)] = 1;
  for (int64_t bi = 0; bi < p.b; ++bi)
    for (int64_t h = 0; h < p.n_kv; ++h)
      for (int64_t j = p.kvLen(bi); j < p.skv; ++j)
        for (int64_t e = 0; e < p.d; ++e) {
          const size_t at = static_cast<size_t>(((bi * p.n_kv + h) * p.skv + j) * p.d + e);
          k_cache[at] = v_cache[at] = std::numeric_limits<float>::quiet_NaN();
        }
  c.mask = mask;
  const HostTensor q = p.qHeads().store(p.layout, p.dt, p.q);
  const HostTensor k = kvh.store(p.layout, p.dt, k_cache), v = kvh.store(p.layout, p.dt, v_cache);
  const HostTensor m = HostTensor::ints(ACL_BOOL, p.mask_shape, p.mask_values);
  HostTensor out(p.dt, layoutShape(p.layout, p.b, p.n, p.sq, p.d));
  OpCall call;
  call.op_type = p.op;
  for (const HostTensor* t : {&q, &k, &v}) call.inputs.push_back(t->arg());
  if (!p.mask_values.empty()) call.inputs.push_back(m.arg());
  call.outputs.push_back(out.arg());
  call.attrs = p.attributes();
  run(call);
  const AttentionRef ref = attentionReference(c, p.q, p.k, p.v, {});
  expectClose(p.qHeads().load(p.layout, out), ref.out, rtolFor(p.dt), atolFor(p.dt), "attention_out");
}

TEST(KernelPromptFlashAttention, EveryLayoutAndDtypeMatchesTheReference) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (const char* layout : kLayouts) {
      Inference p;
      p.b = 2, p.n = 4, p.n_kv = 2, p.sq = 21, p.skv = 21, p.d = 16, p.scale = 0.25f;
      p.layout = layout, p.dt = dt;
      p.randomInputs(3);
      checkAgainstReference(p, "no mask: nothing masked, the band ignored");
      std::vector<int64_t> causal(21 * 21);
      for (int64_t i = 0; i < 21; ++i)
        for (int64_t j = 0; j < 21; ++j) causal[i * 21 + j] = j > i;
      p.mask_shape = {21, 21}, p.mask_values = causal;
      checkAgainstReference(p, "causal [Sq, Skv] mask");
    }
}

TEST(KernelPromptFlashAttention, MaskShapesBandAndValidLengths) {
  Inference p;  // a left-over prompt batch: valid lengths 30 and 17 of 40; two 128-row tiles
  p.b = 2, p.n = 2, p.n_kv = 1, p.sq = 140, p.skv = 40, p.d = 32, p.scale = 1.0f / std::sqrt(32.0f);
  p.layout = "BNSD";
  p.randomInputs(11);
  p.q_len = {130, 17}, p.kv_len = {30, 17};
  checkAgainstReference(p, "valid lengths, no mask");
  p.mask_shape = {2, 140, 40}, p.mask_values = sparseMask(2 * 140 * 40, 5);
  p.pre = 20, p.next = 3;
  checkAgainstReference(p, "[B, Sq, Skv] mask with the band");
  p.sparse_mode = 1;
  checkAgainstReference(p, "sparse_mode 1: the mask alone");
  p.mask_shape = {1, 2, 140, 40}, p.mask_values = sparseMask(2 * 140 * 40, 6);
  checkAgainstReference(p, "[1, N, Sq, Skv] mask");
  p.q_len = {0}, p.kv_len = {};
  checkAgainstReference(p, "one length for every batch: 0 rows");
}

TEST(KernelIncreFlashAttention, DecodeStepsOverAKvCacheMatchTheReference) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (const char* layout : kLayouts) {
      Inference p;
      p.op = "IncreFlashAttention";
      p.b = 3, p.n = 4, p.n_kv = 1, p.sq = 1, p.skv = 64, p.d = 32, p.scale = 0.2f;
      p.layout = layout, p.dt = dt;
      p.randomInputs(21);
      p.kv_len = {64, 9, 1};
      checkAgainstReference(p, "cache of 64 filled to 64, 9, 1");
      p.mask_shape = {3, 64}, p.mask_values = sparseMask(3 * 64, 7);
      checkAgainstReference(p, "[B, Skv] mask");
    }
  Inference p;
  p.op = "IncreFlashAttention";
  p.b = 2, p.n = 2, p.n_kv = 2, p.sq = 1, p.skv = 10, p.d = 16;
  p.randomInputs(31);
  p.mask_shape = {2, 1, 1, 10}, p.mask_values = sparseMask(20, 8);
  checkAgainstReference(p, "[B, 1, 1, Skv] mask, no lengths");
  p.mask_shape = {2, 1, 10};
  checkAgainstReference(p, "[B, 1, Skv] mask");
  p.kv_len = {0, 3};
  checkAgainstReference(p, "an empty cache attends nothing");
}

TEST(KernelInferenceAttention, BadCallsSayWhatIsWrong) {
  const HostTensor q(ACL_FLOAT16, {2, 3, 64}), kv(ACL_FLOAT16, {2, 8, 32}), out = q;
  const AttrMap a = attrs({{"num_heads", int64_t{4}}, {"input_layout", std::string("BSH")}});
  EXPECT_KERNEL_ERROR(makeCall("IncreFlashAttention", {&q, &kv, &kv}, {&out}, a), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must have one position (S = 1)");
  auto with = [&](const char* name, AttrValue value) {
    OpCall c = makeCall("PromptFlashAttention", {&q, &kv, &kv}, {&out}, a);
    c.attrs.set(name, std::move(value));
    return c;
  };
  EXPECT_KERNEL_ERROR(with("num_key_value_heads", int64_t{4}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "num_key_value_heads is 4 but key [2,8,32] has 2 heads");
  EXPECT_KERNEL_ERROR(with("num_heads", int64_t{0}), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'num_heads' must be positive");
  EXPECT_KERNEL_ERROR(with("input_layout", std::string("SBH")), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "input_layout SBH is not supported");
  EXPECT_KERNEL_ERROR(with("sparse_mode", int64_t{3}), ACL_ERROR_OP_ATTR_NOT_MATCH, "sparse_mode 3 is not supported");
  EXPECT_KERNEL_ERROR(with("actual_seq_lengths_kv", std::vector<int64_t>{8, 9}), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "'actual_seq_lengths_kv' value 9 is outside [0, 8]");
  EXPECT_KERNEL_ERROR(with("actual_seq_lengths", std::vector<int64_t>{1, 2, 3}), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "has 3 values for a batch of 2");
  const HostTensor mask(ACL_FLOAT16, {3, 8});
  OpCall masked = makeCall("PromptFlashAttention", {&q, &kv, &kv, &mask}, {&out}, a);
  masked.attrs.set("has_atten_mask", true);
  EXPECT_KERNEL_ERROR(masked, ACL_ERROR_OP_UNSUPPORTED_DTYPE, "atten_mask");
  const HostTensor q32(ACL_FLOAT, {2, 3, 64});
  EXPECT_KERNEL_ERROR(makeCall("PromptFlashAttention", {&q32, &kv, &kv}, {&out}, a), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input key dtype float16 does not match query dtype float32");
}

// A decode step reads the cache up to the valid lengths only: the same step
// against a cache allocated 8x longer costs the same, and a longer history
// costs more, in proportion on a memory-bound step.
TEST(KernelIncreFlashAttention, CostFollowsTheValidLengthsNotTheAllocation) {
  const int64_t B = 4, N = 32, D = 128;
  const HostTensor q(ACL_FLOAT16, {B, 1, N * D}), out = q;
  const HostTensor cache(ACL_FLOAT16, {B, 512, N * D}), big_cache(ACL_FLOAT16, {B, 4096, N * D});
  auto cost = [&](const HostTensor& c, int64_t len) {
    const AttrMap a = attrs(
        {{"num_heads", N}, {"input_layout", std::string("BSH")}, {"actual_seq_lengths", std::vector<int64_t>{len}}});
    return kernel("IncreFlashAttention").cost(makeCall("IncreFlashAttention", {&q, &c, &c}, {&out}, a));
  };
  const KernelCost short_history = cost(cache, 128), same_in_big = cost(big_cache, 128),
                   long_history = cost(cache, 512);
  EXPECT_EQ(short_history.core, CoreType::kAiCore);
  EXPECT_DOUBLE_EQ(short_history.mte_bytes, 2.0 * B * N * D * 2 + 2.0 * B * 128 * N * D * 2);
  EXPECT_DOUBLE_EQ(same_in_big.mte_bytes, short_history.mte_bytes);
  EXPECT_DOUBLE_EQ(same_in_big.cube_macs, short_history.cube_macs);
  const CostModel model(ChipConfig::preset("Ascend910B2"));
  EXPECT_DOUBLE_EQ(model.opUs(same_in_big), model.opUs(short_history));
  EXPECT_GT(model.opUs(long_history), 2.5 * model.opUs(short_history));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
