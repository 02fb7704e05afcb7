// torchvision's deform_conv2d and its backward on the NPU: DeformableOffsets
// samples the deformed patches side by side, then the Cube's Conv2D with
// kernel = stride = the deformable kernel (Note [Deformable sampling] in the
// simulator's ops/detection/deformable_offsets.cpp); the backward runs the
// convolution's backward and DeformableOffsetsGrad.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "DetectionOps.h"
#include "NPUCustomFunctions.h"
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
    const at::Tensor& mask, const at::Tensor& bias, const DeformConvArgs& a, const at::Tensor& saved_patches) {
  const DeformShapes s = checkDeform(op, input, weight, offset, mask, bias, a);
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == input.size(0) && grad.size(1) == weight.size(0) &&
                  grad.size(2) == s.ho && grad.size(3) == s.wo,
              op, ": grad of shape ", grad.sizes(), " must be the output's [", input.size(0), ", ", weight.size(0),
              ", ", s.ho, ", ", s.wo, "]");
  const auto dtype = input.scalar_type();
  const std::vector<int64_t> patches_shape{input.size(0), input.size(1), s.ho * s.kh, s.wo * s.kw};
  const bool reuse = saved_patches.defined() && saved_patches.sizes() == at::IntArrayRef(patches_shape);
  const at::Tensor patches = reuse ? saved_patches.to(dtype) : deformedPatches(input, offset, mask, s, a);
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

// torch_npu's npu_deformable_conv2d / npu_deformable_conv2dbk, on the same two
// kernels.
//
// Note [torch_npu's deformable offsets]
// torch_npu lays offset out as [N, B * G * kh * kw, Ho, Wo] with B = 3 blocks
// (2 without modulation): all column (x) offsets, then all row (y) offsets,
// then the mask, each block [G][kh][kw] (torchvision interleaves (dy, dx) per
// kernel point and passes the mask apart). stride and dilation are NCHW-ordered
// 4-lists [1, 1, h, w] and padding is [top, bottom, left, right]; everything
// computes in fp32, as torch_npu casts it. The second output is the
// deformed patches [N, C, Ho * kh, Wo * kw] (DeformableOffsets' y), which the
// backward takes back instead of sampling again.
namespace at_npu {
namespace native {
namespace {

struct NpuDeformLayout {
  detection::DeformConvArgs args;
  at::Tensor offset, mask;  // torchvision's layout (DetectionOps.h)
};

NpuDeformLayout npuDeformLayout(const char* op, const at::Tensor& weight, const at::Tensor& offset,
                                at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
                                at::IntArrayRef dilation, int64_t groups, int64_t deformable_groups, bool modulated) {
  TORCH_CHECK(kernel_size.size() == 2 && weight.dim() == 4 && weight.size(2) == kernel_size[0] &&
                  weight.size(3) == kernel_size[1],
              op, ": kernel_size ", kernel_size, " must be the weight's [kh, kw] (weight of shape ", weight.sizes(),
              ")");
  TORCH_CHECK(stride.size() == 4 && dilation.size() == 4, op,
              ": stride and dilation are NCHW-ordered 4-lists [1, 1, h, w], got ", stride, " and ", dilation);
  TORCH_CHECK(padding.size() == 4 && padding[0] == padding[1] && padding[2] == padding[3], op,
              ": padding [top, bottom, left, right] must be symmetric on this backend, got ", padding);
  const int64_t kk = kernel_size[0] * kernel_size[1], g = deformable_groups, blocks = modulated ? 3 : 2;
  TORCH_CHECK(g > 0 && offset.dim() == 4 && offset.size(1) == blocks * g * kk, op, ": offset must be [N, ", blocks,
              " * deformable_groups * kh * kw = ", blocks * g * kk, ", out_h, out_w] (x offsets, y offsets",
              modulated ? ", mask)" : ")", ", got shape ", offset.sizes());
  const int64_t n = offset.size(0), ho = offset.size(2), wo = offset.size(3);
  const at::Tensor off = offset.to(at::kFloat);
  const at::Tensor xs = off.narrow(1, 0, g * kk).reshape({n, g, kk, 1, ho, wo});
  const at::Tensor ys = off.narrow(1, g * kk, g * kk).reshape({n, g, kk, 1, ho, wo});
  NpuDeformLayout l;
  l.args = {stride[2], stride[3], padding[0], padding[2], dilation[2], dilation[3], groups, g, modulated};
  l.offset = at::cat({ys, xs}, 3).reshape({n, 2 * g * kk, ho, wo});
  l.mask = modulated ? off.narrow(1, 2 * g * kk, g * kk).contiguous()
                     : torch_npu::emptyNpu({0}, at::kFloat, offset.device());
  return l;
}

at::Tensor fp32Bias(const c10::optional<at::Tensor>& bias, const at::Tensor& weight) {
  if (bias.has_value() && bias->defined()) return bias->to(at::kFloat);
  return at::zeros({weight.size(0)}, weight.options().dtype(at::kFloat));
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_deformable_conv2d(
    const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset, const c10::optional<at::Tensor>& bias,
    at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
    int64_t groups, int64_t deformable_groups, bool modulated) {
  const char* op = "npu_deformable_conv2d";
  const NpuDeformLayout l =
      npuDeformLayout(op, weight, offset, kernel_size, stride, padding, dilation, groups, deformable_groups, modulated);
  const at::Tensor x = input.to(at::kFloat), w = weight.to(at::kFloat), b = fp32Bias(bias, weight);
  const detection::DeformShapes s = detection::checkDeform(op, x, w, l.offset, l.mask, b, l.args);
  at::Tensor patches = detection::deformedPatches(x, l.offset, l.mask, s, l.args);
  at::Tensor out = at::convolution(patches, w, b, {s.kh, s.kw}, {0, 0}, {1, 1}, false, {0, 0}, groups);
  return {out, patches};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_deformable_conv2dbk(
    const at::Tensor& input, const at::Tensor& grad_output, const at::Tensor& offset_out, const at::Tensor& weight,
    const at::Tensor& offset, at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
    at::IntArrayRef dilation, int64_t groups, int64_t deformable_groups, bool modulated) {
  const char* op = "npu_deformable_conv2dbk";
  const NpuDeformLayout l =
      npuDeformLayout(op, weight, offset, kernel_size, stride, padding, dilation, groups, deformable_groups, modulated);
  const at::Tensor x = input.to(at::kFloat), w = weight.to(at::kFloat), b = fp32Bias(c10::nullopt, weight);
  auto [grad_input, grad_weight, grad_offset, grad_mask, grad_bias] =
      detection::deformConv2dBackward(op, grad_output, x, w, l.offset, l.mask, b, l.args, offset_out);
  // Back to torch_npu's layout: x block, y block (, mask block).
  const int64_t n = offset.size(0), g = deformable_groups, kk = kernel_size[0] * kernel_size[1];
  const at::Tensor pairs = grad_offset.reshape({n, g * kk, 2, offset.size(2), offset.size(3)});
  std::vector<at::Tensor> blocks{pairs.select(2, 1), pairs.select(2, 0)};
  if (modulated) blocks.push_back(grad_mask);
  return {grad_input, grad_weight, at::cat(blocks, 1), grad_bias};
}

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// npu_deformable_conv2d's autograd, as torch_npu's derivatives.yaml gives it:
// input, weight, offset and bias from npu_deformable_conv2dbk; the patches are
// not differentiable.
class DeformableConv2dFunction : public torch::autograd::Function<DeformableConv2dFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& input, const at::Tensor& weight,
                               const at::Tensor& offset, const c10::optional<at::Tensor>& bias,
                               at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
                               at::IntArrayRef dilation, int64_t groups, int64_t deformable_groups, bool modulated) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [out, patches] = NPUCustomFunctions::npu_deformable_conv2d(
        input, weight, offset, bias, kernel_size, stride, padding, dilation, groups, deformable_groups, modulated);
    ctx->save_for_backward({input, weight, offset, patches});
    ctx->saved_data["kernel_size"] = kernel_size.vec();
    ctx->saved_data["stride"] = stride.vec();
    ctx->saved_data["padding"] = padding.vec();
    ctx->saved_data["dilation"] = dilation.vec();
    ctx->saved_data["groups"] = groups;
    ctx->saved_data["deformable_groups"] = deformable_groups;
    ctx->saved_data["modulated"] = modulated;
    ctx->saved_data["has_bias"] = bias.has_value() && bias->defined();
    ctx->mark_non_differentiable({patches});
    return {out, patches};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list result(11);
    if (!grads[0].defined()) return result;
    const auto saved = ctx->get_saved_variables();
    auto& d = ctx->saved_data;
    auto [gi, gw, goff, gb] = NPUCustomFunctions::npu_deformable_conv2dbk(
        saved[0], grads[0], saved[3], saved[1], saved[2], d["kernel_size"].toIntVector(), d["stride"].toIntVector(),
        d["padding"].toIntVector(), d["dilation"].toIntVector(), d["groups"].toInt(), d["deformable_groups"].toInt(),
        d["modulated"].toBool());
    result[0] = gi.to(saved[0].scalar_type());
    result[1] = gw.to(saved[1].scalar_type());
    result[2] = goff.to(saved[2].scalar_type());
    if (d["has_bias"].toBool()) result[3] = gb;
    return result;
  }
};

std::tuple<at::Tensor, at::Tensor> deformableConv2dWithAutograd(
    const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset, const c10::optional<at::Tensor>& bias,
    at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
    int64_t groups, int64_t deformable_groups, bool modulated) {
  auto outs = DeformableConv2dFunction::apply(input, weight, offset, bias, kernel_size, stride, padding, dilation,
                                              groups, deformable_groups, modulated);
  return {outs[0], outs[1]};
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_deformable_conv2d", TORCH_FN(deformableConv2dWithAutograd));
}

}  // namespace native
}  // namespace at_npu
