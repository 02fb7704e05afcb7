// NonMaxSuppressionV4 (OPS.md "Detection"), on the AI CPU as CANN runs it:
// greedy non-maximum suppression, the kernel of torchvision's nms and
// torch_npu's npu_nms_v4.
//
// Note [Greedy NMS]
// inputs: boxes [N, 4] (two opposite corners, in either order: the IoU
// normalises them), scores [N], and three one-value inputs max_output_size
// (int), iou_threshold and score_threshold (float). Candidates are the boxes
// whose score is above score_threshold (every box when it is -inf), visited
// by descending score (NaN first, as PyTorch sorts), ties by ascending index. A candidate is selected
// unless its IoU with an already selected box is above iou_threshold; the
// visit stops at max_output_size selections. The IoU of two boxes is 0 when
// either has no area (and NaN never suppresses). Outputs: selected_indices
// [max_output_size] (int32 or int64) in selection order, the unused tail 0
// (what attr pad_to_max_output_size asks for; the tail is always written),
// and valid_outputs (one int32/int64 value): the count, which the caller reads
// back to narrow the result (as Note [Unique outputs] does).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "ops/detection/box_util.h"
#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

void validateNonMaxSuppressionV4(const OpCall& call) {
  checkArity(call, 5, 5, 2);
  const TensorArg &boxes = call.inputs[0], &scores = call.inputs[1];
  checkBoxTable(call, boxes, "input boxes");
  checkDtype(call, scores, "input scores", kFloatTypes);
  checkShapeEq(call, scores, "input scores", {boxes.shape[0]}, "[N] (one score per box)");
  checkOneValue(call, call.inputs[2], "input max_output_size", kIndexTypes);
  checkOneValue(call, call.inputs[3], "input iou_threshold", kFloatTypes);
  checkOneValue(call, call.inputs[4], "input score_threshold", kFloatTypes);
  checkDtype(call, call.outputs[0], "output selected_indices", kIndexTypes);
  if (call.outputs[0].shape.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output selected_indices must be 1-D [max_output_size], got shape " + shapeToString(call.outputs[0].shape));
  checkOneValue(call, call.outputs[1], "output valid_outputs", kIndexTypes);
  attrBool(call, "pad_to_max_output_size", false);
}

float oneFloat(const TensorArg& t) {
  float v = 0;
  loadFloat(t.dtype, t.data, 0, 1, 1, &v);
  return v;
}

void computeNonMaxSuppressionV4(const OpCall& call) {
  const TensorArg &out = call.outputs[0], &count = call.outputs[1];
  const int64_t n = call.inputs[0].shape[0], capacity = out.shape[0];
  int64_t max_out = 0;
  loadInt(call.inputs[2].dtype, call.inputs[2].data, 0, 1, 1, &max_out);
  if (max_out < 0 || max_out > capacity)
    aiCpuFault(call, "max_output_size " + std::to_string(max_out) + " must lie in [0, " + std::to_string(capacity) +
                         "], the size of selected_indices");
  const float iou_threshold = oneFloat(call.inputs[3]), score_threshold = oneFloat(call.inputs[4]);
  const std::vector<float> bv = loadAllFloat(call.inputs[0]), sv = loadAllFloat(call.inputs[1]);
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (score_threshold == -INFINITY || sv[i] > score_threshold) order.push_back(i);
  sortByScoreDescending(order, [&](int64_t i) { return sv[i]; });
  std::vector<Corners> boxes(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) boxes[i] = cornersOf(&bv[static_cast<size_t>(i * 4)]);
  std::vector<int64_t> selected = greedySuppress(boxes, order, iou_threshold, max_out);
  const int64_t num = static_cast<int64_t>(selected.size());
  selected.resize(static_cast<size_t>(capacity), 0);
  if (capacity > 0) storeInt(out.dtype, out.data, 0, capacity, selected.data());
  storeInt(count.dtype, count.data, 0, 1, &num);
}

KernelCost costNonMaxSuppressionV4(const OpCall& call) {
  KernelCost c = aiCpuCost(call);
  const double n = static_cast<double>(call.inputs[0].shape[0]);
  c.flops = 12.0 * n * std::min(n, static_cast<double>(call.outputs[0].shape[0])) + 20.0 * n * std::log2(n + 1);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"NonMaxSuppressionV4", &validateNonMaxSuppressionV4, &computeNonMaxSuppressionV4,
                                     &costNonMaxSuppressionV4});

}  // namespace
}  // namespace ascend_sim
