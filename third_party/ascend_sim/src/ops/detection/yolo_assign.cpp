// YoloBoxesEncode, AnchorResponseFlags and GridAssignPositive (OPS.md
// "Detection"), on the Vector unit: torch_npu's npu_yolo_boxes_encode,
// npu_anchor_response_flags and npu_grid_assign_positive, the target side of
// YOLOv3-style training (mmdetection's YOLOBBoxCoder and GridAssigner).
//
// Note [YOLO targets]
// YoloBoxesEncode: inputs anchor_boxes and gt_bboxes [N, 4] (x1, y1, x2, y2)
// and stride [N] (int32); with (x, y, w, h) the centre and size of each box
// and eps = 1e-6, the output [N, 4] is
//   (clamp((x_gt - x_a) / stride + 0.5, eps, 1 - eps), same for y,
//    log(max(w_gt / w_a, eps)), log(max(h_gt / h_a, eps))).
// Attr performance_mode ("high_precision" or "high_performance") picks a
// speed/accuracy trade-off on the chip; the simulator computes both exactly.
// AnchorResponseFlags: input gt_bboxes [N, 4]; attrs featmap_size [h, w],
// strides [sx, sy], num_base_anchors A; output uint8 [h * w * A], 1 for the
// A anchors of every grid cell holding a box centre (cell (floor(cx / sx),
// floor(cy / sy))). A centre outside the map marks nothing.
// GridAssignPositive: inputs assigned_gt_inds [n] (float), overlaps [k, n],
// box_responsible_flags [n] (uint8), max_overlaps [n], argmax_overlaps [n]
// (int32), gt_max_overlaps [k], gt_argmax_overlaps [k] (int32), num_gts (one
// int32); attrs pos_iou_thr, min_pos_iou, gt_max_assign_all. Output [n]:
// assigned_gt_inds where
//   1. a responsible box with max_overlaps > pos_iou_thr gets argmax + 1;
//   2. then for ground truth i < min(num_gts, k) with gt_max_overlaps[i] >
//      min_pos_iou: every responsible box whose overlap with i equals
//      gt_max_overlaps[i] (gt_max_assign_all) or only box gt_argmax_overlaps[i]
//      (if responsible) gets i + 1.
// An argmax outside [0, k) or a gt_argmax outside [0, n) is a device fault.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernel/index_util.h"
#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

[[noreturn]] void indexFault(const OpCall& call, const std::string& what, int64_t value, int64_t bound) {
  throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, call.op_type + ": " + what + " " + std::to_string(value) +
                                                       " lies outside [0, " + std::to_string(bound) + ")");
}

void validateYoloBoxesEncode(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  checkBoxTable(call, call.inputs[0], "input anchor_boxes");
  checkBoxTable(call, call.inputs[1], "input gt_bboxes");
  const int64_t n = call.inputs[0].shape[0];
  checkShapeEq(call, call.inputs[1], "input gt_bboxes", {n, 4}, "anchor_boxes' shape [N, 4]");
  checkDtype(call, call.inputs[2], "input stride", dtBit(ACL_INT32));
  checkShapeEq(call, call.inputs[2], "input stride", {n}, "[N] (one stride per box)");
  checkSameDtype(call, call.inputs[1], "gt_bboxes", call.outputs[0], "output encoded_bboxes");
  checkShapeEq(call, call.outputs[0], "output encoded_bboxes", {n, 4}, "[N, 4]");
  const std::string mode = attrString(call, "performance_mode", "high_precision");
  if (mode != "high_precision" && mode != "high_performance")
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr performance_mode must be \"high_precision\" or \"high_performance\", got \"" + mode + "\"");
}

void computeYoloBoxesEncode(const OpCall& call) {
  constexpr double kEps = 1e-6;
  const std::vector<float> av = loadAllFloat(call.inputs[0]), gv = loadAllFloat(call.inputs[1]);
  const std::vector<int64_t> stride = loadIndices(call.inputs[2]);
  std::vector<float> out(av.size());
  for (size_t i = 0; i < stride.size(); ++i) {
    const float *a = &av[i * 4], *g = &gv[i * 4];
    const double s = static_cast<double>(stride[i]);
    const double wa = double(a[2]) - a[0], ha = double(a[3]) - a[1], wg = double(g[2]) - g[0], hg = double(g[3]) - g[1];
    const double dx = ((double(g[0]) + g[2]) - (double(a[0]) + a[2])) * 0.5 / s + 0.5;
    const double dy = ((double(g[1]) + g[3]) - (double(a[1]) + a[3])) * 0.5 / s + 0.5;
    out[i * 4] = static_cast<float>(std::min(std::max(dx, kEps), 1 - kEps));
    out[i * 4 + 1] = static_cast<float>(std::min(std::max(dy, kEps), 1 - kEps));
    out[i * 4 + 2] = static_cast<float>(std::log(std::max(wg / wa, kEps)));
    out[i * 4 + 3] = static_cast<float>(std::log(std::max(hg / ha, kEps)));
  }
  storeAllFloat(call.outputs[0], out);
}

struct ResponseGrid {
  int64_t h = 0, w = 0, sx = 0, sy = 0, anchors = 0;
};

ResponseGrid responseGrid(const OpCall& call) {
  const std::vector<int64_t> size = attrInts(call, "featmap_size"), strides = attrInts(call, "strides");
  if (size.size() != 2 || size[0] < 0 || size[1] < 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr featmap_size must be [h, w] >= 0, got " + shapeToString(size));
  if (strides.size() != 2 || strides[0] <= 0 || strides[1] <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr strides must be two positive values, got " + shapeToString(strides));
  const int64_t anchors = attrInt(call, "num_base_anchors");
  if (anchors <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr num_base_anchors must be positive, got " + std::to_string(anchors));
  return {size[0], size[1], strides[0], strides[1], anchors};
}

void validateAnchorResponseFlags(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  checkBoxTable(call, call.inputs[0], "input gt_bboxes");
  const ResponseGrid g = responseGrid(call);
  checkDtype(call, call.outputs[0], "output flags", dtBit(ACL_UINT8));
  checkShapeEq(call, call.outputs[0], "output flags", {g.h * g.w * g.anchors},
               "[featmap_size[0] * featmap_size[1] * num_base_anchors]");
}

void computeAnchorResponseFlags(const OpCall& call) {
  const ResponseGrid g = responseGrid(call);
  const std::vector<float> bv = loadAllFloat(call.inputs[0]);
  std::vector<uint8_t> cell(static_cast<size_t>(g.h * g.w), 0);
  for (size_t i = 0; i + 3 < bv.size(); i += 4) {
    const double gx = std::floor((double(bv[i]) + bv[i + 2]) * 0.5 / static_cast<double>(g.sx));
    const double gy = std::floor((double(bv[i + 1]) + bv[i + 3]) * 0.5 / static_cast<double>(g.sy));
    if (gx >= 0 && gy >= 0 && gx < static_cast<double>(g.w) && gy < static_cast<double>(g.h))
      cell[static_cast<size_t>(static_cast<int64_t>(gy) * g.w + static_cast<int64_t>(gx))] = 1;
  }
  auto* out = static_cast<uint8_t*>(call.outputs[0].data);
  for (size_t c = 0; c < cell.size(); ++c) std::fill_n(out + c * g.anchors, g.anchors, cell[c]);
}

void validateGridAssignPositive(const OpCall& call) {
  checkArity(call, 8, 8, 1);
  const TensorArg& assigned = call.inputs[0];
  checkDtype(call, assigned, "input assigned_gt_inds", kFloatTypes);
  if (assigned.shape.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input assigned_gt_inds must be [n], got shape " + shapeToString(assigned.shape));
  const int64_t n = assigned.shape[0];
  const TensorArg& overlaps = call.inputs[1];
  checkDtype(call, overlaps, "input overlaps", kFloatTypes);
  if (overlaps.shape.size() != 2 || overlaps.shape[1] != n)
    fail(
        call, ACL_ERROR_OP_INPUT_NOT_MATCH,
        "input overlaps must be [k, n] with n = " + std::to_string(n) + ", got shape " + shapeToString(overlaps.shape));
  const int64_t k = overlaps.shape[0];
  checkDtype(call, call.inputs[2], "input box_responsible_flags", dtBit(ACL_UINT8));
  checkShapeEq(call, call.inputs[2], "input box_responsible_flags", {n}, "[n]");
  checkDtype(call, call.inputs[3], "input max_overlaps", kFloatTypes);
  checkShapeEq(call, call.inputs[3], "input max_overlaps", {n}, "[n]");
  checkDtype(call, call.inputs[4], "input argmax_overlaps", dtBit(ACL_INT32));
  checkShapeEq(call, call.inputs[4], "input argmax_overlaps", {n}, "[n]");
  checkDtype(call, call.inputs[5], "input gt_max_overlaps", kFloatTypes);
  checkShapeEq(call, call.inputs[5], "input gt_max_overlaps", {k}, "[k]");
  checkDtype(call, call.inputs[6], "input gt_argmax_overlaps", dtBit(ACL_INT32));
  checkShapeEq(call, call.inputs[6], "input gt_argmax_overlaps", {k}, "[k]");
  checkOneValue(call, call.inputs[7], "input num_gts", dtBit(ACL_INT32));
  checkSameDtype(call, assigned, "assigned_gt_inds", call.outputs[0], "output assigned_gt_inds");
  checkShapeEq(call, call.outputs[0], "output assigned_gt_inds", {n}, "[n]");
  attrFloat(call, "pos_iou_thr");
  attrFloat(call, "min_pos_iou");
}

void computeGridAssignPositive(const OpCall& call) {
  std::vector<float> out = loadAllFloat(call.inputs[0]);
  const std::vector<float> overlaps = loadAllFloat(call.inputs[1]), max_ov = loadAllFloat(call.inputs[3]),
                           gt_max = loadAllFloat(call.inputs[5]);
  const std::vector<int64_t> argmax = loadIndices(call.inputs[4]), gt_argmax = loadIndices(call.inputs[6]);
  const auto* flags = static_cast<const uint8_t*>(call.inputs[2].data);
  const int64_t n = static_cast<int64_t>(out.size()), k = call.inputs[1].shape[0];
  const int64_t num_gts = std::min(loadIndices(call.inputs[7])[0], k);
  const float pos_thr = attrFloat(call, "pos_iou_thr"), min_pos = attrFloat(call, "min_pos_iou");
  for (int64_t i = 0; i < n; ++i) {
    if (!(max_ov[i] > pos_thr) || !flags[i]) continue;
    if (argmax[i] < 0 || argmax[i] >= k) indexFault(call, "argmax_overlaps[" + std::to_string(i) + "]", argmax[i], k);
    out[i] = static_cast<float>(argmax[i] + 1);
  }
  const bool assign_all = attrBool(call, "gt_max_assign_all", true);
  for (int64_t g = 0; g < num_gts; ++g) {
    if (!(gt_max[g] > min_pos)) continue;
    if (assign_all) {
      for (int64_t i = 0; i < n; ++i)
        if (flags[i] && overlaps[g * n + i] == gt_max[g]) out[i] = static_cast<float>(g + 1);
      continue;
    }
    const int64_t i = gt_argmax[g];
    if (i < 0 || i >= n) indexFault(call, "gt_argmax_overlaps[" + std::to_string(g) + "]", i, n);
    if (flags[i]) out[i] = static_cast<float>(g + 1);
  }
  storeAllFloat(call.outputs[0], out);
}

KernelCost costTargets(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 12.0 * static_cast<double>(call.inputs[0].numel() + call.outputs[0].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"YoloBoxesEncode", &validateYoloBoxesEncode, &computeYoloBoxesEncode,
                                     &costTargets});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AnchorResponseFlags", &validateAnchorResponseFlags, &computeAnchorResponseFlags,
                                     &costTargets});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GridAssignPositive", &validateGridAssignPositive, &computeGridAssignPositive,
                                     &costTargets});

}  // namespace
}  // namespace ascend_sim
