// torch_npu's YOLO target ops npu_yolo_boxes_encode, npu_anchor_response_flags
// and npu_grid_assign_positive on YoloBoxesEncode, AnchorResponseFlags and
// GridAssignPositive (Note [YOLO targets] in the simulator's
// ops/detection/yolo_assign.cpp), with torch_npu's signatures, checks and
// output dtypes. None is differentiable, in torch_npu or here.
#include "DetectionOps.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

using detection::checkBoxes;

// torch_npu's rule for index inputs: an integer type other than int64 (cast to int32 for the kernel).
void checkIndexInput(const char* op, const at::Tensor& t, const char* name) {
  TORCH_CHECK(at::isIntegralType(t.scalar_type(), /*includeBool=*/false) && t.scalar_type() != at::kLong, op, ": ",
              name, " must be an integer tensor other than int64, got ", t.scalar_type());
}

void checkVector(const char* op, const at::Tensor& t, const char* name, int64_t n) {
  TORCH_CHECK(t.dim() == 1 && t.size(0) == n, op, ": ", name, " must be [", n, "], got shape ", t.sizes());
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_yolo_boxes_encode(const at::Tensor& self, const at::Tensor& gt_bboxes,
                                                     const at::Tensor& stride, bool performance_mode) {
  const char* op = "npu_yolo_boxes_encode";
  checkBoxes(op, self, "anchor_boxes");
  checkBoxes(op, gt_bboxes, "gt_bboxes");
  const int64_t n = self.size(0);
  TORCH_CHECK(gt_bboxes.size(0) == n, op, ": gt_bboxes must have anchor_boxes' shape ", self.sizes(), ", got ",
              gt_bboxes.sizes());
  TORCH_CHECK(n <= 20480, op, ": at most 20480 boxes are supported (as in torch_npu), got ", n);
  checkVector(op, stride, "stride", n);
  checkIndexInput(op, stride, "stride");
  at::Tensor out = torch_npu::emptyNpuLike(gt_bboxes);
  OpCommand cmd("YoloBoxesEncode");
  torch_npu::addInputAs(cmd, self.contiguous(), gt_bboxes.scalar_type());
  cmd.Input(gt_bboxes.contiguous());
  torch_npu::addInputAs(cmd, stride.contiguous(), at::kInt);
  cmd.Output(out).Attr("performance_mode", performance_mode ? "high_performance" : "high_precision").Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_anchor_response_flags(const at::Tensor& self, at::IntArrayRef featmap_size,
                                                         at::IntArrayRef stride, int64_t num_base_anchors) {
  const char* op = "npu_anchor_response_flags";
  checkBoxes(op, self, "gt_bboxes");
  TORCH_CHECK(featmap_size.size() == 2 && featmap_size[0] >= 0 && featmap_size[1] >= 0, op,
              ": featmap_size must be [h, w] >= 0, got ", featmap_size);
  TORCH_CHECK(stride.size() == 2 && stride[0] > 0 && stride[1] > 0, op, ": stride must be two positive values, got ",
              stride);
  TORCH_CHECK(num_base_anchors > 0, op, ": num_base_anchors must be positive, got ", num_base_anchors);
  at::Tensor out =
      torch_npu::emptyNpu({featmap_size[0] * featmap_size[1] * num_base_anchors}, at::kByte, self.device());
  if (out.numel() == 0) return out;
  OpCommand cmd("AnchorResponseFlags");
  torch_npu::addInputAs(cmd, self.contiguous(), at::kFloat);
  cmd.Output(out)
      .Attr("featmap_size", featmap_size)
      .Attr("strides", stride)
      .Attr("num_base_anchors", num_base_anchors)
      .Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_grid_assign_positive(
    const at::Tensor& self, const at::Tensor& overlaps, const at::Tensor& box_responsible_flags,
    const at::Tensor& max_overlaps, const at::Tensor& argmax_overlaps, const at::Tensor& gt_max_overlaps,
    const at::Tensor& gt_argmax_overlaps, int64_t num_gts, double pos_iou_thr, double min_pos_iou,
    bool gt_max_assign_all) {
  const char* op = "npu_grid_assign_positive";
  TORCH_CHECK(self.dim() == 1 && at::isFloatingType(self.scalar_type()), op,
              ": self (assigned_gt_inds) must be a 1-D floating tensor, got shape ", self.sizes(), " and dtype ",
              self.scalar_type());
  const int64_t n = self.size(0);
  TORCH_CHECK(overlaps.dim() == 2 && overlaps.size(1) == n, op, ": overlaps must be [k, ", n, "], got shape ",
              overlaps.sizes());
  const int64_t k = overlaps.size(0);
  checkVector(op, box_responsible_flags, "box_responsible_flags", n);
  checkVector(op, max_overlaps, "max_overlaps", n);
  checkVector(op, argmax_overlaps, "argmax_overlaps", n);
  checkVector(op, gt_max_overlaps, "gt_max_overlaps", k);
  checkVector(op, gt_argmax_overlaps, "gt_argmax_overlaps", k);
  checkIndexInput(op, argmax_overlaps, "argmax_overlaps");
  checkIndexInput(op, gt_argmax_overlaps, "gt_argmax_overlaps");
  const auto dtype = self.scalar_type();
  at::Tensor out = torch_npu::emptyNpuLike(self);
  if (n == 0) return out;
  OpCommand cmd("GridAssignPositive");
  cmd.Input(self.contiguous());
  torch_npu::addInputAs(cmd, overlaps.contiguous(), dtype);
  torch_npu::addInputAs(cmd, box_responsible_flags.contiguous(), at::kByte);
  torch_npu::addInputAs(cmd, max_overlaps.contiguous(), dtype);
  torch_npu::addInputAs(cmd, argmax_overlaps.contiguous(), at::kInt);
  torch_npu::addInputAs(cmd, gt_max_overlaps.contiguous(), dtype);
  torch_npu::addInputAs(cmd, gt_argmax_overlaps.contiguous(), at::kInt);
  cmd.InputScalar(num_gts, at::kInt)
      .Output(out)
      .Attr("pos_iou_thr", static_cast<float>(pos_iou_thr))
      .Attr("min_pos_iou", static_cast<float>(min_pos_iou))
      .Attr("gt_max_assign_all", gt_max_assign_all)
      .Run();
  return out;
}

}  // namespace native
}  // namespace at_npu
