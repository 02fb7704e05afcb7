// GIoU, DIoU, CIoU and their gradients against a reference written here in
// double (the formulas of Note [IoU-family losses], gradients by central
// differences with CIoU's alpha held fixed), and YoloBoxesEncode,
// AnchorResponseFlags and GridAssignPositive against Note [YOLO targets] and
// torch_npu's literal test values; bad attributes, shapes and indices.
#include <algorithm>
#include <cmath>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Pair i of [4, N] tensors as (x1, y1, x2, y2) in double.
struct RefBox {
  double x1, y1, x2, y2;
};
RefBox toBox(const double* c, bool xywh) {
  if (!xywh) return {c[0], c[1], c[2], c[3]};
  return {c[0] - c[2] / 2, c[1] - c[3] / 2, c[0] + c[2] / 2, c[1] + c[3] / 2};
}
RefBox refBox(const std::vector<float>& v, int64_t n, int64_t i, bool xywh) {
  const double c[4] = {v[i], v[n + i], v[2 * n + i], v[3 * n + i]};
  return toBox(c, xywh);
}

// The loss of box p against ground truth g; alpha < 0 computes CIoU's own.
double refLoss(const std::string& op, const RefBox& p, const RefBox& g, double alpha = -1) {
  const double wp = p.x2 - p.x1, hp = p.y2 - p.y1, wg = g.x2 - g.x1, hg = g.y2 - g.y1;
  const double iw = std::max(0.0, std::min(p.x2, g.x2) - std::max(p.x1, g.x1));
  const double ih = std::max(0.0, std::min(p.y2, g.y2) - std::max(p.y1, g.y1));
  const double uni = wp * hp + wg * hg - iw * ih, iou = iw * ih / uni;
  const double cw = std::max(p.x2, g.x2) - std::min(p.x1, g.x1), ch = std::max(p.y2, g.y2) - std::min(p.y1, g.y1);
  if (op == "GIoU") return iou - (cw * ch - uni) / (cw * ch);
  const double rho2 = (std::pow((g.x1 + g.x2 - p.x1 - p.x2) / 2, 2) + std::pow((g.y1 + g.y2 - p.y1 - p.y2) / 2, 2));
  const double diou = iou - rho2 / (cw * cw + ch * ch);
  if (op == "DIoU") return diou;
  const double v = 4 / (kPi * kPi) * std::pow(std::atan(wg / hg) - std::atan(wp / hp), 2);
  if (alpha < 0) alpha = v / (1 - iou + v);
  return diou - alpha * v;
}

// CIoU's alpha of a pair: v / (1 - IoU + v), where v is the loss's last term with alpha = 1.
double refAlpha(const RefBox& p, const RefBox& g) {
  const double v = refLoss("DIoU", p, g) - refLoss("CIoU", p, g, 1.0);
  const double iw = std::max(0.0, std::min(p.x2, g.x2) - std::max(p.x1, g.x1));
  const double ih = std::max(0.0, std::min(p.y2, g.y2) - std::max(p.y1, g.y1));
  const double iou = iw * ih / ((p.x2 - p.x1) * (p.y2 - p.y1) + (g.x2 - g.x1) * (g.y2 - g.y1) - iw * ih);
  return v / (1 - iou + v);
}

// Random boxes [4, n] as (cx, cy, w, h) or corners, overlapping often.
std::vector<float> randomBoxRows(int64_t n, bool xywh, uint32_t seed) {
  const std::vector<float> r = randomFloats(4 * n, 0, 1, seed);
  std::vector<float> v(4 * n);
  for (int64_t i = 0; i < n; ++i) {
    const float cx = 2 + 4 * r[i], cy = 2 + 4 * r[n + i], w = 1 + 3 * r[2 * n + i], h = 1 + 3 * r[3 * n + i];
    v[i] = xywh ? cx : cx - w / 2, v[n + i] = xywh ? cy : cy - h / 2;
    v[2 * n + i] = xywh ? w : cx + w / 2, v[3 * n + i] = xywh ? h : cy + h / 2;
  }
  return v;
}

TEST(KernelIoULosses, ForwardMatchesTheFormulas) {
  for (const char* op : {"GIoU", "DIoU", "CIoU"})
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
      for (bool xywh : {true, false})
        for (bool cross : {false, true}) {
          SCOPED_TRACE(std::string(op) + " " + dtypeName(dt) + (xywh ? " xywh" : " xyxy") + (cross ? " cross" : ""));
          const int64_t n = 7, m = cross ? 3 : n;
          std::vector<float> bv = randomBoxRows(n, xywh, 11), gv = randomBoxRows(m, xywh, 12);
          for (float& e : bv) e = roundTo(dt, e);
          for (float& e : gv) e = roundTo(dt, e);
          HostTensor b = HostTensor::floats(dt, {4, n}, bv), g = HostTensor::floats(dt, {4, m}, gv);
          HostTensor o(dt, {cross ? m : 1, n}), sub(dt, {cross ? m : 1, n});
          const bool ciou = std::string(op) == "CIoU";
          const AttrMap a = attrs({{"trans", xywh}, {"is_cross", cross}, {"mode", std::string("iou")}});
          if (ciou)
            run(makeCall(op, {&b, &g}, {&o, &sub}, a));
          else
            run(makeCall(op, {&b, &g}, {&o}, a));
          std::vector<double> want, want_sub;
          for (int64_t j = 0; j < (cross ? m : 1); ++j)
            for (int64_t i = 0; i < n; ++i) {
              const RefBox p = refBox(bv, n, i, xywh), q = refBox(gv, m, cross ? j : i, xywh);
              want.push_back(refLoss(op, p, q));
              want_sub.push_back(std::atan((q.x2 - q.x1) / (q.y2 - q.y1)) - std::atan((p.x2 - p.x1) / (p.y2 - p.y1)));
            }
          const double tol = dt == ACL_FLOAT16 ? 2e-3 : 1e-6;
          expectNearReference(
              o.toFloats(), want, [tol](double r) { return tol * (1 + std::fabs(r)); }, "overlap");
          if (ciou)
            expectNearReference(
                sub.toFloats(), want_sub, [tol](double r) { return tol * (1 + std::fabs(r)); }, "atan_sub");
        }
}

TEST(KernelIoULosses, GradientsMatchCentralDifferences) {
  for (const char* op : {"GIoU", "DIoU", "CIoU"})
    for (bool xywh : {true, false}) {
      SCOPED_TRACE(std::string(op) + (xywh ? " xywh" : " xyxy"));
      const int64_t n = 6;
      const std::vector<float> bv = randomBoxRows(n, xywh, 21), gv = randomBoxRows(n, xywh, 22),
                               dyv = randomFloats(n, -1, 1, 23);
      HostTensor b = HostTensor::floats(ACL_FLOAT, {4, n}, bv), g = HostTensor::floats(ACL_FLOAT, {4, n}, gv);
      HostTensor dy = HostTensor::floats(ACL_FLOAT, {1, n}, dyv), sub(ACL_FLOAT, {1, n});
      HostTensor db(ACL_FLOAT, {4, n}), dg(ACL_FLOAT, {4, n});
      const AttrMap a = attrs({{"trans", xywh}, {"is_cross", false}});
      const std::string grad = std::string(op) + "Grad";
      if (grad == "CIoUGrad")
        run(makeCall(grad, {&dy, &b, &g, &sub}, {&db, &dg}, a));
      else
        run(makeCall(grad, {&dy, &b, &g}, {&db, &dg}, a));
      std::vector<double> want_b(4 * n), want_g(4 * n);
      for (int64_t i = 0; i < n; ++i) {
        double c[8];
        for (int k = 0; k < 4; ++k) c[k] = bv[k * n + i], c[4 + k] = gv[k * n + i];
        const double alpha = std::string(op) == "CIoU" ? refAlpha(toBox(c, xywh), toBox(c + 4, xywh)) : -1;
        for (int k = 0; k < 8; ++k) {
          double plus[8], minus[8];
          std::copy(c, c + 8, plus), std::copy(c, c + 8, minus);
          const double h = 1e-5;
          plus[k] += h, minus[k] -= h;
          const double d = refLoss(op, toBox(plus, xywh), toBox(plus + 4, xywh), alpha) -
                           refLoss(op, toBox(minus, xywh), toBox(minus + 4, xywh), alpha);
          (k < 4 ? want_b : want_g)[(k % 4) * n + i] = d / (2 * h) * dyv[i];
        }
      }
      const auto tol = [](double r) { return 2e-3 * (1 + std::fabs(r)); };
      expectNearReference(db.toFloats(), want_b, tol, "dbboxes");
      expectNearReference(dg.toFloats(), want_g, tol, "dgtboxes");
    }
}

TEST(KernelIoULosses, RejectsWhatTheFamilyDoesNotDefine) {
  HostTensor b(ACL_FLOAT, {4, 3}), g(ACL_FLOAT, {4, 3}), o(ACL_FLOAT, {1, 3}), dy(ACL_FLOAT, {1, 3}),
      db(ACL_FLOAT, {4, 3}), dg(ACL_FLOAT, {4, 3});
  EXPECT_KERNEL_ERROR(makeCall("GIoU", {&b, &g}, {&o}, attrs({{"mode", std::string("iof")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "mode must be \"iou\"");
  EXPECT_KERNEL_ERROR(makeCall("DIoUGrad", {&dy, &b, &g}, {&db, &dg}, attrs({{"is_cross", true}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "is_cross must be false");
  HostTensor rows3(ACL_FLOAT, {3, 3}), g4(ACL_FLOAT, {4, 4});
  EXPECT_KERNEL_ERROR(makeCall("GIoU", {&rows3, &g}, {&o}), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [4, N]");
  EXPECT_KERNEL_ERROR(makeCall("DIoU", {&b, &g4}, {&o}), ACL_ERROR_OP_INPUT_NOT_MATCH, "as many boxes");
  HostTensor e(ACL_FLOAT, {4, 0}), eo(ACL_FLOAT, {1, 0});
  run(makeCall("DIoU", {&e, &e}, {&eo}));
}

TEST(KernelYoloTargets, YoloBoxesEncodeReproducesTorchNpusValues) {
  // torch_npu's test_yolo_boxes_encode.py: torch.manual_seed(1234), two torch.rand((2, 4)).
  const std::vector<float> anchors{0.0289792418f, 0.401898563f, 0.259844184f, 0.366641343f,
                                   0.0583007336f, 0.700644732f, 0.05179739f,  0.468139231f};
  const std::vector<float> gts{0.673806131f, 0.331461966f, 0.783708036f, 0.563063204f,
                               0.774850488f, 0.820802569f, 0.27927655f,  0.681711078f};
  HostTensor a = HostTensor::floats(ACL_FLOAT, {2, 4}, anchors), g = HostTensor::floats(ACL_FLOAT, {2, 4}, gts);
  HostTensor s = HostTensor::ints(ACL_INT32, {2}, {2, 2}), o(ACL_FLOAT, {2, 4});
  run(makeCall("YoloBoxesEncode", {&a, &g, &s}, {&o}, attrs({{"performance_mode", std::string("high_precision")}})));
  const std::vector<double> want{0.7921727, 0.5314963,  -0.74224466, -13.815511,
                                 0.7360072, 0.58343244, 4.3334002,   -0.51378196};
  expectNearReference(
      o.toFloats(), want, [](double r) { return 1e-5 * (1 + std::fabs(r)); }, "encoded");
  EXPECT_KERNEL_ERROR(
      makeCall("YoloBoxesEncode", {&a, &g, &s}, {&o}, attrs({{"performance_mode", std::string("fast")}})),
      ACL_ERROR_OP_ATTR_NOT_MATCH, "performance_mode");
}

TEST(KernelYoloTargets, AnchorResponseFlagsMarkTheCellsOfBoxCentres) {
  // Centres (5, 3), (31, 0) and (-4, 2) on a map of h 4, w 8 with strides x 4, y 2: cells (x 1, y 1) and
  // (x 7, y 0); the third lies off the map.
  HostTensor b = HostTensor::floats(ACL_FLOAT, {3, 4}, {4, 2, 6, 4, 30, -1, 32, 1, -6, 1, -2, 3});
  HostTensor o(ACL_UINT8, {4 * 8 * 2});
  run(makeCall("AnchorResponseFlags", {&b}, {&o},
               attrs({{"featmap_size", std::vector<int64_t>{4, 8}},
                      {"strides", std::vector<int64_t>{4, 2}},
                      {"num_base_anchors", int64_t{2}}})));
  std::vector<int64_t> want(64, 0);
  for (int64_t cell : {1 * 8 + 1, 0 * 8 + 7}) want[cell * 2] = want[cell * 2 + 1] = 1;
  EXPECT_EQ(o.toInts(), want);
  EXPECT_KERNEL_ERROR(makeCall("AnchorResponseFlags", {&b}, {&o},
                               attrs({{"featmap_size", std::vector<int64_t>{4, 8}},
                                      {"strides", std::vector<int64_t>{0, 2}},
                                      {"num_base_anchors", int64_t{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "strides");
}

TEST(KernelYoloTargets, GridAssignPositiveFollowsMmdetsGridAssigner) {
  // 5 boxes, 2 ground truths; box 3 is not responsible.
  HostTensor assigned = HostTensor::floats(ACL_FLOAT, {5}, {0, 0, -1, 0, 0});
  HostTensor overlaps = HostTensor::floats(ACL_FLOAT, {2, 5},
                                           {0.9f, 0.2f, 0.3f, 0.8f, 0.1f,  //
                                            0.1f, 0.4f, 0.4f, 0.2f, 0.05f});
  HostTensor flags = HostTensor::ints(ACL_UINT8, {5}, {1, 1, 1, 0, 1});
  HostTensor max_ov = HostTensor::floats(ACL_FLOAT, {5}, {0.9f, 0.4f, 0.4f, 0.8f, 0.1f});
  HostTensor argmax = HostTensor::ints(ACL_INT32, {5}, {0, 1, 1, 0, 0});
  HostTensor gt_max = HostTensor::floats(ACL_FLOAT, {2}, {0.9f, 0.4f});
  HostTensor gt_argmax = HostTensor::ints(ACL_INT32, {2}, {0, 1});
  HostTensor num_gts = HostTensor::ints(ACL_INT32, {}, {2}), o(ACL_FLOAT, {5});
  const auto call = [&](bool all, int64_t gts) {
    num_gts = HostTensor::ints(ACL_INT32, {}, {gts});
    return makeCall("GridAssignPositive",
                    {&assigned, &overlaps, &flags, &max_ov, &argmax, &gt_max, &gt_argmax, &num_gts}, {&o},
                    attrs({{"pos_iou_thr", 0.5f}, {"min_pos_iou", 0.3f}, {"gt_max_assign_all", all}}));
  };
  // Step 1 gives box 0 gt 1; box 3 (0.8) is not responsible. Step 2: gt 2's best overlap 0.4 goes to boxes 1
  // and 2 (all) or only box 1 (its argmax).
  run(call(true, 2));
  EXPECT_EQ(o.toFloats(), (std::vector<float>{1, 2, 2, 0, 0}));
  run(call(false, 2));
  EXPECT_EQ(o.toFloats(), (std::vector<float>{1, 2, -1, 0, 0}));
  run(call(true, 0));  // no ground truth takes part in step 2
  EXPECT_EQ(o.toFloats(), (std::vector<float>{1, 0, -1, 0, 0}));
  run(call(true, 128));  // torch_npu's test passes more than k: step 2 stops at k
  EXPECT_EQ(o.toFloats(), (std::vector<float>{1, 2, 2, 0, 0}));
  argmax = HostTensor::ints(ACL_INT32, {5}, {0, 1, 1, 0, 7});
  max_ov = HostTensor::floats(ACL_FLOAT, {5}, {0.9f, 0.4f, 0.4f, 0.8f, 0.7f});
  EXPECT_KERNEL_ERROR(call(true, 2), ACL_ERROR_RT_AICORE_EXCEPTION, "argmax_overlaps[4] 7 lies outside [0, 2)");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
