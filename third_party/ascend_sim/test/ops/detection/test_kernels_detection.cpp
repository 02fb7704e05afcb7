// The detection kernels (OPS.md "Detection"): NonMaxSuppressionV4, ROIAlign /
// ROIAlignGrad and ROIPoolingWithArgMax / ROIPoolingGradWithArgMax against
// references computed here in double from their definitions (tent-function
// bilinear weights, an IoU matrix, explicit bins), fp32 and fp16, with empty
// inputs, boxes of zero area, ties in scores and bad arguments.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::function<double(double)> tol(aclDataType dt) {
  const double rel = dt == ACL_FLOAT16 ? 2e-3 : 2e-5;
  const double abs = dt == ACL_FLOAT16 ? 2e-3 : 2e-5;
  return [rel, abs](double ref) { return rel * std::fabs(ref) + abs; };
}

// ---- NMS ----

double iouRef(const float* a, const float* b) {
  const double ax1 = std::min(a[0], a[2]), ax2 = std::max(a[0], a[2]), ay1 = std::min(a[1], a[3]),
               ay2 = std::max(a[1], a[3]);
  const double bx1 = std::min(b[0], b[2]), bx2 = std::max(b[0], b[2]), by1 = std::min(b[1], b[3]),
               by2 = std::max(b[1], b[3]);
  const double area_a = (ax2 - ax1) * (ay2 - ay1), area_b = (bx2 - bx1) * (by2 - by1);
  if (area_a <= 0 || area_b <= 0) return 0;
  const double inter =
      std::max(0.0, std::min(ax2, bx2) - std::max(ax1, bx1)) * std::max(0.0, std::min(ay2, by2) - std::max(ay1, by1));
  return inter / (area_a + area_b - inter);
}

std::vector<int64_t> nmsRef(const std::vector<float>& boxes, const std::vector<float>& scores, double thr,
                            int64_t max_out) {
  const int64_t n = static_cast<int64_t>(scores.size());
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return scores[a] != scores[b] ? scores[a] > scores[b] : a < b; });
  std::vector<std::vector<double>> iou(n, std::vector<double>(n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) iou[i][j] = iouRef(&boxes[i * 4], &boxes[j * 4]);
  std::vector<bool> dead(static_cast<size_t>(n), false);
  std::vector<int64_t> keep;
  for (int64_t i : order) {
    if (dead[i] || static_cast<int64_t>(keep.size()) == max_out) continue;
    keep.push_back(i);
    for (int64_t j = 0; j < n; ++j)
      if (iou[i][j] > thr) dead[j] = true;
  }
  return keep;
}

struct NmsRun {
  std::vector<int64_t> selected;
  int64_t count;
};

NmsRun runNms(aclDataType dt, const std::vector<float>& boxes, const std::vector<float>& scores, float thr,
              int64_t max_out, float score_thr = -INFINITY) {
  const int64_t n = static_cast<int64_t>(scores.size());
  HostTensor b = HostTensor::floats(dt, {n, 4}, boxes), s = HostTensor::floats(dt, {n}, scores);
  HostTensor m = HostTensor::ints(ACL_INT64, {}, {max_out}), t = HostTensor::floats(ACL_FLOAT, {}, {thr}),
             st = HostTensor::floats(ACL_FLOAT, {}, {score_thr});
  HostTensor sel(ACL_INT64, {std::max<int64_t>(n, max_out)}), cnt(ACL_INT32, {});
  run(makeCall("NonMaxSuppressionV4", {&b, &s, &m, &t, &st}, {&sel, &cnt}, attrs({{"pad_to_max_output_size", true}})));
  return {sel.toInts(), cnt.toInts()[0]};
}

TEST(KernelNonMaxSuppressionV4, MatchesTheGreedyReference) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const int64_t n = 60;
    std::vector<float> corner = randomFloats(n * 2, 0, 40, 11), size = randomFloats(n * 2, 0, 20, 12);
    std::vector<float> boxes(n * 4);
    for (int64_t i = 0; i < n; ++i) {
      boxes[i * 4] = corner[i * 2];
      boxes[i * 4 + 1] = corner[i * 2 + 1];
      boxes[i * 4 + 2] = corner[i * 2] + size[i * 2];
      boxes[i * 4 + 3] = corner[i * 2 + 1] + size[i * 2 + 1];
    }
    boxes[8] = boxes[10];  // box 2 has zero width
    boxes = stored(dt, boxes);
    std::vector<float> scores = stored(dt, randomFloats(n, 0, 1, 13));
    scores[5] = scores[9] = scores[17] = scores[3];  // ties
    for (float thr : {0.0f, 0.3f, 0.7f}) {
      const NmsRun r = runNms(dt, boxes, scores, thr, n);
      const std::vector<int64_t> want = nmsRef(boxes, scores, thr, n);
      ASSERT_EQ(r.count, static_cast<int64_t>(want.size())) << "threshold " << thr;
      EXPECT_EQ(std::vector<int64_t>(r.selected.begin(), r.selected.begin() + r.count), want) << "threshold " << thr;
      for (int64_t i = r.count; i < n; ++i) EXPECT_EQ(r.selected[i], 0) << "padding at " << i;
    }
    // max_output_size stops the visit; score_threshold drops candidates.
    const NmsRun three = runNms(dt, boxes, scores, 0.5f, 3);
    EXPECT_EQ(three.count, 3);
    EXPECT_EQ(std::vector<int64_t>(three.selected.begin(), three.selected.begin() + 3), nmsRef(boxes, scores, 0.5, 3));
    const NmsRun high = runNms(dt, boxes, scores, 1.0f, n, 0.5f);
    int64_t above = 0;
    for (float s : scores) above += s > 0.5f;
    EXPECT_EQ(high.count, above);
  }
}

TEST(KernelNonMaxSuppressionV4, TiesZeroAreaEmptyAndBadInputs) {
  // Identical boxes with equal scores: the lowest index survives.
  const std::vector<float> same{0, 0, 4, 4, 0, 0, 4, 4, 0, 0, 4, 4};
  NmsRun r = runNms(ACL_FLOAT, same, {0.5f, 0.5f, 0.5f}, 0.5f, 3);
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.selected[0], 0);
  // Zero-area boxes never suppress or get suppressed.
  r = runNms(ACL_FLOAT, {1, 1, 1, 1, 1, 1, 1, 1}, {0.9f, 0.8f}, 0.0f, 2);
  EXPECT_EQ(r.count, 2);
  // No boxes.
  r = runNms(ACL_FLOAT, {}, {}, 0.5f, 0);
  EXPECT_EQ(r.count, 0);
  HostTensor bad(ACL_FLOAT, {3, 5}), s(ACL_FLOAT, {3}),
      m = HostTensor::ints(ACL_INT64, {}, {3}), t = HostTensor::floats(ACL_FLOAT, {}, {0.5f}), sel(ACL_INT64, {3}),
      cnt(ACL_INT64, {});
  EXPECT_KERNEL_ERROR(makeCall("NonMaxSuppressionV4", {&bad, &s, &m, &t, &t}, {&sel, &cnt}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [N, 4]");
  HostTensor b(ACL_FLOAT, {3, 4}), s2(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("NonMaxSuppressionV4", {&b, &s2, &m, &t, &t}, {&sel, &cnt}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "one score per box");
  HostTensor big = HostTensor::ints(ACL_INT64, {}, {9});
  EXPECT_KERNEL_ERROR(makeCall("NonMaxSuppressionV4", {&b, &s, &big, &t, &t}, {&sel, &cnt}),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "max_output_size 9");
}

// ---- ROIAlign ----

struct AlignCase {
  float scale;
  int64_t ph, pw, sample_num, mode;
};

// The bilinear value at (y, x) as a sum of tent weights over the pixels, with
// RoIAlign's border rule; `acc` receives weight * g per pixel when set.
double tentSample(const std::vector<float>& plane, int64_t h, int64_t w, double y, double x,
                  std::vector<double>* acc = nullptr, double g = 0) {
  if (y < -1 || y > h || x < -1 || x > w) return 0;
  y = std::min(std::max(y, 0.0), static_cast<double>(h - 1));
  x = std::min(std::max(x, 0.0), static_cast<double>(w - 1));
  double v = 0;
  for (int64_t p = 0; p < h; ++p)
    for (int64_t q = 0; q < w; ++q) {
      const double wt = std::max(0.0, 1 - std::fabs(y - p)) * std::max(0.0, 1 - std::fabs(x - q));
      if (wt == 0) continue;
      v += wt * plane[p * w + q];
      if (acc) (*acc)[p * w + q] += wt * g;
    }
  return v;
}

// Forward (grad == nullptr) or the adjoint into dx of one roi's bins.
void alignRef(const AlignCase& a, const std::vector<float>& roi, int64_t h, int64_t w,
              const std::function<void(int64_t bin, double y, double x, double inv_count)>& visit) {
  const double off = a.mode == 2 ? 0.5 : 0, extra = a.mode == 1 ? 1 : 0;
  const double sw = roi[1] * a.scale - off, sh = roi[2] * a.scale - off;
  double rw = (roi[3] + extra) * a.scale - off - sw, rh = (roi[4] + extra) * a.scale - off - sh;
  if (a.mode != 2) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
  const int64_t gh = a.sample_num > 0 ? a.sample_num : static_cast<int64_t>(std::ceil(rh / a.ph));
  const int64_t gw = a.sample_num > 0 ? a.sample_num : static_cast<int64_t>(std::ceil(rw / a.pw));
  const double inv = 1.0 / std::max<int64_t>(gh * gw, 1);
  for (int64_t ph = 0; ph < a.ph; ++ph)
    for (int64_t pw = 0; pw < a.pw; ++pw)
      for (int64_t iy = 0; iy < gh; ++iy)
        for (int64_t ix = 0; ix < gw; ++ix)
          visit(ph * a.pw + pw, sh + (ph + (iy + 0.5) / gh) * rh / a.ph, sw + (pw + (ix + 0.5) / gw) * rw / a.pw, inv);
  (void)h;
  (void)w;
}

TEST(KernelROIAlign, ForwardAndGradientMatchTheTentReference) {
  const int64_t n = 2, c = 3, h = 7, w = 9;
  const std::vector<float> rois{0, 2,  3, 20, 17, 1, -6, -4, 12, 30, 1, 5, 5, 5, 5,  // zero-area box
                                0, 30, 1, 44, 40, 0, 0,  0,  35, 27};
  const int64_t k = 5;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const std::vector<float> xv = stored(dt, randomFloats(n * c * h * w, -2, 2, 21));
    const std::vector<float> gv = stored(dt, randomFloats(k * c * 2 * 3, -1, 1, 22));
    for (AlignCase a : {AlignCase{0.25f, 2, 3, 2, 0}, AlignCase{0.25f, 2, 3, 0, 0}, AlignCase{0.25f, 2, 3, 3, 2},
                        AlignCase{0.25f, 2, 3, 0, 2}, AlignCase{0.25f, 2, 3, 1, 1}}) {
      SCOPED_TRACE("sample_num " + std::to_string(a.sample_num) + " mode " + std::to_string(a.mode));
      HostTensor x = HostTensor::floats(dt, {n, c, h, w}, xv), r = HostTensor::floats(ACL_FLOAT, {k, 5}, rois);
      HostTensor y(dt, {k, c, a.ph, a.pw}), g = HostTensor::floats(dt, {k, c, a.ph, a.pw}, gv), dx(dt, {n, c, h, w});
      const AttrMap at = attrs({{"spatial_scale", a.scale},
                                {"pooled_height", a.ph},
                                {"pooled_width", a.pw},
                                {"sample_num", a.sample_num},
                                {"roi_end_mode", a.mode}});
      run(makeCall("ROIAlign", {&x, &r}, {&y}, at));
      run(makeCall("ROIAlignGrad", {&g, &r}, {&dx}, at));
      std::vector<double> want_y(static_cast<size_t>(k * c * a.ph * a.pw), 0.0), want_dx(xv.size(), 0.0);
      for (int64_t i = 0; i < k; ++i) {
        const std::vector<float> roi(rois.begin() + i * 5, rois.begin() + i * 5 + 5);
        const int64_t b = static_cast<int64_t>(roi[0]);
        for (int64_t ch = 0; ch < c; ++ch) {
          const std::vector<float> plane(xv.begin() + (b * c + ch) * h * w, xv.begin() + (b * c + ch + 1) * h * w);
          std::vector<double> acc(static_cast<size_t>(h * w), 0.0);
          const int64_t base = (i * c + ch) * a.ph * a.pw;
          alignRef(a, roi, h, w, [&](int64_t bin, double yy, double xx, double inv) {
            want_y[base + bin] += inv * tentSample(plane, h, w, yy, xx, &acc, inv * gv[base + bin]);
          });
          for (int64_t p = 0; p < h * w; ++p) want_dx[(b * c + ch) * h * w + p] += acc[p];
        }
      }
      expectNearReference(y.toFloats(), want_y, tol(dt), "y");
      expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
    }
  }
}

TEST(KernelROIAlign, EmptyRoisAndBadArguments) {
  HostTensor x(ACL_FLOAT, {1, 2, 4, 4}), r(ACL_FLOAT, {0, 5}), y(ACL_FLOAT, {0, 2, 2, 2});
  const AttrMap at = attrs({{"spatial_scale", 1.0f}, {"pooled_height", int64_t{2}}, {"pooled_width", int64_t{2}}});
  run(makeCall("ROIAlign", {&x, &r}, {&y}, at));
  HostTensor g(ACL_FLOAT, {0, 2, 2, 2}), dx(ACL_FLOAT, {1, 2, 4, 4});
  std::vector<float> ones(32, 1.0f);
  dx = HostTensor::floats(ACL_FLOAT, {1, 2, 4, 4}, ones);
  run(makeCall("ROIAlignGrad", {&g, &r}, {&dx}, at));
  for (float v : dx.toFloats()) EXPECT_EQ(v, 0.0f);  // no rois: a zero gradient
  HostTensor r4(ACL_FLOAT, {1, 4}), y1(ACL_FLOAT, {1, 2, 2, 2});
  EXPECT_KERNEL_ERROR(makeCall("ROIAlign", {&x, &r4}, {&y1}, at), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [K, 5]");
  HostTensor r1 = HostTensor::floats(ACL_FLOAT, {1, 5}, {0, 0, 0, 2, 2});
  EXPECT_KERNEL_ERROR(makeCall("ROIAlign", {&x, &r1}, {&y1},
                               attrs({{"spatial_scale", 1.0f},
                                      {"pooled_height", int64_t{2}},
                                      {"pooled_width", int64_t{2}},
                                      {"sample_num", int64_t{-1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "sample_num must be >= 0");
  EXPECT_KERNEL_ERROR(makeCall("ROIAlign", {&x, &r1}, {&y1},
                               attrs({{"spatial_scale", 1.0f},
                                      {"pooled_height", int64_t{2}},
                                      {"pooled_width", int64_t{2}},
                                      {"roi_end_mode", int64_t{3}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "roi_end_mode must be 0, 1 or 2");
  HostTensor rb = HostTensor::floats(ACL_FLOAT, {1, 5}, {3, 0, 0, 2, 2});  // batch index 3 of 1
  EXPECT_KERNEL_ERROR(makeCall("ROIAlign", {&x, &rb}, {&y1}, at), ACL_ERROR_RT_AICORE_EXCEPTION, "batch index 3");
}

// ---- ROIPoolingWithArgMax ----

TEST(KernelROIPoolingWithArgMax, MaxAndArgmaxPerBinAndTheGradient) {
  const int64_t n = 2, c = 2, h = 6, w = 8, ph = 2, pw = 3;
  const std::vector<float> rois{0, 0, 0, 31, 23, 1, 4, 4, 13, 9, 0, 8, 8, 8, 8, 1, -10, -10, 100, 100};
  const int64_t k = 4;
  const float scale = 0.25f;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const std::vector<float> xv = stored(dt, randomFloats(n * c * h * w, -3, 3, 31));
    const std::vector<float> gv = stored(dt, randomFloats(k * c * ph * pw, -1, 1, 32));
    HostTensor x = HostTensor::floats(dt, {n, c, h, w}, xv), r = HostTensor::floats(dt, {k, 5}, rois);
    HostTensor y(dt, {k, c, ph, pw}), arg(ACL_INT32, {k, c, ph, pw}), g = HostTensor::floats(dt, {k, c, ph, pw}, gv),
                                                                      dx(dt, {n, c, h, w});
    const AttrMap at = attrs({{"spatial_scale", scale}, {"pooled_h", ph}, {"pooled_w", pw}});
    run(makeCall("ROIPoolingWithArgMax", {&x, &r}, {&y, &arg}, at));
    run(makeCall("ROIPoolingGradWithArgMax", {&g, &r, &arg}, {&dx}, at));
    std::vector<double> want_y, want_dx(xv.size(), 0.0);
    std::vector<int64_t> want_arg;
    for (int64_t i = 0; i < k; ++i) {
      const float* roi = &rois[i * 5];
      const int64_t b = static_cast<int64_t>(roi[0]);
      const int64_t x0 = std::lround(roi[1] * scale), y0 = std::lround(roi[2] * scale);
      const int64_t rw = std::max<int64_t>(std::lround(roi[3] * scale) - x0 + 1, 1);
      const int64_t rh = std::max<int64_t>(std::lround(roi[4] * scale) - y0 + 1, 1);
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t p = 0; p < ph; ++p)
          for (int64_t q = 0; q < pw; ++q) {
            const auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
            const int64_t hs = clip(y0 + p * rh / ph, h), he = clip(y0 + (p * rh + rh + ph - 1) / ph, h);
            const int64_t ws = clip(x0 + q * rw / pw, w), we = clip(x0 + (q * rw + rw + pw - 1) / pw, w);
            double best = 0;
            int64_t at_ = -1;
            for (int64_t yy = hs; yy < he; ++yy)
              for (int64_t xx = ws; xx < we; ++xx) {
                const double v = xv[(b * c + ch) * h * w + yy * w + xx];
                if (at_ < 0 || v > best) best = v, at_ = yy * w + xx;
              }
            want_y.push_back(best);
            want_arg.push_back(at_);
            if (at_ >= 0) want_dx[(b * c + ch) * h * w + at_] += gv[((i * c + ch) * ph + p) * pw + q];
          }
    }
    expectNearReference(y.toFloats(), want_y, tol(dt), "y");
    EXPECT_EQ(arg.toInts(), want_arg);
    expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
  }
  // A bin outside the map is empty: y 0, argmax -1.
  HostTensor x(ACL_FLOAT, {1, 1, 4, 4}), r = HostTensor::floats(ACL_FLOAT, {1, 5}, {0, 40, 40, 60, 60}),
                                         y(ACL_FLOAT, {1, 1, 1, 1}), arg(ACL_INT64, {1, 1, 1, 1});
  run(makeCall("ROIPoolingWithArgMax", {&x, &r}, {&y, &arg},
               attrs({{"spatial_scale", 1.0f}, {"pooled_h", int64_t{1}}, {"pooled_w", int64_t{1}}})));
  EXPECT_EQ(y.toFloats()[0], 0.0f);
  EXPECT_EQ(arg.toInts()[0], -1);
  EXPECT_KERNEL_ERROR(makeCall("ROIPoolingWithArgMax", {&x, &r}, {&y, &arg},
                               attrs({{"spatial_scale", 1.0f}, {"pooled_h", int64_t{0}}, {"pooled_w", int64_t{1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "must be positive");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
