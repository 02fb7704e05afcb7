// NMSWithMask, BatchMultiClassNonMaxSuppression, Iou, BoundingBoxEncode and
// BoundingBoxDecode (OPS.md "Detection") against references computed here in
// double (an IoU matrix, the coding formulas), fp32 and fp16, with empty
// inputs, zero-area boxes, ties and bad attributes.
#include <algorithm>
#include <cmath>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::vector<float> stored(aclDataType dt, std::vector<float> v) {
  for (float& e : v) e = roundTo(dt, e);
  return v;
}

std::vector<float> randomBoxes(int64_t n, uint32_t seed) {
  const std::vector<float> r = randomFloats(n * 4, 0, 1, seed);
  std::vector<float> b(n * 4);
  for (int64_t i = 0; i < n; ++i) {
    b[i * 4] = r[i * 4] * 40, b[i * 4 + 1] = r[i * 4 + 1] * 40;
    b[i * 4 + 2] = b[i * 4] + r[i * 4 + 2] * 20, b[i * 4 + 3] = b[i * 4 + 1] + r[i * 4 + 3] * 20;
  }
  return b;
}

double areaOf(const float* b) { return (double(b[2]) - b[0]) * (double(b[3]) - b[1]); }
double interOf(const float* a, const float* b) {
  return std::max(0.0, std::min<double>(a[2], b[2]) - std::max<double>(a[0], b[0])) *
         std::max(0.0, std::min<double>(a[3], b[3]) - std::max<double>(a[1], b[1]));
}
double iouRef(const float* a, const float* b) {
  if (areaOf(a) <= 0 || areaOf(b) <= 0) return 0;
  const double i = interOf(a, b);
  return i / (areaOf(a) + areaOf(b) - i);
}

TEST(KernelIou, IouAndIofMatchTheReference) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<float> bv = stored(dt, randomBoxes(9, 61)), gv = stored(dt, randomBoxes(4, 62));
    bv[2] = bv[0];  // a zero-width box
    HostTensor b = HostTensor::floats(dt, {9, 4}, bv), g = HostTensor::floats(dt, {4, 4}, gv), o(dt, {4, 9});
    for (const char* mode : {"iou", "iof"}) {
      run(makeCall("Iou", {&b, &g}, {&o}, attrs({{"mode", std::string(mode)}})));
      std::vector<double> want;
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t i = 0; i < 9; ++i) {
          const double inter = interOf(&bv[i * 4], &gv[j * 4]);
          const double den =
              std::string(mode) == "iof" ? areaOf(&gv[j * 4]) : areaOf(&bv[i * 4]) + areaOf(&gv[j * 4]) - inter;
          want.push_back(den > 0 ? inter / den : 0);
        }
      const double rel = dt == ACL_FLOAT16 ? 2e-3 : 1e-5;
      expectNearReference(
          o.toFloats(), want, [rel](double r) { return rel * std::fabs(r) + rel; }, mode);
    }
  }
  HostTensor b(ACL_FLOAT, {2, 4}), g(ACL_FLOAT, {3, 4}), o(ACL_FLOAT, {3, 2});
  EXPECT_KERNEL_ERROR(makeCall("Iou", {&b, &g}, {&o}, attrs({{"mode", std::string("giou")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "mode must be");
  HostTensor e(ACL_FLOAT, {0, 4}), eo(ACL_FLOAT, {3, 0});
  run(makeCall("Iou", {&e, &g}, {&eo}));
}

TEST(KernelBoundingBoxCoding, EncodeAndDecodeFollowTheFormulas) {
  const std::vector<float> means{0.1f, -0.2f, 0.0f, 0.3f}, stds{0.1f, 0.2f, 0.3f, 0.4f};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const std::vector<float> av = stored(dt, randomBoxes(12, 71)), gv = stored(dt, randomBoxes(12, 72));
    HostTensor a = HostTensor::floats(dt, {12, 4}, av), g = HostTensor::floats(dt, {12, 4}, gv), d(dt, {12, 4}),
               back(dt, {12, 4});
    run(makeCall("BoundingBoxEncode", {&a, &g}, {&d}, attrs({{"means", means}, {"stds", stds}})));
    std::vector<double> want_d, want_box;
    const std::vector<float> dv = d.toFloats();
    for (int64_t i = 0; i < 12; ++i) {
      const float *p = &av[i * 4], *q = &gv[i * 4];
      const double pw = double(p[2]) - p[0] + 1, ph = double(p[3]) - p[1] + 1, qw = double(q[2]) - q[0] + 1,
                   qh = double(q[3]) - q[1] + 1;
      const double raw[4] = {((double(q[0]) + q[2]) / 2 - (double(p[0]) + p[2]) / 2) / pw,
                             ((double(q[1]) + q[3]) / 2 - (double(p[1]) + p[3]) / 2) / ph, std::log(qw / pw),
                             std::log(qh / ph)};
      for (int k = 0; k < 4; ++k) want_d.push_back((raw[k] - means[k]) / stds[k]);
      // Decoding the stored deltas: the box they describe, clamped to a 30 x 50 (h x w) image.
      double dd[4];
      for (int k = 0; k < 4; ++k) dd[k] = double(dv[i * 4 + k]) * stds[k] + means[k];
      const double lim = std::fabs(std::log(0.05));
      dd[2] = std::min(std::max(dd[2], -lim), lim), dd[3] = std::min(std::max(dd[3], -lim), lim);
      const double gx = (double(p[0]) + p[2]) / 2 + pw * dd[0], gy = (double(p[1]) + p[3]) / 2 + ph * dd[1];
      const double w = pw * std::exp(dd[2]), h = ph * std::exp(dd[3]);
      const double box[4] = {gx - w / 2 + 0.5, gy - h / 2 + 0.5, gx + w / 2 - 0.5, gy + h / 2 - 0.5};
      for (int k = 0; k < 4; ++k) want_box.push_back(std::min(std::max(box[k], 0.0), k % 2 == 0 ? 49.0 : 29.0));
    }
    const double rel = dt == ACL_FLOAT16 ? 4e-3 : 2e-5;
    expectNearReference(
        dv, want_d, [rel](double r) { return rel * std::fabs(r) + rel; }, "deltas");
    run(makeCall("BoundingBoxDecode", {&a, &d}, {&back},
                 attrs({{"means", means},
                        {"stds", stds},
                        {"max_shape", std::vector<int64_t>{30, 50}},
                        {"wh_ratio_clip", 0.05f}})));
    expectNearReference(
        back.toFloats(), want_box, [rel](double r) { return rel * std::fabs(r) + 10 * rel; }, "boxes");
  }
  HostTensor a(ACL_FLOAT, {1, 4}), o(ACL_FLOAT, {1, 4});
  EXPECT_KERNEL_ERROR(makeCall("BoundingBoxDecode", {&a, &a}, {&o}, attrs({{"max_shape", std::vector<int64_t>{3}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "max_shape must be [h, w]");
  EXPECT_KERNEL_ERROR(makeCall("BoundingBoxEncode", {&a, &a}, {&o}, attrs({{"means", std::vector<float>{0, 0}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "must hold 4 values");
}

TEST(KernelNMSWithMask, KeepsBoxesInInputOrder) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const int64_t n = 40;
    const std::vector<float> bv = stored(dt, randomBoxes(n, 81));
    std::vector<float> rows;
    for (int64_t i = 0; i < n; ++i) {
      rows.insert(rows.end(), bv.begin() + i * 4, bv.begin() + i * 4 + 4);
      rows.push_back(roundTo(dt, 0.5f));  // the score is not read
    }
    HostTensor in = HostTensor::floats(dt, {n, 5}, rows), out(dt, {n, 5}), idx(ACL_INT32, {n}), mask(ACL_UINT8, {n});
    run(makeCall("NMSWithMask", {&in}, {&out, &idx, &mask}, attrs({{"iou_threshold", 0.3f}})));
    std::vector<int64_t> want_mask(n, 0), want_idx(n);
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < n; ++i) {
      want_idx[i] = i;
      bool drop = false;
      for (int64_t k : kept) drop = drop || iouRef(&bv[k * 4], &bv[i * 4]) > 0.3;
      if (!drop) kept.push_back(i), want_mask[i] = 1;
    }
    EXPECT_EQ(mask.toInts(), want_mask);
    EXPECT_EQ(idx.toInts(), want_idx);
    expectSameBits(out.toFloats(), in.toFloats(), "selected_boxes");
  }
}

TEST(KernelBatchMultiClassNonMaxSuppression, PerClassNmsThenTopScores) {
  const int64_t b = 2, a = 25, c = 3, per_class = 3, total = 7;
  const std::vector<float> bv = randomBoxes(b * a, 91), sv = randomFloats(b * a * c, 0, 1, 92);
  HostTensor boxes = HostTensor::floats(ACL_FLOAT, {b, a, 1, 4}, bv),
             scores = HostTensor::floats(ACL_FLOAT, {b, a, c}, sv);
  HostTensor ob(ACL_FLOAT, {b, total, 4}), os(ACL_FLOAT, {b, total}), oc(ACL_FLOAT, {b, total}), on(ACL_INT32, {b});
  const AttrMap at = attrs({{"score_threshold", 0.25f},
                            {"iou_threshold", 0.4f},
                            {"max_size_per_class", per_class},
                            {"max_total_size", total}});
  run(makeCall("BatchMultiClassNonMaxSuppression", {&boxes, &scores}, {&ob, &os, &oc, &on}, at));
  for (int64_t i = 0; i < b; ++i) {
    std::vector<std::pair<float, int64_t>> kept;  // score, class
    for (int64_t k = 0; k < c; ++k) {
      std::vector<int64_t> order;
      for (int64_t j = 0; j < a; ++j)
        if (sv[(i * a + j) * c + k] > 0.25f) order.push_back(j);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return sv[(i * a + x) * c + k] > sv[(i * a + y) * c + k]; });
      std::vector<int64_t> sel;
      for (int64_t j : order) {
        bool drop = static_cast<int64_t>(sel.size()) >= per_class;
        for (int64_t s : sel) drop = drop || iouRef(&bv[(i * a + s) * 4], &bv[(i * a + j) * 4]) > 0.4;
        if (!drop) sel.push_back(j), kept.emplace_back(sv[(i * a + j) * c + k], k);
      }
    }
    std::stable_sort(kept.begin(), kept.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    const int64_t num = std::min<int64_t>(total, kept.size());
    EXPECT_EQ(on.toInts()[i], num);
    for (int64_t r = 0; r < total; ++r) {
      EXPECT_EQ(os.toFloats()[i * total + r], r < num ? kept[r].first : 0.0f) << "row " << r;
      EXPECT_EQ(oc.toFloats()[i * total + r], r < num ? float(kept[r].second) : 0.0f) << "row " << r;
    }
  }
  EXPECT_KERNEL_ERROR(makeCall("BatchMultiClassNonMaxSuppression", {&boxes, &scores}, {&ob, &os, &oc, &on},
                               attrs({{"score_threshold", 0.25f},
                                      {"iou_threshold", 0.4f},
                                      {"max_size_per_class", per_class},
                                      {"max_total_size", total},
                                      {"transpose_box", true}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "transpose_box must be false");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
