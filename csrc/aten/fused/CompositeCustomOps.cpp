// Custom npu:: operators of torch_npu written with aten operators.
//
// Note [Composite custom ops]
// These are registered as CompositeImplicitAutograd (`composite: true` in the
// YAML): each is a short expression of aten operators, so its NPU kernels are
// the ones those operators run (Transpose, BroadcastTo, MatMul, Cast, Swish,
// ...) and autograd is theirs. On a CPU tensor they compute the same
// expression on the CPU. The ones torch_npu runs as one fused CANN kernel
// (FastGelu, RmsNorm, RotaryMul, SoftmaxCrossEntropyWithLogits) are not
// composites: see FusedLlmOps.cpp.
#include <ATen/ATen.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/aten/random/DropoutOps.h"

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

// The gradients of npu_bmmV2 (at::matmul's product) for mat1 and mat2, one
// BatchMatMul with a transposed operand each, summed down to the operand's
// `size` where matmul broadcast its batch dims; a 1-D operand is the row
// (mat1) or column (mat2) vector matmul makes of it.
at::Tensor NPUCustomFunctions::npu_bmm_v2_mat1_backward(const at::Tensor& grad, const at::Tensor& mat1,
                                                        const at::Tensor& mat2, at::IntArrayRef size) {
  TORCH_CHECK(mat1.dim() >= 1 && mat2.dim() >= 1,
              "npu_bmm_v2_mat1_backward: expected mat1 and mat2 of at least 1 dim, got ", mat1.sizes(), " and ",
              mat2.sizes());
  if (mat1.dim() == 1 && mat2.dim() == 1) return grad * mat2;        // a dot product
  const at::Tensor g = mat1.dim() == 1 ? grad.unsqueeze(-2) : grad;  // [..., m, n]
  at::Tensor dmat1 = mat2.dim() == 1 ? g.unsqueeze(-1) * mat2 : at::matmul(g, mat2.transpose(-1, -2));
  if (mat1.dim() == 1) dmat1 = dmat1.squeeze(-2);
  return at::sum_to(dmat1, size);
}

at::Tensor NPUCustomFunctions::npu_bmm_v2_mat2_backward(const at::Tensor& grad, const at::Tensor& mat1,
                                                        const at::Tensor& mat2, at::IntArrayRef size) {
  TORCH_CHECK(mat1.dim() >= 1 && mat2.dim() >= 1,
              "npu_bmm_v2_mat2_backward: expected mat1 and mat2 of at least 1 dim, got ", mat1.sizes(), " and ",
              mat2.sizes());
  if (mat1.dim() == 1 && mat2.dim() == 1) return grad * mat1;        // a dot product
  const at::Tensor g = mat2.dim() == 1 ? grad.unsqueeze(-1) : grad;  // [..., m, n]
  at::Tensor dmat2 = mat1.dim() == 1 ? mat1.unsqueeze(-1) * g.unsqueeze(-2) : at::matmul(mat1.transpose(-1, -2), g);
  if (mat2.dim() == 1) dmat2 = dmat2.squeeze(-1);
  return at::sum_to(dmat2, size);
}

at::Tensor& NPUCustomFunctions::one_(at::Tensor& self) { return self.fill_(1); }

at::Tensor NPUCustomFunctions::npu_silu(const at::Tensor& self) { return at::silu(self); }

at::Tensor NPUCustomFunctions::npu_mish(const at::Tensor& self) { return at::mish(self); }

at::Tensor NPUCustomFunctions::npu_layer_norm_eval(const at::Tensor& input, at::IntArrayRef normalized_shape,
                                                   const c10::optional<at::Tensor>& weight,
                                                   const c10::optional<at::Tensor>& bias, double eps) {
  return at::layer_norm(input, normalized_shape, weight, bias, eps);
}

// torch_npu's name for the layer norm gradient: LayerNormGradV3 through aten's
// native_layer_norm_backward (mean and rstd as the NPU's layer norm returns them).
std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_layernorm_grad(
    const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape, const at::Tensor& mean,
    const at::Tensor& rstd, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias) {
  return at::native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                                        {true, torch_npu::given(weight), torch_npu::given(bias)});
}

}  // namespace native
}  // namespace at_npu
