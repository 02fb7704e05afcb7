// 3-D convolutions on the Cube (Note [3-D convolution] in the simulator's
// conv3d.cpp). As for 2-D, a transposed convolution is the adjoint of a
// convolution: its forward is Conv3DBackpropInput, its input gradient a
// Conv3D. Operands are plain NCDHW (the simulator does not model the
// NDC1HWC0 layout CANN uses for them).
#include "csrc/aten/Conv3dOps.h"

#include "csrc/aten/NPUTensorUtils.h"

namespace torch_npu {
namespace {

struct Conv3dParams {
  std::vector<int64_t> strides, pads, dilations;
  int64_t groups;
};

Conv3dParams paramsOf(at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  TORCH_CHECK(stride.size() == 3 && padding.size() == 3 && dilation.size() == 3,
              "3-D convolution: expected 3 strides, paddings and dilations, got ", stride.size(), ", ", padding.size(),
              " and ", dilation.size());
  return {stride.vec(), {padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]}, dilation.vec(), groups};
}

void setAttrs(OpCommand& cmd, const Conv3dParams& p) {
  cmd.Attr("strides", at::IntArrayRef(p.strides))
      .Attr("pads", at::IntArrayRef(p.pads))
      .Attr("dilations", at::IntArrayRef(p.dilations))
      .Attr("groups", p.groups);
}

at::Tensor conv3d(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, const Conv3dParams& p,
                  at::IntArrayRef out_sizes) {
  at::Tensor y = emptyNpu(out_sizes, x.scalar_type(), x.device());
  if (y.numel() == 0) return y;
  OpCommand cmd("Conv3D");
  cmd.Input(x).Input(w);
  if (bias.defined()) cmd.Input(bias.to(x.scalar_type()));
  cmd.Output(y);
  setAttrs(cmd, p);
  cmd.Run();
  return y;
}

// op(first, dy) -> a new tensor of `sizes` (dx: first = w; dw: first = x).
at::Tensor backprop(const char* op, const char* size_attr, const at::Tensor& first, const at::Tensor& dy,
                    const Conv3dParams& p, at::IntArrayRef sizes) {
  at::Tensor out = emptyNpu(sizes, dy.scalar_type(), dy.device());
  if (out.numel() == 0) return out;
  if (dy.numel() == 0 || first.numel() == 0) return out.zero_();
  OpCommand cmd(op);
  cmd.Input(first).Input(dy).Output(out).Attr(size_attr, sizes);
  setAttrs(cmd, p);
  cmd.Run();
  return out;
}

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

void checkInputs(const at::Tensor& input, const at::Tensor& weight) {
  TORCH_CHECK(input.dim() == 5 && weight.dim() == 5, "3-D convolution: expected 5-D input and weight, got ",
              input.dim(), "-D and ", weight.dim(), "-D");
  checkConvDtypes(input, weight);
}

}  // namespace

void checkConvDtypes(const at::Tensor& input, const at::Tensor& weight) {
  TORCH_CHECK(input.scalar_type() == weight.scalar_type(), "Input type (", input.scalar_type(), ") and weight type (",
              weight.scalar_type(), ") should be the same");
  TORCH_CHECK(input.scalar_type() == at::kFloat || input.scalar_type() == at::kHalf,
              "NPU convolutions support float32 and float16, got ", input.scalar_type());
}

at::Tensor conv3dForward(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                         at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                         at::IntArrayRef output_padding, int64_t groups) {
  checkInputs(input, weight);
  const Conv3dParams p = paramsOf(stride, padding, dilation, groups);
  std::vector<int64_t> sizes{input.size(0), transposed ? weight.size(1) * groups : weight.size(0)};
  for (int i = 0; i < 3; ++i) {
    sizes.push_back(transposed ? (input.size(2 + i) - 1) * stride[i] - 2 * padding[i] +
                                     dilation[i] * (weight.size(2 + i) - 1) + output_padding[i] + 1
                               : outSize(input.size(2 + i), weight.size(2 + i), stride[i], padding[i], dilation[i]));
    TORCH_CHECK(sizes.back() > 0, "Calculated output size ", at::IntArrayRef(sizes), " is too small for input ",
                input.sizes(), " and kernel ", weight.sizes());
  }
  if (transposed) {
    at::Tensor y = backprop("Conv3DBackpropInput", "input_size", weight, input, p, sizes);
    return bias.defined() ? y.add_(bias.to(y.scalar_type()).reshape({1, -1, 1, 1, 1})) : y;
  }
  TORCH_CHECK(input.size(1) == weight.size(1) * groups, "Given groups=", groups, ", weight of size ", weight.sizes(),
              ", expected input", input.sizes(), " to have ", weight.size(1) * groups, " channels, but got ",
              input.size(1), " channels instead");
  return conv3d(input, weight, bias, p, sizes);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> conv3dBackward(const at::Tensor& grad_output, const at::Tensor& input,
                                                              const at::Tensor& weight, at::IntArrayRef stride,
                                                              at::IntArrayRef padding, at::IntArrayRef dilation,
                                                              bool transposed, int64_t groups,
                                                              std::array<bool, 3> output_mask) {
  checkInputs(input, weight);
  const Conv3dParams p = paramsOf(stride, padding, dilation, groups);
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = transposed ? conv3d(grad_output, weight, at::Tensor(), p, input.sizes())
                            : backprop("Conv3DBackpropInput", "input_size", weight, grad_output, p, input.sizes());
  }
  if (output_mask[1]) {
    grad_weight = transposed ? backprop("Conv3DBackpropFilter", "filter_size", grad_output, input, p, weight.sizes())
                             : backprop("Conv3DBackpropFilter", "filter_size", input, grad_output, p, weight.sizes());
  }
  if (output_mask[2]) grad_bias = grad_output.sum({0, 2, 3, 4});
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace torch_npu
