#include "csrc/aten/conv/ConvShared.h"

namespace torch_npu {

void checkConvDtypes(const at::Tensor& input, const at::Tensor& weight) {
  TORCH_CHECK(input.scalar_type() == weight.scalar_type(), "Input type (", input.scalar_type(), ") and weight type (",
              weight.scalar_type(), ") should be the same");
  TORCH_CHECK(input.scalar_type() == at::kFloat || input.scalar_type() == at::kHalf,
              "NPU convolutions support float32 and float16, got ", input.scalar_type());
}

void checkConvGroups(const at::Tensor& input, const at::Tensor& weight, int64_t groups) {
  TORCH_CHECK(input.size(1) == weight.size(1) * groups, "Given groups=", groups, ", weight of size ", weight.sizes(),
              ", expected input", input.sizes(), " to have ", weight.size(1) * groups, " channels, but got ",
              input.size(1), " channels instead");
}

ConvParams makeConvParams(at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  ConvParams p{stride.vec(), {}, dilation.vec(), groups};
  for (const int64_t pad : padding) p.pads.insert(p.pads.end(), {pad, pad});
  return p;
}

void setConvAttrs(OpCommand& cmd, const ConvParams& p) {
  cmd.Attr("strides", at::IntArrayRef(p.strides))
      .Attr("pads", at::IntArrayRef(p.pads))
      .Attr("dilations", at::IntArrayRef(p.dilations))
      .Attr("groups", p.groups);
}

std::vector<int64_t> convOutputSizes(const at::Tensor& input, const at::Tensor& weight, const ConvParams& p,
                                     bool transposed, at::IntArrayRef output_padding) {
  std::vector<int64_t> sizes{input.size(0), transposed ? weight.size(1) * p.groups : weight.size(0)};
  for (size_t i = 0; i < p.strides.size(); ++i) {
    const int64_t in = input.size(2 + i), k = weight.size(2 + i);
    const int64_t s = p.strides[i], pad = p.pads[2 * i], d = p.dilations[i];
    sizes.push_back(transposed ? (in - 1) * s - 2 * pad + d * (k - 1) + output_padding[i] + 1
                               : (in + 2 * pad - d * (k - 1) - 1) / s + 1);
  }
  return sizes;
}

at::Tensor addChannelBias(at::Tensor y, const at::Tensor& bias) {
  if (!bias.defined()) return y;
  std::vector<int64_t> per_channel(static_cast<size_t>(y.dim()), 1);
  per_channel[1] = -1;
  return y.add_(bias.to(y.scalar_type()).reshape(per_channel));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convBackwardByMask(const at::Tensor& grad_output,
                                                                  const at::Tensor& input, const at::Tensor& weight,
                                                                  const ConvParams& p, bool transposed,
                                                                  std::array<bool, 3> output_mask,
                                                                  const ConvOpsOfRank& ops) {
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = transposed ? ops.conv(grad_output, weight, at::Tensor(), p, input.sizes())
                            : ops.backprop_input(weight, grad_output, p, input.sizes());
  }
  if (output_mask[1]) {
    grad_weight = transposed ? ops.backprop_filter(grad_output, input, p, weight.sizes())
                             : ops.backprop_filter(input, grad_output, p, weight.sizes());
  }
  if (output_mask[2]) {
    std::vector<int64_t> all_but_channels{0};  // grad_bias sums grad_output over N and the spatial dims
    for (int64_t d = 2; d < input.dim(); ++d) all_but_channels.push_back(d);
    grad_bias = grad_output.sum(all_but_channels);
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace torch_npu
