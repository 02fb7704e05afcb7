// npu::npu_fusion_attention (one FlashAttentionScore op) and its autograd
// (one FlashAttentionScoreGrad op) against the CPU composition
// softmax(mask(scale * (q k^T + pse))) v written here with aten ops: every
// layout, fp32 and fp16, masks, pse, the band, grouped-query heads, dropout,
// the softmax stats, an empty batch and bad arguments.
#include <torch/torch.h>

#include <limits>

#include "csrc/core/NPUGenerator.h"
#include "attention_layout_util.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Result = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, int64_t, int64_t, int64_t>;
using Signature = Result(const at::Tensor&, const at::Tensor&, const at::Tensor&, int64_t, c10::string_view,
                         const c10::optional<at::Tensor>&, const c10::optional<at::Tensor>&,
                         const c10::optional<at::Tensor>&, double, double, int64_t, int64_t, int64_t,
                         at::OptionalIntArrayRef, int64_t, bool, bool);

c10::TypedOperatorHandle<Signature> fusionAttention() {
  return c10::Dispatcher::singleton().findSchemaOrThrow("npu::npu_fusion_attention", "").typed<Signature>();
}

constexpr int64_t kNoLimit = 2147483647;

// Everything but the tensors.
struct Options {
  std::string layout = "BSH";
  int64_t heads = 2;
  double scale = 0.25, keep_prob = 1.0;
  int64_t pre = kNoLimit, next = kNoLimit, sparse_mode = 0;
};

Result run(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const Options& o,
           const c10::optional<at::Tensor>& pse = c10::nullopt, const c10::optional<at::Tensor>& mask = c10::nullopt,
           const c10::optional<at::Tensor>& padding_mask = c10::nullopt) {
  return fusionAttention().call(q, k, v, o.heads, o.layout, pse, padding_mask, mask, o.scale, o.keep_prob, o.pre,
                                o.next, 0, c10::nullopt, o.sparse_mode, true, false);
}

// The masked, scaled scores [B, N, Sq, Skv] of the composition (-inf where masked).
at::Tensor referenceScores(const at::Tensor& qb, const at::Tensor& kb, const Options& o,
                           const c10::optional<at::Tensor>& pse, const c10::optional<at::Tensor>& mask) {
  at::Tensor s = at::matmul(qb, kb.transpose(-1, -2));
  if (pse) s = s + *pse;
  s = s * o.scale;
  const int64_t sq = s.size(2), skv = s.size(3);
  const at::Tensor i = at::arange(sq).unsqueeze(1), j = at::arange(skv).unsqueeze(0);
  at::Tensor masked = at::zeros({sq, skv}, at::kBool);
  if (o.sparse_mode == 0) masked = (j - i > o.next).logical_or(i - j > o.pre);
  if (mask) masked = masked.logical_or(mask->to(at::kBool));
  return s.masked_fill(masked, -std::numeric_limits<float>::infinity());
}

// softmax(scores) (times the dropout factors) v, in q's layout; k/v heads repeated for grouped queries.
at::Tensor reference(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const Options& o,
                     const c10::optional<at::Tensor>& pse, const c10::optional<at::Tensor>& mask,
                     const c10::optional<at::Tensor>& dropout_factor = c10::nullopt) {
  const at::Tensor qb = toBnsd(q, o.layout, o.heads);
  const int64_t kv_heads = o.layout == "BSH" || o.layout == "SBH" ? k.size(2) / qb.size(3) : -1;
  at::Tensor kb = toBnsd(k, o.layout, kv_heads), vb = toBnsd(v, o.layout, kv_heads);
  kb = kb.repeat_interleave(o.heads / kb.size(1), 1);
  vb = vb.repeat_interleave(o.heads / vb.size(1), 1);
  at::Tensor p = at::softmax(referenceScores(qb, kb, o, pse, mask), -1);
  if (dropout_factor) p = p * *dropout_factor;
  return fromBnsd(at::matmul(p, vb), o.layout);
}

// fn for expectSameAutograd: the fused op on NPU inputs, the composition on
// CPU ones. inputs: q, k, v[, pse][, mask].
TensorFn fusedOrReference(const Options& o, bool has_pse, bool has_mask) {
  return [=](const std::vector<at::Tensor>& in) {
    const c10::optional<at::Tensor> pse = has_pse ? c10::optional<at::Tensor>(in[3]) : c10::nullopt;
    const c10::optional<at::Tensor> mask =
        has_mask ? c10::optional<at::Tensor>(in[3 + (has_pse ? 1 : 0)]) : c10::nullopt;
    if (in[0].device() == npu()) return std::get<0>(run(in[0], in[1], in[2], o, pse, mask));
    return reference(in[0], in[1], in[2], o, pse, mask);
  };
}

// fp16: P and dS are rounded to fp16 before the Cube, the outputs once more.
double rtolOf(at::ScalarType t) { return t == at::kHalf ? 4e-3 : 1e-4; }
double atolOf(at::ScalarType t) { return t == at::kHalf ? 4e-3 : 1e-5; }

}  // namespace

TEST(NpuFusionAttention, EveryLayoutFp32AndFp16WithAMaskMatchesTheComposition) {
  const int64_t B = 2, N = 2, Sq = 12, Skv = 20, D = 16;
  for (const char* layout : {"BSH", "SBH", "BNSD", "BSND"})
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(std::string(layout) + " " + c10::toString(dtype));
      Options o;
      o.layout = layout;
      const at::Tensor mask = at::rand({B, 1, Sq, Skv}) < 0.2;
      expectSameAutograd(fusedOrReference(o, false, true),
                         {at::randn(layoutShape(layout, B, N, Sq, D)).to(dtype),
                          at::randn(layoutShape(layout, B, N, Skv, D)).to(dtype),
                          at::randn(layoutShape(layout, B, N, Skv, D)).to(dtype), mask},
                         rtolOf(dtype), atolOf(dtype));
    }
}

TEST(NpuFusionAttention, PseBandAndGroupedQueryHeads) {
  const int64_t B = 2, N = 4, Sq = 20, Skv = 20, D = 16;
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    Options o;  // causal with a window of 5 past positions; 4 query heads on 2 kv heads
    o.layout = "BNSD", o.heads = N, o.pre = 5, o.next = 0, o.scale = 1.0 / std::sqrt(double(D));
    expectSameAutograd(fusedOrReference(o, true, false),
                       {at::randn({B, N, Sq, D}).to(dtype), at::randn({B, 2, Skv, D}).to(dtype),
                        at::randn({B, 2, Skv, D}).to(dtype), at::randn({1, N, Sq, Skv}).to(dtype)},
                       rtolOf(dtype), atolOf(dtype));
  }
  Options o;  // sparse_mode 1: the 2-D mask alone, the band is ignored; pse [B, N, 1, Skv]
  o.layout = "SBH", o.heads = 2, o.pre = 0, o.next = 0, o.sparse_mode = 1;
  expectSameAutograd(fusedOrReference(o, true, true),
                     {at::randn({9, B, 32}), at::randn({11, B, 32}), at::randn({11, B, 32}),
                      at::randn({B, 2, 1, 11}), at::rand({9, 11}) < 0.3});
}

TEST(NpuFusionAttention, SoftmaxStatsAreTheRowMaxAndSumReplicatedEightTimes) {
  Options o;
  o.layout = "BSND";
  const at::Tensor q = at::randn({2, 7, 2, 16}), k = at::randn({2, 9, 2, 16}), v = at::randn({2, 9, 2, 16});
  const at::Tensor mask = at::rand({7, 9}) < 0.3;
  const auto [out, max, sum, softmax_out, seed, offset, numels] = run(q.to(npu()), k.to(npu()), v.to(npu()), o,
                                                                      c10::nullopt, mask.to(npu()));
  const at::Tensor s = referenceScores(toBnsd(q, "BSND", 2), toBnsd(k, "BSND", 2), o, c10::nullopt, mask);
  const at::Tensor ref_max = std::get<0>(s.max(-1, true));
  const at::Tensor ref_sum = at::exp(s - ref_max).sum(-1, true);
  EXPECT_EQ(max.sizes(), (std::vector<int64_t>{2, 2, 7, 8}));
  expectClose(max, ref_max.expand({2, 2, 7, 8}).contiguous(), 1e-5, 1e-6);
  expectClose(sum, ref_sum.expand({2, 2, 7, 8}).contiguous(), 1e-5, 1e-6);
  EXPECT_EQ(softmax_out.numel(), 0);
  EXPECT_EQ(seed, 0);
  EXPECT_EQ(numels, 0);  // keep_prob 1 draws no random numbers
  OpRecorder rec;
  run(q.to(npu()), k.to(npu()), v.to(npu()), o);
  EXPECT_EQ(rec.count("FlashAttentionScore"), 1) << rec.summary();
}

// keep_prob < 1: the mask is the device generator's Bernoulli(keep_prob)
// stream at the returned (seed, offset), in both passes.
TEST(NpuFusionAttention, DropoutUsesThePhiloxStreamItReturns) {
  const int64_t B = 2, N = 2, S = 10, D = 16;
  Options o;
  o.layout = "BNSD", o.keep_prob = 0.8;
  const at::Tensor q = at::randn({B, N, S, D}), k = at::randn({B, N, S, D}), v = at::randn({B, N, S, D});
  const at::Tensor dy = at::randn({B, N, S, D});
  auto& gen = torch_npu::NPUGenerator::forDevice(0);
  gen.manual_seed(2024);
  at::Tensor qn = q.to(npu()).requires_grad_(), kn = k.to(npu()).requires_grad_(), vn = v.to(npu()).requires_grad_();
  const auto [out, max, sum, softmax_out, seed, offset, numels] = run(qn, kn, vn, o);
  EXPECT_EQ(seed, 2024);
  EXPECT_EQ(numels, B * N * S * S);
  out.backward(dy.to(npu()));
  // The same stream, drawn by bernoulli_ at that state.
  gen.set_state(static_cast<uint64_t>(seed), static_cast<uint64_t>(offset));
  const at::Tensor keep = at::empty({B, N, S, S}, at::TensorOptions().device(npu())).bernoulli_(o.keep_prob).cpu();
  const double kept = keep.mean().item<double>();
  EXPECT_GT(kept, 0.65);
  EXPECT_LT(kept, 0.95);
  at::Tensor qc = q.clone().requires_grad_(), kc = k.clone().requires_grad_(), vc = v.clone().requires_grad_();
  const at::Tensor ref = reference(qc, kc, vc, o, c10::nullopt, c10::nullopt, keep / o.keep_prob);
  ref.backward(dy);
  expectClose(out, ref.detach(), 1e-4, 1e-5);
  expectClose(qn.grad(), qc.grad(), 1e-4, 1e-5);
  expectClose(kn.grad(), kc.grad(), 1e-4, 1e-5);
  expectClose(vn.grad(), vc.grad(), 1e-4, 1e-5);
  // The same seed gives the same output; the generator moved on, so the next call differs.
  gen.manual_seed(2024);
  const at::Tensor again = std::get<0>(run(q.to(npu()), k.to(npu()), v.to(npu()), o));
  expectClose(again, out.detach().cpu(), 0, 0);
  const at::Tensor next = std::get<0>(run(q.to(npu()), k.to(npu()), v.to(npu()), o));
  EXPECT_FALSE(next.cpu().equal(again.cpu()));
}

TEST(NpuFusionAttention, EmptyBatchGivesEmptyResultsAndGradients) {
  Options o;
  const at::Tensor q = at::randn({0, 5, 32}, at::TensorOptions().device(npu())).requires_grad_();
  const auto [out, max, sum, softmax_out, seed, offset, numels] = run(q, q, q, o);
  EXPECT_EQ(out.sizes(), q.sizes());
  EXPECT_EQ(max.sizes(), (std::vector<int64_t>{0, 2, 5, 8}));
  out.sum().backward();
  EXPECT_EQ(q.grad().sizes(), q.sizes());
}

TEST(NpuFusionAttention, BadArgumentsSayWhatIsWrong) {
  const auto opts = at::TensorOptions().device(npu());
  const at::Tensor q = at::randn({2, 4, 32}, opts);
  Options o;
  EXPECT_THROW_WITH(run(q.view({2, 4, 2, 16}), q, q, o), "npu_fusion_attention: query must be 3-D for input_layout BSH");
  o.layout = "BHSD";
  EXPECT_THROW_WITH(run(q, q, q, o), "input_layout must be one of BSH, SBH, BNSD, BSND, got 'BHSD'");
  o.layout = "BSH", o.heads = 3;
  EXPECT_THROW_WITH(run(q, q, q, o), "head_num 3 does not divide the hidden size 32");
  o.heads = 2;
  EXPECT_THROW_WITH(run(q, q.to(at::kHalf), q, o), "query, key and value must have one dtype");
  EXPECT_THROW_WITH(run(q, q.cpu(), q, o), "key is on cpu but query is on");
  EXPECT_THROW_WITH(run(q.cpu(), q.cpu(), q.cpu(), o), "npu::npu_fusion_attention' with arguments from the 'CPU' backend");
  EXPECT_THROW_WITH(run(q, at::randn({2, 4, 48}, opts), at::randn({2, 4, 48}, opts), o),
                    "key/value have 3 heads, which must divide the 2 query heads");
  EXPECT_THROW_WITH(run(q, q, q, o, c10::nullopt, at::zeros({4, 4}, opts)), "atten_mask must be bool or uint8");
  EXPECT_THROW_WITH(run(q, q, q, o, c10::nullopt, at::zeros({3, 4}, opts.dtype(at::kBool))),
                    "atten_mask of shape [3, 4] does not broadcast to [B, N, Sq, Skv] = [2, 2, 4, 4]");
  EXPECT_THROW_WITH(run(q, q, q, o, at::zeros({2, 4, 4}, opts)), "pse of shape [2, 4, 4] does not broadcast");
  EXPECT_THROW_WITH(run(q, q, q, o, c10::nullopt, c10::nullopt, at::zeros({2, 4}, opts)),
                    "padding_mask is not supported");
  o.sparse_mode = 2;
  EXPECT_THROW_WITH(run(q, q, q, o), "sparse_mode 2 is not supported");
  o.sparse_mode = 0, o.keep_prob = 0;
  EXPECT_THROW_WITH(run(q, q, q, o), "keep_prob must be in (0, 1], got 0");
}
