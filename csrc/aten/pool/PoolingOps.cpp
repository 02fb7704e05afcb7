// max_pool2d (with indices), avg_pool2d and adaptive_avg_pool2d, forward and
// backward, on the Vector pooling ops (OPS.md). 3-D (unbatched) inputs are
// viewed as a batch of one. Outputs follow NC1HWC0 when internal formats are
// allowed; indices are int64 in PyTorch's layout (h * W + w per plane).
#include <ATen/ATen.h>
#include <ATen/native/Pool.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

constexpr std::initializer_list<aclFormat> kPoolFormats = {ACL_FORMAT_NC1HWC0};

struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

int64_t pick(at::IntArrayRef v, size_t i, int64_t fallback) {
  if (v.empty()) return fallback;
  return v.size() == 1 ? v[0] : v[i];
}

Window window(const char* op, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
              at::IntArrayRef dilation) {
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 2, op, ": kernel_size must be an int or a pair of ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 2, op,
              ": stride must be empty, an int or a pair of ints");
  TORCH_CHECK(padding.size() == 1 || padding.size() == 2, op, ": padding must be an int or a pair of ints");
  Window w{pick(kernel, 0, 1), pick(kernel, 1, 1), 0, 0, pick(padding, 0, 0), pick(padding, 1, 0),
           pick(dilation, 0, 1), pick(dilation, 1, 1)};
  w.sh = pick(stride, 0, w.kh);
  w.sw = pick(stride, 1, w.kw);
  TORCH_CHECK(w.ph <= w.kh / 2 && w.pw <= w.kw / 2, op, ": pad should be at most half of effective kernel size, "
              "but got pad=", w.ph, ", kernel_size=", w.kh, " and dilation=", w.dh);
  return w;
}

at::Tensor batched(const at::Tensor& t) {
  TORCH_CHECK(t.dim() == 3 || t.dim() == 4, "pooling on the NPU expects a 3-D or 4-D input, got ", t.dim(), "-D");
  return t.dim() == 3 ? t.unsqueeze(0) : t;
}

std::vector<int64_t> pooledSizes(const at::Tensor& x, const Window& w, bool ceil_mode) {
  const int64_t oh = at::native::pooling_output_shape<int64_t>(x.size(2), w.kh, w.ph, w.sh, w.dh, ceil_mode);
  const int64_t ow = at::native::pooling_output_shape<int64_t>(x.size(3), w.kw, w.pw, w.sw, w.dw, ceil_mode);
  // The CPU's checks and messages: a window larger than the padded input ("Output size is too
  // small") raises instead of giving an empty result.
  at::native::pool2d_shape_check(x, w.kh, w.kw, w.sh, w.sw, w.ph, w.pw, w.dh, w.dw, x.size(1), x.size(2), x.size(3),
                                 oh, ow, at::MemoryFormat::Contiguous);
  return {x.size(0), x.size(1), oh, ow};
}

void setWindowAttrs(torch_npu::OpCommand& cmd, const Window& w, bool ceil_mode) {
  cmd.Attr("ksize", at::IntArrayRef({w.kh, w.kw}))
      .Attr("strides", at::IntArrayRef({w.sh, w.sw}))
      .Attr("pads", at::IntArrayRef({w.ph, w.ph, w.pw, w.pw}))
      .Attr("dilations", at::IntArrayRef({w.dh, w.dw}))
      .Attr("ceil_mode", ceil_mode);
}

at::Tensor newActivation(at::IntArrayRef sizes, const at::Tensor& like) {
  return torch_npu::emptyPreferringFormat(sizes, like.scalar_type(), like.device(), ACL_FORMAT_NC1HWC0);
}

at::Tensor& assignResult(at::Tensor& out, const at::Tensor& result, at::IntArrayRef sizes) {
  at::native::resize_output(out, sizes);
  return torch_npu::finishOut(out, result);
}

void setAvgAttrs(torch_npu::OpCommand& cmd, const Window& w, bool ceil_mode, bool count_include_pad,
                 c10::optional<int64_t> divisor_override) {
  setWindowAttrs(cmd, w, ceil_mode);
  cmd.Attr("count_include_pad", count_include_pad).Attr("divisor_override", divisor_override.value_or(0));
}

}  // namespace

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::max_pool2d_with_indices_out(
    const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
    at::IntArrayRef dilation, bool ceil_mode, at::Tensor& out, at::Tensor& indices) {
  auto [y, argmax] = max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode);
  assignResult(out, y, y.sizes());
  assignResult(indices, argmax, argmax.sizes());
  return {out, indices};
}

::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::max_pool2d_with_indices(
    const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
    at::IntArrayRef dilation, bool ceil_mode) {
  const Window w = window("max_pool2d", kernel_size, stride, padding, dilation);
  const at::Tensor x = batched(self);
  auto sizes = pooledSizes(x, w, ceil_mode);
  at::Tensor y = newActivation(sizes, x);
  at::Tensor argmax = torch_npu::emptyNpu(sizes, at::kLong, x.device());
  torch_npu::OpCommand cmd("MaxPoolWithArgmaxV1");
  cmd.InputKeepFormat(x, kPoolFormats).OutputKeepFormat(y, kPoolFormats).Output(argmax);
  setWindowAttrs(cmd, w, ceil_mode);
  cmd.Run();
  if (self.dim() == 3) return {y.squeeze(0), argmax.squeeze(0)};
  return {y, argmax};
}

at::Tensor& NPUNativeFunctions::max_pool2d_with_indices_backward_out(
    const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode, const at::Tensor& indices,
    at::Tensor& grad_input) {
  const at::Tensor dx = max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                                         ceil_mode, indices);
  return assignResult(grad_input, dx, self.sizes());
}

// dx comes back in the op's own output (NC1HWC0 when allowed), as in
// avg_pool2d_backward: no base-format copy for the functional form.
at::Tensor NPUNativeFunctions::max_pool2d_with_indices_backward(
    const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode, const at::Tensor& indices) {
  const Window w = window("max_pool2d_backward", kernel_size, stride, padding, dilation);
  const at::Tensor x = batched(self);
  at::Tensor dx = newActivation(x.sizes(), x);
  torch_npu::OpCommand cmd("MaxPoolGradWithArgmaxV1");
  cmd.InputKeepFormat(x, kPoolFormats).InputKeepFormat(batched(grad_output), kPoolFormats).Input(batched(indices));
  cmd.OutputKeepFormat(dx, kPoolFormats);
  setWindowAttrs(cmd, w, ceil_mode);
  cmd.Run();
  return self.dim() == 3 ? dx.squeeze(0) : dx;
}

at::Tensor NPUNativeFunctions::avg_pool2d(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                          at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                          c10::optional<int64_t> divisor_override) {
  TORCH_CHECK(!divisor_override.has_value() || *divisor_override != 0, "divisor must be not zero");
  const Window w = window("avg_pool2d", kernel_size, stride, padding, {1});
  const at::Tensor x = batched(self);
  auto sizes = pooledSizes(x, w, ceil_mode);
  at::Tensor y = newActivation(sizes, x);
  torch_npu::OpCommand cmd("AvgPoolV2");
  cmd.InputKeepFormat(x, kPoolFormats).OutputKeepFormat(y, kPoolFormats);
  setAvgAttrs(cmd, w, ceil_mode, count_include_pad, divisor_override);
  cmd.Run();
  return self.dim() == 3 ? y.squeeze(0) : y;
}

at::Tensor& NPUNativeFunctions::avg_pool2d_out(const at::Tensor& self, at::IntArrayRef kernel_size,
                                               at::IntArrayRef stride, at::IntArrayRef padding, bool ceil_mode,
                                               bool count_include_pad, c10::optional<int64_t> divisor_override,
                                               at::Tensor& out) {
  const at::Tensor y = avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
  return assignResult(out, y, y.sizes());
}

at::Tensor NPUNativeFunctions::avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                   at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                                   at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                                   c10::optional<int64_t> divisor_override) {
  const Window w = window("avg_pool2d_backward", kernel_size, stride, padding, {1});
  const at::Tensor x = batched(self);
  at::Tensor dx = newActivation(x.sizes(), x);
  torch_npu::OpCommand cmd("AvgPoolV2Grad");
  cmd.InputKeepFormat(batched(grad_output), kPoolFormats).OutputKeepFormat(dx, kPoolFormats);
  cmd.Attr("orig_input_shape", x.sizes());
  setAvgAttrs(cmd, w, ceil_mode, count_include_pad, divisor_override);
  cmd.Run();
  return self.dim() == 3 ? dx.squeeze(0) : dx;
}

at::Tensor& NPUNativeFunctions::avg_pool2d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                        at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                                        at::IntArrayRef padding, bool ceil_mode,
                                                        bool count_include_pad,
                                                        c10::optional<int64_t> divisor_override,
                                                        at::Tensor& grad_input) {
  const at::Tensor dx = avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                                            count_include_pad, divisor_override);
  return assignResult(grad_input, dx, self.sizes());
}

at::Tensor NPUNativeFunctions::_adaptive_avg_pool2d(const at::Tensor& self, at::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  const at::Tensor x = batched(self);
  const std::vector<int64_t> sizes{x.size(0), x.size(1), output_size[0], output_size[1]};
  at::Tensor y = newActivation(sizes, x);
  torch_npu::OpCommand("AdaptiveAvgPool2d")
      .InputKeepFormat(x, kPoolFormats)
      .OutputKeepFormat(y, kPoolFormats)
      .Attr("output_size", output_size)
      .Run();
  return self.dim() == 3 ? y.squeeze(0) : y;
}

at::Tensor NPUNativeFunctions::_adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const at::Tensor x = batched(self);
  at::Tensor dx = newActivation(x.sizes(), x);
  torch_npu::OpCommand("AdaptiveAvgPool2dGrad")
      .InputKeepFormat(batched(grad_output), kPoolFormats)
      .OutputKeepFormat(dx, kPoolFormats)
      .Attr("orig_input_shape", x.sizes())
      .Run();
  return dx.view(self.sizes());
}

}  // namespace native
}  // namespace at_npu
