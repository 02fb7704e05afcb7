// 3-D convolutions (nn.Conv3d, nn.ConvTranspose3d) on Conv3D,
// Conv3DBackpropInput and Conv3DBackpropFilter. convolution_overrideable
// and its backward (ConvOps.cpp) hand 5-D inputs here.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <tuple>

namespace torch_npu {

at::Tensor conv3dForward(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                         at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                         at::IntArrayRef output_padding, int64_t groups);

std::tuple<at::Tensor, at::Tensor, at::Tensor> conv3dBackward(const at::Tensor& grad_output, const at::Tensor& input,
                                                              const at::Tensor& weight, at::IntArrayRef stride,
                                                              at::IntArrayRef padding, at::IntArrayRef dilation,
                                                              bool transposed, int64_t groups,
                                                              std::array<bool, 3> output_mask);

}  // namespace torch_npu
