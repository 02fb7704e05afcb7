// grid_sampler_2d / grid_sampler_3d and their backward
// (nn.functional.grid_sample) on the simulator's GridSampler2D / 3D (+Grad)
// (Note [Grid sampler numerics]), after PyTorch's own argument checks
// (GridSamplerUtils.h).
#include <ATen/ATen.h>
#include <ATen/native/GridSamplerUtils.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void modeAttrs(torch_npu::OpCommand& cmd, int64_t interpolation_mode, int64_t padding_mode, bool align_corners) {
  static const char* const kInterp[] = {"bilinear", "nearest", "bicubic"};
  static const char* const kPadding[] = {"zeros", "border", "reflection"};
  TORCH_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2, "grid_sampler(): invalid interpolation_mode ",
              interpolation_mode);
  TORCH_CHECK(padding_mode >= 0 && padding_mode <= 2, "grid_sampler(): invalid padding_mode ", padding_mode);
  cmd.Attr("interpolation_mode", kInterp[interpolation_mode]).Attr("padding_mode", kPadding[padding_mode]);
  cmd.Attr("align_corners", align_corners);
}

void checkGrid(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode, bool volumetric) {
  at::native::check_grid_sampler_common(input, grid);
  if (volumetric) at::native::check_grid_sampler_3d(input, grid, interpolation_mode);
  else at::native::check_grid_sampler_2d(input, grid);
}

at::Tensor sample(const char* op, const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode,
                  int64_t padding_mode, bool align_corners) {
  checkGrid(input, grid, interpolation_mode, input.dim() == 5);
  std::vector<int64_t> sizes = {input.size(0), input.size(1)};
  sizes.insert(sizes.end(), grid.sizes().begin() + 1, grid.sizes().end() - 1);
  at::Tensor out = torch_npu::emptyNpu(sizes, input.scalar_type(), input.device());
  torch_npu::OpCommand cmd(op);
  cmd.Input(input);
  torch_npu::addInputAs(cmd, grid, input.scalar_type());
  cmd.Output(out);
  modeAttrs(cmd, interpolation_mode, padding_mode, align_corners);
  cmd.Run();
  return out;
}

::std::tuple<at::Tensor, at::Tensor> sampleBackward(const char* op, const at::Tensor& grad_output,
                                                    const at::Tensor& input, const at::Tensor& grid,
                                                    int64_t interpolation_mode, int64_t padding_mode,
                                                    bool align_corners, ::std::array<bool, 2> output_mask) {
  checkGrid(input, grid, interpolation_mode, input.dim() == 5);
  at::Tensor grad_input = torch_npu::emptyNpu(input.sizes(), input.scalar_type(), input.device());
  at::Tensor grad_grid = torch_npu::emptyNpu(grid.sizes(), input.scalar_type(), input.device());
  if (grad_input.numel() == 0 || grad_grid.numel() == 0) {  // nothing to sample: zero gradients
    grad_input.zero_();
    grad_grid.zero_();
  } else {
    torch_npu::OpCommand cmd(op);
    torch_npu::addInputAs(cmd, grad_output, input.scalar_type());
    cmd.Input(input);
    torch_npu::addInputAs(cmd, grid, input.scalar_type());
    cmd.Output(grad_input).Output(grad_grid);
    modeAttrs(cmd, interpolation_mode, padding_mode, align_corners);
    cmd.Run();
  }
  return {output_mask[0] ? grad_input : at::Tensor(), output_mask[1] ? grad_grid.to(grid.scalar_type()) : at::Tensor()};
}

}  // namespace

at::Tensor NPUNativeFunctions::grid_sampler_2d(const at::Tensor& input, const at::Tensor& grid,
                                               int64_t interpolation_mode, int64_t padding_mode, bool align_corners) {
  return sample("GridSampler2D", input, grid, interpolation_mode, padding_mode, align_corners);
}
::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::grid_sampler_2d_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode,
    int64_t padding_mode, bool align_corners, ::std::array<bool, 2> output_mask) {
  return sampleBackward("GridSampler2DGrad", grad_output, input, grid, interpolation_mode, padding_mode,
                        align_corners, output_mask);
}
at::Tensor NPUNativeFunctions::grid_sampler_3d(const at::Tensor& input, const at::Tensor& grid,
                                               int64_t interpolation_mode, int64_t padding_mode, bool align_corners) {
  return sample("GridSampler3D", input, grid, interpolation_mode, padding_mode, align_corners);
}
::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::grid_sampler_3d_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode,
    int64_t padding_mode, bool align_corners, ::std::array<bool, 2> output_mask) {
  return sampleBackward("GridSampler3DGrad", grad_output, input, grid, interpolation_mode, padding_mode,
                        align_corners, output_mask);
}

}  // namespace native
}  // namespace at_npu
