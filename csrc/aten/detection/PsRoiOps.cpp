// torchvision's ps_roi_align / ps_roi_pool and their backward on the NPU, as
// PSROIAlign(Grad) and PSROIPoolingV2 / PSROIPoolingGradV2D (Note
// [Position-sensitive bins] in the simulator's ops/detection/ps_roi.cpp).
#include "DetectionOps.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace detection {
namespace {

void checkPsChannels(const char* op, int64_t channels, int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(channels % (pooled_height * pooled_width) == 0, op, ": the input's ", channels,
              " channels must be a multiple of pooled_height * pooled_width = ", pooled_height * pooled_width);
}

torch_npu::OpCommand& psAttrs(torch_npu::OpCommand& cmd, const char* acl_op, double spatial_scale,
                              int64_t pooled_height, int64_t pooled_width, int64_t sample_num) {
  cmd.Attr("spatial_scale", static_cast<float>(spatial_scale))
      .Attr("pooled_height", pooled_height)
      .Attr("pooled_width", pooled_width);
  if (std::string(acl_op) == "PSROIAlign" || std::string(acl_op) == "PSROIAlignGrad")
    cmd.Attr("sample_num", sample_num);
  return cmd;
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> psRoi(const char* op, const char* acl_op, const at::Tensor& input,
                                         const at::Tensor& rois, double spatial_scale, int64_t pooled_height,
                                         int64_t pooled_width, int64_t sample_num) {
  checkFeatureMap(op, input);
  checkRois(op, rois, input);
  checkPooledSize(op, pooled_height, pooled_width);
  checkPsChannels(op, input.size(1), pooled_height, pooled_width);
  const std::vector<int64_t> shape{rois.size(0), input.size(1) / (pooled_height * pooled_width), pooled_height,
                                   pooled_width};
  at::Tensor out = torch_npu::emptyNpu(shape, input.scalar_type(), input.device());
  at::Tensor mapping = torch_npu::emptyNpu(shape, at::kInt, input.device());
  if (out.numel() == 0) return {out, mapping};
  torch_npu::OpCommand cmd(acl_op);
  cmd.Input(input).Input(rois).Output(out).Output(mapping);
  psAttrs(cmd, acl_op, spatial_scale, pooled_height, pooled_width, std::max<int64_t>(sample_num, 0)).Run();
  return {out, mapping};
}

at::Tensor psRoiBackward(const char* op, const char* acl_op, const at::Tensor& grad, const at::Tensor& rois,
                         const at::Tensor& channel_mapping, at::IntArrayRef input_size, double spatial_scale,
                         int64_t pooled_height, int64_t pooled_width, int64_t sample_num) {
  checkInputSize(op, input_size);
  checkRois(op, rois, grad);
  checkPooledSize(op, pooled_height, pooled_width);
  checkPsChannels(op, input_size[1], pooled_height, pooled_width);
  const int64_t c_out = input_size[1] / (pooled_height * pooled_width);
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == c_out &&
                  grad.size(2) == pooled_height && grad.size(3) == pooled_width,
              op, ": grad of shape ", grad.sizes(), " must be [K, C / (pooled_height * pooled_width), ph, pw] = [",
              rois.size(0), ", ", c_out, ", ", pooled_height, ", ", pooled_width, "]");
  TORCH_CHECK(channel_mapping.sizes() == grad.sizes(), op, ": channel_mapping of shape ", channel_mapping.sizes(),
              " must have grad's shape ", grad.sizes());
  at::Tensor grad_input = torch_npu::emptyNpu(input_size, grad.scalar_type(), grad.device());
  if (grad.numel() == 0 || grad_input.numel() == 0) return grad_input.zero_();
  torch_npu::OpCommand cmd(acl_op);
  cmd.Input(grad).Input(rois).Input(channel_mapping).Output(grad_input);
  psAttrs(cmd, acl_op, spatial_scale, pooled_height, pooled_width, std::max<int64_t>(sample_num, 0)).Run();
  return grad_input;
}

}  // namespace detection
}  // namespace native
}  // namespace at_npu
