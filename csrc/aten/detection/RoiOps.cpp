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

namespace {

// What ROIAlign and ROIAlignGrad share: the pooled size, sampling and end mode, checked and as attributes.
struct AlignArgs {
  double spatial_scale;
  int64_t pooled_height, pooled_width, sample_num, roi_end_mode;
};

void checkAlignArgs(const char* op, const AlignArgs& a) {
  checkPooledSize(op, a.pooled_height, a.pooled_width);
  TORCH_CHECK(a.sample_num >= 0, op, ": sample_num must be >= 0 (0 = adaptive), got ", a.sample_num);
  TORCH_CHECK(a.roi_end_mode >= 0 && a.roi_end_mode <= 2, op, ": roi_end_mode must be 0, 1 or 2, got ", a.roi_end_mode);
}

void runAlign(OpCommand& cmd, const AlignArgs& a) {
  cmd.Attr("spatial_scale", static_cast<float>(a.spatial_scale))
      .Attr("pooled_height", a.pooled_height)
      .Attr("pooled_width", a.pooled_width)
      .Attr("sample_num", a.sample_num)
      .Attr("roi_end_mode", a.roi_end_mode)
      .Run();
}

}  // namespace

at::Tensor roiAlign(const char* op, const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                    int64_t pooled_height, int64_t pooled_width, int64_t sample_num, int64_t roi_end_mode) {
  checkFeatureMap(op, input);
  checkRois(op, rois, input);
  const AlignArgs args{spatial_scale, pooled_height, pooled_width, sample_num, roi_end_mode};
  checkAlignArgs(op, args);
  at::Tensor out = torch_npu::emptyNpu({rois.size(0), input.size(1), pooled_height, pooled_width}, input.scalar_type(),
                                       input.device());
  if (out.numel() == 0) return out;
  OpCommand cmd("ROIAlign");
  cmd.Input(input).Input(rois).Output(out);
  runAlign(cmd, args);
  return out;
}

at::Tensor roiAlignBackward(const char* op, const at::Tensor& grad, const at::Tensor& rois, at::IntArrayRef input_size,
                            double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sample_num,
                            int64_t roi_end_mode) {
  checkInputSize(op, input_size);
  checkRois(op, rois, grad);
  const AlignArgs args{spatial_scale, pooled_height, pooled_width, sample_num, roi_end_mode};
  checkAlignArgs(op, args);
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == input_size[1] &&
                  grad.size(2) == pooled_height && grad.size(3) == pooled_width,
              op, ": grad of shape ", grad.sizes(), " must be [K, C, pooled_height, pooled_width] = [", rois.size(0),
              ", ", input_size[1], ", ", pooled_height, ", ", pooled_width, "]");
  at::Tensor grad_input = torch_npu::emptyNpu(input_size, grad.scalar_type(), grad.device());
  if (grad.numel() == 0 || grad_input.numel() == 0) return grad_input.zero_();
  OpCommand cmd("ROIAlignGrad");
  cmd.Input(grad).Input(rois).Output(grad_input).Attr("xdiff_shape", input_size);
  runAlign(cmd, args);
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
