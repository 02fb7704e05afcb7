// Rotated boxes (OPS.md "Detection"): RotatedOverlaps, RotatedIou,
// RotatedBoxEncode and RotatedBoxDecode on the Vector unit, RotatedNMS on the
// AI CPU — torch_npu's npu_rotated_overlaps, npu_rotated_iou,
// npu_rotated_box_encode / decode and npu_nms_rotated (text and aerial
// detection, where boxes turn).
//
// Note [Rotated boxes]
// A rotated box is five numbers: (cx, cy, w, h, angle), or with attr trans
// (x1, y1, x2, y2, angle), the corners of the box before it turns about its
// centre; the angle is in degrees. The overlap of two boxes is the area of
// the intersection of their quadrilaterals: one is clipped by each edge of
// the other (Sutherland-Hodgman; both convex, taken counter-clockwise), its
// area by the shoelace formula, in double. IoU divides by the union, IoF
// ("iof") by the first box's area; 0 when the denominator is 0. Attrs
// v_threshold / e_threshold (CANN's tolerances for its fixed-point geometry)
// are accepted; the double computation needs none.
// Layouts: RotatedOverlaps / RotatedIou take boxes [B, 5, N] and query_boxes
// [B, 5, K] (a row per coordinate) and write [B, N, K]. RotatedBoxEncode /
// Decode take anchors and boxes or deltas [B, 5, N], corners form, and attr
// weight (5 values, default 1): with (x, y, w, h) the anchors' centre and
// size,
//   delta = weight * ((gx - x) / w, (gy - y) / h, log(gw / w), log(gh / h),
//                     tan(angle_g) - tan(angle_a)),
// and the decode inverts it (the angle back by atan, in (-90, 90) degrees).
// RotatedNMS: boxes [N, 5] (attr mode 0: centre form, 1: corners form),
// scores [N], labels (int32, one per box or a single value); attrs
// iou_threshold, score_threshold, max_output_size (-1: no limit). Greedy by
// descending score among boxes scoring above score_threshold (Note [Greedy
// NMS]); a box suppresses only boxes of its label. Outputs selected_index [N]
// (int32, kept indices first, then 0) and selected_num [1].
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "ops/detection/box_util.h"
#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

constexpr double kDegree = 3.14159265358979323846 / 180.0;

struct Point {
  double x, y;
};
using Polygon = std::vector<Point>;

double signedArea(const Polygon& p) {
  double a = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const Point &u = p[i], &v = p[(i + 1) % p.size()];
    a += u.x * v.y - v.x * u.y;
  }
  return 0.5 * a;
}

// The four corners of a box, counter-clockwise.
Polygon quadOf(const double b[5], bool corners_form) {
  double cx = b[0], cy = b[1], w = b[2], h = b[3];
  if (corners_form) cx = (b[0] + b[2]) / 2, cy = (b[1] + b[3]) / 2, w = b[2] - b[0], h = b[3] - b[1];
  const double c = std::cos(b[4] * kDegree), s = std::sin(b[4] * kDegree);
  Polygon p;
  for (const auto& [dx, dy] : std::array<std::pair<double, double>, 4>{{{-w, -h}, {w, -h}, {w, h}, {-w, h}}})
    p.push_back({cx + c * dx / 2 - s * dy / 2, cy + s * dx / 2 + c * dy / 2});
  if (signedArea(p) < 0) std::reverse(p.begin(), p.end());
  return p;
}

// The area of the intersection of two counter-clockwise convex polygons; 0
// when either has no area (a degenerate clipper's edges would cut nothing).
double intersectionArea(const Polygon& subject, const Polygon& clipper) {
  if (!(signedArea(subject) > 0) || !(signedArea(clipper) > 0)) return 0.0;
  Polygon out = subject;
  for (size_t i = 0; i < clipper.size() && !out.empty(); ++i) {
    const Point &a = clipper[i], &b = clipper[(i + 1) % clipper.size()];
    const auto side = [&](const Point& p) { return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x); };
    const Polygon in = std::move(out);
    out.clear();
    for (size_t j = 0; j < in.size(); ++j) {
      const Point &p = in[j], &q = in[(j + 1) % in.size()];
      const double sp = side(p), sq = side(q);
      if (sp >= 0) out.push_back(p);
      if ((sp >= 0) != (sq >= 0)) {
        const double t = sp / (sp - sq);
        out.push_back({p.x + t * (q.x - p.x), p.y + t * (q.y - p.y)});
      }
    }
  }
  return out.size() >= 3 ? std::fabs(signedArea(out)) : 0.0;
}

// Box n of a [5, N] block (a row per coordinate).
std::array<double, 5> boxAt(const std::vector<float>& v, int64_t base, int64_t n, int64_t i) {
  std::array<double, 5> b;
  for (int64_t f = 0; f < 5; ++f) b[f] = v[static_cast<size_t>(base + f * n + i)];
  return b;
}

void checkBoxBlock(const OpCall& call, const TensorArg& t, const char* name) {
  checkDtype(call, t, name, kFloatTypes);
  if (t.shape.size() != 3 || t.shape[1] != 5)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(name) + " must be [B, 5, N] (a row per coordinate), got shape " + shapeToString(t.shape));
}

void validateOverlaps(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  checkBoxBlock(call, call.inputs[0], "input boxes");
  checkBoxBlock(call, call.inputs[1], "input query_boxes");
  const int64_t b = call.inputs[0].shape[0], n = call.inputs[0].shape[2], k = call.inputs[1].shape[2];
  if (call.inputs[1].shape[0] != b)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "query_boxes' batch " + std::to_string(call.inputs[1].shape[0]) + " must be boxes' " + std::to_string(b));
  if (call.op_type == "RotatedIou") {
    iofModeOf(call);
    if (!attrBool(call, "is_cross", true))
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr is_cross must be true (every box against every query box)");
  }
  checkSameDtype(call, call.inputs[0], "boxes", call.outputs[0], "output");
  checkShapeEq(call, call.outputs[0], "output", {b, n, k}, "[B, N, K]");
}

void computeOverlaps(const OpCall& call) {
  const bool corners = attrBool(call, "trans", false);
  const bool iou = call.op_type == "RotatedIou", iof = iou && iofModeOf(call);
  const std::vector<float> bv = loadAllFloat(call.inputs[0]), qv = loadAllFloat(call.inputs[1]);
  const int64_t b_n = call.inputs[0].shape[0], n = call.inputs[0].shape[2], k = call.inputs[1].shape[2];
  std::vector<float> out(static_cast<size_t>(b_n * n * k));
  for (int64_t b = 0; b < b_n; ++b)
    for (int64_t i = 0; i < n; ++i) {
      const Polygon p = quadOf(boxAt(bv, b * 5 * n, n, i).data(), corners);
      const double area_p = std::fabs(signedArea(p));
      for (int64_t j = 0; j < k; ++j) {
        const Polygon q = quadOf(boxAt(qv, b * 5 * k, k, j).data(), corners);
        const double inter = intersectionArea(p, q);
        double v = inter;
        if (iou) {
          const double denom = iof ? area_p : area_p + std::fabs(signedArea(q)) - inter;
          v = denom > 0 ? inter / denom : 0.0;
        }
        out[static_cast<size_t>((b * n + i) * k + j)] = static_cast<float>(v);
      }
    }
  storeAllFloat(call.outputs[0], out);
}

// A clip of a quadrilateral by another: about 150 vector operations a pair.
KernelCost costOverlaps(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 150.0 * static_cast<double>(call.outputs[0].numel());
  c.vector_bytes += 4.0 * c.flops;
  return c;
}

std::array<double, 5> codingWeights(const OpCall& call) {
  std::array<double, 5> w{1, 1, 1, 1, 1};
  if (!call.attrs.has("weight")) return w;
  const std::vector<float> v = call.attrs.get<std::vector<float>>("weight");
  if (v.size() != 5)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr weight must hold 5 values, got " + std::to_string(v.size()));
  for (size_t f = 0; f < 5; ++f) {
    if (!(v[f] != 0)) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr weight must not hold 0");
    w[f] = v[f];
  }
  return w;
}

void validateCoding(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const bool encode = call.op_type == "RotatedBoxEncode";
  checkBoxBlock(call, call.inputs[0], "input anchor_box");
  checkBoxBlock(call, call.inputs[1], encode ? "input gt_bboxes" : "input deltas");
  checkShapeEq(call, call.inputs[1], encode ? "input gt_bboxes" : "input deltas", call.inputs[0].shape,
               "anchor_box's shape");
  checkSameDtype(call, call.inputs[0], "anchor_box", call.outputs[0], "output");
  checkShapeEq(call, call.outputs[0], "output", call.inputs[0].shape, "[B, 5, N]");
  codingWeights(call);
}

void computeCoding(const OpCall& call) {
  const bool encode = call.op_type == "RotatedBoxEncode";
  const std::array<double, 5> wt = codingWeights(call);
  const std::vector<float> av = loadAllFloat(call.inputs[0]), xv = loadAllFloat(call.inputs[1]);
  const int64_t b_n = call.inputs[0].shape[0], n = call.inputs[0].shape[2];
  std::vector<float> out(av.size());
  for (int64_t b = 0; b < b_n; ++b)
    for (int64_t i = 0; i < n; ++i) {
      const std::array<double, 5> a = boxAt(av, b * 5 * n, n, i), x = boxAt(xv, b * 5 * n, n, i);
      const double aw = a[2] - a[0], ah = a[3] - a[1], acx = (a[0] + a[2]) / 2, acy = (a[1] + a[3]) / 2;
      std::array<double, 5> r;
      if (encode) {
        const double gw = x[2] - x[0], gh = x[3] - x[1], gcx = (x[0] + x[2]) / 2, gcy = (x[1] + x[3]) / 2;
        r = {(gcx - acx) / aw, (gcy - acy) / ah, std::log(gw / aw), std::log(gh / ah),
             std::tan(x[4] * kDegree) - std::tan(a[4] * kDegree)};
        for (int f = 0; f < 5; ++f) r[f] *= wt[f];
      } else {
        std::array<double, 5> d;
        for (int f = 0; f < 5; ++f) d[f] = x[f] / wt[f];
        const double gw = aw * std::exp(d[2]), gh = ah * std::exp(d[3]);
        const double gcx = acx + d[0] * aw, gcy = acy + d[1] * ah;
        r = {gcx - gw / 2, gcy - gh / 2, gcx + gw / 2, gcy + gh / 2,
             std::atan(std::tan(a[4] * kDegree) + d[4]) / kDegree};
      }
      for (int64_t f = 0; f < 5; ++f) out[static_cast<size_t>(b * 5 * n + f * n + i)] = static_cast<float>(r[f]);
    }
  storeAllFloat(call.outputs[0], out);
}

KernelCost costCoding(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 8.0 * static_cast<double>(call.outputs[0].numel());
  return c;
}

void validateRotatedNms(const OpCall& call) {
  checkArity(call, 3, 3, 2);
  const TensorArg &boxes = call.inputs[0], &scores = call.inputs[1], &labels = call.inputs[2];
  checkDtype(call, boxes, "input boxes", kFloatTypes);
  if (boxes.shape.size() != 2 || boxes.shape[1] != 5)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input boxes must be [N, 5], got shape " + shapeToString(boxes.shape));
  const int64_t n = boxes.shape[0];
  checkDtype(call, scores, "input scores", kFloatTypes);
  checkShapeEq(call, scores, "input scores", {n}, "[N] (one score per box)");
  checkDtype(call, labels, "input labels", kIndexTypes);
  if (labels.numel() != 1 && labels.numel() != n)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input labels must hold one value or one per box (" + std::to_string(n) + "), got shape " +
             shapeToString(labels.shape));
  checkDtype(call, call.outputs[0], "output selected_index", dtBit(ACL_INT32));
  checkShapeEq(call, call.outputs[0], "output selected_index", {n}, "[N]");
  checkDtype(call, call.outputs[1], "output selected_num", dtBit(ACL_INT32));
  checkShapeEq(call, call.outputs[1], "output selected_num", {1}, "[1]");
  const int64_t mode = attrInt(call, "mode", 0);
  if (mode != 0 && mode != 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr mode must be 0 (cx, cy, w, h, angle) or 1 (x1, y1, x2, y2, angle), got " + std::to_string(mode));
  attrFloat(call, "iou_threshold");
}

void computeRotatedNms(const OpCall& call) {
  const std::vector<float> bv = loadAllFloat(call.inputs[0]), sv = loadAllFloat(call.inputs[1]);
  const TensorArg& labels_arg = call.inputs[2];
  std::vector<int64_t> labels(static_cast<size_t>(labels_arg.numel()));
  if (!labels.empty()) loadInt(labels_arg.dtype, labels_arg.data, 0, 1, labels_arg.numel(), labels.data());
  const int64_t n = call.inputs[0].shape[0];
  const bool corners = attrInt(call, "mode", 0) == 1;
  const float iou_threshold = attrFloat(call, "iou_threshold"), score_threshold = attrFloat(call, "score_threshold", 0);
  int64_t max_out = attrInt(call, "max_output_size", -1);
  if (max_out < 0) max_out = n;
  std::vector<Polygon> polys(static_cast<size_t>(n));
  std::vector<double> areas(polys.size());
  for (int64_t i = 0; i < n; ++i) {
    double b[5];
    for (int f = 0; f < 5; ++f) b[f] = bv[static_cast<size_t>(i * 5 + f)];
    polys[i] = quadOf(b, corners);
    areas[i] = std::fabs(signedArea(polys[i]));
  }
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (sv[i] > score_threshold) order.push_back(i);
  sortByScoreDescending(order, [&](int64_t i) { return sv[i]; });
  const auto label = [&](int64_t i) { return labels.size() == 1 ? labels[0] : labels[i]; };
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    if (static_cast<int64_t>(kept.size()) >= max_out) break;
    const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
      if (label(k) != label(i)) return false;
      const double inter = intersectionArea(polys[k], polys[i]), uni = areas[k] + areas[i] - inter;
      return uni > 0 && inter / uni > iou_threshold;
    });
    if (!suppressed) kept.push_back(i);
  }
  const int64_t num = static_cast<int64_t>(kept.size());
  kept.resize(static_cast<size_t>(n), 0);
  if (n > 0) storeInt(ACL_INT32, call.outputs[0].data, 0, n, kept.data());
  storeInt(ACL_INT32, call.outputs[1].data, 0, 1, &num);
}

KernelCost costRotatedNms(const OpCall& call) {
  KernelCost c = aiCpuCost(call);
  const double n = static_cast<double>(call.inputs[0].shape[0]);
  c.flops = 150.0 * n * n / 2 + 20.0 * n * std::log2(n + 1);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RotatedOverlaps", &validateOverlaps, &computeOverlaps, &costOverlaps});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RotatedIou", &validateOverlaps, &computeOverlaps, &costOverlaps});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RotatedBoxEncode", &validateCoding, &computeCoding, &costCoding});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RotatedBoxDecode", &validateCoding, &computeCoding, &costCoding});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RotatedNMS", &validateRotatedNms, &computeRotatedNms, &costRotatedNms});

}  // namespace
}  // namespace ascend_sim
