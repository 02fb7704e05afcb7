// 3-D convolutions on the Cube (Note [3-D convolution] in the simulator's
// conv3d.cpp). As for 2-D, a transposed convolution is the adjoint of a
// convolution: its forward is Conv3DBackpropInput, its input gradient a
// Conv3D. Formats as in 2-D (Note [Convolution formats] in ConvOps.cpp), in
// the 3-D layouts CANN keeps: with internal formats allowed, outputs and input
// gradients are NDC1HWC0 and weight gradients FRACTAL_Z_3D, and operands
// already stored that way are passed to the Cube as they are.
#include "csrc/aten/conv/Conv3dOps.h"

#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/aten/conv/ConvShared.h"

namespace torch_npu {
namespace {

constexpr std::initializer_list<aclFormat> kActivationFormats = {ACL_FORMAT_NDC1HWC0};
constexpr std::initializer_list<aclFormat> kFilterFormats = {ACL_FRACTAL_Z_3D};

ConvParams conv3dParams(at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  TORCH_CHECK(stride.size() == 3 && padding.size() == 3 && dilation.size() == 3,
              "3-D convolution: expected 3 strides, paddings and dilations, got ", stride.size(), ", ", padding.size(),
              " and ", dilation.size());
  return makeConvParams(stride, padding, dilation, groups);
}

at::Tensor conv3d(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, const ConvParams& p,
                  at::IntArrayRef out_sizes) {
  at::Tensor y = emptyPreferringFormat(out_sizes, x.scalar_type(), x.device(), ACL_FORMAT_NDC1HWC0);
  if (y.numel() == 0) return y;
  OpCommand cmd("Conv3D");
  cmd.InputKeepFormat(x, kActivationFormats).InputKeepFormat(w, kFilterFormats);
  if (bias.defined()) cmd.Input(bias.to(x.scalar_type()));
  cmd.OutputKeepFormat(y, kActivationFormats);
  setConvAttrs(cmd, p);
  cmd.Run();
  return y;
}

// op(first, dy) -> a new tensor of `sizes` (dx: first = w; dw: first = x), stored in `preferred`
// (NDC1HWC0 for dx, FRACTAL_Z_3D for dw) when allowed.
at::Tensor backprop(const char* op, const char* size_attr, const at::Tensor& first,
                    std::initializer_list<aclFormat> first_formats, const at::Tensor& dy, const ConvParams& p,
                    at::IntArrayRef sizes, aclFormat preferred, std::initializer_list<aclFormat> out_formats) {
  at::Tensor out = emptyPreferringFormat(sizes, dy.scalar_type(), dy.device(), preferred);
  if (out.numel() == 0) return out;
  if (dy.numel() == 0 || first.numel() == 0) return out.zero_();
  OpCommand cmd(op);
  cmd.InputKeepFormat(first, first_formats).InputKeepFormat(dy, kActivationFormats);
  cmd.OutputKeepFormat(out, out_formats).Attr(size_attr, sizes);
  setConvAttrs(cmd, p);
  cmd.Run();
  return out;
}

at::Tensor conv3dBackpropInput(const at::Tensor& w, const at::Tensor& dy, const ConvParams& p,
                               at::IntArrayRef input_sizes) {
  return backprop("Conv3DBackpropInput", "input_size", w, kFilterFormats, dy, p, input_sizes, ACL_FORMAT_NDC1HWC0,
                  kActivationFormats);
}

at::Tensor conv3dBackpropFilter(const at::Tensor& x, const at::Tensor& dy, const ConvParams& p,
                                at::IntArrayRef filter_sizes) {
  return backprop("Conv3DBackpropFilter", "filter_size", x, kActivationFormats, dy, p, filter_sizes, ACL_FRACTAL_Z_3D,
                  kFilterFormats);
}

void checkInputs(const at::Tensor& input, const at::Tensor& weight) {
  TORCH_CHECK(input.dim() == 5 && weight.dim() == 5, "3-D convolution: expected 5-D input and weight, got ",
              input.dim(), "-D and ", weight.dim(), "-D");
  checkConvDtypes(input, weight);
}

// Every spatial size is positive; the message shows the sizes up to the
// first that is not.
void checkOutputSizes(const std::vector<int64_t>& sizes, const at::Tensor& input, const at::Tensor& weight) {
  for (size_t d = 2; d < sizes.size(); ++d)
    TORCH_CHECK(sizes[d] > 0, "Calculated output size ", at::IntArrayRef(sizes.data(), d + 1),
                " is too small for input ", input.sizes(), " and kernel ", weight.sizes());
}

}  // namespace

at::Tensor conv3dForward(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                         at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                         at::IntArrayRef output_padding, int64_t groups) {
  checkInputs(input, weight);
  const ConvParams p = conv3dParams(stride, padding, dilation, groups);
  const std::vector<int64_t> sizes = convOutputSizes(input, weight, p, transposed, output_padding);
  checkOutputSizes(sizes, input, weight);
  if (transposed) return addChannelBias(conv3dBackpropInput(weight, input, p, sizes), bias);
  checkConvGroups(input, weight, groups);
  return conv3d(input, weight, bias, p, sizes);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> conv3dBackward(const at::Tensor& grad_output, const at::Tensor& input,
                                                              const at::Tensor& weight, at::IntArrayRef stride,
                                                              at::IntArrayRef padding, at::IntArrayRef dilation,
                                                              bool transposed, int64_t groups,
                                                              std::array<bool, 3> output_mask) {
  checkInputs(input, weight);
  const ConvParams p = conv3dParams(stride, padding, dilation, groups);
  return convBackwardByMask(grad_output, input, weight, p, transposed, output_mask,
                            {&conv3d, &conv3dBackpropInput, &conv3dBackpropFilter});
}

}  // namespace torch_npu
