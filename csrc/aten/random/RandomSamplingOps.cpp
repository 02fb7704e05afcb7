// Random sampling beyond the element-wise generators of RandomOps.cpp:
// randperm (StatelessRandperm on the AI CPU), bernoulli / normal with tensor
// parameters and multinomial, composed of NPU ops on the device generator's
// Philox stream (Note [NPU random numbers]); torch_npu's
// npu_random_choice_with_mask on RandomChoiceWithMask (AI CPU), which, as
// CANN's, draws from its own seeds, not the device generator (Note
// [RandomChoiceWithMask] in the simulator's ops/random/).
#include <ATen/native/Resize.h>

#include "NPUCustomFunctions.h"
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUGenerator.h"

namespace at_npu {
namespace native {
namespace {

// Standard normal samples of `sizes` in `dtype` on `device`.
at::Tensor standardNormal(at::IntArrayRef sizes, c10::ScalarType dtype, c10::Device device,
                          const c10::optional<at::Generator>& generator) {
  return torch_npu::emptyNpu(sizes, dtype, device).normal_(0.0, 1.0, generator);
}

void checkStd(const at::Tensor& std) {
  TORCH_CHECK(std.numel() == 0 || std.min().item<double>() >= 0.0, "normal expects all elements of std >= 0.0");
}

at::Tensor normalOf(const at::Tensor& mean, const at::Tensor& std, const c10::optional<at::Generator>& generator) {
  const auto sizes = at::infer_size(mean.sizes(), std.sizes());
  const auto dtype = at::result_type(mean, std);
  return standardNormal(sizes, dtype, torch_npu::opDevice({&mean, &std}), generator).mul_(std).add_(mean);
}

}  // namespace

at::Tensor& NPUNativeFunctions::randperm_out(int64_t n, c10::optional<at::Generator> generator, at::Tensor& out) {
  TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
  at::native::resize_output(out, {n});
  if (n == 0) return out;
  const auto [seed, offset] =
      torch_npu::NPUGenerator::resolve(generator, out.device(), "randperm").reserve(static_cast<uint64_t>(n));
  const auto index_dtype = n < (int64_t{1} << 31) && out.scalar_type() == at::kInt ? at::kInt : at::kLong;
  return torch_npu::runInto("StatelessRandperm", out, {n}, index_dtype, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("seed", static_cast<int64_t>(seed)).Attr("offset", static_cast<int64_t>(offset));
  });
}

// bernoulli_(p tensor): self = (uniform < p), p broadcast to self.
at::Tensor& NPUNativeFunctions::bernoulli_(at::Tensor& self, const at::Tensor& p,
                                           c10::optional<at::Generator> generator) {
  if (self.numel() == 0) return self;
  const auto dtype = at::isFloatingType(p.scalar_type()) ? p.scalar_type() : at::kFloat;
  at::Tensor u = torch_npu::emptyNpu(self.sizes(), dtype, self.device()).uniform_(0.0, 1.0, generator);
  return self.copy_(u.lt(p.to(self.device())));
}

at::Tensor NPUNativeFunctions::normal(const at::Tensor& mean, double std, c10::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  return standardNormal(mean.sizes(), mean.scalar_type(), mean.device(), generator).mul_(std).add_(mean);
}
at::Tensor& NPUNativeFunctions::normal_out(const at::Tensor& mean, double std, c10::optional<at::Generator> generator,
                                           at::Tensor& out) {
  at::Tensor result = normal(mean, std, generator);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}
at::Tensor NPUNativeFunctions::normal(double mean, const at::Tensor& std, c10::optional<at::Generator> generator) {
  checkStd(std);
  return standardNormal(std.sizes(), std.scalar_type(), std.device(), generator).mul_(std).add_(mean);
}
at::Tensor& NPUNativeFunctions::normal_out(double mean, const at::Tensor& std, c10::optional<at::Generator> generator,
                                           at::Tensor& out) {
  at::Tensor result = normal(mean, std, generator);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}
at::Tensor NPUNativeFunctions::normal(const at::Tensor& mean, const at::Tensor& std,
                                      c10::optional<at::Generator> generator) {
  checkStd(std);
  return normalOf(mean, std, generator);
}
at::Tensor& NPUNativeFunctions::normal_out(const at::Tensor& mean, const at::Tensor& std,
                                           c10::optional<at::Generator> generator, at::Tensor& out) {
  at::Tensor result = normal(mean, std, generator);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

// Note [Multinomial on the NPU]
// With replacement: each draw is the first category whose cumulative
// probability exceeds a uniform number (cumsum + searchsorted). Without
// replacement: the Gumbel-top-k form of sampling — keys log(u) / p, the
// num_samples largest keys are the draws (each category at most once).
// Both run on NPU ops and the device's Philox stream.
at::Tensor& NPUNativeFunctions::multinomial_out(const at::Tensor& self, int64_t num_samples, bool replacement,
                                                c10::optional<at::Generator> generator, at::Tensor& out) {
  TORCH_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()),
              "multinomial only supports floating-point dtypes for input, got: ", self.scalar_type());
  TORCH_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t categories = self.size(-1);
  TORCH_CHECK(replacement || num_samples <= categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  const at::Tensor probs = (self.dim() == 1 ? self.unsqueeze(0) : self).to(at::kFloat);
  const int64_t rows = probs.size(0);
  TORCH_CHECK(probs.numel() == 0 || probs.min().item<float>() >= 0.0f,
              "probability tensor contains either `inf`, "
              "`nan` or element < 0");
  const at::Tensor totals = probs.sum(-1, /*keepdim=*/true);
  TORCH_CHECK(rows == 0 || totals.min().item<float>() > 0.0f,
              "invalid multinomial distribution (sum of "
              "probabilities <= 0)");
  at::Tensor draws;
  if (replacement) {
    at::Tensor cdf = probs.div(totals).cumsum(-1);
    at::Tensor u = torch_npu::emptyNpu({rows, num_samples}, at::kFloat, self.device()).uniform_(0.0, 1.0, generator);
    draws = at::searchsorted(cdf, u, /*out_int32=*/false, /*right=*/true).clamp_max(categories - 1);
  } else {
    at::Tensor u = torch_npu::emptyNpu({rows, categories}, at::kFloat, self.device()).uniform_(0.0, 1.0, generator);
    at::Tensor keys = u.clamp_min(1e-30).log().div(probs);  // zero probabilities: -inf, never chosen first
    draws = std::get<1>(keys.topk(num_samples, -1));
  }
  if (self.dim() == 1) draws = draws.squeeze(0);
  at::native::resize_output(out, draws.sizes());
  return out.copy_(draws);
}
at::Tensor NPUNativeFunctions::multinomial(const at::Tensor& self, int64_t num_samples, bool replacement,
                                           c10::optional<at::Generator> generator) {
  at::Tensor out = torch_npu::emptyNpu({0}, at::kLong, self.device());
  return multinomial_out(self, num_samples, replacement, generator, out);
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_random_choice_with_mask(const at::Tensor& x, int64_t count,
                                                                                   int64_t seed, int64_t seed2) {
  TORCH_CHECK(x.scalar_type() == at::kBool, "npu_random_choice_with_mask: x must be bool, got ", x.scalar_type());
  TORCH_CHECK(x.dim() >= 1 && x.dim() <= 5, "npu_random_choice_with_mask: x must have 1 to 5 dimensions, got shape ",
              x.sizes());
  TORCH_CHECK(count > 0, "npu_random_choice_with_mask: count must be positive, got ", count);
  at::Tensor y = torch_npu::emptyNpu({count, x.dim()}, at::kInt, x.device());
  at::Tensor mask = torch_npu::emptyNpu({count}, at::kBool, x.device());
  torch_npu::OpCommand("RandomChoiceWithMask")
      .Input(x.contiguous())
      .Output(y)
      .Output(mask)
      .Attr("count", count)
      .Attr("seed", seed)
      .Attr("seed2", seed2)
      .Run();
  return {y, mask};
}

}  // namespace native
}  // namespace at_npu
