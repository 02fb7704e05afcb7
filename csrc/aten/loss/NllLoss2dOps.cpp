// nll_loss2d (segmentation loss over [N, C, H, W] log-probabilities and
// [N, H, W] targets) and its backward, as Ascend's torch_npu runs them: the
// class dim moved last, the pixels flattened into a batch, and the 1-D
// NLLLoss / NLLLossGrad kernels (nll_loss_forward / nll_loss_backward).
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void checkNll2d(const at::Tensor& self, const at::Tensor& target, const c10::optional<at::Tensor>& weight) {
  TORCH_CHECK(target.dim() == 3, "only batches of spatial targets supported (3D tensors) but got targets of "
              "dimension: ", target.dim());
  TORCH_CHECK(self.dim() == 4, "only batches of spatial inputs supported (4D tensors), but got input of dimension: ",
              self.dim());
  TORCH_CHECK(!weight.has_value() || !weight->defined() || weight->numel() == self.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) && self.size(3) == target.size(2),
              "size mismatch (got input: ", self.sizes(), " , target: ", target.sizes(), ")");
}

// [N, C, H, W] -> [N·H·W, C]
at::Tensor pixelsByClass(const at::Tensor& t) { return t.permute({0, 2, 3, 1}).reshape({-1, t.size(1)}); }

}  // namespace

::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::nll_loss2d_forward(const at::Tensor& self,
                                                                           const at::Tensor& target,
                                                                           const c10::optional<at::Tensor>& weight,
                                                                           int64_t reduction, int64_t ignore_index) {
  checkNll2d(self, target, weight);
  auto result = at::nll_loss_forward(pixelsByClass(self), target.reshape({-1}), weight, reduction, ignore_index);
  at::Tensor loss = std::get<0>(result);
  if (reduction == at::Reduction::None) loss = loss.view(target.sizes());
  return {loss, std::get<1>(result)};
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::nll_loss2d_forward_out(
    const at::Tensor& self, const at::Tensor& target, const c10::optional<at::Tensor>& weight, int64_t reduction,
    int64_t ignore_index, at::Tensor& output, at::Tensor& total_weight) {
  const auto result = nll_loss2d_forward(self, target, weight, reduction, ignore_index);
  at::native::resize_output(output, std::get<0>(result).sizes());
  output.copy_(std::get<0>(result));
  at::native::resize_output(total_weight, {});
  total_weight.copy_(std::get<1>(result));
  return {output, total_weight};
}

at::Tensor NPUNativeFunctions::nll_loss2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                   const at::Tensor& target, const c10::optional<at::Tensor>& weight,
                                                   int64_t reduction, int64_t ignore_index,
                                                   const at::Tensor& total_weight) {
  checkNll2d(self, target, weight);
  const at::Tensor g = reduction == at::Reduction::None ? grad_output.reshape({-1}) : grad_output;
  const at::Tensor grad = at::nll_loss_backward(g, pixelsByClass(self), target.reshape({-1}), weight, reduction,
                                                ignore_index, total_weight);
  return grad.view({self.size(0), self.size(2), self.size(3), self.size(1)}).permute({0, 3, 1, 2}).contiguous();
}

at::Tensor& NPUNativeFunctions::nll_loss2d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                        const at::Tensor& target,
                                                        const c10::optional<at::Tensor>& weight, int64_t reduction,
                                                        int64_t ignore_index, const at::Tensor& total_weight,
                                                        at::Tensor& grad_input) {
  const at::Tensor grad =
      nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight);
  at::native::resize_output(grad_input, grad.sizes());
  return grad_input.copy_(grad);
}

}  // namespace native
}  // namespace at_npu
