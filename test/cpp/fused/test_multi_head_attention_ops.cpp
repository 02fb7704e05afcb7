// npu::npu_multi_head_attention (+ _backward) against the CPU composition of
// nn.MultiheadAttention's math (projections, additive mask, softmax, dropout,
// output projection), forward and backward through autograd: one
// MultiHeadAttention and one MultiHeadAttentionGrad, the dropout bit mask
// given or drawn, and torch_npu's constraints (fp16, multiples of 16).
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Outputs =
    std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>;
using Opt = c10::optional<at::Tensor>;
using Signature = Outputs(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                          const at::Tensor&, const at::Tensor&, const at::Tensor&, const Opt&, const Opt&, const Opt&,
                          const Opt&, const Opt&, int64_t, int64_t, int64_t, int64_t, double, bool);

constexpr int64_t B = 2, H = 16, D = 16, T = 16, S = 32, E = H * D;

Outputs mha(const std::vector<at::Tensor>& in, const at::Tensor& mask, bool biases, const Opt& dropout_mask = {},
            double dropout_prob = 0.0, int64_t heads = H) {
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("npu::npu_multi_head_attention", "").typed<Signature>();
  auto bias = [&](size_t i) { return biases ? Opt(in[7 + i]) : Opt(); };
  return op.call(in[0], in[1], in[2], in[3], in[4], in[5], mask, in[6], bias(0), bias(1), bias(2), bias(3),
                 dropout_mask, heads, E / heads, S, T, dropout_prob, true);
}

// [rows, E] -> [B, H, L, D]
at::Tensor heads(const at::Tensor& x, int64_t len) { return x.view({B, len, H, D}).permute({0, 2, 1, 3}); }

// y of the composition; inputs: query, key, value, Wq, Wk, Wv, Wo, bq, bk, bv, bo.
at::Tensor reference(const std::vector<at::Tensor>& in, const at::Tensor& mask, bool biases,
                     const c10::optional<at::Tensor>& keep_factor = c10::nullopt) {
  auto linear = [&](size_t x, size_t w, size_t b) { return at::linear(in[x], in[w], biases ? in[b] : at::Tensor()); };
  const at::Tensor q = heads(linear(0, 3, 7), T) / std::sqrt(double(D)), k = heads(linear(1, 4, 8), S),
                   v = heads(linear(2, 5, 9), S);
  at::Tensor p = at::softmax(at::matmul(q, k.transpose(-1, -2)) + mask, -1);
  if (keep_factor) p = p * *keep_factor;
  const at::Tensor ctx = at::matmul(p, v).permute({0, 2, 1, 3}).reshape({B * T, E});
  return at::linear(ctx, in[6], biases ? in[10] : at::Tensor());
}

std::vector<at::Tensor> randomInputs() {
  std::vector<at::Tensor> in = {at::randn({B * T, E}), at::randn({B * S, E}), at::randn({B * S, E})};
  for (int i = 0; i < 4; ++i) in.push_back(at::randn({E, E}) * 0.06);
  for (int i = 0; i < 4; ++i) in.push_back(at::randn({E}) * 0.5);
  for (at::Tensor& t : in) t = t.to(at::kHalf);
  return in;
}

// The bits of a dropout bit mask as a [B, H, T, S] 0/1 float tensor.
at::Tensor unpackBits(const at::Tensor& mask) {
  const at::Tensor weights = at::tensor({1, 2, 4, 8, 16, 32, 64, 128}, at::kByte);
  const at::Tensor bits = mask.cpu().unsqueeze(1).bitwise_and(weights).ne(0).reshape({-1});
  return bits.narrow(0, 0, B * H * T * S).view({B, H, T, S}).to(at::kFloat);
}

constexpr double kTol = 1e-2;  // fp16 results of 256-term products

}  // namespace

TEST(NpuMultiHeadAttention, MatchesTheCompositionForwardAndBackward) {
  for (bool biases : {true, false}) {
    SCOPED_TRACE(biases ? "with biases" : "without biases");
    std::vector<at::Tensor> in = randomInputs();
    if (!biases) in.resize(7);                   // no bias tensors: no gradients to compare
    in.push_back(at::rand({B, 1, T, S}) < 0.2);  // masked positions (bool: no gradient)
    expectSameAutograd(
        [biases](const std::vector<at::Tensor>& x) {
          const at::Tensor mask = x.back().to(x[0].scalar_type()) * -10000.0;
          if (x[0].device() == npu()) return std::get<0>(mha(x, mask, biases));
          return reference(x, mask, biases);
        },
        in, kTol, kTol);
  }
}

TEST(NpuMultiHeadAttention, ReturnsTheIntermediatesAndIsOneKernelPerDirection) {
  std::vector<at::Tensor> in = randomInputs();
  const at::Tensor mask = at::zeros({B, H, T, S}).to(at::kHalf).to(npu());
  std::vector<at::Tensor> dev;
  for (const at::Tensor& t : in) dev.push_back(t.to(npu()).requires_grad_());
  OpRecorder rec;
  auto [y, bits, q_res, k_res, v_res, scores, res, context] = mha(dev, mask, true);
  EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"MultiHeadAttention"}) << rec.summary();
  EXPECT_EQ(q_res.sizes(), (std::vector<int64_t>{B, H, T, D}));
  EXPECT_EQ(k_res.sizes(), (std::vector<int64_t>{B, H, S, D}));
  EXPECT_EQ(scores.scalar_type(), at::kFloat) << "softmax_use_float keeps attn_scores in float32";
  EXPECT_EQ(bits.numel(), (B * H * T * S + 127) / 128 * 16);
  EXPECT_TRUE(unpackBits(bits).eq(1).all().item<bool>()) << "dropout_prob 0 keeps everything";
  std::vector<at::Tensor> f;
  for (const at::Tensor& t : in) f.push_back(t.to(at::kFloat));
  const at::Tensor q_ref = heads(at::linear(f[0], f[3], f[7]), T) / std::sqrt(double(D));
  expectClose(q_res.cpu().to(at::kFloat), q_ref, kTol, kTol);
  const at::Tensor p = at::softmax(at::matmul(q_ref, heads(at::linear(f[1], f[4], f[8]), S).transpose(-1, -2)), -1);
  expectClose(scores.cpu(), p, kTol, kTol);
  expectClose(context.cpu().to(at::kFloat),
              at::matmul(p, heads(at::linear(f[2], f[5], f[9]), S)).permute({0, 2, 1, 3}).reshape({B * T, E}), kTol,
              kTol);
  y.sum().backward();
  EXPECT_EQ(rec.count("MultiHeadAttentionGrad"), 1) << rec.summary();
  EXPECT_EQ(dev[7].grad().sizes(), (std::vector<int64_t>{E})) << "the [1, E] bias gradient summed to the bias";
}

// dropout_prob > 0: the mask drawn (or given) is returned and applied in both directions.
TEST(NpuMultiHeadAttention, DropoutByTheReturnedBitMask) {
  const double p_drop = 0.25;
  std::vector<at::Tensor> in = randomInputs();
  const at::Tensor mask = at::zeros({B, 1, T, S}).to(at::kHalf);
  std::vector<at::Tensor> dev, cpu;
  for (const at::Tensor& t : in) {
    dev.push_back(t.to(npu()).requires_grad_());
    cpu.push_back(t.to(at::kFloat).requires_grad_());
  }
  auto out = mha(dev, mask.to(npu()), true, {}, p_drop);
  const at::Tensor keep = unpackBits(std::get<1>(out));
  EXPECT_NEAR(keep.mean().item<double>(), 1 - p_drop, 0.03);
  const at::Tensor ref = reference(cpu, mask.to(at::kFloat), true, keep / (1 - p_drop));
  expectClose(std::get<0>(out).cpu().to(at::kFloat), ref.detach(), kTol, kTol);
  const at::Tensor dy = at::randn(ref.sizes()).to(at::kHalf);
  ref.backward(dy.to(at::kFloat));
  std::get<0>(out).backward(dy.to(npu()));
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE("grad of input " + std::to_string(i));
    expectClose(dev[i].grad().cpu().to(at::kFloat), cpu[i].grad(), kTol, kTol);
  }
  // The same mask given back reproduces y.
  auto again = mha(dev, mask.to(npu()), true, std::get<1>(out), p_drop);
  EXPECT_TRUE(at::equal(std::get<0>(again).cpu(), std::get<0>(out).cpu()));
}

TEST(NpuMultiHeadAttention, RejectsWhatTorchNpuRejects) {
  std::vector<at::Tensor> in = randomInputs();
  for (at::Tensor& t : in) t = t.to(npu());
  const at::Tensor mask = at::zeros({B, H, T, S}).to(at::kHalf).to(npu());
  EXPECT_THROW_WITH(mha(in, mask, true, {}, 0.0, 8), "multiples of 16");
  std::vector<at::Tensor> fp32 = in;
  fp32[0] = fp32[0].to(at::kFloat);
  EXPECT_THROW_WITH(mha(fp32, mask, true), "query must be float16");
  EXPECT_THROW_WITH(mha(in, mask, true, at::zeros({3}, at::kByte).to(npu()), 0.1),
                    "bit mask of [B, H, tgt_len, src_len]");
  EXPECT_THROW_WITH(mha(in, mask, true, {}, 1.0), "dropout_prob must be in [0, 1)");
  EXPECT_THROW_WITH(mha(in, at::zeros({B, 2, T, S}).to(at::kHalf).to(npu()), true), "does not broadcast");
}
