// What the 2-D (ConvOps.cpp) and 3-D (Conv3dOps.cpp) convolutions share:
// the argument checks, the ops' attrs, the output sizes, the bias of a
// transposed convolution and the assembly of the backward from its ops.
// Each rank keeps its own rank checks (their messages differ) and its own
// Cube ops (2-D keeps internal formats, Note [Convolution formats]).
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <tuple>
#include <vector>

#include "csrc/framework/OpCommand.h"

namespace torch_npu {

// Input and weight of one dtype, float32 or float16.
void checkConvDtypes(const at::Tensor& input, const at::Tensor& weight);

// A non-transposed convolution's input has groups x weight's input channels.
void checkConvGroups(const at::Tensor& input, const at::Tensor& weight, int64_t groups);

// The attrs of the Cube's convolution ops.
struct ConvParams {
  std::vector<int64_t> strides, pads, dilations;  // pads: two per spatial dim (both ends)
  int64_t groups;
};

// From one stride, padding and dilation per spatial dim (checked by the
// caller): each padding applies at both ends of its dim.
ConvParams makeConvParams(at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);

void setConvAttrs(OpCommand& cmd, const ConvParams& p);

// [N, C_out, spatial sizes...] of the convolution of input by weight, or of
// its adjoint when transposed (widened by output_padding). Unchecked: a
// spatial size may come out <= 0.
std::vector<int64_t> convOutputSizes(const at::Tensor& input, const at::Tensor& weight, const ConvParams& p,
                                     bool transposed, at::IntArrayRef output_padding);

// y += bias, one value per channel (dim 1), when bias is defined: the bias
// of a transposed convolution, whose op takes none.
at::Tensor addChannelBias(at::Tensor y, const at::Tensor& bias);

// The Cube ops of one rank, which a convolution's backward is built from.
struct ConvOpsOfRank {
  // y = conv(x, w) (+ bias), y of y_sizes.
  at::Tensor (*conv)(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, const ConvParams& p,
                     at::IntArrayRef y_sizes);
  // dx of y = conv(x, w), dx of x_sizes.
  at::Tensor (*backprop_input)(const at::Tensor& w, const at::Tensor& dy, const ConvParams& p, at::IntArrayRef x_sizes);
  // dw of y = conv(x, w), dw of w_sizes.
  at::Tensor (*backprop_filter)(const at::Tensor& x, const at::Tensor& dy, const ConvParams& p,
                                at::IntArrayRef w_sizes);
};

// convolution_backward's (grad_input, grad_weight, grad_bias): those
// output_mask asks for, undefined tensors for the others. A transposed
// convolution is the adjoint of a convolution: its grad_input is a
// convolution of grad_output, and its grad_weight swaps input and
// grad_output.
std::tuple<at::Tensor, at::Tensor, at::Tensor> convBackwardByMask(const at::Tensor& grad_output,
                                                                  const at::Tensor& input, const at::Tensor& weight,
                                                                  const ConvParams& p, bool transposed,
                                                                  std::array<bool, 3> output_mask,
                                                                  const ConvOpsOfRank& ops);

}  // namespace torch_npu
