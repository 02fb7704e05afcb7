// The detection kernels' entry points, shared by torchvision's operators
// (TorchvisionOps.cpp registers them for PrivateUse1) and torch_npu's npu_*
// detection ops. Each checks its arguments with messages that name the op and
// the argument, and launches one simulator kernel (OPS.md "Detection").
#pragma once

#include <ATen/ATen.h>

#include <tuple>

namespace at_npu {
namespace native {
namespace detection {

// Greedy NMS on NonMaxSuppressionV4 (Note [Greedy NMS]): the indices of the
// kept boxes by descending score, int64, with a host read of their count.
at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold);

// ROIAlign / ROIAlignGrad; roi_end_mode as Note [RoIAlign sampling] defines it.
at::Tensor roiAlign(const char* op, const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                    int64_t pooled_height, int64_t pooled_width, int64_t sample_num, int64_t roi_end_mode);
at::Tensor roiAlignBackward(const char* op, const at::Tensor& grad, const at::Tensor& rois, at::IntArrayRef input_size,
                            double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sample_num,
                            int64_t roi_end_mode);

// ROIPoolingWithArgMax / ROIPoolingGradWithArgMax (Note [RoI max pooling]).
std::tuple<at::Tensor, at::Tensor> roiPool(const char* op, const at::Tensor& input, const at::Tensor& rois,
                                           double spatial_scale, int64_t pooled_height, int64_t pooled_width);
at::Tensor roiPoolBackward(const char* op, const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
                           at::IntArrayRef input_size, double spatial_scale);

// PSROIAlign / PSROIPoolingV2 (Note [Position-sensitive bins]): `acl_op`
// names which; returns (output, channel_mapping int32) and the backward.
std::tuple<at::Tensor, at::Tensor> psRoi(const char* op, const char* acl_op, const at::Tensor& input,
                                         const at::Tensor& rois, double spatial_scale, int64_t pooled_height,
                                         int64_t pooled_width, int64_t sample_num);
at::Tensor psRoiBackward(const char* op, const char* acl_op, const at::Tensor& grad, const at::Tensor& rois,
                         const at::Tensor& channel_mapping, at::IntArrayRef input_size, double spatial_scale,
                         int64_t pooled_height, int64_t pooled_width, int64_t sample_num);

// A deformable convolution's geometry (torchvision's deform_conv2d arguments).
struct DeformConvArgs {
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups;
  bool use_mask;
};
// DeformableOffsets then Conv2D (Note [Deformable sampling]).
at::Tensor deformConv2d(const char* op, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                        const at::Tensor& mask, const at::Tensor& bias, const DeformConvArgs& a);
// (grad_input, grad_weight, grad_offset, grad_mask, grad_bias); `saved_patches`, when defined, are the
// forward's DeformableOffsets output, used instead of sampling again.
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deformConv2dBackward(
    const char* op, const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, const DeformConvArgs& a,
    const at::Tensor& saved_patches = at::Tensor());

// Argument checks shared by the region ops.
void checkFeatureMap(const char* op, const at::Tensor& input);
// A floating [N, 4] box table (`name` in the message).
void checkBoxes(const char* op, const at::Tensor& t, const char* name);
void checkRois(const char* op, const at::Tensor& rois, const at::Tensor& input);
void checkPooledSize(const char* op, int64_t pooled_height, int64_t pooled_width);
// A gradient's input size [N, C, H, W] from the backward's integer arguments.
void checkInputSize(const char* op, at::IntArrayRef input_size);

}  // namespace detection
}  // namespace native
}  // namespace at_npu
