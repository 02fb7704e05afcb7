// torch_npu's detection operators (npu::npu_nms_v4, npu_nms_with_mask,
// npu_batch_nms, npu_iou / npu_ptiou, npu_roi_align / npu_roi_alignbk,
// npu_bounding_box_encode / decode) with torch_npu's signatures, defaults and
// outputs, on the simulator's detection kernels (OPS.md "Detection"; Note
// [Greedy NMS], [NMS variants], [RoIAlign sampling], [Box coding]). None of
// them is differentiable in torch_npu, nor here.
#include "DetectionOps.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

using detection::checkBoxes;

std::vector<float> fourFloats(double a, double b, double c, double d) {
  return {static_cast<float>(a), static_cast<float>(b), static_cast<float>(c), static_cast<float>(d)};
}

// Two [N, 4] box tensors of one shape (the coders' inputs).
void checkBoxPair(const char* op, const at::Tensor& a, const char* a_name, const at::Tensor& b, const char* b_name) {
  checkBoxes(op, a, a_name);
  checkBoxes(op, b, b_name);
  TORCH_CHECK(a.sizes() == b.sizes(), op, ": ", a_name, " and ", b_name, " must have one shape, got ", a.sizes(),
              " and ", b.sizes());
}

void checkOneValue(const char* op, const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.numel() == 1 && at::isFloatingType(t.scalar_type()), op, ": ", name,
              " must be a one-value floating tensor, got shape ", t.sizes(), " and dtype ", t.scalar_type());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_nms_v4(const at::Tensor& self, const at::Tensor& scores,
                                                                  const at::Scalar& max_output_size,
                                                                  const at::Tensor& iou_threshold,
                                                                  const at::Tensor& scores_threshold,
                                                                  bool /*pad_to_max_output_size*/) {
  const char* op = "npu_nms_v4";
  checkBoxes(op, self, "boxes");
  TORCH_CHECK(scores.dim() == 1 && scores.size(0) == self.size(0), op, ": scores must be [N] with N = ", self.size(0),
              ", got shape ", scores.sizes());
  checkOneValue(op, iou_threshold, "iou_threshold");
  checkOneValue(op, scores_threshold, "scores_threshold");
  const int64_t max_out = max_output_size.toLong();
  TORCH_CHECK(max_out >= 0, op, ": max_output_size must be >= 0, got ", max_out);
  at::Tensor selected = torch_npu::emptyNpu({max_out}, at::kInt, self.device());
  at::Tensor valid = torch_npu::emptyNpu({}, at::kInt, self.device());
  // max_output_size 0 never reaches the kernel, so the count is written here
  // (Note [Launches with an empty output] in OpCommand.h).
  if (max_out == 0) return {selected, valid.zero_()};
  OpCommand cmd("NonMaxSuppressionV4");
  cmd.Input(self).Input(scores).InputScalar(max_out, at::kInt);
  torch_npu::addInputAs(cmd, iou_threshold.reshape({}), at::kFloat);
  torch_npu::addInputAs(cmd, scores_threshold.reshape({}), at::kFloat);
  cmd.Output(selected).Output(valid).Attr("pad_to_max_output_size", true).Run();
  return {selected, valid};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_nms_with_mask(const at::Tensor& input,
                                                                                     const at::Scalar& iou_threshold) {
  TORCH_CHECK(input.dim() == 2 && (input.size(1) == 5 || input.size(1) == 8),
              "npu_nms_with_mask: input must be [N, 5] (x1, y1, x2, y2, score) or [N, 8], got shape ", input.sizes());
  TORCH_CHECK(at::isFloatingType(input.scalar_type()), "npu_nms_with_mask: input must be floating point, got ",
              input.scalar_type());
  const int64_t n = input.size(0);
  at::Tensor boxes = torch_npu::emptyNpu({n, 5}, input.scalar_type(), input.device());
  at::Tensor idx = torch_npu::emptyNpu({n}, at::kInt, input.device());
  at::Tensor mask = torch_npu::emptyNpu({n}, at::kByte, input.device());
  if (n == 0) return {boxes, idx, mask};
  OpCommand("NMSWithMask")
      .Input(input)
      .Output(boxes)
      .Output(idx)
      .Output(mask)
      .Attr("iou_threshold", static_cast<float>(iou_threshold.toDouble()))
      .Run();
  return {boxes, idx, mask};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_batch_nms(
    const at::Tensor& self, const at::Tensor& scores, double score_threshold, double iou_threshold,
    int64_t max_size_per_class, int64_t max_total_size, bool change_coordinate_frame, bool transpose_box) {
  const char* op = "npu_batch_nms";
  TORCH_CHECK(scores.dim() == 3, op, ": scores must be [batch, num_anchors, num_classes], got shape ", scores.sizes());
  TORCH_CHECK(self.dim() == 4 && self.size(0) == scores.size(0) && self.size(1) == scores.size(1) &&
                  (self.size(2) == 1 || self.size(2) == scores.size(2)) && self.size(3) == 4,
              op, ": boxes must be [batch, num_anchors, 1 or num_classes, 4] for scores of shape ", scores.sizes(),
              ", got shape ", self.sizes());
  TORCH_CHECK(max_size_per_class > 0 && max_total_size > 0, op,
              ": max_size_per_class and max_total_size must be positive, got ", max_size_per_class, " and ",
              max_total_size);
  TORCH_CHECK(!change_coordinate_frame && !transpose_box, op,
              ": change_coordinate_frame and transpose_box must be False on this backend");
  const auto dtype = self.scalar_type();
  const int64_t b = self.size(0);
  at::Tensor boxes = torch_npu::emptyNpu({b, max_total_size, 4}, dtype, self.device());
  at::Tensor out_scores = torch_npu::emptyNpu({b, max_total_size}, dtype, self.device());
  at::Tensor classes = torch_npu::emptyNpu({b, max_total_size}, dtype, self.device());
  at::Tensor num = torch_npu::emptyNpu({b}, at::kInt, self.device());
  if (b == 0) return {boxes, out_scores, classes, num};
  OpCommand("BatchMultiClassNonMaxSuppression")
      .Input(self)
      .Input(scores.to(dtype))
      .Output(boxes)
      .Output(out_scores)
      .Output(classes)
      .Output(num)
      .Attr("score_threshold", static_cast<float>(score_threshold))
      .Attr("iou_threshold", static_cast<float>(iou_threshold))
      .Attr("max_size_per_class", max_size_per_class)
      .Attr("max_total_size", max_total_size)
      .Attr("change_coordinate_frame", false)
      .Attr("transpose_box", false)
      .Run();
  return {boxes, out_scores, classes, num};
}

at::Tensor NPUCustomFunctions::npu_iou(const at::Tensor& bboxes, const at::Tensor& gtboxes, int64_t mode) {
  checkBoxes("npu_iou", bboxes, "bboxes");
  checkBoxes("npu_iou", gtboxes, "gtboxes");
  TORCH_CHECK(mode == 0 || mode == 1, "npu_iou: mode must be 0 (iou) or 1 (iof), got ", mode);
  at::Tensor out = torch_npu::emptyNpu({gtboxes.size(0), bboxes.size(0)}, bboxes.scalar_type(), bboxes.device());
  if (out.numel() == 0) return out;
  OpCommand("Iou")
      .Input(bboxes)
      .Input(gtboxes.to(bboxes.scalar_type()))
      .Output(out)
      .Attr("mode", mode == 0 ? "iou" : "iof")
      .Attr("eps", 0.01f)
      .Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_ptiou(const at::Tensor& bboxes, const at::Tensor& gtboxes, int64_t mode) {
  return npu_iou(bboxes, gtboxes, mode);  // torch_npu's npu_ptiou is npu_iou
}

at::Tensor NPUCustomFunctions::npu_roi_align(const at::Tensor& self, const at::Tensor& rois, double spatial_scale,
                                             int64_t pooled_height, int64_t pooled_width, int64_t sample_num,
                                             int64_t roi_end_mode) {
  return detection::roiAlign("npu_roi_align", self, rois, spatial_scale, pooled_height, pooled_width, sample_num,
                             roi_end_mode);
}

at::Tensor NPUCustomFunctions::npu_roi_alignbk(const at::Tensor& self, const at::Tensor& rois,
                                               at::IntArrayRef xdiff_shape, int64_t pooled_width, int64_t pooled_height,
                                               double spatial_scale, int64_t sample_num,
                                               c10::optional<int64_t> roi_end_mode) {
  return detection::roiAlignBackward("npu_roi_alignbk", self, rois, xdiff_shape, spatial_scale, pooled_height,
                                     pooled_width, sample_num, roi_end_mode.value_or(1));
}

at::Tensor NPUCustomFunctions::npu_bounding_box_encode(const at::Tensor& anchor_box, const at::Tensor& ground_truth_box,
                                                       double means0, double means1, double means2, double means3,
                                                       double stds0, double stds1, double stds2, double stds3) {
  const char* op = "npu_bounding_box_encode";
  checkBoxPair(op, anchor_box, "anchor_box", ground_truth_box, "ground_truth_box");
  TORCH_CHECK(stds0 != 0 && stds1 != 0 && stds2 != 0 && stds3 != 0, op, ": stds must be non-zero, got (", stds0, ", ",
              stds1, ", ", stds2, ", ", stds3, ")");
  at::Tensor out = torch_npu::emptyNpuLike(anchor_box);
  if (out.numel() == 0) return out;
  OpCommand("BoundingBoxEncode")
      .Input(anchor_box)
      .Input(ground_truth_box.to(anchor_box.scalar_type()))
      .Output(out)
      .Attr("means", fourFloats(means0, means1, means2, means3))
      .Attr("stds", fourFloats(stds0, stds1, stds2, stds3))
      .Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_bounding_box_decode(const at::Tensor& rois, const at::Tensor& deltas, double means0,
                                                       double means1, double means2, double means3, double stds0,
                                                       double stds1, double stds2, double stds3,
                                                       at::IntArrayRef max_shape, double wh_ratio_clip) {
  const char* op = "npu_bounding_box_decode";
  TORCH_CHECK(max_shape.size() == 2 && max_shape[0] > 0 && max_shape[1] > 0, op,
              ": max_shape must be (h, w), both positive, got ", max_shape);
  TORCH_CHECK(wh_ratio_clip > 0, op, ": wh_ratio_clip must be positive, got ", wh_ratio_clip);
  checkBoxPair(op, rois, "rois", deltas, "deltas");
  at::Tensor out = torch_npu::emptyNpuLike(rois);
  if (out.numel() == 0) return out;
  OpCommand("BoundingBoxDecode")
      .Input(rois)
      .Input(deltas.to(rois.scalar_type()))
      .Output(out)
      .Attr("means", fourFloats(means0, means1, means2, means3))
      .Attr("stds", fourFloats(stds0, stds1, stds2, stds3))
      .Attr("max_shape", max_shape)
      .Attr("wh_ratio_clip", static_cast<float>(wh_ratio_clip))
      .Run();
  return out;
}

}  // namespace native
}  // namespace at_npu
