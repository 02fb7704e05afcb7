// Gradients of relu (threshold_backward), sigmoid and tanh.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/ElementwiseOps.h"

namespace at_npu {
namespace native {
namespace {

// op(first, second) with the dtype of grad_output, shape of grad_output.
at::Tensor& gradOut(const char* op, const at::Tensor& first, const at::Tensor& second, const at::Tensor& grad_output,
                    at::Tensor& out, c10::optional<float> threshold = c10::nullopt) {
  const auto dtype = grad_output.scalar_type();
  return torch_npu::runInto(op, out, grad_output.sizes(), dtype, [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, first, dtype);
    torch_npu::addInputAs(cmd, second, dtype);
    if (threshold) cmd.Attr("threshold", *threshold);
    cmd.FormatAgnostic();
  });
}

}  // namespace

at::Tensor& NPUNativeFunctions::threshold_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                       const at::Scalar& threshold, at::Tensor& grad_input) {
  TORCH_CHECK(grad_output.sizes() == self.sizes(), "threshold_backward: grad_output shape ", grad_output.sizes(),
              " does not match input shape ", self.sizes());
  if (threshold.toDouble() == 0.0) return gradOut("ReluGrad", grad_output, self, grad_output, grad_input);
  return gradOut("ThresholdGradV2D", grad_output, self, grad_output, grad_input, threshold.to<float>());
}
at::Tensor NPUNativeFunctions::threshold_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                  const at::Scalar& threshold) {
  at::Tensor out = torch_npu::emptyFollowingFormat(grad_output, grad_output.sizes(), grad_output.scalar_type(),
                                                   grad_output.device());
  return threshold_backward_out(grad_output, self, threshold, out);
}

at::Tensor& NPUNativeFunctions::sigmoid_backward_out(const at::Tensor& grad_output, const at::Tensor& output,
                                                     at::Tensor& grad_input) {
  return gradOut("SigmoidGrad", output, grad_output, grad_output, grad_input);
}
at::Tensor NPUNativeFunctions::sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& output) {
  at::Tensor out = torch_npu::emptyFollowingFormat(output, grad_output.sizes(), grad_output.scalar_type(),
                                                   grad_output.device());
  return sigmoid_backward_out(grad_output, output, out);
}

at::Tensor& NPUNativeFunctions::tanh_backward_out(const at::Tensor& grad_output, const at::Tensor& output,
                                                  at::Tensor& grad_input) {
  return gradOut("TanhGrad", output, grad_output, grad_output, grad_input);
}
at::Tensor NPUNativeFunctions::tanh_backward(const at::Tensor& grad_output, const at::Tensor& output) {
  at::Tensor out = torch_npu::emptyFollowingFormat(output, grad_output.sizes(), grad_output.scalar_type(),
                                                   grad_output.device());
  return tanh_backward_out(grad_output, output, out);
}

}  // namespace native
}  // namespace at_npu
