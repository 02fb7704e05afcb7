// torchvision's deform_conv2d and its backward on the NPU: DeformableOffsets
// samples the deformed patches side by side, then the Cube's Conv2D with
// kernel = stride = the deformable kernel (Note [Deformable sampling] in the
// simulator's ops/detection/deformable_offsets.cpp); the backward runs the
// convolution's backward and DeformableOffsetsGrad.
#include "DetectionOps.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace detection {
namespace {

struct DeformShapes {
  int64_t kh, kw, ho, wo;
};

DeformShapes checkDeform(const char* op, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                         const at::Tensor& mask, const at::Tensor& bias, const DeformConvArgs& a) {
  checkFeatureMap(op, input);
  TORCH_CHECK(weight.dim() == 4, op, ": weight must be [out_channels, in_channels / groups, kh, kw], got shape ",
              weight.sizes());
  TORCH_CHECK(a.stride_h > 0 && a.stride_w > 0, op, ": stride must be positive, got (", a.stride_h, ", ", a.stride_w,
              ")");
  TORCH_CHECK(a.pad_h >= 0 && a.pad_w >= 0, op, ": padding must be >= 0, got (", a.pad_h, ", ", a.pad_w, ")");
  TORCH_CHECK(a.dilation_h > 0 && a.dilation_w > 0, op, ": dilation must be positive, got (", a.dilation_h, ", ",
              a.dilation_w, ")");
  TORCH_CHECK(a.groups > 0 && input.size(1) % a.groups == 0 && weight.size(1) * a.groups == input.size(1), op,
              ": weight of shape ", weight.sizes(), " and groups ", a.groups, " do not fit the input's ", input.size(1),
              " channels");
  TORCH_CHECK(a.offset_groups > 0 && input.size(1) % a.offset_groups == 0, op, ": offset_groups ", a.offset_groups,
              " must divide the input's ", input.size(1), " channels");
  const int64_t kh = weight.size(2), kw = weight.size(3);
  const int64_t ho = (input.size(2) + 2 * a.pad_h - (a.dilation_h * (kh - 1) + 1)) / a.stride_h + 1;
  const int64_t wo = (input.size(3) + 2 * a.pad_w - (a.dilation_w * (kw - 1) + 1)) / a.stride_w + 1;
  TORCH_CHECK(ho > 0 && wo > 0, op, ": the output would be ", ho, " x ", wo, " for an input of ", input.size(2), " x ",
              input.size(3));
  const std::vector<int64_t> want_offset{input.size(0), 2 * a.offset_groups * kh * kw, ho, wo};
  TORCH_CHECK(offset.sizes() == at::IntArrayRef(want_offset), op, ": offset must be [N, 2 * offset_groups * kh * kw, ",
              "out_h, out_w] = ", want_offset, ", got ", offset.sizes());
  if (a.use_mask) {
    const std::vector<int64_t> want_mask{input.size(0), a.offset_groups * kh * kw, ho, wo};
    TORCH_CHECK(mask.sizes() == at::IntArrayRef(want_mask), op, ": mask must be [N, offset_groups * kh * kw, out_h, ",
                "out_w] = ", want_mask, ", got ", mask.sizes());
  }
  TORCH_CHECK(bias.numel() == weight.size(0), op, ": bias must hold ", weight.size(0), " values, got shape ",
              bias.sizes());
  return {kh, kw, ho, wo};
}

torch_npu::OpCommand& deformAttrs(torch_npu::OpCommand& cmd, const DeformShapes& s, const DeformConvArgs& a) {
  return cmd.Attr("ksize", std::vector<int64_t>{s.kh, s.kw})
      .Attr("strides", std::vector<int64_t>{a.stride_h, a.stride_w})
      .Attr("pads", std::vector<int64_t>{a.pad_h, a.pad_w})
      .Attr("dilations", std::vector<int64_t>{a.dilation_h, a.dilation_w})
      .Attr("deformable_groups", a.offset_groups)
      .Attr("modulated", a.use_mask);
}

// The deformed patches [N, C, Ho * kh, Wo * kw] in the input's dtype.
at::Tensor deformedPatches(const at::Tensor& input, const at::Tensor& offset, const at::Tensor& mask,
                           const DeformShapes& s, const DeformConvArgs& a) {
  const auto dtype = input.scalar_type();
  at::Tensor patches =
      torch_npu::emptyNpu({input.size(0), input.size(1), s.ho * s.kh, s.wo * s.kw}, dtype, input.device());
  if (patches.numel() == 0) return patches;
  torch_npu::OpCommand cmd("DeformableOffsets");
  cmd.Input(input).Input(offset.to(dtype));
  if (a.use_mask) cmd.Input(mask.to(dtype));
  cmd.Output(patches);
  deformAttrs(cmd, s, a).Run();
  return patches;
}

}  // namespace

at::Tensor deformConv2d(const char* op, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                        const at::Tensor& mask, const at::Tensor& bias, const DeformConvArgs& a) {
  const DeformShapes s = checkDeform(op, input, weight, offset, mask, bias, a);
  const at::Tensor patches = deformedPatches(input, offset, mask, s, a);
  return at::convolution(patches, weight.to(input.scalar_type()), bias.reshape({-1}).to(input.scalar_type()),
                         {s.kh, s.kw}, {0, 0}, {1, 1}, false, {0, 0}, a.groups);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deformConv2dBackward(
    const char* op, const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, const DeformConvArgs& a) {
  const DeformShapes s = checkDeform(op, input, weight, offset, mask, bias, a);
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == input.size(0) && grad.size(1) == weight.size(0) &&
                  grad.size(2) == s.ho && grad.size(3) == s.wo,
              op, ": grad of shape ", grad.sizes(), " must be the output's [", input.size(0), ", ", weight.size(0),
              ", ", s.ho, ", ", s.wo, "]");
  const auto dtype = input.scalar_type();
  const at::Tensor patches = deformedPatches(input, offset, mask, s, a);
  at::Tensor grad_patches, grad_weight, grad_bias;
  std::tie(grad_patches, grad_weight, grad_bias) =
      at::convolution_backward(grad.to(dtype), patches, weight.to(dtype), at::IntArrayRef{weight.size(0)}, {s.kh, s.kw},
                               {0, 0}, {1, 1}, false, {0, 0}, a.groups, {true, true, true});
  at::Tensor grad_input = torch_npu::emptyNpuLike(input);
  at::Tensor grad_offset = torch_npu::emptyNpu(offset.sizes(), dtype, input.device());
  at::Tensor grad_mask = torch_npu::emptyNpu(mask.sizes(), dtype, input.device());
  if (patches.numel() == 0) {
    grad_input.zero_(), grad_offset.zero_(), grad_mask.zero_();
  } else {
    torch_npu::OpCommand cmd("DeformableOffsetsGrad");
    cmd.Input(grad_patches).Input(input).Input(offset.to(dtype));
    if (a.use_mask) cmd.Input(mask.to(dtype));
    cmd.Output(grad_input).Output(grad_offset);
    if (a.use_mask) cmd.Output(grad_mask);
    deformAttrs(cmd, s, a).Run();
    if (!a.use_mask) grad_mask.zero_();
  }
  return {grad_input, grad_weight.to(weight.scalar_type()), grad_offset.to(offset.scalar_type()),
          grad_mask.to(mask.scalar_type()), grad_bias.reshape(bias.sizes()).to(bias.scalar_type())};
}

}  // namespace detection
}  // namespace native
}  // namespace at_npu
