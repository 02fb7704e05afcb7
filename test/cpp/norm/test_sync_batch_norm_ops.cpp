// SyncBatchNorm's five ops (Note [SyncBatchNorm on the NPU]). They have no CPU kernels; the
// reference is what they implement together: batch norm over the whole batch. The batch is split
// into two "ranks" of different sizes, each runs the ops SyncBatchNorm runs, the collectives are
// done by hand (a stack for the all-gather, a sum for the all-reduce), and the output, the input,
// weight and bias gradients and the running statistics must match the CPU's batch norm of the
// whole batch.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

struct SyncBnResult {
  at::Tensor out, grad_input, grad_weight, grad_bias, running_mean, running_var;
};

SyncBnResult syncBatchNormOnTwoRanks(const at::Tensor& x, const at::Tensor& dy, const at::Tensor& weight,
                                     const at::Tensor& bias, int64_t split, double momentum, double eps) {
  const std::vector<at::Tensor> xs = {x.narrow(0, 0, split).to(npu()), x.narrow(0, split, x.size(0) - split).to(npu())};
  const std::vector<at::Tensor> dys = {dy.narrow(0, 0, split).to(npu()),
                                       dy.narrow(0, split, x.size(0) - split).to(npu())};
  const at::Tensor w = weight.to(npu()), b = bias.to(npu());
  at::Tensor running_mean = at::zeros({x.size(1)}, at::TensorOptions().device(npu()));
  at::Tensor running_var = at::ones({x.size(1)}, at::TensorOptions().device(npu()));
  std::vector<at::Tensor> means, invstds, counts;
  for (const auto& part : xs) {
    const auto [mean, invstd] = at::batch_norm_stats(part, eps);
    EXPECT_EQ(mean.scalar_type(), at::kFloat);
    means.push_back(mean);
    invstds.push_back(invstd);
    counts.push_back(at::full({1}, part.numel() / part.size(1), mean.options()));
  }
  const auto [mean, invstd] = at::batch_norm_gather_stats_with_counts(
      xs[0], at::stack(means), at::stack(invstds), running_mean, running_var, momentum, eps, at::cat(counts));
  SyncBnResult r;
  std::vector<at::Tensor> outs, sum_dys, sum_dy_xmus, grad_ws, grad_bs;
  for (size_t k = 0; k < xs.size(); ++k) {
    outs.push_back(at::batch_norm_elemt(xs[k], w, b, mean, invstd, eps));
    const auto [sum_dy, sum_dy_xmu, gw, gb] =
        at::batch_norm_backward_reduce(dys[k], xs[k], mean, invstd, w, true, true, true);
    sum_dys.push_back(sum_dy);
    sum_dy_xmus.push_back(sum_dy_xmu);
    grad_ws.push_back(gw);
    grad_bs.push_back(gb);
  }
  const at::Tensor sum_dy = sum_dys[0] + sum_dys[1], sum_dy_xmu = sum_dy_xmus[0] + sum_dy_xmus[1];  // all-reduce
  const at::Tensor count = at::cat(counts).to(at::kInt);
  std::vector<at::Tensor> grads;
  for (size_t k = 0; k < xs.size(); ++k) {
    grads.push_back(at::batch_norm_backward_elemt(dys[k], xs[k], mean, invstd, w, sum_dy, sum_dy_xmu, count));
  }
  return {at::cat(outs), at::cat(grads), grad_ws[0] + grad_ws[1], grad_bs[0] + grad_bs[1], running_mean, running_var};
}

}  // namespace

TEST(NpuSyncBatchNorm, TwoRanksComputeTheWholeBatchsBatchNorm) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{6, 3, 4, 5}, std::vector<int64_t>{7, 4, 9},
                                            std::vector<int64_t>{5, 8}}) {
    SCOPED_TRACE("shape " + c10::str(at::IntArrayRef(shape)));
    const double momentum = 0.1, eps = 1e-5;
    const at::Tensor x = at::randn(shape) * 3 + 1, dy = at::randn(shape);
    const at::Tensor weight = at::rand({shape[1]}) + 0.5, bias = at::randn({shape[1]});
    const auto r = syncBatchNormOnTwoRanks(x, dy, weight, bias, shape[0] - 2, momentum, eps);

    at::Tensor cx = x.clone().requires_grad_(), cw = weight.clone().requires_grad_(), cb = bias.clone().requires_grad_();
    at::Tensor rm = at::zeros({shape[1]}), rv = at::ones({shape[1]});
    at::Tensor out = at::batch_norm(cx, cw, cb, rm, rv, /*training=*/true, momentum, eps, false);
    out.backward(dy);
    expectClose(r.out, out.detach(), 1e-4, 1e-5);
    expectClose(r.grad_input, cx.grad(), 1e-4, 1e-5);
    expectClose(r.grad_weight, cw.grad(), 1e-4, 1e-4);
    expectClose(r.grad_bias, cb.grad(), 1e-4, 1e-4);
    expectClose(r.running_mean, rm, 1e-5, 1e-6);
    expectClose(r.running_var, rv, 1e-5, 1e-6);
  }
}

TEST(NpuSyncBatchNorm, HalfInputsKeepFp32StatisticsAndTheFlagsSkipOutputs) {
  const at::Tensor x = at::randn({4, 3, 5}).to(at::kHalf);
  const auto [mean, invstd] = at::batch_norm_stats(x.to(npu()), 1e-5);
  EXPECT_EQ(mean.scalar_type(), at::kFloat);
  const at::Tensor xf = x.to(at::kFloat);
  expectClose(mean, xf.mean(at::IntArrayRef{0, 2}), 1e-5, 1e-5);
  expectClose(invstd, (xf.var(at::IntArrayRef{0, 2}, /*unbiased=*/false) + 1e-5).rsqrt(), 1e-4, 1e-4);
  const at::Tensor y = at::batch_norm_elemt(x.to(npu()), {}, {}, mean, invstd, 1e-5);
  EXPECT_EQ(y.scalar_type(), at::kHalf);
  const auto [sum_dy, sum_dy_xmu, gw, gb] =
      at::batch_norm_backward_reduce(x.to(npu()), x.to(npu()), mean, invstd, {}, false, false, true);
  EXPECT_FALSE(sum_dy.defined());
  EXPECT_FALSE(gw.defined());
  expectClose(gb, xf.sum(at::IntArrayRef{0, 2}), 1e-3, 1e-3);
  EXPECT_THROW(at::batch_norm_stats(at::ones({4}, at::TensorOptions().device(npu())), 1e-5), c10::Error);
}
