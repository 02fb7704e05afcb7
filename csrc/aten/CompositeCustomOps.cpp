// Custom npu:: operators of torch_npu written with aten operators.
//
// Note [Composite custom ops]
// These are registered as CompositeImplicitAutograd (`composite: true` in the
// YAML): each is a short expression of aten operators, so its NPU kernels are
// the ones those operators run (Transpose, BroadcastTo, MatMul, Cast, Swish,
// ...) and autograd is theirs. On a CPU tensor they compute the same
// expression on the CPU. torch_npu runs some of them as one fused CANN kernel
// (FastGelu, RmsNorm, RotaryMul): here they cost the unfused sequence.
#include <ATen/ATen.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/DropoutOps.h"

namespace at_npu {
namespace native {

// torch_npu's v1.11 name of npu_dropout.
std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::_npu_dropout(const at::Tensor& self, double p) {
  return callNpuDropout(self, p);
}

at::Tensor NPUCustomFunctions::npu_dtype_cast(const at::Tensor& self, at::ScalarType dtype) {
  return self.to(dtype);
}

at::Tensor NPUCustomFunctions::npu_transpose(const at::Tensor& self, at::IntArrayRef perm, bool require_contiguous) {
  TORCH_CHECK(static_cast<int64_t>(perm.size()) == self.dim(), "npu_transpose: perm ", perm, " must name all ",
              self.dim(), " dims of the input of shape ", self.sizes());
  const at::Tensor t = self.permute(perm);
  return require_contiguous ? t.contiguous() : t;
}

at::Tensor NPUCustomFunctions::npu_broadcast(const at::Tensor& self, at::IntArrayRef size) {
  return self.expand(size).contiguous();
}

at::Tensor NPUCustomFunctions::npu_confusion_transpose(const at::Tensor& self, at::IntArrayRef perm,
                                                       at::IntArrayRef shape, bool transpose_first) {
  if (transpose_first) return self.permute(perm).contiguous().view(shape);
  return self.reshape(shape).permute(perm).contiguous();
}

at::Tensor NPUCustomFunctions::npu_linear(const at::Tensor& input, const at::Tensor& weight,
                                          const c10::optional<at::Tensor>& bias) {
  TORCH_CHECK(input.dim() == 2 && weight.dim() == 2, "npu_linear: expected 2-D input and weight, got ", input.sizes(),
              " and ", weight.sizes());
  return at::linear(input, weight, bias);
}

at::Tensor NPUCustomFunctions::npu_bmmV2(const at::Tensor& self, const at::Tensor& mat2, at::IntArrayRef output_sizes) {
  at::Tensor result = at::matmul(self, mat2);
  TORCH_CHECK(output_sizes.empty() || result.sizes() == output_sizes, "npu_bmmV2: output_sizes ", output_sizes,
              " do not match the product's shape ", result.sizes());
  return result;
}

at::Tensor& NPUCustomFunctions::one_(at::Tensor& self) { return self.fill_(1); }

at::Tensor NPUCustomFunctions::npu_silu(const at::Tensor& self) { return at::silu(self); }

at::Tensor NPUCustomFunctions::npu_mish(const at::Tensor& self) { return at::mish(self); }

// torch_npu's FastGelu: x / (1 + exp(-1.702 x)), i.e. x · sigmoid(1.702 x).
at::Tensor NPUCustomFunctions::fast_gelu(const at::Tensor& self) { return self * at::sigmoid(self * 1.702); }

at::Tensor NPUCustomFunctions::npu_layer_norm_eval(const at::Tensor& input, at::IntArrayRef normalized_shape,
                                                   const c10::optional<at::Tensor>& weight,
                                                   const c10::optional<at::Tensor>& bias, double eps) {
  return at::layer_norm(input, normalized_shape, weight, bias, eps);
}

// RMSNorm over the trailing dims gamma covers: y = x · rsqrt(mean(x²) + eps) · gamma, and rstd.
std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_rms_norm(const at::Tensor& self, const at::Tensor& gamma,
                                                                    double epsilon) {
  TORCH_CHECK(gamma.dim() >= 1 && gamma.dim() <= self.dim() &&
                  self.sizes().slice(self.dim() - gamma.dim()) == gamma.sizes(),
              "npu_rms_norm: gamma of shape ", gamma.sizes(), " must match the trailing dims of x of shape ",
              self.sizes());
  std::vector<int64_t> dims;
  for (int64_t d = self.dim() - gamma.dim(); d < self.dim(); ++d) dims.push_back(d);
  const at::Tensor rstd = at::rsqrt(self.to(at::kFloat).pow(2).mean(dims, /*keepdim=*/true) + epsilon);
  return {(self.to(at::kFloat) * rstd).to(self.scalar_type()) * gamma, rstd};
}

// Rotary position embedding: x · r1 + rotate_half(x) · r2, rotate_half(x) = cat(−x[..., D/2:], x[..., :D/2]).
at::Tensor NPUCustomFunctions::npu_rotary_mul(const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2) {
  const int64_t d = self.size(-1);
  TORCH_CHECK(d % 2 == 0, "npu_rotary_mul: the last dim of x (", d, ") must be even");
  const at::Tensor rotated = at::cat({self.narrow(-1, d / 2, d / 2).neg(), self.narrow(-1, 0, d / 2)}, -1);
  return self * r1 + rotated * r2;
}

// Per-row softmax cross entropy with soft labels: −Σ labels · log_softmax(logits) over the last dim.
at::Tensor NPUCustomFunctions::npu_softmax_cross_entropy_with_logits(const at::Tensor& self, const at::Tensor& labels) {
  TORCH_CHECK(self.sizes() == labels.sizes(), "npu_softmax_cross_entropy_with_logits: logits ", self.sizes(),
              " and labels ", labels.sizes(), " must have the same shape");
  return -(labels * at::log_softmax(self, -1)).sum(-1);
}

}  // namespace native
}  // namespace at_npu
