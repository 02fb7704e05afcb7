// Upsampling (nearest, nearest-exact, linear, bilinear, bicubic, trilinear)
// and the backward of each: structured out= kernels (PyTorch's meta
// functions check the arguments and size the outputs) on the simulator's
// resize ops, as Ascend's torch_npu calls them (OPS.md "Dense prediction,
// padding, layout and indexing"; numerics in Note [Resize numerics]).
// 1-D nearest runs as 2-D with H = 1 (a copy along H).
#include <ATen/ATen.h>
#include <ATen/native/UpSample.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using OptScale = c10::optional<double>;

// attr `scales`: PyTorch's source step (float)(1.0 / scale) for a given
// positive scale factor, 0 (derive from the sizes) otherwise.
std::vector<float> ratios(std::initializer_list<OptScale> scales) {
  std::vector<float> r;
  for (const OptScale& s : scales) r.push_back(s.has_value() && *s > 0 ? static_cast<float>(1.0 / *s) : 0.0f);
  return r;
}

// Runs `op` from `input` into `out` (sized by the meta function); the op
// sees both with `lead` extra size-1 dims inserted after N, C (1-D nearest
// as 2-D).
template <typename Attrs>
at::Tensor& runResize(const char* op, const at::Tensor& input, at::Tensor& out, int64_t lead, Attrs&& attrs) {
  at::Tensor result = torch_npu::prepareOut(op, out, out.sizes(), input.scalar_type());
  auto lift = [lead](const at::Tensor& t) {
    std::vector<int64_t> s = t.sizes().vec();
    s.insert(s.begin() + 2, static_cast<size_t>(lead), 1);
    return t.reshape(s);
  };
  torch_npu::OpCommand cmd(op);
  cmd.Input(lift(input)).Output(lift(result));
  attrs(cmd);
  cmd.Run();
  return torch_npu::finishOut(out, result);
}

at::Tensor& nearest(const char* op, const at::Tensor& input, at::Tensor& out, bool exact,
                    std::initializer_list<OptScale> scales, int64_t lead = 0) {
  return runResize(op, input, out, lead, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("half_pixel_centers", exact).Attr("scales", ratios(scales));
  });
}

// 1-D nearest as 2-D: a size-1, unscaled H inserted before W.
at::Tensor& nearest1d(const char* op, const at::Tensor& input, at::Tensor& out, bool exact, OptScale scale) {
  return nearest(op, input, out, exact, {c10::nullopt, scale}, /*lead=*/1);
}

at::Tensor& linear(const char* op, const at::Tensor& input, at::Tensor& out, bool align_corners,
                   std::initializer_list<OptScale> scales) {
  return runResize(op, input, out, 0, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("align_corners", align_corners).Attr("scales", ratios(scales));
  });
}

at::Tensor& resizeD(const char* op, const char* mode, const at::Tensor& input, at::Tensor& out, bool align_corners,
                    std::initializer_list<OptScale> scales) {
  return runResize(op, input, out, 0, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("mode", mode)
        .Attr("coordinate_transformation_mode", align_corners ? "align_corners" : "pytorch_half_pixel")
        .Attr("cubic_coeff_a", -0.75f)
        .Attr("scales", ratios(scales));
  });
}

}  // namespace

// ---- nearest ----------------------------------------------------------------------------------

at::Tensor& NPUNativeFunctions::upsample_nearest1d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                       OptScale scales, at::Tensor& out) {
  return nearest1d("ResizeNearestNeighborV2", self, out, false, scales);
}
at::Tensor& NPUNativeFunctions::upsample_nearest1d_backward_out(const at::Tensor& grad_output,
                                                                at::IntArrayRef /*output_size*/,
                                                                at::IntArrayRef /*input_size*/, OptScale scales,
                                                                at::Tensor& grad_input) {
  return nearest1d("ResizeNearestNeighborV2Grad", grad_output, grad_input, false, scales);
}
at::Tensor& NPUNativeFunctions::_upsample_nearest_exact1d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                              OptScale scales, at::Tensor& out) {
  return nearest1d("ResizeNearestNeighborV2", self, out, true, scales);
}
at::Tensor& NPUNativeFunctions::_upsample_nearest_exact1d_backward_out(const at::Tensor& grad_output,
                                                                       at::IntArrayRef /*output_size*/,
                                                                       at::IntArrayRef /*input_size*/, OptScale scales,
                                                                       at::Tensor& grad_input) {
  return nearest1d("ResizeNearestNeighborV2Grad", grad_output, grad_input, true, scales);
}

at::Tensor& NPUNativeFunctions::upsample_nearest2d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                       OptScale scales_h, OptScale scales_w, at::Tensor& out) {
  return nearest("ResizeNearestNeighborV2", self, out, false, {scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::upsample_nearest2d_backward_out(const at::Tensor& grad_output,
                                                                at::IntArrayRef /*output_size*/,
                                                                at::IntArrayRef /*input_size*/, OptScale scales_h,
                                                                OptScale scales_w, at::Tensor& grad_input) {
  return nearest("ResizeNearestNeighborV2Grad", grad_output, grad_input, false, {scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::_upsample_nearest_exact2d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                              OptScale scales_h, OptScale scales_w, at::Tensor& out) {
  return nearest("ResizeNearestNeighborV2", self, out, true, {scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::_upsample_nearest_exact2d_backward_out(const at::Tensor& grad_output,
                                                                       at::IntArrayRef /*output_size*/,
                                                                       at::IntArrayRef /*input_size*/, OptScale scales_h,
                                                                       OptScale scales_w, at::Tensor& grad_input) {
  return nearest("ResizeNearestNeighborV2Grad", grad_output, grad_input, true, {scales_h, scales_w});
}

at::Tensor& NPUNativeFunctions::upsample_nearest3d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                       OptScale scales_d, OptScale scales_h, OptScale scales_w,
                                                       at::Tensor& out) {
  return nearest("UpsampleNearest3d", self, out, false, {scales_d, scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::upsample_nearest3d_backward_out(const at::Tensor& grad_output,
                                                                at::IntArrayRef /*output_size*/,
                                                                at::IntArrayRef /*input_size*/, OptScale scales_d,
                                                                OptScale scales_h, OptScale scales_w,
                                                                at::Tensor& grad_input) {
  return nearest("UpsampleNearest3dGrad", grad_output, grad_input, false, {scales_d, scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::_upsample_nearest_exact3d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                              OptScale scales_d, OptScale scales_h, OptScale scales_w,
                                                              at::Tensor& out) {
  return nearest("UpsampleNearest3d", self, out, true, {scales_d, scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::_upsample_nearest_exact3d_backward_out(const at::Tensor& grad_output,
                                                                       at::IntArrayRef /*output_size*/,
                                                                       at::IntArrayRef /*input_size*/, OptScale scales_d,
                                                                       OptScale scales_h, OptScale scales_w,
                                                                       at::Tensor& grad_input) {
  return nearest("UpsampleNearest3dGrad", grad_output, grad_input, true, {scales_d, scales_h, scales_w});
}

// ---- linear, bilinear, bicubic, trilinear -----------------------------------------------------

at::Tensor& NPUNativeFunctions::upsample_linear1d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                      bool align_corners, OptScale scales, at::Tensor& out) {
  return resizeD("ResizeD", "linear", self, out, align_corners, {scales});
}
at::Tensor& NPUNativeFunctions::upsample_linear1d_backward_out(const at::Tensor& grad_output,
                                                               at::IntArrayRef /*output_size*/,
                                                               at::IntArrayRef /*input_size*/, bool align_corners,
                                                               OptScale scales, at::Tensor& grad_input) {
  return resizeD("ResizeGradD", "linear", grad_output, grad_input, align_corners, {scales});
}

at::Tensor& NPUNativeFunctions::upsample_bilinear2d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                        bool align_corners, OptScale scales_h, OptScale scales_w,
                                                        at::Tensor& out) {
  return linear("ResizeBilinearV2", self, out, align_corners, {scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::upsample_bilinear2d_backward_out(const at::Tensor& grad_output,
                                                                 at::IntArrayRef /*output_size*/,
                                                                 at::IntArrayRef /*input_size*/, bool align_corners,
                                                                 OptScale scales_h, OptScale scales_w,
                                                                 at::Tensor& grad_input) {
  return linear("ResizeBilinearV2Grad", grad_output, grad_input, align_corners, {scales_h, scales_w});
}

at::Tensor& NPUNativeFunctions::upsample_bicubic2d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                       bool align_corners, OptScale scales_h, OptScale scales_w,
                                                       at::Tensor& out) {
  return resizeD("ResizeD", "cubic", self, out, align_corners, {scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::upsample_bicubic2d_backward_out(const at::Tensor& grad_output,
                                                                at::IntArrayRef /*output_size*/,
                                                                at::IntArrayRef /*input_size*/, bool align_corners,
                                                                OptScale scales_h, OptScale scales_w,
                                                                at::Tensor& grad_input) {
  return resizeD("ResizeGradD", "cubic", grad_output, grad_input, align_corners, {scales_h, scales_w});
}

at::Tensor& NPUNativeFunctions::upsample_trilinear3d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/,
                                                         bool align_corners, OptScale scales_d, OptScale scales_h,
                                                         OptScale scales_w, at::Tensor& out) {
  return linear("UpsampleTrilinear3d", self, out, align_corners, {scales_d, scales_h, scales_w});
}
at::Tensor& NPUNativeFunctions::upsample_trilinear3d_backward_out(const at::Tensor& grad_output,
                                                                  at::IntArrayRef /*output_size*/,
                                                                  at::IntArrayRef /*input_size*/, bool align_corners,
                                                                  OptScale scales_d, OptScale scales_h,
                                                                  OptScale scales_w, at::Tensor& grad_input) {
  return linear("UpsampleTrilinear3dGrad", grad_output, grad_input, align_corners, {scales_d, scales_h, scales_w});
}

// ---- nearest 3-D .vec forms (CPU/CUDA kernels upstream, not composite) ------------------------

namespace {

using OptScales = c10::optional<at::ArrayRef<double>>;

// What a .vec form passes on to its sized form: the output size, from
// output_size or the scale factors (PyTorch's compute_output_size, with its
// checks and messages), and the D, H, W scale factors.
struct Nearest3dSizes {
  c10::SmallVector<int64_t, 3> output_size;
  OptScale scale_d, scale_h, scale_w;
};

Nearest3dSizes nearest3dSizes(at::IntArrayRef input_size, at::OptionalIntArrayRef output_size,
                              OptScales scale_factors) {
  using at::native::upsample::get_scale_value;
  Nearest3dSizes s;
  s.output_size = at::native::upsample::compute_output_size(input_size, output_size, scale_factors);
  s.scale_d = get_scale_value(scale_factors, 0);
  s.scale_h = get_scale_value(scale_factors, 1);
  s.scale_w = get_scale_value(scale_factors, 2);
  return s;
}

}  // namespace

at::Tensor NPUNativeFunctions::upsample_nearest3d(const at::Tensor& input, at::OptionalIntArrayRef output_size,
                                                  OptScales scale_factors) {
  const Nearest3dSizes s = nearest3dSizes(input.sizes(), output_size, scale_factors);
  return at::upsample_nearest3d(input, s.output_size, s.scale_d, s.scale_h, s.scale_w);
}
at::Tensor NPUNativeFunctions::_upsample_nearest_exact3d(const at::Tensor& input,
                                                         at::OptionalIntArrayRef output_size,
                                                         OptScales scale_factors) {
  const Nearest3dSizes s = nearest3dSizes(input.sizes(), output_size, scale_factors);
  return at::_upsample_nearest_exact3d(input, s.output_size, s.scale_d, s.scale_h, s.scale_w);
}
at::Tensor NPUNativeFunctions::upsample_nearest3d_backward(const at::Tensor& grad_output,
                                                           at::OptionalIntArrayRef output_size,
                                                           at::IntArrayRef input_size, OptScales scale_factors) {
  const Nearest3dSizes s = nearest3dSizes(input_size, output_size, scale_factors);
  return at::upsample_nearest3d_backward(grad_output, s.output_size, input_size, s.scale_d, s.scale_h, s.scale_w);
}
at::Tensor NPUNativeFunctions::_upsample_nearest_exact3d_backward(const at::Tensor& grad_output,
                                                                  at::OptionalIntArrayRef output_size,
                                                                  at::IntArrayRef input_size,
                                                                  OptScales scale_factors) {
  const Nearest3dSizes s = nearest3dSizes(input_size, output_size, scale_factors);
  return at::_upsample_nearest_exact3d_backward(grad_output, s.output_size, input_size, s.scale_d, s.scale_h,
                                                s.scale_w);
}

}  // namespace native
}  // namespace at_npu
