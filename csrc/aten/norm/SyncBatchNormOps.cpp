// The five ops of nn.SyncBatchNorm (batch_norm_stats, batch_norm_gather_stats_with_counts,
// batch_norm_elemt, batch_norm_backward_reduce, batch_norm_backward_elemt), which torch 1.13 has
// for CUDA only.
//
// Note [SyncBatchNorm on the NPU]
// SyncBatchNorm splits batch norm around two collectives: each rank computes its per-channel mean
// and invstd (batch_norm_stats), the ranks all-gather them with their counts and combine them into
// the global statistics (batch_norm_gather_stats_with_counts, which also updates the running
// statistics with the unbiased variance), and each rank normalizes its part (batch_norm_elemt). In
// backward each rank reduces sum(dy) and sum(dy * (x - mean)) per channel
// (batch_norm_backward_reduce), the ranks all-reduce them, and each computes its input gradient
// (batch_norm_backward_elemt) with the total count. The kernels compose the NPU's reductions and
// elementwise ops, as CUDA's compute them: statistics in fp32 for fp16/bf16 inputs (the dtype of
// the returned mean and invstd), normalization in the input's dtype. Channels are dim 1.
#include <ATen/ATen.h>
#include <ATen/OpMathType.h>
#include <ATen/native/Resize.h>

#include <numeric>
#include <vector>

#include "PrivateUse1NativeFunctions.h"

namespace at_npu {
namespace native {
namespace {

// Every dim but the channel dim.
std::vector<int64_t> reduceDims(const at::Tensor& input) {
  std::vector<int64_t> dims(static_cast<size_t>(input.dim()));
  std::iota(dims.begin(), dims.end(), 0);
  dims.erase(dims.begin() + 1);
  return dims;
}

// A [C] per-channel tensor shaped to broadcast against `input` along dim 1.
at::Tensor perChannel(const at::Tensor& values, const at::Tensor& input) {
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = values.numel();
  return values.view(shape);
}

at::ScalarType statsType(const at::Tensor& input) { return at::toOpMathType(input.scalar_type()); }

void checkInput(const at::Tensor& input, const char* op) {
  TORCH_CHECK(input.dim() >= 2, op, ": expected an input with a channel dim (at least 2-D), got ", input.dim(), "-D");
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::batch_norm_stats(const at::Tensor& input, double eps) {
  checkInput(input, "batch_norm_stats");
  const at::Tensor x = input.to(statsType(input));
  const auto dims = reduceDims(x);
  const at::Tensor mean = x.mean(dims);
  const at::Tensor var = (x - perChannel(mean, x)).square().mean(dims);  // biased, as for normalization
  return {mean, (var + eps).rsqrt()};
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::batch_norm_gather_stats_with_counts(
    const at::Tensor& input, const at::Tensor& mean, const at::Tensor& invstd,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var, double momentum,
    double eps, const at::Tensor& counts) {
  TORCH_CHECK(mean.dim() == 2 && invstd.sizes() == mean.sizes(),
              "batch_norm_gather_stats_with_counts: expected mean and invstd of shape [world, C], got ", mean.sizes(),
              " and ", invstd.sizes());
  TORCH_CHECK(counts.numel() == mean.size(0), "batch_norm_gather_stats_with_counts: expected ", mean.size(0),
              " counts, got ", counts.numel());
  const at::Tensor n = counts.to(mean.scalar_type()).view({-1, 1});
  const at::Tensor total = n.sum();
  const at::Tensor global_mean = (mean * n).sum(0) / total;
  const at::Tensor rank_var = invstd.square().reciprocal() - eps;
  const at::Tensor global_var = (n * (rank_var + (mean - global_mean).square())).sum(0) / total;
  const at::Tensor global_invstd = (global_var + eps).rsqrt();
  if (running_mean.has_value() && running_mean->defined()) {
    running_mean->mul_(1 - momentum).add_(global_mean.to(running_mean->scalar_type()), momentum);
  }
  if (running_var.has_value() && running_var->defined()) {
    const at::Tensor unbiased = global_var * total / (total - 1);
    running_var->mul_(1 - momentum).add_(unbiased.to(running_var->scalar_type()), momentum);
  }
  (void)input;  // its dtype and device are those of the statistics already
  return {global_mean, global_invstd};
}

at::Tensor NPUNativeFunctions::batch_norm_elemt(const at::Tensor& input, const c10::optional<at::Tensor>& weight,
                                               const c10::optional<at::Tensor>& bias, const at::Tensor& mean,
                                               const at::Tensor& invstd, double eps) {
  checkInput(input, "batch_norm_elemt");
  (void)eps;  // invstd already holds it
  at::Tensor out = (input.to(mean.scalar_type()) - perChannel(mean, input)) * perChannel(invstd, input);
  if (weight.has_value() && weight->defined()) out = out * perChannel(weight->to(out.scalar_type()), input);
  if (bias.has_value() && bias->defined()) out = out + perChannel(bias->to(out.scalar_type()), input);
  return out.to(input.scalar_type());
}

at::Tensor& NPUNativeFunctions::batch_norm_elemt_out(const at::Tensor& input, const c10::optional<at::Tensor>& weight,
                                                    const c10::optional<at::Tensor>& bias, const at::Tensor& mean,
                                                    const at::Tensor& invstd, double eps, at::Tensor& out) {
  at::Tensor result = batch_norm_elemt(input, weight, bias, mean, invstd, eps);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::batch_norm_backward_reduce(
    const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& mean, const at::Tensor& invstd,
    const c10::optional<at::Tensor>& weight, bool input_g, bool weight_g, bool bias_g) {
  checkInput(input, "batch_norm_backward_reduce");
  const auto dims = reduceDims(input);
  const at::Tensor dy = grad_out.to(mean.scalar_type());
  const at::Tensor sum_dy = dy.sum(dims);
  const at::Tensor sum_dy_xmu = (dy * (input.to(mean.scalar_type()) - perChannel(mean, input))).sum(dims);
  const auto weight_type = weight.has_value() && weight->defined() ? weight->scalar_type() : mean.scalar_type();
  at::Tensor grad_weight, grad_bias;
  if (weight_g) grad_weight = (sum_dy_xmu * invstd).to(weight_type);
  if (bias_g) grad_bias = sum_dy.to(weight_type);
  if (!input_g) return {at::Tensor(), at::Tensor(), grad_weight, grad_bias};
  return {sum_dy, sum_dy_xmu, grad_weight, grad_bias};
}

at::Tensor NPUNativeFunctions::batch_norm_backward_elemt(const at::Tensor& grad_out, const at::Tensor& input,
                                                        const at::Tensor& mean, const at::Tensor& invstd,
                                                        const c10::optional<at::Tensor>& weight,
                                                        const at::Tensor& sum_dy, const at::Tensor& sum_dy_xmu,
                                                        const at::Tensor& count) {
  checkInput(input, "batch_norm_backward_elemt");
  const auto type = mean.scalar_type();
  const at::Tensor norm = count.to(type).sum().reciprocal();  // 1 / total count over the ranks
  const at::Tensor xmu = input.to(type) - perChannel(mean, input);
  const at::Tensor projection = perChannel(sum_dy_xmu * norm * invstd.square(), input);
  at::Tensor grad_in = (grad_out.to(type) - perChannel(sum_dy * norm, input) - xmu * projection) *
                       perChannel(invstd, input);
  if (weight.has_value() && weight->defined()) grad_in = grad_in * perChannel(weight->to(type), input);
  return grad_in.to(input.scalar_type());
}

}  // namespace native
}  // namespace at_npu
