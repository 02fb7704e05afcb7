// Convolutions (2-D, incl. transposed; 3-D in Conv3dOps.cpp) on the Cube: Conv2D,
// Conv2DBackpropInput, Conv2DBackpropFilter (OPS.md). PyTorch routes every
// convolution on a non-CPU/CUDA device to convolution_overrideable and its
// backward to convolution_backward_overrideable.
//
// Note [Convolution formats]
// With internal formats allowed, outputs and input gradients are NC1HWC0 and
// weight gradients FRACTAL_Z, as in torch_npu; activations already in
// NC1HWC0 and weights already in FRACTAL_Z are passed to the Cube as stored.
// A transposed convolution is the adjoint of a convolution: its forward is
// Conv2DBackpropInput, its input gradient a Conv2D.
#include <ATen/ATen.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/conv/Conv3dOps.h"
#include "csrc/aten/conv/ConvShared.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::ConvParams;

ConvParams conv2dParams(at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  TORCH_CHECK(stride.size() == 2 && padding.size() == 2 && dilation.size() == 2,
              "the NPU backend supports 2-D convolutions only (got ", stride.size(), "-D parameters)");
  return torch_npu::makeConvParams(stride, padding, dilation, groups);
}

void checkConvInputs(const at::Tensor& input, const at::Tensor& weight) {
  TORCH_CHECK(input.dim() == 4 && weight.dim() == 4, "the NPU backend supports 1-D, 2-D and 3-D convolutions: ",
              "expected 4-D input and weight, got ", input.dim(), "-D and ", weight.dim(), "-D");
  torch_npu::checkConvDtypes(input, weight);
}

constexpr std::initializer_list<aclFormat> kActivationFormats = {ACL_FORMAT_NC1HWC0};
constexpr std::initializer_list<aclFormat> kFilterFormats = {ACL_FORMAT_FRACTAL_Z};

// y = conv(x, w) (+ bias), y of `out_sizes`.
at::Tensor conv2d(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, const ConvParams& p,
                  at::IntArrayRef out_sizes) {
  at::Tensor y = torch_npu::emptyPreferringFormat(out_sizes, x.scalar_type(), x.device(), ACL_FORMAT_NC1HWC0);
  torch_npu::OpCommand cmd("Conv2D");
  cmd.InputKeepFormat(x, kActivationFormats).InputKeepFormat(w, kFilterFormats);
  if (bias.defined()) cmd.Input(bias.to(x.scalar_type()));
  cmd.OutputKeepFormat(y, kActivationFormats);
  torch_npu::setConvAttrs(cmd, p);
  cmd.Run();
  return y;
}

// One of the two backward ops: op(first, second) -> a new tensor of `sizes`,
// stored in `preferred` (NC1HWC0 for dx, FRACTAL_Z for dw) when allowed.
at::Tensor convBackward(const char* op, const at::Tensor& first, std::initializer_list<aclFormat> first_formats,
                        const at::Tensor& second, const ConvParams& p, const char* size_attr, at::IntArrayRef sizes,
                        aclFormat preferred, std::initializer_list<aclFormat> out_formats) {
  at::Tensor out = torch_npu::emptyPreferringFormat(sizes, second.scalar_type(), second.device(), preferred);
  torch_npu::OpCommand cmd(op);
  cmd.InputKeepFormat(first, first_formats).InputKeepFormat(second, kActivationFormats);
  cmd.OutputKeepFormat(out, out_formats).Attr(size_attr, sizes);
  torch_npu::setConvAttrs(cmd, p);
  cmd.Run();
  return out;
}

// dx of y = conv(x, w): the adjoint of Conv2D.
at::Tensor conv2dBackpropInput(const at::Tensor& w, const at::Tensor& dy, const ConvParams& p,
                               at::IntArrayRef input_sizes) {
  return convBackward("Conv2DBackpropInput", w, kFilterFormats, dy, p, "input_size", input_sizes,
                      ACL_FORMAT_NC1HWC0, kActivationFormats);
}

// dw of y = conv(x, w).
at::Tensor conv2dBackpropFilter(const at::Tensor& x, const at::Tensor& dy, const ConvParams& p,
                                at::IntArrayRef filter_sizes) {
  return convBackward("Conv2DBackpropFilter", x, kActivationFormats, dy, p, "filter_size", filter_sizes,
                      ACL_FORMAT_FRACTAL_Z, kFilterFormats);
}

}  // namespace

at::Tensor NPUNativeFunctions::convolution_overrideable(const at::Tensor& input, const at::Tensor& weight,
                                                        const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                                                        at::IntArrayRef padding, at::IntArrayRef dilation,
                                                        bool transposed, at::IntArrayRef output_padding,
                                                        int64_t groups) {
  const at::Tensor b = bias.has_value() ? *bias : at::Tensor();
  if (input.dim() == 5) {
    return torch_npu::conv3dForward(input, weight, b, stride, padding, dilation, transposed, output_padding, groups);
  }
  checkConvInputs(input, weight);
  const ConvParams p = conv2dParams(stride, padding, dilation, groups);
  if (transposed) {
    const std::vector<int64_t> out_sizes = torch_npu::convOutputSizes(input, weight, p, true, output_padding);
    return torch_npu::addChannelBias(conv2dBackpropInput(weight, input, p, out_sizes), b);
  }
  torch_npu::checkConvGroups(input, weight, groups);
  const std::vector<int64_t> out_sizes = torch_npu::convOutputSizes(input, weight, p, false, output_padding);
  TORCH_CHECK(out_sizes[2] > 0 && out_sizes[3] > 0, "Calculated output size ", at::IntArrayRef(out_sizes),
              " is too small for input ", input.sizes(), " and kernel ", weight.sizes());
  return conv2d(input, weight, b, p, out_sizes);
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::convolution_backward_overrideable(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, at::IntArrayRef /*output_padding*/,
    int64_t groups, ::std::array<bool, 3> output_mask) {
  if (input.dim() == 5) {
    return torch_npu::conv3dBackward(grad_output, input, weight, stride, padding, dilation, transposed, groups,
                                     output_mask);
  }
  checkConvInputs(input, weight);
  const ConvParams p = conv2dParams(stride, padding, dilation, groups);
  return torch_npu::convBackwardByMask(grad_output, input, weight, p, transposed, output_mask,
                                       {&conv2d, &conv2dBackpropInput, &conv2dBackpropFilter});
}

// slow_conv_transpose2d (torch._C._nn.slow_conv_transpose2d; structured: its meta function sizes
// `out`): the transposed Conv2D path above, one group.
at::Tensor& NPUNativeFunctions::slow_conv_transpose2d_out(const at::Tensor& self, const at::Tensor& weight,
                                                          at::IntArrayRef kernel_size,
                                                          const c10::optional<at::Tensor>& bias,
                                                          at::IntArrayRef stride, at::IntArrayRef padding,
                                                          at::IntArrayRef output_padding, at::IntArrayRef dilation,
                                                          at::Tensor& out) {
  TORCH_CHECK(weight.dim() == 4 && weight.size(2) == kernel_size[0] && weight.size(3) == kernel_size[1],
              "slow_conv_transpose2d: kernel_size ", kernel_size, " does not match the weight's ", weight.sizes());
  return out.copy_(at::convolution(self, weight, bias, stride, padding, dilation, /*transposed=*/true,
                                   output_padding, /*groups=*/1));
}

}  // namespace native
}  // namespace at_npu
