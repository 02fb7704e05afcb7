// Iou, BoundingBoxEncode and BoundingBoxDecode (OPS.md "Detection"), on the
// Vector unit: torch_npu's npu_iou / npu_ptiou and npu_bounding_box_encode /
// npu_bounding_box_decode.
//
// Note [Box coding]
// Iou: inputs bboxes [N, 4] and gtboxes [M, 4] (x1, y1, x2, y2); output
// overlap [M, N] (a row per ground-truth box); attr mode "iou" (intersection
// over union) or "iof" (intersection over the ground-truth box's area), in
// fp32, 0 where the denominator is 0. CANN's attr eps is accepted; where the
// chip adds it is not published, so the kernel computes the exact ratio.
// BoundingBoxEncode: inputs anchors and ground-truth boxes [N, 4]; attrs
// means[4], stds[4]; the legacy end-inclusive box convention (width
// x2 - x1 + 1): with p the anchor's centre and size and g the box's,
//   (dx, dy, dw, dh) = ((gx - px) / pw, (gy - py) / ph, log(gw / pw), log(gh / ph)),
// output ((dx, dy, dw, dh) - means) / stds.
// BoundingBoxDecode: inputs rois and deltas [N, 4]; attrs means, stds,
// max_shape [h, w], wh_ratio_clip: d = deltas * stds + means, dw and dh
// clamped to |log(wh_ratio_clip)|, the box (gx -+ gw / 2 +- 0.5, ...) with
// gw = pw * exp(dw), gx = px + pw * dx, clamped to [0, w - 1] x [0, h - 1].
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/detection/box_util.h"
#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

void validateIou(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  checkBoxTable(call, call.inputs[0], "input bboxes");
  checkBoxTable(call, call.inputs[1], "input gtboxes");
  iofModeOf(call);
  checkSameDtype(call, call.inputs[0], "bboxes", call.outputs[0], "output overlap");
  checkShapeEq(call, call.outputs[0], "output overlap", {call.inputs[1].shape[0], call.inputs[0].shape[0]},
               "[M, N] (gtboxes by bboxes)");
}

void computeIou(const OpCall& call) {
  const bool iof = iofModeOf(call);
  const std::vector<float> bv = loadAllFloat(call.inputs[0]), gv = loadAllFloat(call.inputs[1]);
  const int64_t n = call.inputs[0].shape[0], m = call.inputs[1].shape[0];
  std::vector<float> out(static_cast<size_t>(m * n));
  for (int64_t j = 0; j < m; ++j) {
    const Corners g = cornersOf(&gv[static_cast<size_t>(j * 4)]);
    for (int64_t i = 0; i < n; ++i) {
      const Corners b = cornersOf(&bv[static_cast<size_t>(i * 4)]);
      const float inter = intersection(b, g), denom = iof ? g.area : b.area + g.area - inter;
      out[static_cast<size_t>(j * n + i)] = denom > 0 ? inter / denom : 0.0f;
    }
  }
  storeAllFloat(call.outputs[0], out);
}

KernelCost costIou(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 12.0 * static_cast<double>(call.outputs[0].numel());
  c.vector_bytes += 4.0 * c.flops;
  return c;
}

std::vector<float> fourFloats(const OpCall& call, const char* name, float fallback) {
  if (!call.attrs.has(name)) return std::vector<float>(4, fallback);
  const std::vector<float> v = call.attrs.get<std::vector<float>>(name);
  if (v.size() != 4)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attr ") + name + " must hold 4 values, got " + std::to_string(v.size()));
  return v;
}

// Centre and end-inclusive size of a box.
struct CentreSize {
  float x, y, w, h;
};
CentreSize centreSize(const float* b) {
  return {(b[0] + b[2]) * 0.5f, (b[1] + b[3]) * 0.5f, b[2] - b[0] + 1.0f, b[3] - b[1] + 1.0f};
}

void validateCoding(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const bool encode = call.op_type == "BoundingBoxEncode";
  checkBoxTable(call, call.inputs[0], encode ? "input anchor_box" : "input rois");
  checkBoxTable(call, call.inputs[1], encode ? "input ground_truth_box" : "input deltas");
  checkSameDtype(call, call.inputs[0], "boxes", call.inputs[1], "the second input");
  checkShapeEq(call, call.inputs[1], "the second input", call.inputs[0].shape, "the first input's shape");
  checkSameDtype(call, call.inputs[0], "boxes", call.outputs[0], "output");
  checkShapeEq(call, call.outputs[0], "output", call.inputs[0].shape, "[N, 4]");
  fourFloats(call, "means", 0.0f);
  fourFloats(call, "stds", 1.0f);
  if (!encode) {
    const std::vector<int64_t> shape = attrInts(call, "max_shape");
    if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attr max_shape must be [h, w], both positive, got " + shapeToString(shape));
    if (!(attrFloat(call, "wh_ratio_clip", 0.016f) > 0))
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr wh_ratio_clip must be positive");
  }
}

void computeBoundingBoxEncode(const OpCall& call) {
  const std::vector<float> av = loadAllFloat(call.inputs[0]), gv = loadAllFloat(call.inputs[1]);
  const std::vector<float> means = fourFloats(call, "means", 0.0f), stds = fourFloats(call, "stds", 1.0f);
  std::vector<float> out(av.size());
  for (size_t i = 0; i < av.size(); i += 4) {
    const CentreSize p = centreSize(&av[i]), g = centreSize(&gv[i]);
    const float d[4] = {(g.x - p.x) / p.w, (g.y - p.y) / p.h, std::log(std::fabs(g.w) / std::fabs(p.w)),
                        std::log(std::fabs(g.h) / std::fabs(p.h))};
    for (int k = 0; k < 4; ++k) out[i + k] = (d[k] - means[k]) / stds[k];
  }
  storeAllFloat(call.outputs[0], out);
}

void computeBoundingBoxDecode(const OpCall& call) {
  const std::vector<float> rv = loadAllFloat(call.inputs[0]), dv = loadAllFloat(call.inputs[1]);
  const std::vector<float> means = fourFloats(call, "means", 0.0f), stds = fourFloats(call, "stds", 1.0f);
  const std::vector<int64_t> max_shape = attrInts(call, "max_shape");
  const float max_ratio = std::fabs(std::log(attrFloat(call, "wh_ratio_clip", 0.016f)));
  const float max_x = static_cast<float>(max_shape[1] - 1), max_y = static_cast<float>(max_shape[0] - 1);
  std::vector<float> out(rv.size());
  for (size_t i = 0; i < rv.size(); i += 4) {
    float d[4];
    for (int k = 0; k < 4; ++k) d[k] = dv[i + k] * stds[k] + means[k];
    d[2] = std::min(std::max(d[2], -max_ratio), max_ratio);
    d[3] = std::min(std::max(d[3], -max_ratio), max_ratio);
    const CentreSize p = centreSize(&rv[i]);
    const float gw = p.w * std::exp(d[2]), gh = p.h * std::exp(d[3]);
    const float gx = p.x + p.w * d[0], gy = p.y + p.h * d[1];
    out[i] = std::min(std::max(gx - gw * 0.5f + 0.5f, 0.0f), max_x);
    out[i + 1] = std::min(std::max(gy - gh * 0.5f + 0.5f, 0.0f), max_y);
    out[i + 2] = std::min(std::max(gx + gw * 0.5f - 0.5f, 0.0f), max_x);
    out[i + 3] = std::min(std::max(gy + gh * 0.5f - 0.5f, 0.0f), max_y);
  }
  storeAllFloat(call.outputs[0], out);
}

KernelCost costCoding(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 6.0 * static_cast<double>(call.outputs[0].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Iou", &validateIou, &computeIou, &costIou});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BoundingBoxEncode", &validateCoding, &computeBoundingBoxEncode, &costCoding});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BoundingBoxDecode", &validateCoding, &computeBoundingBoxDecode, &costCoding});

}  // namespace
}  // namespace ascend_sim
