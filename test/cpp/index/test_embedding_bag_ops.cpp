// embedding_bag (_embedding_bag, _embedding_bag_forward_only and the dense
// and per-sample-weights backward) against the CPU: every mode, padding_idx,
// include_last_offset, per-sample weights, int32 indices, 2-D input, empty
// bags, fp16 against the fp32 CPU, and the errors. scale_grad_by_freq is
// checked against nn.Embedding's definition summed per bag: 1.13's CPU
// embedding_bag divides by the count of the wrong row there.
#include <torch/torch.h>

#include "npu_test_util.h"

#include "csrc/core/NPUFunctions.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

namespace F = torch::nn::functional;

// Bags [0, 4), [4, 4) (empty), [4, 9); index 4 appears in two bags, index 2 twice in one.
const at::Tensor& indices() {
  static const at::Tensor t = at::tensor({1, 2, 4, 2, 4, 3, 2, 9, 0}, at::kLong);
  return t;
}
const at::Tensor& offsets() {
  static const at::Tensor t = at::tensor({0, 4, 4}, at::kLong);
  return t;
}

TensorFn bagFn(F::EmbeddingBagFuncOptions options, at::Tensor idx = indices(), at::Tensor off = offsets()) {
  return [=](const std::vector<at::Tensor>& in) {
    F::EmbeddingBagFuncOptions o = options;
    if (off.defined()) o.offsets(off.to(in[0].device()));
    if (in.size() > 1) o.per_sample_weights(in[1]);
    return F::embedding_bag(idx.to(in[0].device()), in[0], o);
  };
}

}  // namespace

TEST(NpuEmbeddingBag, ModesMatchCpu) {
  const at::Tensor w = at::randn({10, 6});
  for (auto mode : std::vector<torch::nn::EmbeddingBagMode>{torch::kSum, torch::kMean, torch::kMax}) {
    SCOPED_TRACE("mode " + std::to_string(mode.index()));  // sum, mean, max
    expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(mode)), {w});
    expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(mode).padding_idx(2)), {w});
    expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(mode).include_last_offset(true), indices(),
                             at::tensor({0, 3, 3, 9}, at::kLong)),
                       {w});
    // 2-D input: equal-sized bags, no offsets; int32 indices and offsets
    expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(mode), at::tensor({1, 2, 3, 4, 4, 9}, at::kLong).view({2, 3}), at::Tensor()),
                       {w});
    expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(mode), indices().to(at::kInt), offsets().to(at::kInt)),
                       {w});
  }
  // a non-contiguous weight
  expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(torch::kSum)), {at::randn({6, 10}).t()});
}

TEST(NpuEmbeddingBag, PerSampleWeightsGradients) {
  const at::Tensor w = at::randn({10, 6}), psw = at::rand({indices().numel()});
  expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(torch::kSum)), {w, psw});
  expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(torch::kSum).padding_idx(4)), {w, psw});
}

TEST(NpuEmbeddingBag, ScaleGradByFreqFollowsTheEmbeddingDefinition) {
  const at::Tensor w = at::randn({10, 6}), psw = at::rand({indices().numel()});
  const at::Tensor bag_of = at::tensor({0, 0, 0, 0, 2, 2, 2, 2, 2}, at::kLong);
  for (bool mean : {false, true}) {
    SCOPED_TRACE(mean ? "mean" : "sum with per-sample weights");
    at::Tensor x = w.to(npu()).requires_grad_(), p = psw.to(npu()).requires_grad_();
    auto options = F::EmbeddingBagFuncOptions().offsets(offsets().to(npu())).scale_grad_by_freq(true).padding_idx(9);
    options.mode(mean ? torch::nn::EmbeddingBagMode(torch::kMean) : torch::nn::EmbeddingBagMode(torch::kSum));
    if (!mean) options.per_sample_weights(p);
    at::Tensor y = F::embedding_bag(indices().to(npu()), x, options);
    // reference: nn.Embedding's lookups, weighted, summed per bag (index_add), averaged for mean
    at::Tensor rx = w.clone().requires_grad_(), rp = psw.clone().requires_grad_();
    at::Tensor rows = F::embedding(indices(), rx, F::EmbeddingFuncOptions().scale_grad_by_freq(true).padding_idx(9));
    rows = rows.masked_fill(indices().eq(9).unsqueeze(1), 0);
    if (!mean) rows = rows * rp.unsqueeze(1);
    at::Tensor ref = at::zeros({3, 6}).index_add(0, bag_of, rows);
    if (mean) ref = ref / at::tensor({4.0f, 1.0f, 4.0f}).unsqueeze(1);  // bag 2 has 4 non-padding positions
    expectClose(y, ref.detach());
    const at::Tensor g = at::randn({3, 6});
    y.backward(g.to(npu()));
    ref.backward(g);
    expectClose(x.grad(), rx.grad());
    if (!mean) expectClose(p.grad(), rp.grad());
  }
}

TEST(NpuEmbeddingBag, HalfAgainstFloatCpu) {
  const at::Tensor w = at::randn({10, 6}).to(at::kHalf);
  for (auto mode : std::vector<torch::nn::EmbeddingBagMode>{torch::kSum, torch::kMean, torch::kMax}) {
    // the bag sums and the gradient sums are rounded once to fp16 (the gradient of a mean: twice)
    expectSameAutograd(bagFn(F::EmbeddingBagFuncOptions().mode(mode)), {w}, 2 * kHalfRtol, 2 * kHalfAtol);
  }
}

TEST(NpuEmbeddingBag, NoGradEmptyAndErrors) {
  {
    torch::NoGradGuard no_grad;  // _embedding_bag_forward_only
    const at::Tensor in = at::tensor({1, 2, 3, 3}, at::kLong).view({2, 2}), weight = at::randn({10, 4});
    const auto options = F::EmbeddingBagFuncOptions().mode(torch::kMax);
    expectClose(F::embedding_bag(in.to(npu()), weight.to(npu()), options), F::embedding_bag(in, weight, options));
  }
  // no bags, and bags without positions
  const at::Tensor w = at::randn({10, 4}).to(npu()).requires_grad_();
  const at::Tensor no_index = at::empty({0}, at::kLong).to(npu());
  at::Tensor none = std::get<0>(at::embedding_bag(w, no_index, no_index));  // (the functional API wants offsets[0])
  EXPECT_EQ(none.sizes(), (at::IntArrayRef{0, 4}));
  at::Tensor empty_bags = F::embedding_bag(at::empty({0}, at::kLong).to(npu()), w,
                                           F::EmbeddingBagFuncOptions().offsets(at::zeros({3}, at::kLong).to(npu())).mode(torch::kMax));
  empty_bags.sum().backward();
  expectClose(empty_bags, at::zeros({3, 4}));
  expectClose(w.grad(), at::zeros({10, 4}));

  EXPECT_THROW_WITH(F::embedding_bag(indices().to(npu()), w, F::EmbeddingBagFuncOptions().offsets(offsets().to(npu())).sparse(true)),
                    "sparse gradients (sparse=True) are not supported by the NPU backend");
  EXPECT_THROW_WITH(
      {
        F::embedding_bag(at::tensor({1, 12}).to(npu()), w.detach(), F::EmbeddingBagFuncOptions().offsets(at::tensor({0}).to(npu())));
        torch_npu::synchronize(0);
      },
      "index 12 is out of range for 10 embedding rows");
}
