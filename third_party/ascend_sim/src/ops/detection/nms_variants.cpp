// NMSWithMask (Vector) and BatchMultiClassNonMaxSuppression (AI CPU), OPS.md
// "Detection": torch_npu's npu_nms_with_mask and npu_batch_nms, built on the
// greedy suppression of Note [Greedy NMS].
//
// Note [NMS variants]
// NMSWithMask: input box_scores [N, 5] (x1, y1, x2, y2, score; [N, 8] with
// padding is accepted), attr iou_threshold. The boxes are visited in input
// order (the score is not read: callers sort first, as on the chip); outputs
// selected_boxes (the input rows [N, 5]), selected_idx [N] int32 (0..N-1) and
// selected_mask [N] uint8/bool: 1 where the box is kept.
// BatchMultiClassNonMaxSuppression: inputs boxes [B, A, q, 4] (q = 1: shared
// by the classes, or q = C) and scores [B, A, C]; attrs score_threshold,
// iou_threshold, max_size_per_class, max_total_size. Per image and class:
// candidates scoring above score_threshold, greedy NMS, at most
// max_size_per_class kept; the kept boxes of all classes are then ordered by
// score (ties by class, then by rank in the class) and the first
// max_total_size returned: nmsed_boxes [B, T, 4], nmsed_scores [B, T],
// nmsed_classes [B, T] (class ids as floats), nmsed_num [B] (int32), the tail
// 0. change_coordinate_frame and transpose_box must be false (CANN requires
// it of transpose_box; the first needs a clip window the op does not take).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "ops/detection/box_util.h"
#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

void validateNMSWithMask(const OpCall& call) {
  checkArity(call, 1, 1, 3);
  const TensorArg& in = call.inputs[0];
  checkDtype(call, in, "input box_scores", kFloatTypes);
  if (in.shape.size() != 2 || (in.shape[1] != 5 && in.shape[1] != 8))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input box_scores must be [N, 5] (x1, y1, x2, y2, score) or [N, 8], got shape " + shapeToString(in.shape));
  const int64_t n = in.shape[0];
  checkSameDtype(call, in, "box_scores", call.outputs[0], "output selected_boxes");
  checkShapeEq(call, call.outputs[0], "output selected_boxes", {n, 5}, "[N, 5]");
  checkDtype(call, call.outputs[1], "output selected_idx", kIndexTypes);
  checkShapeEq(call, call.outputs[1], "output selected_idx", {n}, "[N]");
  checkDtype(call, call.outputs[2], "output selected_mask", dtBit(ACL_UINT8) | kBoolType);
  checkShapeEq(call, call.outputs[2], "output selected_mask", {n}, "[N]");
  attrFloat(call, "iou_threshold");
}

void computeNMSWithMask(const OpCall& call) {
  const TensorArg& in = call.inputs[0];
  const int64_t n = in.shape[0], width = in.shape[1];
  const std::vector<float> v = loadAllFloat(in);
  std::vector<Corners> boxes(static_cast<size_t>(n));
  std::vector<float> rows(static_cast<size_t>(n * 5));
  for (int64_t i = 0; i < n; ++i) {
    boxes[i] = cornersOf(&v[static_cast<size_t>(i * width)]);
    std::copy_n(&v[static_cast<size_t>(i * width)], 5, &rows[static_cast<size_t>(i * 5)]);
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const std::vector<int64_t> kept = greedySuppress(boxes, order, attrFloat(call, "iou_threshold"), n);
  std::vector<int64_t> mask(static_cast<size_t>(n), 0);
  for (int64_t k : kept) mask[k] = 1;
  storeAllFloat(call.outputs[0], rows);
  if (n > 0) {
    storeInt(call.outputs[1].dtype, call.outputs[1].data, 0, n, order.data());
    storeInt(call.outputs[2].dtype, call.outputs[2].data, 0, n, mask.data());
  }
}

KernelCost costNMSWithMask(const OpCall& call) {
  const double n = static_cast<double>(call.inputs[0].shape[0]);
  KernelCost c = vectorCost(call);
  c.vector_bytes += 4.0 * 12.0 * n * n / 2;  // the upper triangle of the IoU matrix, 12 fp32 ops each
  c.flops = 12.0 * n * n / 2;
  return c;
}

void validateBatchMultiClassNonMaxSuppression(const OpCall& call) {
  checkArity(call, 2, 2, 4);
  const TensorArg &boxes = call.inputs[0], &scores = call.inputs[1];
  checkDtype(call, boxes, "input boxes", kFloatTypes);
  checkSameDtype(call, boxes, "boxes", scores, "input scores");
  if (scores.shape.size() != 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input scores must be [batch, num_anchors, num_classes], got shape " + shapeToString(scores.shape));
  const int64_t b = scores.shape[0], a = scores.shape[1], c = scores.shape[2];
  if (boxes.shape.size() != 4 || boxes.shape[0] != b || boxes.shape[1] != a ||
      (boxes.shape[2] != 1 && boxes.shape[2] != c) || boxes.shape[3] != 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input boxes must be [batch, num_anchors, 1 or num_classes, 4] = [" + std::to_string(b) + ", " +
             std::to_string(a) + ", 1 or " + std::to_string(c) + ", 4], got shape " + shapeToString(boxes.shape));
  const int64_t per_class = attrInt(call, "max_size_per_class"), total = attrInt(call, "max_total_size");
  if (per_class <= 0 || total <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "max_size_per_class and max_total_size must be positive, got " + std::to_string(per_class) + " and " +
             std::to_string(total));
  if (attrBool(call, "change_coordinate_frame", false) || attrBool(call, "transpose_box", false))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "change_coordinate_frame and transpose_box must be false");
  attrFloat(call, "score_threshold");
  attrFloat(call, "iou_threshold");
  checkSameDtype(call, boxes, "boxes", call.outputs[0], "output nmsed_boxes");
  checkShapeEq(call, call.outputs[0], "output nmsed_boxes", {b, total, 4}, "[batch, max_total_size, 4]");
  for (int o = 1; o <= 2; ++o) {
    const std::string name = o == 1 ? "output nmsed_scores" : "output nmsed_classes";
    checkSameDtype(call, boxes, "boxes", call.outputs[o], name);
    checkShapeEq(call, call.outputs[o], name, {b, total}, "[batch, max_total_size]");
  }
  checkDtype(call, call.outputs[3], "output nmsed_num", kIndexTypes);
  checkShapeEq(call, call.outputs[3], "output nmsed_num", {b}, "[batch]");
}

void computeBatchMultiClassNonMaxSuppression(const OpCall& call) {
  const TensorArg &boxes = call.inputs[0], &scores = call.inputs[1];
  const int64_t nb = scores.shape[0], na = scores.shape[1], nc = scores.shape[2], q = boxes.shape[2];
  const int64_t per_class = attrInt(call, "max_size_per_class"), total = attrInt(call, "max_total_size");
  const float score_thr = attrFloat(call, "score_threshold"), iou_thr = attrFloat(call, "iou_threshold");
  const std::vector<float> bv = loadAllFloat(boxes), sv = loadAllFloat(scores);
  std::vector<float> out_boxes(static_cast<size_t>(nb * total * 4), 0.0f), out_scores(nb * total, 0.0f),
      out_classes(nb * total, 0.0f);
  std::vector<int64_t> out_num(static_cast<size_t>(nb), 0);
  struct Kept {
    float score;
    int64_t cls, rank, anchor;
  };
  for (int64_t b = 0; b < nb; ++b) {
    std::vector<Kept> kept;
    for (int64_t c = 0; c < nc; ++c) {
      auto score = [&](int64_t a) { return sv[static_cast<size_t>((b * na + a) * nc + c)]; };
      std::vector<Corners> corners(static_cast<size_t>(na));
      std::vector<int64_t> order;
      for (int64_t a = 0; a < na; ++a) {
        corners[a] = cornersOf(&bv[static_cast<size_t>(((b * na + a) * q + (q == 1 ? 0 : c)) * 4)]);
        if (score(a) > score_thr) order.push_back(a);
      }
      sortByScoreDescending(order, score);  // no NaN here: NaN never passes the threshold
      const std::vector<int64_t> sel = greedySuppress(corners, order, iou_thr, per_class);
      for (size_t r = 0; r < sel.size(); ++r) kept.push_back({score(sel[r]), c, static_cast<int64_t>(r), sel[r]});
    }
    std::stable_sort(kept.begin(), kept.end(), [](const Kept& x, const Kept& y) { return x.score > y.score; });
    const int64_t num = std::min<int64_t>(total, static_cast<int64_t>(kept.size()));
    for (int64_t i = 0; i < num; ++i) {
      const Kept& k = kept[i];
      const float* src = &bv[static_cast<size_t>(((b * na + k.anchor) * q + (q == 1 ? 0 : k.cls)) * 4)];
      std::copy_n(src, 4, &out_boxes[static_cast<size_t>((b * total + i) * 4)]);
      out_scores[b * total + i] = k.score;
      out_classes[b * total + i] = static_cast<float>(k.cls);
    }
    out_num[b] = num;
  }
  storeAllFloat(call.outputs[0], out_boxes);
  storeAllFloat(call.outputs[1], out_scores);
  storeAllFloat(call.outputs[2], out_classes);
  if (nb > 0) storeInt(call.outputs[3].dtype, call.outputs[3].data, 0, nb, out_num.data());
}

KernelCost costBatchMultiClassNonMaxSuppression(const OpCall& call) {
  KernelCost c = aiCpuCost(call);
  const TensorArg& scores = call.inputs[1];
  const double a = static_cast<double>(scores.shape[1]),
               per_class = static_cast<double>(attrInt(call, "max_size_per_class"));
  c.flops = static_cast<double>(scores.numel()) * (12.0 * std::min(a, per_class) + 20.0 * std::log2(a + 1));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"NMSWithMask", &validateNMSWithMask, &computeNMSWithMask, &costNMSWithMask});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BatchMultiClassNonMaxSuppression", &validateBatchMultiClassNonMaxSuppression,
                                     &computeBatchMultiClassNonMaxSuppression, &costBatchMultiClassNonMaxSuppression});

}  // namespace
}  // namespace ascend_sim
