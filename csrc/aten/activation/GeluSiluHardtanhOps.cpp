// hardtanh (relu6), hardswish, silu, gelu, leaky_relu and their gradients on
// the format-agnostic Vector ops of OPS.md ("More elementwise").
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/PointwiseMath.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::AttrSetter;
using torch_npu::noAttrs;

void checkFloating(const char* op, const at::Tensor& t) {
  TORCH_CHECK(at::isFloatingType(t.scalar_type()), op, " expects a floating point tensor, got ", t.scalar_type());
}

// out = op(self) with attributes.
at::Tensor& activationOut(const char* op, const at::Tensor& self, at::Tensor& out, const AttrSetter& attrs) {
  checkFloating(op, self);
  return torch_npu::runInto(op, out, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self).FormatAgnostic();
    attrs(cmd);
  });
}

at::Tensor activation(const char* op, const at::Tensor& self, const AttrSetter& attrs) {
  at::Tensor out = torch_npu::emptyFollowingFormat(self, self.sizes(), self.scalar_type(), self.device());
  return activationOut(op, self, out, attrs);
}

// grad_input = op(grad_output, features) with attributes.
at::Tensor& activationGradOut(const char* op, const at::Tensor& grad_output, const at::Tensor& features,
                              at::Tensor& grad_input, const AttrSetter& attrs) {
  TORCH_CHECK(grad_output.sizes() == features.sizes(), op, ": gradient shape ", grad_output.sizes(),
              " does not match input shape ", features.sizes());
  return torch_npu::gradientOut(op, grad_output, features, grad_output, grad_input, attrs);
}

at::Tensor activationGrad(const char* op, const at::Tensor& grad_output, const at::Tensor& features,
                          const AttrSetter& attrs) {
  const at::Tensor grad = torch_npu::gradInFormatOf(grad_output, features);
  at::Tensor out = torch_npu::emptyFollowingFormat(grad, grad.sizes(), grad.scalar_type(), grad.device());
  return activationGradOut(op, grad, features, out, attrs);
}

AttrSetter hardtanhAttrs(const at::Scalar& min_val, const at::Scalar& max_val) {
  const float lo = min_val.to<float>(), hi = max_val.to<float>();
  return [lo, hi](torch_npu::OpCommand& cmd) { cmd.Attr("min_val", lo).Attr("max_val", hi); };
}

AttrSetter geluAttrs(c10::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "gelu: approximate must be 'none' or 'tanh', got '",
              approximate, "'");
  std::string mode(approximate);
  return [mode](torch_npu::OpCommand& cmd) { cmd.Attr("approximate", mode); };
}

AttrSetter slopeAttrs(const at::Scalar& negative_slope) {
  const float slope = negative_slope.to<float>();
  return [slope](torch_npu::OpCommand& cmd) { cmd.Attr("negative_slope", slope); };
}

}  // namespace

// ---- hardtanh (nn.ReLU6 is hardtanh(0, 6)) -----------------------------------------------
at::Tensor& NPUNativeFunctions::hardtanh_out(const at::Tensor& self, const at::Scalar& min_val,
                                             const at::Scalar& max_val, at::Tensor& out) {
  return activationOut("Hardtanh", self, out, hardtanhAttrs(min_val, max_val));
}
at::Tensor NPUNativeFunctions::hardtanh(const at::Tensor& self, const at::Scalar& min_val, const at::Scalar& max_val) {
  return activation("Hardtanh", self, hardtanhAttrs(min_val, max_val));
}
at::Tensor& NPUNativeFunctions::hardtanh_(at::Tensor& self, const at::Scalar& min_val, const at::Scalar& max_val) {
  return activationOut("Hardtanh", self, self, hardtanhAttrs(min_val, max_val));
}
at::Tensor& NPUNativeFunctions::hardtanh_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                      const at::Scalar& min_val, const at::Scalar& max_val,
                                                      at::Tensor& grad_input) {
  return activationGradOut("HardtanhGrad", grad_output, self, grad_input, hardtanhAttrs(min_val, max_val));
}
at::Tensor NPUNativeFunctions::hardtanh_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                 const at::Scalar& min_val, const at::Scalar& max_val) {
  return activationGrad("HardtanhGrad", grad_output, self, hardtanhAttrs(min_val, max_val));
}

// ---- hardswish --------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::hardswish_out(const at::Tensor& self, at::Tensor& out) {
  return activationOut("HardSwish", self, out, noAttrs);
}
at::Tensor NPUNativeFunctions::hardswish(const at::Tensor& self) { return activation("HardSwish", self, noAttrs); }
at::Tensor& NPUNativeFunctions::hardswish_(at::Tensor& self) { return activationOut("HardSwish", self, self, noAttrs); }
at::Tensor NPUNativeFunctions::hardswish_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  return activationGrad("HardSwishGrad", grad_output, self, noAttrs);
}

// ---- silu ----------------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::silu_out(const at::Tensor& self, at::Tensor& out) {
  return activationOut("Swish", self, out, noAttrs);
}
at::Tensor& NPUNativeFunctions::silu_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                  at::Tensor& grad_input) {
  return activationGradOut("SwishGrad", grad_output, self, grad_input, noAttrs);
}
at::Tensor NPUNativeFunctions::silu_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  return activationGrad("SwishGrad", grad_output, self, noAttrs);
}

// ---- gelu ------------------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::gelu_out(const at::Tensor& self, c10::string_view approximate, at::Tensor& out) {
  return activationOut("Gelu", self, out, geluAttrs(approximate));
}
at::Tensor& NPUNativeFunctions::gelu_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                  c10::string_view approximate, at::Tensor& grad_input) {
  return activationGradOut("GeluGrad", grad_output, self, grad_input, geluAttrs(approximate));
}
at::Tensor NPUNativeFunctions::gelu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                             c10::string_view approximate) {
  return activationGrad("GeluGrad", grad_output, self, geluAttrs(approximate));
}

// ---- leaky_relu ------------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::leaky_relu_out(const at::Tensor& self, const at::Scalar& negative_slope,
                                               at::Tensor& out) {
  return activationOut("LeakyRelu", self, out, slopeAttrs(negative_slope));
}
at::Tensor& NPUNativeFunctions::leaky_relu_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                        const at::Scalar& negative_slope, bool self_is_result,
                                                        at::Tensor& grad_input) {
  TORCH_CHECK(!self_is_result || negative_slope.to<double>() >= 0.0, "In-place leakyReLu backward calculation is "
              "triggered with a negative slope which is not supported.");
  return activationGradOut("LeakyReluGrad", grad_output, self, grad_input, slopeAttrs(negative_slope));
}
at::Tensor NPUNativeFunctions::leaky_relu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                   const at::Scalar& negative_slope, bool self_is_result) {
  const at::Tensor grad = torch_npu::gradInFormatOf(grad_output, self);
  at::Tensor out = torch_npu::emptyFollowingFormat(grad, grad.sizes(), grad.scalar_type(), grad.device());
  return leaky_relu_backward_out(grad, self, negative_slope, self_is_result, out);
}

}  // namespace native
}  // namespace at_npu
