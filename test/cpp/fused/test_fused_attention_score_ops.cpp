// npu::npu_fused_attention_score (+ _fwd, _backward) against the CPU
// composition softmax(scale * q k^T + mask) (dropped) v with the heads merged
// back, forward and backward: one AttentionScore (after DropOutGenMaskV3) and
// one AttentionScoreGrad, the byte drop mask, the gradients' [B, N, S, D]
// views, and the errors torch_npu's constraints give.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Fwd = std::tuple<at::Tensor, at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                                           const at::Tensor&, const at::Scalar&, double, bool, bool,
                                                           bool, bool, bool, bool);
using Bwd = std::tuple<at::Tensor, at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                                           const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                                           const at::Scalar&, double, bool, bool, bool, bool);
using Score = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Scalar&,
                         double, bool, bool, bool, bool, bool, bool);

template <typename Sig>
c10::TypedOperatorHandle<Sig> op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

at::Tensor fusedScore(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                      double scale, double keep, bool query_transpose = false) {
  return op<Score>("npu::npu_fused_attention_score")
      .call(q, k, v, mask, scale, keep, query_transpose, false, false, false, false, false);
}

// The composition: [B * Sq, N * D] context of softmax(scale * q k^T + mask) * drop / keep times v.
at::Tensor reference(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                     double scale, const c10::optional<at::Tensor>& drop = c10::nullopt, double keep = 1.0) {
  at::Tensor p = at::softmax(at::matmul(q, k.transpose(-1, -2)) * scale + mask, -1);
  if (drop) p = p * *drop / keep;
  const at::Tensor ctx = at::matmul(p, v).permute({0, 2, 1, 3});
  return ctx.reshape({q.size(0) * q.size(2), q.size(1) * q.size(3)});
}

// inputs: q, k, v (fp16), masked (bool) -> the additive mask is -10000 where masked.
TensorFn fusedOrReference(double scale) {
  return [=](const std::vector<at::Tensor>& in) {
    const at::Tensor mask = in[3].to(in[0].scalar_type()) * -10000.0;
    if (in[0].device() == npu()) return fusedScore(in[0], in[1], in[2], mask, scale, 1.0);
    return reference(in[0], in[1], in[2], mask, scale);
  };
}

// fp16 throughout; the gradient starts from the fp16 softmax_output.
constexpr double kTol = 8e-3;

}  // namespace

TEST(NpuFusedAttentionScore, MatchesTheCompositionForwardAndBackward) {
  for (const auto& shape : {std::vector<int64_t>{2, 3, 16, 16, 16}, std::vector<int64_t>{1, 2, 24, 40, 32},
                            std::vector<int64_t>{2, 1, 7, 5, 16}}) {
    const int64_t B = shape[0], N = shape[1], Sq = shape[2], Skv = shape[3], D = shape[4];
    SCOPED_TRACE("B N Sq Skv D " + c10::str(at::IntArrayRef(shape)));
    expectSameAutograd(fusedOrReference(0.125),
                       {at::randn({B, N, Sq, D}).to(at::kHalf), at::randn({B, N, Skv, D}).to(at::kHalf),
                        at::randn({B, N, Skv, D}).to(at::kHalf), at::rand({B, 1, Sq, Skv}) < 0.2},
                       kTol, kTol);
  }
}

TEST(NpuFusedAttentionScore, IsOneKernelPerDirection) {
  const at::Tensor q = at::randn({2, 2, 16, 16}).to(at::kHalf).to(npu()).requires_grad_();
  const at::Tensor mask = at::zeros({2, 1, 16, 16}).to(at::kHalf).to(npu());
  OpRecorder rec;
  at::Tensor out = fusedScore(q, q, q, mask, 0.25, 1.0);
  EXPECT_EQ(rec.opTypes(), (std::vector<std::string>{"DropOutGenMaskV3", "AttentionScore"})) << rec.summary();
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{32, 32}));
  out.sum().backward();
  EXPECT_EQ(rec.count("AttentionScoreGrad"), 1) << rec.summary();
  EXPECT_EQ(rec.count("BatchMatMul") + rec.count("SoftmaxV2"), 0) << rec.summary();
}

// _fwd returns the byte drop mask it applied; _backward takes it back.
TEST(NpuFusedAttentionScore, DropoutByTheReturnedByteMask) {
  const int64_t B = 2, N = 2, S = 16, D = 16;
  const double keep = 0.7, scale = 0.25;
  const at::Tensor q = at::randn({B, N, S, D}).to(at::kHalf), k = at::randn({B, N, S, D}).to(at::kHalf),
                   v = at::randn({B, N, S, D}).to(at::kHalf), mask = at::zeros({B, 1, S, S}).to(at::kHalf);
  auto [score, softmax, drop] = op<Fwd>("npu::npu_fused_attention_score_fwd")
                                    .call(q.to(npu()), k.to(npu()), v.to(npu()), mask.to(npu()), scale, keep, false,
                                          false, false, false, false, false);
  ASSERT_EQ(drop.scalar_type(), at::kByte);
  ASSERT_EQ(drop.sizes(), (std::vector<int64_t>{B * N * S * S}));
  const at::Tensor kept = drop.cpu().view({B, N, S, S}).to(at::kFloat);
  EXPECT_TRUE(at::logical_or(kept == 0, kept == 1).all().item<bool>());
  EXPECT_NEAR(kept.mean().item<double>(), keep, 0.06);
  at::Tensor qc = q.to(at::kFloat).requires_grad_(), kc = k.to(at::kFloat).requires_grad_(),
             vc = v.to(at::kFloat).requires_grad_();
  const at::Tensor ref = reference(qc, kc, vc, mask.to(at::kFloat), scale, kept, keep);
  expectClose(score.cpu().to(at::kFloat), ref.detach(), kTol, kTol);
  expectClose(softmax.cpu().to(at::kFloat), at::softmax(at::matmul(qc, kc.transpose(-1, -2)) * scale, -1).detach(),
              kTol, kTol);
  const at::Tensor dy = at::randn(ref.sizes()).to(at::kHalf);
  ref.backward(dy.to(at::kFloat));
  auto [dq, dk, dv] = op<Bwd>("npu::npu_fused_attention_score_backward")
                          .call(dy.to(npu()), softmax, q.to(npu()), k.to(npu()), v.to(npu()), drop, scale, keep, false,
                                false, false, false);
  EXPECT_EQ(dq.sizes(), q.sizes());
  EXPECT_FALSE(dq.is_contiguous()) << "torch_npu returns [B, N, S, D] views of [B, S, N, D] gradients";
  expectClose(dq.cpu().to(at::kFloat), qc.grad(), 1e-2, 1e-2);
  expectClose(dk.cpu().to(at::kFloat), kc.grad(), 1e-2, 1e-2);
  expectClose(dv.cpu().to(at::kFloat), vc.grad(), 1e-2, 1e-2);
}

TEST(NpuFusedAttentionScore, RejectsWhatTorchNpuRejects) {
  const at::Tensor q = at::randn({1, 2, 16, 16}).to(at::kHalf).to(npu());
  const at::Tensor mask = at::zeros({1, 1, 16, 16}).to(at::kHalf).to(npu());
  EXPECT_THROW_WITH(fusedScore(q.to(at::kFloat), q, q, mask, 1.0, 1.0), "query_layer must be float16");
  EXPECT_THROW_WITH(fusedScore(q, q, q, mask, 1.0, 1.0, true), "query_transpose=True is not supported");
  EXPECT_THROW_WITH(fusedScore(q.view({2, 16, 16}), q, q, mask, 1.0, 1.0), "must be 4-D [B, N, S, D]");
  EXPECT_THROW_WITH(fusedScore(q, q, q, mask, 1.0, 0.0), "keep_prob must be in (0, 1]");
  const at::Tensor no_channels = at::zeros({1, 2, 16, 0}).to(at::kHalf).to(npu());
  EXPECT_THROW_WITH(fusedScore(no_channels, no_channels, no_channels, mask, 1.0, 1.0), "head size D");
  EXPECT_THROW_WITH(fusedScore(q, q, q, at::zeros({1, 3, 16, 16}).to(at::kHalf).to(npu()), 1.0, 1.0),
                    "does not broadcast");
}
