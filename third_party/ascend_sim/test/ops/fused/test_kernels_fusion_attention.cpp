// FlashAttentionScore / FlashAttentionScoreGrad against the naive reference
// of attention_reference.h: every layout, fp32 / fp16 / bf16, masks, the
// band, pse, grouped-query heads, dropout, errors, and the fused cost.
#include <cmath>
#include <string>

#include "attention_test_util.h"
#include "cost/cost_model.h"
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const char* const kLayouts[] = {"BSH", "SBH", "BNSD", "BSND"};

// One fused attention problem: inputs, optional pse / mask, and the kernels' results.
struct Problem {
  AttentionCase c;
  std::string layout = "BSH";
  aclDataType dt = ACL_FLOAT;
  std::vector<float> q, k, v, dy;  // logical, rounded to dt
  std::vector<float> pse_values;
  Shape pse_shape;
  std::vector<int64_t> mask_values;
  Shape mask_shape;
  int64_t seed = 0, offset = 0;

  Heads qHeads() const { return {c.b, c.n, c.sq, c.d}; }
  Heads kvHeads() const { return {c.b, c.n_kv, c.skv, c.d}; }

  void randomInputs(uint32_t seed_base) {
    q = rounded(dt, randomFloats(c.b * c.n * c.sq * c.d, -1, 1, seed_base));
    k = rounded(dt, randomFloats(c.b * c.n_kv * c.skv * c.d, -1, 1, seed_base + 1));
    v = rounded(dt, randomFloats(c.b * c.n_kv * c.skv * c.d, -1, 1, seed_base + 2));
    dy = rounded(dt, randomFloats(q.size(), -1, 1, seed_base + 3));
  }
  void setPse(Shape shape, uint32_t s) {
    pse_shape = shape;
    pse_values = rounded(dt, randomFloats(numelOf(shape), -2, 2, s));
    c.pse = broadcast4(pse_values, shape, c);
  }
  void setMask(Shape shape, std::vector<int64_t> values) {
    mask_shape = shape;
    mask_values = std::move(values);
    Shape s4 = shape;
    if (s4.size() == 2) s4.insert(s4.begin(), {1, 1});
    std::vector<uint8_t> bytes(mask_values.begin(), mask_values.end());
    c.mask = broadcast4(bytes, s4, c);
  }
  AttrMap attributes() const {
    return attrs({{"head_num", c.n},
                  {"input_layout", layout},
                  {"scale_value", static_cast<float>(c.scale)},
                  {"keep_prob", static_cast<float>(c.keep_prob)},
                  {"pre_tockens", c.pre},
                  {"next_tockens", c.next},
                  {"sparse_mode", int64_t{c.band ? 0 : 1}},
                  {"seed", seed},
                  {"offset", offset},
                  {"has_pse", !pse_values.empty()},
                  {"has_atten_mask", !mask_values.empty()}});
  }
};

struct Forward {
  HostTensor max, sum, out;
};

struct Inputs {
  HostTensor q, k, v, dy, pse, mask;
  explicit Inputs(const Problem& p)
      : q(p.qHeads().store(p.layout, p.dt, p.q)),
        k(p.kvHeads().store(p.layout, p.dt, p.k)),
        v(p.kvHeads().store(p.layout, p.dt, p.v)),
        dy(p.qHeads().store(p.layout, p.dt, p.dy)),
        pse(HostTensor::floats(p.dt, p.pse_shape, p.pse_values)),
        mask(HostTensor::ints(ACL_BOOL, p.mask_shape, p.mask_values)) {}
  std::vector<const HostTensor*> optional(const Problem& p) const {
    std::vector<const HostTensor*> v;
    if (!p.pse_values.empty()) v.push_back(&pse);
    if (!p.mask_values.empty()) v.push_back(&mask);
    return v;
  }
};

OpCall call(const std::string& op, const std::vector<const HostTensor*>& ins, const std::vector<const HostTensor*>& outs,
            AttrMap a) {
  OpCall c;
  c.op_type = op;
  for (const HostTensor* t : ins) c.inputs.push_back(t->arg());
  for (const HostTensor* t : outs) c.outputs.push_back(t->arg());
  c.attrs = std::move(a);
  return c;
}

OpCall forwardCall(const Problem& p, const Inputs& in, Forward& f) {
  std::vector<const HostTensor*> ins = {&in.q, &in.k, &in.v};
  for (const HostTensor* t : in.optional(p)) ins.push_back(t);
  return call("FlashAttentionScore", ins, {&f.max, &f.sum, &f.out}, p.attributes());
}

Forward forwardOutputs(const Problem& p) {
  const Shape stats = {p.c.b, p.c.n, p.c.sq, 8};
  return {HostTensor(ACL_FLOAT, stats), HostTensor(ACL_FLOAT, stats),
          HostTensor(p.dt, layoutShape(p.layout, p.c.b, p.c.n, p.c.sq, p.c.d))};
}

// Runs forward and backward, checks both against the reference.
void checkAgainstReference(const Problem& p, const std::string& what) {
  SCOPED_TRACE(what + " " + p.layout + " " + dtypeName(p.dt));
  const Inputs in(p);
  Forward f = forwardOutputs(p);
  run(forwardCall(p, in, f));
  const AttentionRef ref = attentionReference(p.c, p.q, p.k, p.v, p.dy);
  const double rtol = rtolFor(p.dt), atol = atolFor(p.dt);
  expectClose(p.qHeads().load(p.layout, f.out), ref.out, rtol, atol, "attention_out");
  const std::vector<float> mx = f.max.toFloats(), sm = f.sum.toFloats();
  for (size_t row = 0; row < ref.max.size(); ++row)
    for (int lane = 0; lane < 8; ++lane) {
      ASSERT_EQ(mx[row * 8 + lane], mx[row * 8]) << "softmax_max is replicated over its 8 lanes";
      if (std::isinf(ref.max[row]))
        ASSERT_EQ(mx[row * 8], ref.max[row]) << "row " << row;
      else
        ASSERT_NEAR(mx[row * 8], ref.max[row], 1e-5 + 1e-5 * std::fabs(ref.max[row])) << "row " << row;
      ASSERT_NEAR(sm[row * 8 + lane], ref.sum[row], 1e-4 * ref.sum[row] + 1e-6) << "row " << row;
    }

  const Heads qh = p.qHeads(), kvh = p.kvHeads();
  HostTensor dq(p.dt, layoutShape(p.layout, p.c.b, p.c.n, p.c.sq, p.c.d));
  HostTensor dk(p.dt, layoutShape(p.layout, p.c.b, p.c.n_kv, p.c.skv, p.c.d)), dv = dk;
  HostTensor dpse(p.dt, p.pse_shape);
  std::vector<const HostTensor*> ins = {&in.q, &in.k, &in.v, &in.dy};
  for (const HostTensor* t : in.optional(p)) ins.push_back(t);
  for (const HostTensor* t : {&f.max, &f.sum, &f.out}) ins.push_back(t);
  std::vector<const HostTensor*> outs = {&dq, &dk, &dv};
  if (!p.pse_values.empty()) outs.push_back(&dpse);
  run(call("FlashAttentionScoreGrad", ins, outs, p.attributes()));
  // Gradients sum Skv (or Sq) products of rounded factors: a looser bound.
  const double gtol = p.dt == ACL_FLOAT ? 1e-4 : 2.5 * atol;
  expectClose(qh.load(p.layout, dq), ref.dq, gtol, gtol, "dq");
  expectClose(kvh.load(p.layout, dk), ref.dk, gtol, gtol, "dk");
  expectClose(kvh.load(p.layout, dv), ref.dv, gtol, gtol, "dv");
  if (!p.pse_values.empty()) {
    std::vector<double> want(static_cast<size_t>(numelOf(p.pse_shape)), 0.0);
    const Shape& s = p.pse_shape;
    for (int64_t bi = 0; bi < p.c.b; ++bi)
      for (int64_t ni = 0; ni < p.c.n; ++ni)
        for (int64_t i = 0; i < p.c.sq; ++i)
          for (int64_t j = 0; j < p.c.skv; ++j)
            want[(((s[0] == 1 ? 0 : bi) * s[1] + (s[1] == 1 ? 0 : ni)) * s[2] + (s[2] == 1 ? 0 : i)) * s[3] + j] +=
                ref.dpse[p.c.idx4(bi, ni, i, j)];
    expectClose(dpse.toFloats(), want, gtol, gtol, "dpse");
  }
}

TEST(KernelFlashAttention, EveryLayoutAndDtypeMatchesTheReference) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (const char* layout : kLayouts) {
      Problem p;
      p.c.b = 2, p.c.n = 2, p.c.n_kv = 2, p.c.sq = 19, p.c.skv = 37, p.c.d = 16, p.c.scale = 0.25;
      p.layout = layout, p.dt = dt;
      p.randomInputs(11);
      p.setMask({2, 1, 19, 37}, sparseMask(2 * 19 * 37, 5));
      checkAgainstReference(p, "mask [B,1,Sq,Skv]");
    }
}

TEST(KernelFlashAttention, PseBandAndGroupedQueryHeads) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    Problem p;  // GQA: 4 query heads share 2 kv heads; more than one 128-row query tile
    p.c.b = 1, p.c.n = 4, p.c.n_kv = 2, p.c.sq = 150, p.c.skv = 40, p.c.d = 32, p.c.scale = 1.0 / std::sqrt(32.0);
    p.c.pre = 20, p.c.next = 3;
    p.dt = dt, p.layout = "BNSD";
    p.randomInputs(21);
    p.setPse({1, 4, 150, 40}, 7);
    checkAgainstReference(p, "band, pse [1,N,Sq,Skv], GQA");
  }
  Problem p;  // causal (next_tockens 0) with a 2-D mask and a per-batch pse row [B, N, 1, Skv]
  p.c.b = 2, p.c.n = 3, p.c.n_kv = 3, p.c.sq = 24, p.c.skv = 24, p.c.d = 16, p.c.next = 0;
  p.layout = "SBH";
  p.randomInputs(31);
  p.setPse({2, 3, 1, 24}, 8);
  p.setMask({24, 24}, sparseMask(24 * 24, 9));
  checkAgainstReference(p, "causal, 2-D mask, pse [B,N,1,Skv]");
}

TEST(KernelFlashAttention, FullyMaskedRowsGiveZerosAndSparseModeOneIgnoresTheBand) {
  Problem p;
  p.c.b = 1, p.c.n = 2, p.c.n_kv = 2, p.c.sq = 6, p.c.skv = 5, p.c.d = 16, p.c.pre = 0, p.c.next = 0;
  p.randomInputs(41);
  std::vector<int64_t> mask(6 * 5, 0);
  for (int64_t j = 0; j < 5; ++j) mask[2 * 5 + j] = 1;  // row 2 masked out entirely
  p.setMask({6, 5}, mask);
  checkAgainstReference(p, "diagonal band; row 2 and row 5 have nothing to attend");
  Forward f = forwardOutputs(p);
  const Inputs in(p);
  run(forwardCall(p, in, f));
  const std::vector<float> out = f.out.toFloats(), mx = f.max.toFloats(), sm = f.sum.toFloats();
  for (int64_t e = 0; e < 16; ++e) EXPECT_EQ(out[2 * 32 + e], 0.0f);  // BSH: row 2 of head 0
  EXPECT_EQ(mx[2 * 8], -INFINITY);
  EXPECT_EQ(sm[2 * 8], 0.0f);
  p.c.band = false;  // sparse_mode 1: the mask alone
  checkAgainstReference(p, "sparse_mode 1");
}

TEST(KernelFlashAttention, DropoutIsThePhiloxBernoulliMaskInBothPasses) {
  Problem p;
  p.c.b = 2, p.c.n = 2, p.c.n_kv = 1, p.c.sq = 9, p.c.skv = 13, p.c.d = 16, p.c.keep_prob = 0.7;
  p.seed = 1234, p.offset = 56;
  p.layout = "BSND";
  p.randomInputs(51);
  // The mask StatelessBernoulli(p = keep_prob) writes for [B, N, Sq, Skv].
  HostTensor keep(ACL_UINT8, {2, 2, 9, 13});
  run(makeCall("StatelessBernoulli", {}, {&keep},
               attrs({{"p", 0.7f}, {"seed", p.seed}, {"offset", p.offset}})));
  for (int64_t x : keep.toInts()) p.c.keep.push_back(static_cast<uint8_t>(x));
  int kept = 0;
  for (uint8_t x : p.c.keep) kept += x;
  EXPECT_GT(kept, 0.5 * p.c.keep.size());
  EXPECT_LT(kept, 0.9 * p.c.keep.size());
  checkAgainstReference(p, "keep_prob 0.7");
  // Another seed draws another mask.
  const Inputs in(p);
  Forward a = forwardOutputs(p), b = forwardOutputs(p);
  run(forwardCall(p, in, a));
  p.seed = 99;
  run(forwardCall(p, in, b));
  EXPECT_NE(a.out.toFloats(), b.out.toFloats());
}

TEST(KernelFlashAttention, EmptyBatchRuns) {
  Problem p;
  p.c.b = 0, p.c.n = 2, p.c.n_kv = 2, p.c.sq = 4, p.c.skv = 4, p.c.d = 16;
  p.randomInputs(61);
  checkAgainstReference(p, "B = 0");
}

TEST(KernelFlashAttention, BadCallsSayWhatIsWrong) {
  Problem p;
  p.c.b = 1, p.c.n = 2, p.c.n_kv = 2, p.c.sq = 4, p.c.skv = 4, p.c.d = 16;
  p.randomInputs(71);
  const Inputs in(p);
  Forward f = forwardOutputs(p);
  auto with = [&](const char* name, AttrValue value) {
    OpCall c = forwardCall(p, in, f);
    c.attrs.set(name, std::move(value));
    return c;
  };
  EXPECT_KERNEL_ERROR(with("input_layout", std::string("BHS")), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "'input_layout' must be one of BSH, SBH, BNSD, BSND, got 'BHS'");
  EXPECT_KERNEL_ERROR(with("head_num", int64_t{3}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "head_num 3 does not divide the hidden size 32");
  EXPECT_KERNEL_ERROR(with("keep_prob", 0.0f), ACL_ERROR_OP_ATTR_NOT_MATCH, "'keep_prob' must be in (0, 1]");
  EXPECT_KERNEL_ERROR(with("sparse_mode", int64_t{2}), ACL_ERROR_OP_ATTR_NOT_MATCH, "sparse_mode 2 is not supported");
  EXPECT_KERNEL_ERROR(with("has_pse", true), ACL_ERROR_OP_INPUT_NOT_MATCH, "announce 1 optional inputs");
  const HostTensor k16 = p.kvHeads().store("BSH", ACL_FLOAT16, p.k);
  EXPECT_KERNEL_ERROR(call("FlashAttentionScore", {&in.q, &k16, &in.v}, {&f.max, &f.sum, &f.out}, p.attributes()),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input key dtype float16 does not match query dtype float32");
  const HostTensor k3(ACL_FLOAT, {1, 4, 48});  // 3 kv heads of 16 for 2 query heads
  EXPECT_KERNEL_ERROR(call("FlashAttentionScore", {&in.q, &k3, &k3}, {&f.max, &f.sum, &f.out}, p.attributes()),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "key/value have 3 heads, which must divide the 2 query heads");
  const HostTensor mask(ACL_BOOL, {3, 4});
  OpCall masked = call("FlashAttentionScore", {&in.q, &in.k, &in.v, &mask}, {&f.max, &f.sum, &f.out}, p.attributes());
  masked.attrs.set("has_atten_mask", true);
  EXPECT_KERNEL_ERROR(masked, ACL_ERROR_OP_INPUT_NOT_MATCH, "atten_mask shape [3,4] does not broadcast");
  const HostTensor q4(ACL_FLOAT, {1, 4, 2, 16});
  EXPECT_KERNEL_ERROR(call("FlashAttentionScore", {&q4, &in.k, &in.v}, {&f.max, &f.sum, &f.out}, p.attributes()),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "query shape [1,4,2,16] must be 3-D for input_layout BSH");
}

// fp32 inputs follow the precision mode as MatMul does: under
// allow_fp32_to_fp16 every Cube operand (q, k, v and P) is rounded to fp16,
// so the fp32 result rounded to fp16 is the result of fp16 inputs.
TEST(KernelFlashAttention, Fp32FollowsThePrecisionMode) {
  Problem p;
  p.c.b = 1, p.c.n = 2, p.c.n_kv = 2, p.c.sq = 12, p.c.skv = 20, p.c.d = 16, p.c.scale = 0.25;
  p.randomInputs(81);
  Problem half = p;
  half.dt = ACL_FLOAT16;
  half.q = rounded(ACL_FLOAT16, p.q), half.k = rounded(ACL_FLOAT16, p.k), half.v = rounded(ACL_FLOAT16, p.v);
  const Inputs in(p), in16(half);
  Forward keep = forwardOutputs(p), allow = forwardOutputs(p), f16 = forwardOutputs(half);
  run(forwardCall(p, in, keep));
  OpCall c = forwardCall(p, in, allow);
  c.ctx.precision = PrecisionMode::kAllowFp32ToFp16;
  run(c);
  run(forwardCall(half, in16, f16));
  EXPECT_EQ(rounded(ACL_FLOAT16, allow.out.toFloats()), f16.out.toFloats());
  EXPECT_NE(allow.out.toFloats(), keep.out.toFloats());
}

// The point of fusing: the same Cube work as BatchMatMul + SoftmaxV2 +
// BatchMatMul, but HBM traffic of the operands only (no [Sq, Skv] matrix).
TEST(KernelFlashAttention, CostIsThatOfAFusedOp) {
  const int64_t B = 2, N = 8, S = 512, D = 64;
  const HostTensor q(ACL_FLOAT16, {B, N, S, D}), k = q, v = q, out = q, dy = q;
  const HostTensor stats(ACL_FLOAT, {B, N, S, 8});
  const AttrMap a = attrs({{"head_num", N}, {"input_layout", std::string("BNSD")}, {"scale_value", 0.125f}});
  const KernelCost fused = kernel("FlashAttentionScore").cost(call("FlashAttentionScore", {&q, &k, &v}, {&stats, &stats, &out}, a));
  EXPECT_EQ(fused.core, CoreType::kAiCore);
  EXPECT_DOUBLE_EQ(fused.mte_bytes, 4.0 * B * N * S * D * 2 + 2.0 * B * N * S * 8 * 4);
  EXPECT_DOUBLE_EQ(fused.cube_macs, 2.0 * B * N * S * S * D);
  // The unfused sequence: scores = q k^T, probs = softmax(scores), out = probs v.
  const HostTensor scores(ACL_FLOAT16, {B, N, S, S}), probs = scores;
  const KernelCost mm1 = kernel("BatchMatMul").cost(
      makeCall("BatchMatMul", {&q, &k}, {&scores}, attrs({{"adj_x1", false}, {"adj_x2", true}})));
  const KernelCost sm = kernel("SoftmaxV2").cost(makeCall("SoftmaxV2", {&scores}, {&probs}, attrs({{"axes", std::vector<int64_t>{-1}}})));
  const KernelCost mm2 = kernel("BatchMatMul").cost(makeCall("BatchMatMul", {&probs, &v}, {&out}));
  EXPECT_DOUBLE_EQ(fused.cube_macs, mm1.cube_macs + mm2.cube_macs);
  const double unfused_bytes = mm1.mte_bytes + sm.mte_bytes + mm2.mte_bytes;
  EXPECT_LT(fused.mte_bytes * 5, unfused_bytes);
  for (const char* soc : {"Ascend910A", "Ascend910B2"}) {
    const CostModel model(ChipConfig::preset(soc));
    EXPECT_LT(model.opUs(fused), model.opUs(mm1) + model.opUs(sm) + model.opUs(mm2)) << soc;
  }
  // The gradient: five products, operands only.
  const KernelCost grad = kernel("FlashAttentionScoreGrad")
                              .cost(call("FlashAttentionScoreGrad", {&q, &k, &v, &dy, &stats, &stats, &out},
                                         {&out, &out, &out}, a));
  EXPECT_DOUBLE_EQ(grad.cube_macs, 5.0 * B * N * S * S * D);
  EXPECT_DOUBLE_EQ(grad.mte_bytes, 8.0 * B * N * S * D * 2 + 2.0 * B * N * S * 8 * 4);
  // Dropout adds Vector work only.
  AttrMap dropout = a;
  dropout.set("keep_prob", 0.9f);
  const KernelCost dropped = kernel("FlashAttentionScore").cost(call("FlashAttentionScore", {&q, &k, &v}, {&stats, &stats, &out}, dropout));
  EXPECT_GT(dropped.vector_repeats, fused.vector_repeats);
  EXPECT_DOUBLE_EQ(dropped.mte_bytes, fused.mte_bytes);
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
