// Gradients of relu (threshold_backward), sigmoid and tanh. A base-format
// grad_output meeting a private-format saved tensor is converted to that
// format first (gradInFormatOf), so the gradient keeps it.
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ElementwiseOps.h"
#include "csrc/core/TestMutations.h"

namespace at_npu {
namespace native {

at::Tensor& NPUNativeFunctions::threshold_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                       const at::Scalar& threshold, at::Tensor& grad_input) {
  TORCH_CHECK(grad_output.sizes() == self.sizes(), "threshold_backward: grad_output shape ", grad_output.sizes(),
              " does not match input shape ", self.sizes());
  if (threshold.toDouble() == 0.0) {
    if (TORCH_NPU_MUTATED("relu_backward_zero")) {  // Note [Test mutations]
      at::native::resize_output(grad_input, grad_output.sizes());
      return grad_input.zero_();
    }
    return torch_npu::gradientOut("ReluGrad", grad_output, self, grad_output, grad_input);
  }
  const float t = threshold.to<float>();
  return torch_npu::gradientOut("ThresholdGradV2D", grad_output, self, grad_output, grad_input,
                                [t](torch_npu::OpCommand& cmd) { cmd.Attr("threshold", t); });
}
at::Tensor NPUNativeFunctions::threshold_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                  const at::Scalar& threshold) {
  const at::Tensor grad = torch_npu::gradInFormatOf(grad_output, self);
  at::Tensor out = torch_npu::emptyFollowingFormat(grad, grad.sizes(), grad.scalar_type(), grad.device());
  return threshold_backward_out(grad, self, threshold, out);
}

at::Tensor& NPUNativeFunctions::sigmoid_backward_out(const at::Tensor& grad_output, const at::Tensor& output,
                                                     at::Tensor& grad_input) {
  return torch_npu::gradientOut("SigmoidGrad", output, grad_output, grad_output, grad_input);
}
at::Tensor NPUNativeFunctions::sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& output) {
  const at::Tensor grad = torch_npu::gradInFormatOf(grad_output, output);
  at::Tensor out = torch_npu::emptyFollowingFormat(output, grad.sizes(), grad.scalar_type(), grad.device());
  return sigmoid_backward_out(grad, output, out);
}

at::Tensor& NPUNativeFunctions::tanh_backward_out(const at::Tensor& grad_output, const at::Tensor& output,
                                                  at::Tensor& grad_input) {
  return torch_npu::gradientOut("TanhGrad", output, grad_output, grad_output, grad_input);
}
at::Tensor NPUNativeFunctions::tanh_backward(const at::Tensor& grad_output, const at::Tensor& output) {
  const at::Tensor grad = torch_npu::gradInFormatOf(grad_output, output);
  at::Tensor out = torch_npu::emptyFollowingFormat(output, grad.sizes(), grad.scalar_type(), grad.device());
  return tanh_backward_out(grad, output, out);
}

}  // namespace native
}  // namespace at_npu
