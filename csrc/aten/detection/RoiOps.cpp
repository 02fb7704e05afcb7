// torchvision's roi_align / roi_pool and their backward on the NPU, as CANN's
// ROIAlign / ROIAlignGrad and ROIPoolingWithArgMax / ROIPoolingGradWithArgMax
// (Note [RoIAlign sampling] and Note [RoI max pooling] in the simulator's
// ops/detection/). The feature map keeps its dtype; rois may be any float
// dtype (autocast passes fp16 features with fp32 boxes).
#include "DetectionOps.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace detection {

using torch_npu::OpCommand;

at::Tensor roiAlign(const char* op, const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                    int64_t pooled_height, int64_t pooled_width, int64_t sample_num, int64_t roi_end_mode) {
  checkFeatureMap(op, input);
  checkRois(op, rois, input);
  checkPooledSize(op, pooled_height, pooled_width);
  TORCH_CHECK(sample_num >= 0, op, ": sampling_ratio must be >= 0 (0 = adaptive), got ", sample_num);
  at::Tensor out = torch_npu::emptyNpu({rois.size(0), input.size(1), pooled_height, pooled_width}, input.scalar_type(),
                                       input.device());
  if (out.numel() == 0) return out;
  OpCommand("ROIAlign")
      .Input(input)
      .Input(rois)
      .Output(out)
      .Attr("spatial_scale", static_cast<float>(spatial_scale))
      .Attr("pooled_height", pooled_height)
      .Attr("pooled_width", pooled_width)
      .Attr("sample_num", sample_num)
      .Attr("roi_end_mode", roi_end_mode)
      .Run();
  return out;
}

at::Tensor roiAlignBackward(const char* op, const at::Tensor& grad, const at::Tensor& rois, at::IntArrayRef input_size,
                            double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sample_num,
                            int64_t roi_end_mode) {
  checkInputSize(op, input_size);
  checkRois(op, rois, grad);
  checkPooledSize(op, pooled_height, pooled_width);
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == input_size[1] &&
                  grad.size(2) == pooled_height && grad.size(3) == pooled_width,
              op, ": grad of shape ", grad.sizes(), " must be [K, C, pooled_height, pooled_width] = [", rois.size(0),
              ", ", input_size[1], ", ", pooled_height, ", ", pooled_width, "]");
  at::Tensor grad_input = torch_npu::emptyNpu(input_size, grad.scalar_type(), grad.device());
  if (grad.numel() == 0 || grad_input.numel() == 0) return grad_input.zero_();
  OpCommand("ROIAlignGrad")
      .Input(grad)
      .Input(rois)
      .Output(grad_input)
      .Attr("xdiff_shape", input_size)
      .Attr("spatial_scale", static_cast<float>(spatial_scale))
      .Attr("pooled_height", pooled_height)
      .Attr("pooled_width", pooled_width)
      .Attr("sample_num", sample_num)
      .Attr("roi_end_mode", roi_end_mode)
      .Run();
  return grad_input;
}

std::tuple<at::Tensor, at::Tensor> roiPool(const char* op, const at::Tensor& input, const at::Tensor& rois,
                                           double spatial_scale, int64_t pooled_height, int64_t pooled_width) {
  checkFeatureMap(op, input);
  checkRois(op, rois, input);
  checkPooledSize(op, pooled_height, pooled_width);
  const std::vector<int64_t> shape{rois.size(0), input.size(1), pooled_height, pooled_width};
  at::Tensor out = torch_npu::emptyNpu(shape, input.scalar_type(), input.device());
  at::Tensor argmax = torch_npu::emptyNpu(shape, at::kInt, input.device());  // int32, as torchvision's
  if (out.numel() == 0) return {out, argmax};
  OpCommand("ROIPoolingWithArgMax")
      .Input(input)
      .Input(rois)
      .Output(out)
      .Output(argmax)
      .Attr("spatial_scale", static_cast<float>(spatial_scale))
      .Attr("pooled_h", pooled_height)
      .Attr("pooled_w", pooled_width)
      .Run();
  return {out, argmax};
}

at::Tensor roiPoolBackward(const char* op, const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
                           at::IntArrayRef input_size, double spatial_scale) {
  checkInputSize(op, input_size);
  checkRois(op, rois, grad);
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == input_size[1], op, ": grad of shape ",
              grad.sizes(), " must be [K, C, pooled_height, pooled_width] with K = ", rois.size(0),
              " and C = ", input_size[1]);
  TORCH_CHECK(argmax.sizes() == grad.sizes(), op, ": argmax of shape ", argmax.sizes(), " must have grad's shape ",
              grad.sizes());
  TORCH_CHECK(argmax.scalar_type() == at::kLong || argmax.scalar_type() == at::kInt, op,
              ": argmax must be int64 or int32, got ", argmax.scalar_type());
  at::Tensor grad_input = torch_npu::emptyNpu(input_size, grad.scalar_type(), grad.device());
  if (grad.numel() == 0 || grad_input.numel() == 0) return grad_input.zero_();
  OpCommand("ROIPoolingGradWithArgMax")
      .Input(grad)
      .Input(rois)
      .Input(argmax)
      .Output(grad_input)
      .Attr("spatial_scale", static_cast<float>(spatial_scale))
      .Attr("pooled_h", grad.size(2))
      .Attr("pooled_w", grad.size(3))
      .Run();
  return grad_input;
}

}  // namespace detection
}  // namespace native
}  // namespace at_npu
