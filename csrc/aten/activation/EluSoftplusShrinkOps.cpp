// Activations and their backward ops: elu (celu/selu go through it),
// softplus, mish, hardsigmoid, softshrink, hardshrink, threshold,
// log_sigmoid, glu, prelu and rrelu_with_noise. One Vector op each (OPS.md
// "Pointwise math and activations"); glu and rrelu are compositions of
// Vector ops. Structured out= kernels where upstream is structured.
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/PointwiseMath.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::AttrSetter;
using torch_npu::noAttrs;
using torch_npu::OpCommand;
using torch_npu::pointwiseInto;

at::Tensor& activationInto(const char* op, const at::Tensor& self, at::Tensor& out, const AttrSetter& attrs) {
  torch_npu::checkFloatingInput(op, self);
  return pointwiseInto(op, {self}, self.scalar_type(), self.scalar_type(), out, attrs);
}

// grad_input = op(grad_output, saved) in their common dtype.
at::Tensor& gradInto(const char* op, const at::Tensor& grad_output, const at::Tensor& saved, at::Tensor& grad_input,
                     const AttrSetter& attrs) {
  const auto dtype = torch_npu::commonDtype({grad_output, saved}, false);
  return pointwiseInto(op, {grad_output, saved}, dtype, dtype, grad_input, attrs);
}

float toFloat(const at::Scalar& s) { return s.to<float>(); }

AttrSetter lambdAttr(const at::Scalar& lambd) {
  const float l = toFloat(lambd);
  return [l](OpCommand& cmd) { cmd.Attr("lambd", l); };
}
AttrSetter softplusAttrs(const at::Scalar& beta, const at::Scalar& threshold) {
  const float b = toFloat(beta), t = toFloat(threshold);
  return [b, t](OpCommand& cmd) { cmd.Attr("beta", b).Attr("threshold", t); };
}
AttrSetter eluAttrs(const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  const float a = toFloat(alpha), s = toFloat(scale), i = toFloat(input_scale);
  return [a, s, i](OpCommand& cmd) { cmd.Attr("alpha", a).Attr("scale", s).Attr("input_scale", i); };
}

}  // namespace

// ---- elu ------------------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::elu_out(const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale,
                                        const at::Scalar& input_scale, at::Tensor& out) {
  return activationInto("Elu", self, out, eluAttrs(alpha, scale, input_scale));
}
at::Tensor& NPUNativeFunctions::elu_backward_out(const at::Tensor& grad_output, const at::Scalar& alpha,
                                                 const at::Scalar& scale, const at::Scalar& input_scale,
                                                 bool is_result, const at::Tensor& self_or_result,
                                                 at::Tensor& grad_input) {
  const AttrSetter base = eluAttrs(alpha, scale, input_scale);
  return gradInto("EluGradV2", grad_output, self_or_result, grad_input, [&](OpCommand& cmd) {
    base(cmd);
    cmd.Attr("is_result", is_result);
  });
}

// ---- softplus -------------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::softplus_out(const at::Tensor& self, const at::Scalar& beta,
                                             const at::Scalar& threshold, at::Tensor& out) {
  return activationInto("SoftplusV2", self, out, softplusAttrs(beta, threshold));
}
at::Tensor& NPUNativeFunctions::softplus_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                      const at::Scalar& beta, const at::Scalar& threshold,
                                                      at::Tensor& grad_input) {
  return gradInto("SoftplusV2Grad", grad_output, self, grad_input, softplusAttrs(beta, threshold));
}

// ---- mish -----------------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::mish_out(const at::Tensor& self, at::Tensor& out) {
  return activationInto("Mish", self, out, noAttrs);
}
at::Tensor NPUNativeFunctions::mish_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  at::Tensor grad_input = torch_npu::pointwiseResult({grad_output, self}, grad_output.scalar_type());
  return gradInto("MishGrad", grad_output, self, grad_input, noAttrs);
}

// ---- hardsigmoid ----------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::hardsigmoid_out(const at::Tensor& self, at::Tensor& out) {
  return activationInto("HardSigmoid", self, out, noAttrs);
}
at::Tensor& NPUNativeFunctions::hardsigmoid_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                         at::Tensor& grad_input) {
  return gradInto("HardSigmoidGrad", grad_output, self, grad_input, noAttrs);
}

// ---- softshrink / hardshrink ------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::softshrink_out(const at::Tensor& self, const at::Scalar& lambd, at::Tensor& out) {
  return activationInto("SoftShrink", self, out, lambdAttr(lambd));
}
at::Tensor& NPUNativeFunctions::softshrink_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                        const at::Scalar& lambd, at::Tensor& grad_input) {
  return gradInto("SoftShrinkGrad", grad_output, self, grad_input, lambdAttr(lambd));
}
at::Tensor& NPUNativeFunctions::hardshrink_out(const at::Tensor& self, const at::Scalar& lambd, at::Tensor& out) {
  return activationInto("HardShrink", self, out, lambdAttr(lambd));
}
at::Tensor& NPUNativeFunctions::hardshrink_backward_out(const at::Tensor& grad_out, const at::Tensor& self,
                                                        const at::Scalar& lambd, at::Tensor& grad_input) {
  return gradInto("HardShrinkGrad", grad_out, self, grad_input, lambdAttr(lambd));
}

// ---- threshold (integers too) ----------------------------------------------------------------
at::Tensor& NPUNativeFunctions::threshold_out(const at::Tensor& self, const at::Scalar& threshold,
                                              const at::Scalar& value, at::Tensor& out) {
  const float t = toFloat(threshold), v = toFloat(value);
  const auto dtype = self.scalar_type();
  TORCH_CHECK(dtype != at::kBool, "threshold is not implemented for Bool tensors");
  return pointwiseInto("ThresholdV2D", {self}, dtype, dtype, out,
                       [t, v](OpCommand& cmd) { cmd.Attr("threshold", t).Attr("value", v); });
}

// ---- log_sigmoid: the buffer is empty (the backward recomputes exp(-|x|)) --------------------
::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::log_sigmoid_forward_out(const at::Tensor& self,
                                                                                  at::Tensor& output,
                                                                                  at::Tensor& buffer) {
  activationInto("LogSigmoid", self, output, noAttrs);
  buffer.resize_({0});
  return {output, buffer};
}
::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::log_sigmoid_forward(const at::Tensor& self) {
  at::Tensor output = torch_npu::pointwiseResult({self}, self.scalar_type());
  at::Tensor buffer = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  log_sigmoid_forward_out(self, output, buffer);
  return {output, buffer};
}
at::Tensor& NPUNativeFunctions::log_sigmoid_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                         const at::Tensor& buffer, at::Tensor& grad_input) {
  (void)buffer;
  return gradInto("LogSigmoidGrad", grad_output, self, grad_input, noAttrs);
}
at::Tensor NPUNativeFunctions::log_sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                    const at::Tensor& buffer) {
  at::Tensor grad_input = torch_npu::pointwiseResult({grad_output, self}, grad_output.scalar_type());
  return log_sigmoid_backward_out(grad_output, self, buffer, grad_input);
}

// ---- glu: a * sigmoid(b) with a, b the halves of self along dim ------------------------------
at::Tensor& NPUNativeFunctions::glu_out(const at::Tensor& self, int64_t dim, at::Tensor& out) {
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  const int64_t half = self.size(d) / 2;
  const at::Tensor a = self.narrow(d, 0, half), b = self.narrow(d, half, half);
  const auto dtype = self.scalar_type();
  at::Tensor gate = torch_npu::pointwiseResult({b}, dtype);
  pointwiseInto("Sigmoid", {b}, dtype, dtype, gate);
  return pointwiseInto("Mul", {a, gate}, dtype, dtype, out);
}
// d/da = sigmoid(b) g; d/db = a sigmoid(b) (1 - sigmoid(b)) g, concatenated along dim.
at::Tensor& NPUNativeFunctions::glu_backward_out(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim,
                                                 at::Tensor& grad_input) {
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  const int64_t half = self.size(d) / 2;
  const at::Tensor a = self.narrow(d, 0, half), b = self.narrow(d, half, half);
  const at::Tensor gate = at::sigmoid(b);
  const at::Tensor grad_a = at::mul(gate, grad_output);
  const at::Tensor grad_b = at::mul(at::sigmoid_backward(grad_output, gate), a);
  at::native::resize_output(grad_input, self.sizes());
  return torch_npu::finishOut(grad_input, at::cat({grad_a, grad_b}, d));
}
at::Tensor NPUNativeFunctions::glu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  at::Tensor grad_input = torch_npu::emptyNpuLike(self);
  return glu_backward_out(grad_output, self, dim, grad_input);
}

// ---- prelu: weight [C] (or [1]) applies along dim 1 --------------------------------------------
namespace {
// weight viewed so that it broadcasts against self along the channel dim.
at::Tensor preluWeight(const at::Tensor& self, const at::Tensor& weight) {
  TORCH_CHECK(weight.dim() <= 1, "prelu: weight must be a 1-D tensor, got ", weight.dim(), "-D");
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  const int64_t n = weight.numel();
  TORCH_CHECK(n == 1 || n == channels, "Mismatch of parameter numbers and input channel size. Found parameter numbers = ",
              n, " and channel size = ", channels, ".");
  if (n == 1 || self.dim() < 2) return weight.reshape({});
  std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
  shape[1] = n;
  return weight.reshape(shape);
}
}  // namespace

at::Tensor NPUNativeFunctions::prelu(const at::Tensor& self, const at::Tensor& weight) {
  torch_npu::checkFloatingInput("prelu", self);
  const at::Tensor w = preluWeight(self, weight);
  at::Tensor out = torch_npu::pointwiseResult({self}, self.scalar_type());
  return pointwiseInto("PRelu", {self, w}, self.scalar_type(), self.scalar_type(), out);
}
::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::prelu_backward(const at::Tensor& grad_output,
                                                                       const at::Tensor& self,
                                                                       const at::Tensor& weight) {
  const at::Tensor w = preluWeight(self, weight);
  const auto dtype = self.scalar_type();
  at::Tensor grad_input = torch_npu::pointwiseResult({self}, dtype);
  pointwiseInto("PReluGrad", {grad_output, self, w}, dtype, dtype, grad_input);
  at::Tensor per_element = torch_npu::pointwiseResult({self}, dtype);
  pointwiseInto("PReluWeightGrad", {grad_output, self}, dtype, dtype, per_element);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (weight.numel() == 1 || d != 1) dims.push_back(d);
  at::Tensor grad_weight = dims.empty() ? per_element : at::sum(per_element, dims);
  return {grad_input, grad_weight.reshape(weight.sizes())};
}

// ---- rrelu_with_noise ----------------------------------------------------------------------------
// Training: noise = U(lower, upper) from the NPU generator where self <= 0,
// 1 elsewhere; out = self * noise. Eval: leaky_relu with the mean slope.
at::Tensor& NPUNativeFunctions::rrelu_with_noise_out(const at::Tensor& self, const at::Tensor& noise,
                                                     const at::Scalar& lower, const at::Scalar& upper, bool training,
                                                     c10::optional<at::Generator> generator, at::Tensor& out) {
  torch_npu::checkFloatingInput("rrelu_with_noise", self);
  if (!training) {
    const double slope = (lower.to<double>() + upper.to<double>()) / 2;
    at::native::resize_output(out, self.sizes());
    return torch_npu::finishOut(out, at::leaky_relu(self, slope));
  }
  TORCH_CHECK(noise.sizes() == self.sizes(), "rrelu_with_noise: noise shape ", noise.sizes(),
              " does not match input shape ", self.sizes());
  at::Tensor slopes = at::empty_like(self).uniform_(lower.to<double>(), upper.to<double>(), generator);
  at::Tensor positive = at::gt(self, 0);
  at::Tensor ones = at::ones_like(self);
  at::Tensor factor = at::where(positive, ones, slopes);
  noise.copy_(factor);
  at::native::resize_output(out, self.sizes());
  return torch_npu::finishOut(out, at::mul(self, factor));
}
at::Tensor NPUNativeFunctions::rrelu_with_noise(const at::Tensor& self, const at::Tensor& noise,
                                                const at::Scalar& lower, const at::Scalar& upper, bool training,
                                                c10::optional<at::Generator> generator) {
  at::Tensor out = torch_npu::emptyNpuLike(self);
  return rrelu_with_noise_out(self, noise, lower, upper, training, generator, out);
}
at::Tensor& NPUNativeFunctions::rrelu_with_noise_(at::Tensor& self, const at::Tensor& noise, const at::Scalar& lower,
                                                  const at::Scalar& upper, bool training,
                                                  c10::optional<at::Generator> generator) {
  return rrelu_with_noise_out(self, noise, lower, upper, training, generator, self);
}

}  // namespace native
}  // namespace at_npu
