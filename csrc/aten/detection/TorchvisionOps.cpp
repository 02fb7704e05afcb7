// torchvision's C++ operators on the NPU.
//
// Note [torchvision operators on the NPU]
// torchvision defines its operators (TORCH_LIBRARY(torchvision)) in its own
// _C library and their autograd under the Autograd alias key, which covers
// AutogradPrivateUse1; what a device adds is the forward and backward kernels
// for its dispatch key. These are registered here for PrivateUse1 whether or
// not torchvision is installed: the dispatcher keeps an implementation for an
// operator that is not yet defined and joins them when torchvision's library
// loads, so `import torch_npu` needs no torchvision, and importing it in
// either order works. The kernels are DetectionOps.h's (OPS.md "Detection").
#include <torch/library.h>

#include "DetectionOps.h"

namespace at_npu {
namespace native {
namespace {

at::Tensor nmsKernel(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  return detection::nms(dets, scores, iou_threshold);
}

// aligned=True is roi_end_mode 2 (half-pixel shift), False is 0.
int64_t endMode(bool aligned) { return aligned ? 2 : 0; }

at::Tensor roiAlignKernel(const at::Tensor& input, const at::Tensor& rois, double spatial_scale, int64_t pooled_height,
                          int64_t pooled_width, int64_t sampling_ratio, bool aligned) {
  // torchvision treats a negative sampling_ratio as adaptive, like 0.
  return detection::roiAlign("roi_align", input, rois, spatial_scale, pooled_height, pooled_width,
                             std::max<int64_t>(sampling_ratio, 0), endMode(aligned));
}

at::Tensor roiAlignBackwardKernel(const at::Tensor& grad, const at::Tensor& rois, double spatial_scale,
                                  int64_t pooled_height, int64_t pooled_width, int64_t batch_size, int64_t channels,
                                  int64_t height, int64_t width, int64_t sampling_ratio, bool aligned) {
  return detection::roiAlignBackward("_roi_align_backward", grad, rois, {batch_size, channels, height, width},
                                     spatial_scale, pooled_height, pooled_width, std::max<int64_t>(sampling_ratio, 0),
                                     endMode(aligned));
}

std::tuple<at::Tensor, at::Tensor> roiPoolKernel(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                                                 int64_t pooled_height, int64_t pooled_width) {
  return detection::roiPool("roi_pool", input, rois, spatial_scale, pooled_height, pooled_width);
}

at::Tensor roiPoolBackwardKernel(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
                                 double spatial_scale, int64_t /*pooled_height*/, int64_t /*pooled_width*/,
                                 int64_t batch_size, int64_t channels, int64_t height, int64_t width) {
  return detection::roiPoolBackward("_roi_pool_backward", grad, rois, argmax, {batch_size, channels, height, width},
                                    spatial_scale);
}

std::tuple<at::Tensor, at::Tensor> psRoiAlignKernel(const at::Tensor& input, const at::Tensor& rois,
                                                    double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                                                    int64_t sampling_ratio) {
  return detection::psRoi("ps_roi_align", "PSROIAlign", input, rois, spatial_scale, pooled_height, pooled_width,
                          sampling_ratio);
}

at::Tensor psRoiAlignBackwardKernel(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& channel_mapping,
                                    double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                                    int64_t sampling_ratio, int64_t batch_size, int64_t channels, int64_t height,
                                    int64_t width) {
  return detection::psRoiBackward("_ps_roi_align_backward", "PSROIAlignGrad", grad, rois, channel_mapping,
                                  {batch_size, channels, height, width}, spatial_scale, pooled_height, pooled_width,
                                  sampling_ratio);
}

std::tuple<at::Tensor, at::Tensor> psRoiPoolKernel(const at::Tensor& input, const at::Tensor& rois,
                                                   double spatial_scale, int64_t pooled_height, int64_t pooled_width) {
  return detection::psRoi("ps_roi_pool", "PSROIPoolingV2", input, rois, spatial_scale, pooled_height, pooled_width, 0);
}

at::Tensor psRoiPoolBackwardKernel(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& channel_mapping,
                                   double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                                   int64_t batch_size, int64_t channels, int64_t height, int64_t width) {
  return detection::psRoiBackward("_ps_roi_pool_backward", "PSROIPoolingGradV2D", grad, rois, channel_mapping,
                                  {batch_size, channels, height, width}, spatial_scale, pooled_height, pooled_width, 0);
}

at::Tensor deformConv2dKernel(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                              const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w,
                              int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                              int64_t offset_groups, bool use_mask) {
  return detection::deformConv2d(
      "deform_conv2d", input, weight, offset, mask, bias,
      {stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask});
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deformConv2dBackwardKernel(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask) {
  return detection::deformConv2dBackward(
      "_deform_conv2d_backward", grad, input, weight, offset, mask, bias,
      {stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask});
}

}  // namespace

TORCH_LIBRARY_IMPL(torchvision, PrivateUse1, m) {
  m.impl("torchvision::nms", TORCH_FN(nmsKernel));
  m.impl("torchvision::roi_align", TORCH_FN(roiAlignKernel));
  m.impl("torchvision::_roi_align_backward", TORCH_FN(roiAlignBackwardKernel));
  m.impl("torchvision::roi_pool", TORCH_FN(roiPoolKernel));
  m.impl("torchvision::_roi_pool_backward", TORCH_FN(roiPoolBackwardKernel));
  m.impl("torchvision::ps_roi_align", TORCH_FN(psRoiAlignKernel));
  m.impl("torchvision::_ps_roi_align_backward", TORCH_FN(psRoiAlignBackwardKernel));
  m.impl("torchvision::ps_roi_pool", TORCH_FN(psRoiPoolKernel));
  m.impl("torchvision::_ps_roi_pool_backward", TORCH_FN(psRoiPoolBackwardKernel));
  m.impl("torchvision::deform_conv2d", TORCH_FN(deformConv2dKernel));
  m.impl("torchvision::_deform_conv2d_backward", TORCH_FN(deformConv2dBackwardKernel));
}

}  // namespace native
}  // namespace at_npu
