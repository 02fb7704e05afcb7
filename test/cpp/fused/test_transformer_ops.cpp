// The ops transformers and language models add to the CNN set: triu/tril,
// baddbmm/addbmm, embedding backward and renorm, layer norm — against the CPU.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

at::Tensor randnOf(at::IntArrayRef sizes, at::ScalarType dtype) { return at::randn(sizes).to(dtype); }

TEST(NpuTriangularOps, TriuTrilMatchCpu) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kLong, at::kBool}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randint(-5, 5, {2, 3, 4, 6}).to(dtype);
    for (int64_t diagonal : {-7, -1, 0, 2, 9}) {
      expectClose(at::triu(x.to(npu()), diagonal), at::triu(x, diagonal));
      expectClose(at::tril(x.to(npu()), diagonal), at::tril(x, diagonal));
    }
    // non-contiguous input, in-place, out= with a wrong-sized out
    expectClose(at::triu(x.transpose(-1, -2).to(npu()), 1), at::triu(x.transpose(-1, -2), 1));
    at::Tensor inplace = x.to(npu());
    inplace.tril_(-1);
    expectClose(inplace, at::tril(x, -1));
    at::Tensor out = at::empty({0}, x.options().device(npu()));
    at::triu_out(out, x.to(npu()));
    expectClose(out, at::triu(x));
  }
  expectClose(at::triu(at::ones({0, 3}).to(npu())), at::triu(at::ones({0, 3})));
  EXPECT_THROW_WITH(at::triu(at::ones({3}).to(npu())), "triu: input tensor must have at least 2 dimensions, got 1");
  // The causal mask of nn.Transformer: -inf above the diagonal, and its gradient.
  expectSameAutograd([](const std::vector<at::Tensor>& v) { return at::triu(v[0], 1); }, {at::randn({5, 5})});
  expectSameAutograd([](const std::vector<at::Tensor>& v) { return at::tril(v[0]); }, {at::randn({2, 4, 3})});
}

TEST(NpuBatchMatmulOps, BaddbmmAndAddbmmMatchCpu) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = rtolTwoRoundings(dtype) * 4, atol = atolTwoRoundings(dtype) * 4;
    const at::Tensor self = randnOf({3, 4, 5}, dtype), b1 = randnOf({3, 4, 6}, dtype), b2 = randnOf({3, 6, 5}, dtype);
    // The reference is spelled out: 1.13's CPU baddbmm with beta = 0 may read its uninitialised
    // output (NaN * 0), so it is not a reliable reference for that case.
    auto ref = [&](double beta, double alpha) {
      at::Tensor r = at::bmm(b1.to(at::kFloat), b2.to(at::kFloat)).mul(alpha);
      return (beta == 0 ? r : r.add(self.to(at::kFloat).mul(beta))).to(dtype);
    };
    for (auto [beta, alpha] : std::vector<std::pair<double, double>>{{1, 1}, {0.5, 2}, {0, 1}}) {
      SCOPED_TRACE("beta " + std::to_string(beta) + " alpha " + std::to_string(alpha));
      expectClose(at::baddbmm(self.to(npu()), b1.to(npu()), b2.to(npu()), beta, alpha), ref(beta, alpha), rtol, atol);
    }
    // beta = 0 ignores NaN in self, as on the CPU; a broadcast self; in-place.
    SCOPED_TRACE("nan self / broadcast / in-place / addbmm");
    const at::Tensor nan_self = at::full({3, 4, 5}, NAN).to(dtype);
    expectClose(at::baddbmm(nan_self.to(npu()), b1.to(npu()), b2.to(npu()), 0), ref(1, 1).sub(self), rtol, atol);
    expectClose(at::baddbmm(self.select(0, 0).to(npu()), b1.to(npu()), b2.to(npu())),
                at::baddbmm(self.select(0, 0).to(at::kFloat), b1.to(at::kFloat), b2.to(at::kFloat)).to(dtype), rtol,
                atol);
    at::Tensor inplace = self.to(npu());
    inplace.baddbmm_(b1.to(npu()), b2.to(npu()), 0.5, 2);
    expectClose(inplace, ref(0.5, 2), rtol, atol);
    // addbmm sums over the batch.
    const at::Tensor s2 = randnOf({4, 5}, dtype);
    expectClose(at::addbmm(s2.to(npu()), b1.to(npu()), b2.to(npu()), 0.5, 2),
                at::addbmm(s2.to(at::kFloat), b1.to(at::kFloat), b2.to(at::kFloat), 0.5, 2).to(dtype), rtol, atol);
  }
  // Transposed batch operands (autograd's backward) run without materialising them.
  const at::Tensor a = at::randn({3, 6, 4}), b = at::randn({3, 5, 6});
  {
    OpRecorder rec;
    expectClose(at::bmm(a.transpose(1, 2).to(npu()), b.transpose(1, 2).to(npu())),
                at::bmm(a.transpose(1, 2), b.transpose(1, 2)), 1e-4, 1e-4);
    EXPECT_EQ(rec.count("AsStrided"), 0) << rec.summary();
  }
  // Empty batch and empty K.
  expectClose(at::baddbmm(at::ones({0, 2, 3}).to(npu()), at::ones({0, 2, 4}).to(npu()), at::ones({0, 4, 3}).to(npu())),
              at::ones({0, 2, 3}));
  expectClose(at::baddbmm(at::ones({2, 2, 3}).to(npu()), at::ones({2, 2, 0}).to(npu()), at::ones({2, 0, 3}).to(npu())),
              at::ones({2, 2, 3}));
  EXPECT_THROW_WITH(at::baddbmm(at::ones({2, 2, 3}).to(npu()), at::ones({2, 2, 4}).to(npu()),
                                at::ones({2, 5, 3}).to(npu())),
                    "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5]");
  expectSameAutograd(
      [](const std::vector<at::Tensor>& v) { return at::baddbmm(v[0], v[1], v[2], 0.5, 1.5); },
      {at::randn({2, 3, 4}), at::randn({2, 3, 5}), at::randn({2, 5, 4})}, 1e-4, 1e-4);
  expectSameAutograd([](const std::vector<at::Tensor>& v) { return at::addbmm(v[0], v[1], v[2]); },
                     {at::randn({3, 4}), at::randn({2, 3, 5}), at::randn({2, 5, 4})}, 1e-4, 1e-4);
}

TEST(NpuEmbeddingOps, BackwardWithPaddingScaleAndRenorm) {
  const at::Tensor indices = at::tensor({0, 3, 5, 3, 2, 0, 3, 9}, at::kLong).reshape({2, 4});
  for (auto dtype : floatAndHalf()) {
    for (bool scale : {false, true}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + (scale ? " scale_grad_by_freq" : ""));
      const at::Tensor grad = randnOf({2, 4, 7}, dtype);
      for (int64_t padding_idx : {-1, 3}) {
        expectClose(at::embedding_dense_backward(grad.to(npu()), indices.to(npu()), 10, padding_idx, scale),
                    at::embedding_dense_backward(grad.to(at::kFloat), indices, 10, padding_idx, scale).to(dtype),
                    rtolFor(dtype), atolFor(dtype) * 4);
      }
    }
  }
  // Through autograd: nn.Embedding with padding_idx, int32 indices.
  expectSameAutograd(
      [](const std::vector<at::Tensor>& v) {
        return at::embedding(v[0], at::tensor({1, 4, 1, 0}, at::kInt).to(v[0].device()), /*padding_idx=*/0);
      },
      {at::randn({6, 3})});
  // max_norm: embedding_renorm_ rescales the looked-up rows in place.
  const at::Tensor weight = at::randn({10, 4}).mul(3);
  for (double p : {2.0, 1.0, 0.0, static_cast<double>(INFINITY)}) {  // 0 and inf as torch.norm: nonzero count, max |x|
    SCOPED_TRACE(p);
    at::Tensor cpu_w = weight.clone(), npu_w = weight.to(npu());
    at::embedding_renorm_(cpu_w, indices, 1.5, p);
    at::embedding_renorm_(npu_w, indices.to(npu()), 1.5, p);
    expectClose(npu_w, cpu_w, 1e-4, 1e-5);
  }
  EXPECT_THROW_WITH(at::embedding_dense_backward(at::ones({2, 3}).to(npu()), at::ones({2}).to(npu()), 4, -1, false),
                    "expected indices of dtype Long or Int");
  expectClose(at::embedding_dense_backward(at::ones({0, 3}).to(npu()), at::ones({0}, at::kLong).to(npu()), 4, -1,
                                           false),
              at::zeros({4, 3}));
}

TEST(NpuLayerNormOps, ForwardBackwardMatchCpu) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = rtolTwoRoundings(dtype) * 2, atol = atolTwoRoundings(dtype) * 4;
    for (bool affine : {true, false}) {
      const at::Tensor x = randnOf({3, 5, 16}, dtype).mul(2).add(1);
      const std::vector<at::Tensor> inputs =
          affine ? std::vector<at::Tensor>{x, at::rand({16}).add(0.5).to(dtype), at::randn({16}).to(dtype)}
                 : std::vector<at::Tensor>{x};
      expectSameAutograd(
          [affine](const std::vector<at::Tensor>& v) {
            return at::layer_norm(v[0], {16}, affine ? v[1] : at::Tensor(), affine ? v[2] : at::Tensor(), 1e-5);
          },
          inputs, rtol, atol);
    }
    // Normalising over the last two dims; the saved statistics.
    const at::Tensor x = randnOf({4, 3, 6}, dtype);
    auto npu_res = at::native_layer_norm(x.to(npu()), {3, 6}, {}, {}, 1e-5);
    auto cpu_res = at::native_layer_norm(x.to(at::kFloat), {3, 6}, {}, {}, 1e-5);
    expectClose(std::get<0>(npu_res), std::get<0>(cpu_res).to(dtype), rtol, atol);
    expectClose(std::get<1>(npu_res), std::get<1>(cpu_res), 1e-4, 1e-3);
    expectClose(std::get<2>(npu_res), std::get<2>(cpu_res), 1e-3, 1e-3);
    EXPECT_EQ(std::get<1>(npu_res).scalar_type(), at::kFloat);  // fp32 statistics for fp16 inputs
  }
  // fp16 input with fp32 weight and bias (AMP's master weights): the parameters' gradients are fp32
  // sums, as the fp32 computation on the widened input gives them, not fp16-rounded ones.
  {
    const at::Tensor x = at::randn({6, 32}).mul(3).to(at::kHalf), dy = at::randn({6, 32}).to(at::kHalf);
    const at::Tensor w = at::rand({32}).add(0.5), b = at::randn({32});
    auto npu_out = at::native_layer_norm(x.to(npu()), {32}, w.to(npu()), b.to(npu()), 1e-5);
    auto cpu_out = at::native_layer_norm(x.to(at::kFloat), {32}, w, b, 1e-5);
    expectClose(std::get<0>(npu_out), std::get<0>(cpu_out).to(at::kHalf), 1e-3, 1e-3);
    auto npu_grads = at::native_layer_norm_backward(dy.to(npu()), x.to(npu()), {32}, std::get<1>(npu_out),
                                                    std::get<2>(npu_out), w.to(npu()), b.to(npu()),
                                                    {true, true, true});
    auto cpu_grads = at::native_layer_norm_backward(dy.to(at::kFloat), x.to(at::kFloat), {32}, std::get<1>(cpu_out),
                                                    std::get<2>(cpu_out), w, b, {true, true, true});
    EXPECT_EQ(std::get<0>(npu_grads).scalar_type(), at::kHalf);
    EXPECT_EQ(std::get<1>(npu_grads).scalar_type(), at::kFloat);
    expectClose(std::get<0>(npu_grads), std::get<0>(cpu_grads).to(at::kHalf), 2e-3, 2e-3);
    expectClose(std::get<1>(npu_grads), std::get<1>(cpu_grads), 2e-5, 2e-5);
    expectClose(std::get<2>(npu_grads), std::get<2>(cpu_grads), 2e-5, 2e-5);
  }
  // Non-contiguous input, empty batch, bad shapes.
  const at::Tensor xt = at::randn({8, 5}).t();
  expectClose(at::layer_norm(xt.to(npu()), {8}), at::layer_norm(xt, {8}), 1e-4, 1e-5);
  expectClose(at::layer_norm(at::ones({0, 8}).to(npu()), {8}), at::ones({0, 8}));
  EXPECT_THROW_WITH(at::layer_norm(at::ones({2, 8}).to(npu()), {7}), "Given normalized_shape=[7]");
}

TEST(NpuAttentionOps, ScaledDotProductAttentionMatchesCpu) {
  const at::Tensor q = at::randn({2, 3, 5, 8}), k = at::randn({2, 3, 6, 8}), v = at::randn({2, 3, 6, 8});
  const at::Tensor mask = at::randn({5, 6});
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "masked");
    auto run = [&](const std::vector<at::Tensor>& t) {
      const c10::optional<at::Tensor> m = causal ? c10::nullopt : c10::optional<at::Tensor>(t[3]);
      return std::get<0>(at::_scaled_dot_product_attention(t[0], t[1], t[2], m, 0.0,
                                                           false, causal));
    };
    expectSameAutograd(run, causal ? std::vector<at::Tensor>{q, k, v} : std::vector<at::Tensor>{q, k, v, mask}, 1e-4,
                       1e-5);
  }
}

TEST(NpuAttentionOps, NestedTensorMaskLeftAligned) {
  const at::Tensor t = at::zeros({2, 4, 3});
  for (const std::vector<int64_t>& rows : std::vector<std::vector<int64_t>>{
           {1, 1, 0, 0, 1, 1, 1, 1}, {1, 0, 1, 0, 1, 1, 1, 0}, {0, 0, 0, 0, 1, 0, 0, 0}}) {
    const at::Tensor m = at::tensor(rows).reshape({2, 4}).to(at::kBool);
    EXPECT_EQ(at::_nested_tensor_from_mask_left_aligned(t.to(npu()), m.to(npu())),
              at::_nested_tensor_from_mask_left_aligned(t, m));
  }
}

}  // namespace
