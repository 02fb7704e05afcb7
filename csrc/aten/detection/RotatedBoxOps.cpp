// torch_npu's rotated-box ops npu_rotated_overlaps, npu_rotated_iou,
// npu_rotated_box_encode / npu_rotated_box_decode and npu_nms_rotated on
// RotatedOverlaps, RotatedIou, RotatedBoxEncode / Decode and RotatedNMS (Note
// [Rotated boxes] in the simulator's ops/detection/rotated_boxes.cpp), with
// torch_npu's layouts: the overlaps take boxes [B, N, 5] and return [B, N, K]
// in the input dtype (computed in fp32), the coders work on [B, 5, N], and
// npu_nms_rotated returns (int32 kept indices [M], int32 count [1]). None is
// differentiable, in torch_npu or here.
#include <functional>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

void checkBoxesLast(const char* op, const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.dim() == 3 && t.size(2) == 5, op, ": ", name, " must be [B, N, 5], got shape ", t.sizes());
  TORCH_CHECK(at::isFloatingType(t.scalar_type()), op, ": ", name, " must be floating point, got ", t.scalar_type());
}

// RotatedOverlaps / RotatedIou of [B, N, 5] and [B, K, 5] boxes, as fp32 [B, 5, N] blocks.
at::Tensor runOverlaps(const char* op, const char* acl_op, const at::Tensor& self, const at::Tensor& query, bool trans,
                       const std::function<void(OpCommand&)>& attrs) {
  checkBoxesLast(op, self, "self");
  checkBoxesLast(op, query, "query_boxes");
  TORCH_CHECK(self.size(0) == query.size(0), op, ": self and query_boxes must have one batch size, got ", self.size(0),
              " and ", query.size(0));
  at::Tensor out = torch_npu::emptyNpu({self.size(0), self.size(1), query.size(1)}, at::kFloat, self.device());
  if (out.numel() == 0) return out.to(self.scalar_type());
  OpCommand cmd(acl_op);
  torch_npu::addInputAs(cmd, self.transpose(1, 2).contiguous(), at::kFloat);
  torch_npu::addInputAs(cmd, query.transpose(1, 2).contiguous(), at::kFloat);
  cmd.Output(out).Attr("trans", trans);
  attrs(cmd);
  cmd.Run();
  return out.to(self.scalar_type());
}

// The five weights of the rotated box coders, read from their tensor.
std::vector<float> codingWeights(const char* op, const at::Tensor& weight) {
  TORCH_CHECK(weight.numel() == 5, op, ": weight must hold 5 values, got shape ", weight.sizes());
  const at::Tensor w = weight.to(at::kCPU, at::kFloat).contiguous();
  return std::vector<float>(w.data_ptr<float>(), w.data_ptr<float>() + 5);
}

at::Tensor runCoding(const char* op, const char* acl_op, const at::Tensor& self, const at::Tensor& other,
                     const char* other_name, const at::Tensor& weight) {
  TORCH_CHECK(self.dim() == 3 && self.size(1) == 5, op, ": self must be [B, 5, N] (x1, y1, x2, y2, angle rows), got ",
              "shape ", self.sizes());
  TORCH_CHECK(other.sizes() == self.sizes(), op, ": ", other_name, " must have self's shape ", self.sizes(), ", got ",
              other.sizes());
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), op, ": self must be floating point, got ", self.scalar_type());
  const std::vector<float> w = codingWeights(op, weight);
  at::Tensor out = torch_npu::emptyNpuLike(self);
  if (out.numel() == 0) return out;
  OpCommand cmd(acl_op);
  cmd.Input(self.contiguous());
  torch_npu::addInputAs(cmd, other.contiguous(), self.scalar_type());
  cmd.Output(out).Attr("weight", w).Run();
  return out;
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_rotated_overlaps(const at::Tensor& self, const at::Tensor& query_boxes, bool trans) {
  return runOverlaps("npu_rotated_overlaps", "RotatedOverlaps", self, query_boxes, trans, [](OpCommand&) {});
}

at::Tensor NPUCustomFunctions::npu_rotated_iou(const at::Tensor& self, const at::Tensor& query_boxes, bool trans,
                                               int64_t mode, bool is_cross, double v_threshold, double e_threshold) {
  const char* op = "npu_rotated_iou";
  TORCH_CHECK(mode == 0 || mode == 1, op, ": mode must be 0 (iou) or 1 (iof), got ", mode);
  TORCH_CHECK(is_cross, op, ": is_cross=False is not supported: every box is compared with every query box");
  return runOverlaps(op, "RotatedIou", self, query_boxes, trans, [&](OpCommand& cmd) {
    cmd.Attr("mode", mode == 0 ? "iou" : "iof")
        .Attr("is_cross", true)
        .Attr("v_threshold", static_cast<float>(v_threshold))
        .Attr("e_threshold", static_cast<float>(e_threshold));
  });
}

at::Tensor NPUCustomFunctions::npu_rotated_box_encode(const at::Tensor& self, const at::Tensor& gt_bboxes,
                                                      const at::Tensor& weight) {
  return runCoding("npu_rotated_box_encode", "RotatedBoxEncode", self, gt_bboxes, "gt_bboxes", weight);
}

at::Tensor NPUCustomFunctions::npu_rotated_box_decode(const at::Tensor& self, const at::Tensor& deltas,
                                                      const at::Tensor& weight) {
  return runCoding("npu_rotated_box_decode", "RotatedBoxDecode", self, deltas, "deltas", weight);
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_nms_rotated(const at::Tensor& self, const at::Tensor& scores,
                                                                       double iou_threshold, double scores_threshold,
                                                                       int64_t max_output_size, int64_t mode) {
  const char* op = "npu_nms_rotated";
  TORCH_CHECK(self.dim() == 2 && self.size(1) == 5, op, ": self must be [N, 5], got shape ", self.sizes());
  TORCH_CHECK(scores.dim() == 1 && scores.size(0) == self.size(0), op, ": scores must be [N] with N = ", self.size(0),
              ", got shape ", scores.sizes());
  TORCH_CHECK(mode == 0 || mode == 1, op, ": mode must be 0 (x, y, w, h, angle) or 1 (x1, y1, x2, y2, angle), got ",
              mode);
  const int64_t n = self.size(0);
  at::Tensor selected = torch_npu::emptyNpu({n}, at::kInt, self.device());
  at::Tensor count = torch_npu::emptyNpu({1}, at::kInt, self.device());
  if (n == 0) return {selected, count.zero_()};
  OpCommand cmd("RotatedNMS");
  torch_npu::addInputAs(cmd, self.contiguous(), at::kFloat);
  torch_npu::addInputAs(cmd, scores.contiguous(), at::kFloat);
  cmd.InputScalar(0, at::kInt)
      .Output(selected)
      .Output(count)
      .Attr("iou_threshold", static_cast<float>(iou_threshold))
      .Attr("score_threshold", static_cast<float>(scores_threshold))
      .Attr("max_output_size", max_output_size)
      .Attr("mode", mode)
      .Run();
  // As torch_npu's adapter syncs the outputs to their real size: a host read of the count.
  return {selected.narrow(0, 0, count.item<int64_t>()), count};
}

}  // namespace native
}  // namespace at_npu
