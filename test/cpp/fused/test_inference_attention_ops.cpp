// npu::npu_prompt_flash_attention (one PromptFlashAttention op) and
// npu::npu_incre_flash_attention (one IncreFlashAttention op) against the CPU
// composition softmax(mask(scale * q k^T)) v: layouts, fp32 and fp16, masks,
// the band only with a mask, grouped-query heads, per-batch valid lengths over
// a KV cache whose unused rows hold NaN, empty inputs, and bad arguments.
#include <torch/torch.h>

#include <limits>
#include <map>

#include "attention_layout_util.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

// Calls an npu:: operator with positional tensors and keyword arguments (the
// rest take the schema's defaults), as Python would.
at::Tensor callWithKeywords(const char* name, const std::vector<at::Tensor>& positional,
                            const std::map<std::string, c10::IValue>& keywords) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  const auto& args = op.schema().arguments();
  torch::jit::Stack stack;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i < positional.size()) {
      stack.emplace_back(positional[i]);
      continue;
    }
    const auto it = keywords.find(args[i].name());
    TORCH_INTERNAL_ASSERT(it != keywords.end() || args[i].default_value(), "no value for ", args[i].name());
    stack.push_back(it != keywords.end() ? it->second : *args[i].default_value());
  }
  op.callBoxed(&stack);
  return stack[0].toTensor();
}

at::Tensor prompt(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const std::map<std::string, c10::IValue>& kw) {
  return callWithKeywords("npu::npu_prompt_flash_attention", {q, k, v}, kw);
}
at::Tensor incremental(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                       const std::map<std::string, c10::IValue>& kw) {
  return callWithKeywords("npu::npu_incre_flash_attention", {q, k, v}, kw);
}

// The composition on one batch's valid part: q [N, sq, D], k/v [N_kv, skv, D];
// masked [sq, skv] or undefined. Rows with nothing to attend are 0.
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double scale,
                  const at::Tensor& masked) {
  const at::Tensor kk = k.repeat_interleave(q.size(0) / k.size(0), 0).to(at::kFloat);
  const at::Tensor vv = v.repeat_interleave(q.size(0) / v.size(0), 0).to(at::kFloat);
  at::Tensor s = at::matmul(q.to(at::kFloat), kk.transpose(-1, -2)) * scale;
  if (masked.defined()) s = s.masked_fill(masked, -std::numeric_limits<float>::infinity());
  at::Tensor p = at::softmax(s, -1).nan_to_num(0.0);  // a fully masked row: 0
  return at::matmul(p, vv);
}

// The reference of a whole call in q's layout: batch b attends its first
// kv_len[b] keys with its first q_len[b] queries; the other rows are 0.
at::Tensor reference(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const std::string& layout,
                     int64_t heads, double scale, const at::Tensor& masked /* [B, Sq, Skv] or undefined */,
                     std::vector<int64_t> q_len, std::vector<int64_t> kv_len) {
  const at::Tensor qb = toBnsd(q.cpu(), layout, heads);
  const int64_t d = qb.size(3);
  const int64_t kv_heads = layout == "BSH" ? k.size(2) / d : -1;
  const at::Tensor kb = toBnsd(k.cpu(), layout, kv_heads), vb = toBnsd(v.cpu(), layout, kv_heads);
  at::Tensor out = at::zeros(qb.sizes(), qb.options().dtype(at::kFloat));
  for (int64_t b = 0; b < qb.size(0); ++b) {
    const int64_t sq = q_len.empty() ? qb.size(2) : q_len[b], skv = kv_len.empty() ? kb.size(2) : kv_len[b];
    if (sq == 0) continue;
    const at::Tensor m = masked.defined() ? masked[b].slice(0, 0, sq).slice(1, 0, skv) : at::Tensor();
    out[b].slice(1, 0, sq).copy_(
        attend(qb[b].slice(1, 0, sq), kb[b].slice(1, 0, skv), vb[b].slice(1, 0, skv), scale, m));
  }
  return fromBnsd(out, layout).to(q.scalar_type());
}

double tolOf(at::ScalarType t) { return t == at::kHalf ? 4e-3 : 1e-5; }

TEST(NpuPromptFlashAttention, CausalPromptInEveryLayoutMatchesTheComposition) {
  const int64_t B = 2, N = 4, N_KV = 2, S = 13, D = 16;
  for (const char* layout : {"BSH", "BSND", "BNSD"})
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(std::string(layout) + " " + c10::toString(dtype));
      const at::Tensor q = at::randn(layoutShape(layout, B, N, S, D)).to(dtype);
      const at::Tensor k = at::randn(layoutShape(layout, B, N_KV, S, D)).to(dtype);
      const at::Tensor v = at::randn(layoutShape(layout, B, N_KV, S, D)).to(dtype);
      const at::Tensor causal = at::ones({S, S}, at::kBool).triu(1);
      OpRecorder rec;
      const at::Tensor out = prompt(q.to(npu()), k.to(npu()), v.to(npu()),
                                    {{"atten_mask", causal.to(npu())},
                                     {"num_heads", N},
                                     {"scale_value", 0.25},
                                     {"input_layout", std::string(layout)},
                                     {"num_key_value_heads", N_KV}});
      EXPECT_EQ(rec.count("PromptFlashAttention"), 1) << rec.summary();
      expectClose(out, reference(q, k, v, layout, N, 0.25, causal.expand({B, S, S}), {}, {}), tolOf(dtype),
                  tolOf(dtype));
      // No mask: nothing is masked, next_tokens = 0 notwithstanding.
      const at::Tensor full = prompt(q.to(npu()), k.to(npu()), v.to(npu()),
                                     {{"num_heads", N}, {"scale_value", 0.25}, {"input_layout", std::string(layout)}});
      expectClose(full, reference(q, k, v, layout, N, 0.25, at::Tensor(), {}, {}), tolOf(dtype), tolOf(dtype));
    }
}

TEST(NpuPromptFlashAttention, ValidLengthsMaskShapesAndTheBand) {
  const int64_t B = 2, N = 2, Sq = 9, Skv = 12, D = 16;
  const at::Tensor q = at::randn({B, Sq, N * D}), k = at::randn({B, Skv, N * D}), v = at::randn({B, Skv, N * D});
  const at::Tensor mask = at::rand({B, Sq, Skv}) < 0.2;
  // A [B, Sq, Skv] mask plus the band of 3 past and 1 future positions.
  const at::Tensor i = at::arange(Sq).unsqueeze(1), j = at::arange(Skv).unsqueeze(0);
  const at::Tensor banded = mask.logical_or((j - i > 1).logical_or(i - j > 3));
  const at::Tensor out = prompt(q.to(npu()), k.to(npu()), v.to(npu()),
                                {{"atten_mask", mask.to(npu())},
                                 {"num_heads", N},
                                 {"pre_tokens", 3},
                                 {"next_tokens", 1},
                                 {"actual_seq_lengths", std::vector<int64_t>{9, 4}},
                                 {"actual_seq_lengths_kv", std::vector<int64_t>{12, 3}}});
  expectClose(out, reference(q, k, v, "BSH", N, 1.0, banded, {9, 4}, {12, 3}));
  // sparse_mode 1: the mask alone; int8 masks read as "nonzero = masked".
  const at::Tensor alone =
      prompt(q.to(npu()), k.to(npu()), v.to(npu()),
             {{"atten_mask", mask.to(at::kChar).to(npu())}, {"num_heads", N}, {"pre_tokens", 0}, {"sparse_mode", 1}});
  expectClose(alone, reference(q, k, v, "BSH", N, 1.0, mask, {}, {}));
}

// A generation step: every sequence has its own history in a cache allocated
// for 32 positions; the rows past each length hold NaN, which must not leak.
TEST(NpuIncreFlashAttention, DecodeStepReadsEachCacheUpToItsLength) {
  const int64_t B = 3, N = 4, N_KV = 2, Smax = 32, D = 16;
  const std::vector<int64_t> lengths = {32, 5, 1};
  for (const char* layout : {"BSH", "BSND", "BNSD"})
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(std::string(layout) + " " + c10::toString(dtype));
      const at::Tensor q = at::randn(layoutShape(layout, B, N, 1, D)).to(dtype);
      at::Tensor k = toBnsd(at::randn(layoutShape(layout, B, N_KV, Smax, D)).to(dtype), layout, N_KV);
      at::Tensor v = toBnsd(at::randn(layoutShape(layout, B, N_KV, Smax, D)).to(dtype), layout, N_KV);
      for (int64_t b = 0; b < B; ++b) {
        k[b].slice(1, lengths[b]).fill_(std::numeric_limits<float>::quiet_NaN());
        v[b].slice(1, lengths[b]).fill_(std::numeric_limits<float>::quiet_NaN());
      }
      k = fromBnsd(k, layout).contiguous(), v = fromBnsd(v, layout).contiguous();
      OpRecorder rec;
      const at::Tensor out = incremental(q.to(npu()), k.to(npu()), v.to(npu()),
                                         {{"num_heads", N},
                                          {"scale_value", 0.25},
                                          {"input_layout", std::string(layout)},
                                          {"num_key_value_heads", N_KV},
                                          {"actual_seq_lengths", lengths}});
      EXPECT_EQ(rec.count("IncreFlashAttention"), 1) << rec.summary();
      expectClose(out, reference(q, k, v, layout, N, 0.25, at::Tensor(), {}, lengths), tolOf(dtype), tolOf(dtype));
    }
  // A [B, Skv] mask over a full cache.
  const at::Tensor q = at::randn({B, 1, N * 16}), k = at::randn({B, 8, N * 16}), v = at::randn({B, 8, N * 16});
  const at::Tensor mask = at::rand({B, 8}) < 0.3;
  const at::Tensor out =
      incremental(q.to(npu()), k.to(npu()), v.to(npu()), {{"atten_mask", mask.to(npu())}, {"num_heads", N}});
  expectClose(out, reference(q, k, v, "BSH", N, 1.0, mask.unsqueeze(1), {}, {}));
}

TEST(NpuInferenceAttention, EmptyInputsGiveEmptyOrZeroResults) {
  const auto opts = at::TensorOptions().device(npu());
  const at::Tensor q0 = at::randn({0, 1, 32}, opts);
  EXPECT_EQ(incremental(q0, q0, q0, {{"num_heads", 2}}).sizes(), q0.sizes());
  const at::Tensor q = at::randn({2, 1, 32}, opts), empty_cache = at::randn({2, 0, 32}, opts);
  EXPECT_TRUE(incremental(q, empty_cache, empty_cache, {{"num_heads", 2}}).cpu().eq(0).all().item<bool>());
  const at::Tensor p = at::randn({2, 0, 32}, opts);
  EXPECT_EQ(prompt(p, p, p, {{"num_heads", 2}}).sizes(), p.sizes());
}

// No backward, as in torch_npu: autograd says so instead of a silently missing gradient.
TEST(NpuInferenceAttention, BackwardRaisesNotImplemented) {
  const auto opts = at::TensorOptions().device(npu());
  const at::Tensor q = at::randn({2, 4, 32}, opts).requires_grad_(), step = at::randn({2, 1, 32}, opts);
  const at::Tensor out = prompt(q, q, q, {{"num_heads", 2}});
  EXPECT_TRUE(out.requires_grad());
  EXPECT_THROW_WITH(out.sum().backward(), "npu_prompt_flash_attention", "not implemented");
  const at::Tensor cache = at::randn({2, 8, 32}, opts).requires_grad_();
  EXPECT_THROW_WITH(incremental(step, cache, cache, {{"num_heads", 2}}).sum().backward(), "npu_incre_flash_attention",
                    "not implemented");
}

TEST(NpuInferenceAttention, BadArgumentsSayWhatIsWrong) {
  const auto opts = at::TensorOptions().device(npu());
  const at::Tensor q = at::randn({2, 4, 32}, opts), step = at::randn({2, 1, 32}, opts);
  EXPECT_THROW_WITH(incremental(q, q, q, {{"num_heads", 2}}),
                    "npu_incre_flash_attention: query of shape [2, 4, 32] must have one position (S = 1)");
  EXPECT_THROW_WITH(prompt(q, q, q, {{"num_heads", 3}}),
                    "npu_prompt_flash_attention: num_heads 3 does not divide the hidden size 32");
  EXPECT_THROW_WITH(prompt(q, q, q, {{"num_heads", 2}, {"input_layout", std::string("SBH")}}),
                    "input_layout must be one of BSH, BSND, BNSD, got 'SBH'");
  EXPECT_THROW_WITH(prompt(q, q, q, {{"num_heads", 2}, {"num_key_value_heads", 1}}),
                    "num_key_value_heads is 1 but key of shape [2, 4, 32] has 2 heads");
  EXPECT_THROW_WITH(prompt(q, q, q, {{"num_heads", 2}, {"actual_seq_lengths", std::vector<int64_t>{4, 5}}}),
                    "actual_seq_lengths value 5 is outside [0, 4]");
  EXPECT_THROW_WITH(incremental(step, q, q, {{"num_heads", 2}, {"actual_seq_lengths", std::vector<int64_t>{1, 2, 3}}}),
                    "actual_seq_lengths has 3 values for a batch of 2");
  EXPECT_THROW_WITH(prompt(q, q, q, {{"num_heads", 2}, {"sparse_mode", 3}}), "sparse_mode 3 is not supported");
  EXPECT_THROW_WITH(prompt(q, q, q, {{"num_heads", 2}, {"atten_mask", at::zeros({4, 4}, opts)}}),
                    "atten_mask must be bool or uint8");
  EXPECT_THROW_WITH(incremental(step, q, q, {{"num_heads", 2}, {"block_table", at::zeros({2, 1}, opts)}}),
                    "block_table is not supported on the simulated NPU (paged attention");
  EXPECT_THROW_WITH(incremental(step, q, q, {{"num_heads", 2}, {"antiquant_scale", at::ones({2}, opts)}}),
                    "antiquant_scale is not supported on the simulated NPU (int8 quantised attention");
  EXPECT_THROW_WITH(prompt(q, q.cpu(), q, {{"num_heads", 2}}), "key is on cpu but query is on");
  EXPECT_THROW_WITH(prompt(q, q.to(at::kHalf), q, {{"num_heads", 2}}), "query, key and value must have one dtype");
}

}  // namespace
