// GIoU, DIoU and CIoU and their gradients GIoUGrad, DIoUGrad and CIoUGrad
// (OPS.md "Detection"), on the Vector unit: torch_npu's npu_giou, npu_diou and
// npu_ciou, the box-regression losses of YOLO-style detectors.
//
// Note [IoU-family losses]
// Inputs bboxes [4, N] and gtboxes [4, M], coordinate-major (a row per
// coordinate): (x1, y1, x2, y2), or (centre x, centre y, w, h) when attr trans
// is true. Attr is_cross false pairs box i with ground truth i (M = N) and
// writes overlap [1, N]; true writes every pair, overlap [M, N] with row j for
// ground truth j. Attr mode must be "iou" (CANN documents "iof" for the family
// but defines no loss with it). With U the union, C the smallest enclosing
// box, rho the distance between the centres and c C's diagonal:
//   GIoU = IoU - (area(C) - U) / area(C)
//   DIoU = IoU - rho^2 / c^2
//   CIoU = IoU - rho^2 / c^2 - alpha v,  v = 4 / pi^2 (atan(w_gt / h_gt) - atan(w / h))^2,
//          alpha = v / (1 - IoU + v)
// CIoU's second output atan_sub [1, N] / [M, N] is atan(w_gt / h_gt) - atan(w / h),
// which the gradient takes as an input. kEps (1e-9) keeps U, area(C), c^2, the
// heights under the ratios and alpha's denominator off zero; everything is
// computed in double and rounded once to the output dtype.
//
// The gradient kernels take dy (N values, [1, N] or [N]), the two box tensors
// (and atan_sub for CIoUGrad) and write dbboxes and dgtboxes [4, N]; they pair
// boxes (is_cross false), as CANN's do. alpha is a constant there: CANN's
// CIoUGrad, and torch_npu's test reference, leave it out of the chain rule.
//
// Note [Box-loss gradients by dual numbers]
// The gradients are not a second, hand-derived formula that could drift from
// the forward: each loss is one template evaluated on doubles for the forward
// and on dual numbers (value, derivative) for the gradient, once per input
// coordinate (eight passes per pair). min and max follow the argument that
// wins by value, the subgradient a hand derivation picks (and torch's autograd
// of the reference too; on exact ties the first argument).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

constexpr double kEps = 1e-9;
constexpr double kPi = 3.14159265358979323846;

enum class Loss { kGIoU, kDIoU, kCIoU };

Loss lossOf(const std::string& op) {
  if (op.rfind("GIoU", 0) == 0) return Loss::kGIoU;
  return op.rfind("DIoU", 0) == 0 ? Loss::kDIoU : Loss::kCIoU;
}

// A value and its derivative along one input coordinate.
struct Dual {
  double v = 0, d = 0;
};
Dual operator+(Dual a, Dual b) { return {a.v + b.v, a.d + b.d}; }
Dual operator-(Dual a, Dual b) { return {a.v - b.v, a.d - b.d}; }
Dual operator*(Dual a, Dual b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
Dual operator/(Dual a, Dual b) { return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)}; }
Dual operator+(Dual a, double b) { return {a.v + b, a.d}; }
Dual operator*(double a, Dual b) { return {a * b.v, a * b.d}; }
double valueOf(double x) { return x; }
double valueOf(Dual x) { return x.v; }
double atanOf(double x) { return std::atan(x); }
Dual atanOf(Dual x) { return {std::atan(x.v), x.d / (1 + x.v * x.v)}; }
template <typename T>
T minOf(T a, T b) {
  return valueOf(b) < valueOf(a) ? b : a;
}
template <typename T>
T maxOf(T a, T b) {
  return valueOf(b) > valueOf(a) ? b : a;
}

template <typename T>
struct Box {
  T x1, y1, x2, y2;
};

// A box from its four coordinates (centre and size when xywh).
template <typename T>
Box<T> boxOf(const T c[4], bool xywh) {
  if (!xywh) return {c[0], c[1], c[2], c[3]};
  return {c[0] - 0.5 * c[2], c[1] - 0.5 * c[3], c[0] + 0.5 * c[2], c[1] + 0.5 * c[3]};
}

// The loss of box a against ground truth g (Note [IoU-family losses]);
// alpha is CIoU's weight, a constant here.
template <typename T>
T boxLoss(Loss loss, const Box<T>& a, const Box<T>& g, double alpha) {
  const T wa = a.x2 - a.x1, ha = a.y2 - a.y1, wg = g.x2 - g.x1, hg = g.y2 - g.y1;
  const T zero{};
  const T iw = maxOf(minOf(a.x2, g.x2) - maxOf(a.x1, g.x1), zero);
  const T ih = maxOf(minOf(a.y2, g.y2) - maxOf(a.y1, g.y1), zero);
  const T inter = iw * ih, uni = wa * ha + wg * hg - inter + kEps;
  const T iou = inter / uni;
  const T cw = maxOf(a.x2, g.x2) - minOf(a.x1, g.x1), ch = maxOf(a.y2, g.y2) - minOf(a.y1, g.y1);
  if (loss == Loss::kGIoU) {
    const T enclosing = cw * ch + kEps;
    return iou - (enclosing - uni) / enclosing;
  }
  const T dx = (g.x1 + g.x2) - (a.x1 + a.x2), dy = (g.y1 + g.y2) - (a.y1 + a.y2);
  const T rho2 = 0.25 * (dx * dx + dy * dy), c2 = cw * cw + ch * ch + kEps;
  const T diou = iou - rho2 / c2;
  if (loss == Loss::kDIoU) return diou;
  const T atan_sub = atanOf(wg / (hg + kEps)) - atanOf(wa / (ha + kEps));
  return diou - alpha * (4 / (kPi * kPi)) * atan_sub * atan_sub;
}

// CIoU's atan_sub and alpha for one pair, from values.
struct CiouTerms {
  double atan_sub = 0, alpha = 0;
};
CiouTerms ciouTerms(const Box<double>& a, const Box<double>& g) {
  const double wa = a.x2 - a.x1, ha = a.y2 - a.y1, wg = g.x2 - g.x1, hg = g.y2 - g.y1;
  const double iw = std::max(std::min(a.x2, g.x2) - std::max(a.x1, g.x1), 0.0);
  const double ih = std::max(std::min(a.y2, g.y2) - std::max(a.y1, g.y1), 0.0);
  const double iou = iw * ih / (wa * ha + wg * hg - iw * ih + kEps);
  CiouTerms t;
  t.atan_sub = std::atan(wg / (hg + kEps)) - std::atan(wa / (ha + kEps));
  const double v = 4 / (kPi * kPi) * t.atan_sub * t.atan_sub;
  t.alpha = v / (1 + kEps - iou + v);
  return t;
}

struct LossAttrs {
  bool xywh = false, cross = false;
};

LossAttrs lossAttrs(const OpCall& call) {
  const std::string mode = attrString(call, "mode", "iou");
  if (mode != "iou")
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr mode must be \"iou\" (the only mode of the family), got \"" + mode + "\"");
  return {attrBool(call, "trans", false), attrBool(call, "is_cross", false)};
}

void checkBoxRows(const OpCall& call, const TensorArg& t, const char* name) {
  checkDtype(call, t, name, kFloatTypes);
  if (t.shape.size() != 2 || t.shape[0] != 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(name) + " must be [4, N] (a row per coordinate), got shape " + shapeToString(t.shape));
}

// The boxes of a [4, N] tensor, as values.
std::vector<Box<double>> loadBoxes(const TensorArg& t, bool xywh) {
  const std::vector<float> v = loadAllFloat(t);
  const int64_t n = t.shape[1];
  std::vector<Box<double>> boxes(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double c[4] = {v[i], v[n + i], v[2 * n + i], v[3 * n + i]};
    boxes[i] = boxOf(c, xywh);
  }
  return boxes;
}

void validateLoss(const OpCall& call) {
  const bool ciou = lossOf(call.op_type) == Loss::kCIoU;
  checkArity(call, 2, 2, ciou ? 2 : 1);
  checkBoxRows(call, call.inputs[0], "input bboxes");
  checkBoxRows(call, call.inputs[1], "input gtboxes");
  const LossAttrs a = lossAttrs(call);
  const int64_t n = call.inputs[0].shape[1], m = call.inputs[1].shape[1];
  if (!a.cross && m != n)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "with is_cross false bboxes and gtboxes pair up and must hold as many boxes, got " + std::to_string(n) +
             " and " + std::to_string(m));
  const Shape out = {a.cross ? m : 1, n};
  for (size_t k = 0; k < call.outputs.size(); ++k) {
    const std::string name = k == 0 ? "output overlap" : "output atan_sub";
    checkSameDtype(call, call.inputs[0], "bboxes", call.outputs[k], name);
    checkShapeEq(call, call.outputs[k], name, out, a.cross ? "[M, N] (gtboxes by bboxes)" : "[1, N]");
  }
}

void computeLoss(const OpCall& call) {
  const Loss loss = lossOf(call.op_type);
  const LossAttrs a = lossAttrs(call);
  const std::vector<Box<double>> boxes = loadBoxes(call.inputs[0], a.xywh), gts = loadBoxes(call.inputs[1], a.xywh);
  const int64_t n = static_cast<int64_t>(boxes.size()), rows = a.cross ? static_cast<int64_t>(gts.size()) : 1;
  std::vector<float> overlap(static_cast<size_t>(rows * n)), atan_sub(overlap.size());
  for (int64_t j = 0; j < rows; ++j)
    for (int64_t i = 0; i < n; ++i) {
      const Box<double>& g = gts[a.cross ? j : i];
      const CiouTerms t = loss == Loss::kCIoU ? ciouTerms(boxes[i], g) : CiouTerms{};
      overlap[j * n + i] = static_cast<float>(boxLoss(loss, boxes[i], g, t.alpha));
      atan_sub[j * n + i] = static_cast<float>(t.atan_sub);
    }
  storeAllFloat(call.outputs[0], overlap);
  if (loss == Loss::kCIoU) storeAllFloat(call.outputs[1], atan_sub);
}

void validateLossGrad(const OpCall& call) {
  const bool ciou = lossOf(call.op_type) == Loss::kCIoU;
  checkArity(call, ciou ? 4 : 3, ciou ? 4 : 3, 2);
  checkBoxRows(call, call.inputs[1], "input bboxes");
  checkBoxRows(call, call.inputs[2], "input gtboxes");
  if (lossAttrs(call).cross)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr is_cross must be false: the gradient pairs box i with ground truth i");
  const int64_t n = call.inputs[1].shape[1];
  checkShapeEq(call, call.inputs[2], "input gtboxes", {4, n}, "bboxes' shape [4, N]");
  for (size_t k : {size_t{0}, size_t{3}}) {
    if (k >= call.inputs.size()) continue;
    const std::string name = k == 0 ? "input dy" : "input atan_sub";
    checkDtype(call, call.inputs[k], name, kFloatTypes);
    if (call.inputs[k].numel() != n)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           name + " must hold N = " + std::to_string(n) + " values, got shape " + shapeToString(call.inputs[k].shape));
  }
  checkSameDtype(call, call.inputs[1], "bboxes", call.outputs[0], "output dbboxes");
  checkShapeEq(call, call.outputs[0], "output dbboxes", {4, n}, "[4, N]");
  checkSameDtype(call, call.inputs[2], "gtboxes", call.outputs[1], "output dgtboxes");
  checkShapeEq(call, call.outputs[1], "output dgtboxes", {4, n}, "[4, N]");
}

void computeLossGrad(const OpCall& call) {
  const Loss loss = lossOf(call.op_type);
  const bool xywh = lossAttrs(call).xywh;
  const std::vector<float> dy = loadAllFloat(call.inputs[0]), bv = loadAllFloat(call.inputs[1]),
                           gv = loadAllFloat(call.inputs[2]);
  const int64_t n = call.inputs[1].shape[1];
  std::vector<float> dboxes(static_cast<size_t>(4 * n)), dgts(dboxes.size());
  for (int64_t i = 0; i < n; ++i) {
    double coords[8];
    for (int k = 0; k < 4; ++k) coords[k] = bv[k * n + i], coords[4 + k] = gv[k * n + i];
    const double alpha = loss == Loss::kCIoU ? ciouTerms(boxOf(coords, xywh), boxOf(coords + 4, xywh)).alpha : 0.0;
    for (int seed = 0; seed < 8; ++seed) {  // Note [Box-loss gradients by dual numbers]
      Dual x[8];
      for (int k = 0; k < 8; ++k) x[k] = {coords[k], k == seed ? 1.0 : 0.0};
      const double d = boxLoss(loss, boxOf(x, xywh), boxOf(x + 4, xywh), alpha).d * dy[i];
      (seed < 4 ? dboxes : dgts)[(seed % 4) * n + i] = static_cast<float>(d);
    }
  }
  storeAllFloat(call.outputs[0], dboxes);
  storeAllFloat(call.outputs[1], dgts);
}

// About 40 vector operations a pair forward; the gradient runs the pair eight times.
KernelCost costLoss(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const bool grad = call.op_type.find("Grad") != std::string::npos;
  const double pairs = static_cast<double>(grad ? call.outputs[0].numel() / 4 : call.outputs[0].numel());
  c.flops = (grad ? 8.0 * 80.0 : 40.0) * pairs;
  c.vector_bytes += 4.0 * c.flops;
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GIoU", &validateLoss, &computeLoss, &costLoss});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DIoU", &validateLoss, &computeLoss, &costLoss});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"CIoU", &validateLoss, &computeLoss, &costLoss});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GIoUGrad", &validateLossGrad, &computeLossGrad, &costLoss});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DIoUGrad", &validateLossGrad, &computeLossGrad, &costLoss});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"CIoUGrad", &validateLossGrad, &computeLossGrad, &costLoss});

}  // namespace
}  // namespace ascend_sim
