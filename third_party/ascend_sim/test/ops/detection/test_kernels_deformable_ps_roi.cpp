// DeformableOffsets / DeformableOffsetsGrad and the position-sensitive
// kernels PSROIAlign(Grad) / PSROIPoolingV2 / PSROIPoolingGradV2D (OPS.md
// "Detection") against references computed here in double: tent-function
// bilinear weights and their derivatives, explicit pixel bins.
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

std::function<double(double)> tol(aclDataType dt) {
  const double rel = dt == ACL_FLOAT16 ? 3e-3 : 3e-5;
  const double abs = dt == ACL_FLOAT16 ? 3e-3 : 3e-5;
  return [rel, abs](double ref) { return rel * std::fabs(ref) + abs; };
}

double tent(double d) { return std::max(0.0, 1 - std::fabs(d)); }
double tentSlope(double d) { return std::fabs(d) < 1 ? (d < 0 ? 1.0 : -1.0) : 0.0; }  // d tent(y - p) / dy

struct Deform {
  int64_t n = 2, c = 4, h = 6, w = 7, kh = 3, kw = 2, sh = 2, sw = 1, ph = 1, pw = 0, dh = 1, dw = 2, g = 2;
  int64_t ho() const { return (h + 2 * ph - (dh * (kh - 1) + 1)) / sh + 1; }
  int64_t wo() const { return (w + 2 * pw - (dw * (kw - 1) + 1)) / sw + 1; }
  AttrMap attrs(bool modulated) const {
    return test::attrs({{"ksize", std::vector<int64_t>{kh, kw}},
                        {"strides", std::vector<int64_t>{sh, sw}},
                        {"pads", std::vector<int64_t>{ph, pw}},
                        {"dilations", std::vector<int64_t>{dh, dw}},
                        {"deformable_groups", g},
                        {"modulated", modulated}});
  }
};

TEST(KernelDeformableOffsets, ForwardAndGradientMatchTheTentReference) {
  const Deform d;
  const int64_t ho = d.ho(), wo = d.wo(), kk = d.kh * d.kw, cpg = d.c / d.g;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (bool modulated : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + (modulated ? " modulated" : ""));
      const std::vector<float> xv = stored(dt, randomFloats(d.n * d.c * d.h * d.w, -2, 2, 41));
      const std::vector<float> ov = stored(dt, randomFloats(d.n * 2 * d.g * kk * ho * wo, -2.5, 2.5, 42));
      const std::vector<float> mv = stored(dt, randomFloats(d.n * d.g * kk * ho * wo, 0, 1, 43));
      const Shape yshape{d.n, d.c, ho * d.kh, wo * d.kw};
      const std::vector<float> gv = stored(dt, randomFloats(numelOf(yshape), -1, 1, 44));
      HostTensor x = HostTensor::floats(dt, {d.n, d.c, d.h, d.w}, xv),
                 off = HostTensor::floats(dt, {d.n, 2 * d.g * kk, ho, wo}, ov),
                 mask = HostTensor::floats(dt, {d.n, d.g * kk, ho, wo}, mv), y(dt, yshape),
                 gy = HostTensor::floats(dt, yshape, gv), dx(dt, {d.n, d.c, d.h, d.w}),
                 doff(dt, {d.n, 2 * d.g * kk, ho, wo}), dmask(dt, {d.n, d.g * kk, ho, wo});
      if (modulated) {
        run(makeCall("DeformableOffsets", {&x, &off, &mask}, {&y}, d.attrs(true)));
        run(makeCall("DeformableOffsetsGrad", {&gy, &x, &off, &mask}, {&dx, &doff, &dmask}, d.attrs(true)));
      } else {
        run(makeCall("DeformableOffsets", {&x, &off}, {&y}, d.attrs(false)));
        run(makeCall("DeformableOffsetsGrad", {&gy, &x, &off}, {&dx, &doff}, d.attrs(false)));
      }
      std::vector<double> want_y(gv.size(), 0.0), want_dx(xv.size(), 0.0), want_doff(ov.size(), 0.0),
          want_dmask(mv.size(), 0.0);
      for (int64_t n = 0; n < d.n; ++n)
        for (int64_t c = 0; c < d.c; ++c)
          for (int64_t k = 0; k < kk; ++k)
            for (int64_t oh = 0; oh < ho; ++oh)
              for (int64_t ow = 0; ow < wo; ++ow) {
                const int64_t grp = c / cpg, i = k / d.kw, j = k % d.kw;
                const int64_t o_at = (((n * d.g + grp) * 2 * kk + 2 * k) * ho + oh) * wo + ow;
                const int64_t m_at = (((n * d.g + grp) * kk + k) * ho + oh) * wo + ow;
                const double yy = oh * d.sh - d.ph + i * d.dh + double(ov[o_at]);
                const double xx = ow * d.sw - d.pw + j * d.dw + double(ov[o_at + ho * wo]);
                const double m = modulated ? mv[m_at] : 1.0;
                const int64_t y_at = ((n * d.c + c) * ho * d.kh + oh * d.kh + i) * wo * d.kw + ow * d.kw + j;
                double read = 0, slope_y = 0, slope_x = 0;
                for (int64_t p = 0; p < d.h; ++p)
                  for (int64_t q = 0; q < d.w; ++q) {
                    const double v = xv[((n * d.c + c) * d.h + p) * d.w + q];
                    read += tent(yy - p) * tent(xx - q) * v;
                    slope_y += tentSlope(yy - p) * tent(xx - q) * v;
                    slope_x += tent(yy - p) * tentSlope(xx - q) * v;
                    want_dx[((n * d.c + c) * d.h + p) * d.w + q] += m * gv[y_at] * tent(yy - p) * tent(xx - q);
                  }
                want_y[y_at] = m * read;
                want_doff[o_at] += m * gv[y_at] * slope_y;
                want_doff[o_at + ho * wo] += m * gv[y_at] * slope_x;
                want_dmask[m_at] += gv[y_at] * read;
              }
      expectNearReference(y.toFloats(), want_y, tol(dt), "y");
      expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
      expectNearReference(doff.toFloats(), want_doff, tol(dt), "doffset");
      if (modulated) expectNearReference(dmask.toFloats(), want_dmask, tol(dt), "dmask");
    }
  }
}

TEST(KernelDeformableOffsets, BadShapesAndAttributes) {
  const Deform d;
  const int64_t ho = d.ho(), wo = d.wo(), kk = d.kh * d.kw;
  HostTensor x(ACL_FLOAT, {d.n, d.c, d.h, d.w}), off(ACL_FLOAT, {d.n, 2 * d.g * kk, ho, wo}),
      y(ACL_FLOAT, {d.n, d.c, ho * d.kh, wo * d.kw}), bad_off(ACL_FLOAT, {d.n, 2 * d.g * kk, ho + 1, wo}),
      mask(ACL_FLOAT, {d.n, d.g * kk, ho, wo});
  EXPECT_KERNEL_ERROR(makeCall("DeformableOffsets", {&x, &bad_off}, {&y}, d.attrs(false)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output size");
  EXPECT_KERNEL_ERROR(makeCall("DeformableOffsets", {&x, &off}, {&y}, d.attrs(true)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "needs the mask input");
  EXPECT_KERNEL_ERROR(makeCall("DeformableOffsets", {&x, &off, &mask}, {&y}, d.attrs(false)),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "needs attr modulated");
  Deform three = d;
  three.g = 3;
  EXPECT_KERNEL_ERROR(makeCall("DeformableOffsets", {&x, &off}, {&y}, three.attrs(false)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "must divide");
  // An empty batch runs and writes nothing.
  HostTensor x0(ACL_FLOAT, {0, d.c, d.h, d.w}), off0(ACL_FLOAT, {0, 2 * d.g * kk, ho, wo}),
      y0(ACL_FLOAT, {0, d.c, ho * d.kh, wo * d.kw});
  run(makeCall("DeformableOffsets", {&x0, &off0}, {&y0}, d.attrs(false)));
}

// ---- position-sensitive pooling ----

TEST(KernelPSROI, AlignAndPoolingMatchTheReferenceBothWays) {
  const int64_t n = 2, c_out = 2, ph = 2, pw = 3, c = c_out * ph * pw, h = 8, w = 9, k = 4;
  const float scale = 0.5f;
  const std::vector<float> rois{0, 1, 2, 13, 11, 1, 0, 0, 17, 15, 1, 6, 6, 6, 6, 0, -4, 3, 9, 30};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const std::vector<float> xv = stored(dt, randomFloats(n * c * h * w, -2, 2, 51));
    const std::vector<float> gv = stored(dt, randomFloats(k * c_out * ph * pw, -1, 1, 52));
    for (const char* op : {"PSROIAlign", "PSROIPoolingV2"}) {
      SCOPED_TRACE(op);
      const bool align = std::string(op) == "PSROIAlign";
      HostTensor x = HostTensor::floats(dt, {n, c, h, w}, xv), r = HostTensor::floats(dt, {k, 5}, rois),
                 y(dt, {k, c_out, ph, pw}), map(ACL_INT32, {k, c_out, ph, pw}),
                 g = HostTensor::floats(dt, {k, c_out, ph, pw}, gv), dx(dt, {n, c, h, w});
      AttrMap at = attrs({{"spatial_scale", scale}, {"pooled_height", ph}, {"pooled_width", pw}});
      if (align) at.set("sample_num", int64_t{2});
      run(makeCall(op, {&x, &r}, {&y, &map}, at));
      run(makeCall(align ? "PSROIAlignGrad" : "PSROIPoolingGradV2D", {&g, &r, &map}, {&dx}, at));
      std::vector<double> want_y, want_dx(xv.size(), 0.0);
      std::vector<int64_t> want_map;
      for (int64_t i = 0; i < k; ++i) {
        const float* roi = &rois[i * 5];
        const int64_t b = static_cast<int64_t>(roi[0]);
        for (int64_t co = 0; co < c_out; ++co)
          for (int64_t p = 0; p < ph; ++p)
            for (int64_t q = 0; q < pw; ++q) {
              const int64_t ci = (co * ph + p) * pw + q, o = ((i * c_out + co) * ph + p) * pw + q;
              const float* plane = &xv[(b * c + ci) * h * w];
              std::vector<double> weight(static_cast<size_t>(h * w), 0.0);  // y = sum weight * x
              if (align) {
                const double sw = roi[1] * scale - 0.5, sh = roi[2] * scale - 0.5;
                const double bw = (roi[3] * scale - 0.5 - sw) / pw, bh = (roi[4] * scale - 0.5 - sh) / ph;
                for (int iy = 0; iy < 2; ++iy)
                  for (int ix = 0; ix < 2; ++ix) {
                    double yy = sh + (p + (iy + 0.5) / 2) * bh, xx = sw + (q + (ix + 0.5) / 2) * bw;
                    if (yy < -1 || yy > h || xx < -1 || xx > w) continue;
                    yy = std::min(std::max(yy, 0.0), double(h - 1));
                    xx = std::min(std::max(xx, 0.0), double(w - 1));
                    for (int64_t a = 0; a < h; ++a)
                      for (int64_t e = 0; e < w; ++e) weight[a * w + e] += tent(yy - a) * tent(xx - e) / 4;
                  }
              } else {
                const int64_t x0 = std::lround(roi[1] * scale), y0 = std::lround(roi[2] * scale);
                const int64_t rw = std::max<int64_t>(std::lround(roi[3] * scale) - x0, 1);
                const int64_t rh = std::max<int64_t>(std::lround(roi[4] * scale) - y0, 1);
                const auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
                const int64_t hs = clip(y0 + p * rh / ph, h), he = clip(y0 + ((p + 1) * rh + ph - 1) / ph, h);
                const int64_t ws = clip(x0 + q * rw / pw, w), we = clip(x0 + ((q + 1) * rw + pw - 1) / pw, w);
                for (int64_t a = hs; a < he; ++a)
                  for (int64_t e = ws; e < we; ++e) weight[a * w + e] = 1.0 / double((he - hs) * (we - ws));
              }
              double v = 0;
              for (int64_t s = 0; s < h * w; ++s) {
                v += weight[s] * plane[s];
                want_dx[(b * c + ci) * h * w + s] += weight[s] * gv[o];
              }
              want_y.push_back(v);
              want_map.push_back(ci);
            }
      }
      expectNearReference(y.toFloats(), want_y, tol(dt), "y");
      EXPECT_EQ(map.toInts(), want_map);
      expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
    }
  }
  HostTensor x(ACL_FLOAT, {1, 5, 4, 4}), r = HostTensor::floats(ACL_FLOAT, {1, 5}, {0, 0, 0, 3, 3}),
                                         y(ACL_FLOAT, {1, 1, 2, 2}), map(ACL_INT32, {1, 1, 2, 2});
  EXPECT_KERNEL_ERROR(
      makeCall("PSROIPoolingV2", {&x, &r}, {&y, &map},
               attrs({{"spatial_scale", 1.0f}, {"pooled_height", int64_t{2}}, {"pooled_width", int64_t{2}}})),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "multiple of pooled_height * pooled_width");
}

// CANN's form (Note [R-FCN position-sensitive pooling]): rois [B, 5, R], corners rounded before
// scaling, inclusive end, bins floor/ceil from the scaled start; checked by explicit pixel bins.
TEST(KernelPSROI, RfcnFormMatchesTheCaffeBinsBothWays) {
  const int64_t b_n = 2, r_n = 3, dim = 2, g = 3, c = dim * g * g, h = 7, w = 8;
  const float scale = 0.5f;
  // rois [2, 5, 3]: batch b's column r is (batch index, x1, y1, x2, y2); one roi reaches past the map,
  // one is a single point (0.1-pixel bins, some empty).
  std::vector<float> rois(b_n * 5 * r_n);
  const float cols[6][5] = {{0, 1, 2, 9, 8},   {0, 3, 0, 15, 20},        {0, 6, 6, 6, 6},
                            {1, 0, 0, 13, 11}, {1, 2.4f, 3.6f, 7.5f, 9}, {1, 10, 1, 12, 3}};
  for (int64_t n = 0; n < b_n * r_n; ++n)
    for (int64_t f = 0; f < 5; ++f) rois[(n / r_n * 5 + f) * r_n + n % r_n] = cols[n][f];
  const std::vector<float> xv = randomFloats(b_n * c * h * w, -2, 2, 61);
  const std::vector<float> gv = randomFloats(b_n * r_n * dim * g * g, -1, 1, 62);
  HostTensor x = HostTensor::floats(ACL_FLOAT, {b_n, c, h, w}, xv),
             r = HostTensor::floats(ACL_FLOAT, {b_n, 5, r_n}, rois), y(ACL_FLOAT, {b_n * r_n, dim, g, g}),
             gy = HostTensor::floats(ACL_FLOAT, {b_n * r_n, dim, g, g}, gv), dx(ACL_FLOAT, {b_n, c, h, w});
  AttrMap at = attrs({{"spatial_scale", scale}, {"output_dim", dim}, {"group_size", g}});
  run(makeCall("PSROIPoolingV2", {&x, &r}, {&y}, at));
  at.set("input_size", std::vector<int64_t>{h, w});
  run(makeCall("PSROIPoolingGradV2D", {&gy, &r}, {&dx}, at));
  std::vector<double> want_y, want_dx(xv.size(), 0.0);
  for (int64_t n = 0; n < b_n * r_n; ++n) {
    const float* roi = cols[n];
    const int64_t b = static_cast<int64_t>(roi[0]);
    // Bin edges in fp32, as the kernel places them.
    const float sw = std::round(roi[1]) * scale, sh = std::round(roi[2]) * scale;
    const float bw = std::max((std::round(roi[3]) + 1) * scale - sw, 0.1f) / g;
    const float bh = std::max((std::round(roi[4]) + 1) * scale - sh, 0.1f) / g;
    const auto clip = [](float v, int64_t hi) { return std::min(std::max<int64_t>(int64_t(v), 0), hi); };
    for (int64_t co = 0; co < dim; ++co)
      for (int64_t i = 0; i < g; ++i)
        for (int64_t j = 0; j < g; ++j) {
          const int64_t hs = clip(std::floor(float(i) * bh + sh), h), he = clip(std::ceil(float(i + 1) * bh + sh), h);
          const int64_t ws = clip(std::floor(float(j) * bw + sw), w), we = clip(std::ceil(float(j + 1) * bw + sw), w);
          const int64_t ci = (co * g + i) * g + j, o = ((n * dim + co) * g + i) * g + j;
          double v = 0;
          const double area = double((he - hs) * (we - ws));
          for (int64_t a = hs; a < he; ++a)
            for (int64_t e = ws; e < we; ++e) {
              v += xv[((b * c + ci) * h + a) * w + e];
              want_dx[((b * c + ci) * h + a) * w + e] += gv[o] / area;
            }
          want_y.push_back(he > hs && we > ws ? v / area : 0.0);
        }
  }
  const auto tol = [](double v) { return 1e-5 * (1 + std::fabs(v)); };
  expectNearReference(y.toFloats(), want_y, tol, "y");
  expectNearReference(dx.toFloats(), want_dx, tol, "dx");
  HostTensor flat = HostTensor::floats(ACL_FLOAT, {6, 5}, std::vector<float>(30, 0));
  EXPECT_KERNEL_ERROR(makeCall("PSROIPoolingV2", {&x, &flat}, {&y},
                               attrs({{"spatial_scale", scale}, {"output_dim", dim}, {"group_size", g}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [B, 5, R]");
  EXPECT_KERNEL_ERROR(makeCall("PSROIPoolingGradV2D", {&gy, &r}, {&dx},
                               attrs({{"spatial_scale", scale},
                                      {"output_dim", dim},
                                      {"group_size", g},
                                      {"input_size", std::vector<int64_t>{h, w + 1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "input_size");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
