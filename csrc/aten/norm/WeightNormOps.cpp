// _weight_norm_interface and its backward (nn.utils.weight_norm; torchaudio's wav2vec2 positional
// convolution), composed of the NPU's reductions and elementwise ops.
//
// Note [Weight norm on the NPU]
// w = g * v / ||v||, the norm taken over every dim of v except `dim` (0 or the last dim, the only
// ones PyTorch's _weight_norm sends here), kept as a tensor of g's shape. As on the CPU, the norms
// of fp16/bf16 weights are computed and returned in fp32. The backward is the CPU kernel's:
//   s = sum(grad_w * v) over the same dims,
//   grad_g = s / ||v||,   grad_v = g / ||v|| * (grad_w - v * s / ||v||^2).
#include <ATen/ATen.h>
#include <ATen/OpMathType.h>

#include <vector>

#include "PrivateUse1NativeFunctions.h"

namespace at_npu {
namespace native {
namespace {

std::vector<int64_t> otherDims(const at::Tensor& v, int64_t dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < v.dim(); ++d) {
    if (d != dim) dims.push_back(d);
  }
  return dims;
}

int64_t checkedDim(const at::Tensor& v, const at::Tensor& g, int64_t dim, const char* op) {
  TORCH_CHECK(v.device() == g.device(), op, ": expected v and g on one device, got ", v.device(), " and ",
              g.device());
  TORCH_CHECK(v.dim() > 0, op, ": expected v with at least one dim");
  const int64_t wrapped = dim < 0 ? dim + v.dim() : dim;
  TORCH_CHECK(wrapped == 0 || wrapped == v.dim() - 1, op, ": dim must be 0 or the last dim of v (",
              v.dim() - 1, "), got ", dim);
  return wrapped;
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::_weight_norm_interface(const at::Tensor& v,
                                                                              const at::Tensor& g, int64_t dim) {
  const int64_t d = checkedDim(v, g, dim, "_weight_norm_interface");
  const auto math = at::toOpMathType(v.scalar_type());
  const at::Tensor v_math = v.to(math);
  const at::Tensor norms = v.dim() == 1 ? v_math.abs() : at::linalg_vector_norm(v_math, 2, otherDims(v, d), true);
  const at::Tensor w = (v_math * (g.to(math) / norms)).to(v.scalar_type());
  return {w, norms.reshape(g.sizes())};
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::_weight_norm_interface_backward(
    const at::Tensor& grad_w, const at::Tensor& saved_v, const at::Tensor& saved_g, const at::Tensor& saved_norms,
    int64_t dim) {
  const int64_t d = checkedDim(saved_v, saved_g, dim, "_weight_norm_interface_backward");
  const auto math = at::toOpMathType(saved_v.scalar_type());
  const at::Tensor v = saved_v.to(math), gw = grad_w.to(math);
  std::vector<int64_t> kept(static_cast<size_t>(saved_v.dim()), 1);
  kept[d] = saved_v.size(d);
  const at::Tensor norms = saved_norms.to(math).reshape(kept);
  const at::Tensor g = saved_g.to(math).reshape(kept);
  const at::Tensor s = saved_v.dim() == 1 ? gw * v : (gw * v).sum(otherDims(saved_v, d), true);
  const at::Tensor grad_g = s / norms;
  const at::Tensor grad_v = g / norms * (gw - v * (s / norms.square()));
  return {grad_v.to(saved_v.scalar_type()), grad_g.reshape(saved_g.sizes()).to(saved_g.scalar_type())};
}

}  // namespace native
}  // namespace at_npu
