// GridSampler2D / GridSampler3D and their gradients (Note [Grid sampler
// numerics]) against
// a double reference written from the definitions (reflection by folding):
// every interpolation x padding x align_corners combination, fp32 and fp16;
// dx checked as the transpose of the reference's (linear) sampling, dgrid
// by central differences; empty grids, thread-count independence, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

struct Mode {
  std::string interp, padding;
  bool align;
};

double unnorm(double v, int64_t size, bool align) {
  return align ? (v + 1) / 2 * (size - 1) : ((v + 1) * size - 1) / 2;
}

double fold(double c, double lo, double hi) {
  if (lo == hi) return 0;
  const double span = hi - lo, d = std::fabs(c - lo), flips = std::floor(d / span), extra = d - flips * span;
  return std::fmod(flips, 2) == 0 ? lo + extra : hi - extra;
}

double padRef(double c, int64_t size, const Mode& m) {
  if (m.padding == "border") return std::min(std::max(c, 0.0), static_cast<double>(size - 1));
  if (m.padding == "reflection") {
    c = m.align ? fold(c, 0, static_cast<double>(size - 1)) : fold(c, -0.5, size - 0.5);
    return std::min(std::max(c, 0.0), static_cast<double>(size - 1));
  }
  return c;
}

// Weighted taps (plane offset, weight) of grid point (gx, gy) in an H x W plane.
std::vector<std::pair<int64_t, double>> taps(double gx, double gy, int64_t h, int64_t w, const Mode& m) {
  std::vector<std::pair<int64_t, double>> t;
  auto add = [&](int64_t x, int64_t y, double wt) {
    if (x >= 0 && x < w && y >= 0 && y < h) t.push_back({y * w + x, wt});
  };
  if (m.interp == "bicubic") {
    const double ix = unnorm(gx, w, m.align), iy = unnorm(gy, h, m.align);
    const double fx = std::floor(ix), fy = std::floor(iy);
    auto keys = [](double d) {
      const double a = -0.75;
      d = std::fabs(d);
      return d <= 1 ? ((a + 2) * d - (a + 3)) * d * d + 1 : d < 2 ? ((a * d - 5 * a) * d + 8 * a) * d - 4 * a : 0.0;
    };
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const double px = padRef(fx - 1 + i, w, m), py = padRef(fy - 1 + j, h, m);
        add(static_cast<int64_t>(px), static_cast<int64_t>(py), keys(ix - (fx - 1 + i)) * keys(iy - (fy - 1 + j)));
      }
    return t;
  }
  const double ix = padRef(unnorm(gx, w, m.align), w, m), iy = padRef(unnorm(gy, h, m.align), h, m);
  if (m.interp == "nearest") {
    add(static_cast<int64_t>(std::nearbyint(ix)), static_cast<int64_t>(std::nearbyint(iy)), 1.0);
    return t;
  }
  const double x0 = std::floor(ix), y0 = std::floor(iy), dx = ix - x0, dy = iy - y0;
  add(static_cast<int64_t>(x0), static_cast<int64_t>(y0), (1 - dx) * (1 - dy));
  add(static_cast<int64_t>(x0) + 1, static_cast<int64_t>(y0), dx * (1 - dy));
  add(static_cast<int64_t>(x0), static_cast<int64_t>(y0) + 1, (1 - dx) * dy);
  add(static_cast<int64_t>(x0) + 1, static_cast<int64_t>(y0) + 1, dx * dy);
  return t;
}

AttrMap modeAttrs(const Mode& m) {
  return attrs({{"interpolation_mode", m.interp}, {"padding_mode", m.padding}, {"align_corners", m.align}});
}

std::vector<Mode> modes() {
  std::vector<Mode> v;
  for (const char* i : {"bilinear", "nearest", "bicubic"})
    for (const char* p : {"zeros", "border", "reflection"})
      for (bool a : {false, true}) v.push_back({i, p, a});
  return v;
}

}  // namespace

TEST(KernelGridSampler, ForwardAndGradients) {
  const int64_t N = 2, C = 3, H = 5, W = 7, Ho = 3, Wo = 4;
  for (const Mode& m : modes()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(m.interp + " " + m.padding + (m.align ? " align " : " ") + dtypeName(dt));
      const HostTensor x = HostTensor::floats(dt, {N, C, H, W}, randomFloats(N * C * H * W, -2, 2, 1));
      const HostTensor grid = HostTensor::floats(dt, {N, Ho, Wo, 2}, randomFloats(N * Ho * Wo * 2, -1.3f, 1.3f, 2));
      HostTensor y(dt, {N, C, Ho, Wo});
      run(makeCall("GridSampler2D", {&x, &grid}, {&y}, modeAttrs(m)));
      const std::vector<float> xs = x.toFloats(), gs = grid.toFloats(), ys = y.toFloats();
      const double tol = dt == ACL_FLOAT ? 1e-5 : 3e-3;
      auto sample = [&](const std::vector<float>& g, int64_t n, int64_t c, int64_t q) {
        double v = 0;
        for (auto [off, wt] : taps(g[(n * Ho * Wo + q) * 2], g[(n * Ho * Wo + q) * 2 + 1], H, W, m))
          v += wt * xs[static_cast<size_t>((n * C + c) * H * W + off)];
        return v;
      };
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t q = 0; q < Ho * Wo; ++q) {
            const double want = sample(gs, n, c, q);
            EXPECT_NEAR(ys[static_cast<size_t>((n * C + c) * Ho * Wo + q)], want, tol * (1 + std::fabs(want)));
          }
      // Gradients of L = Σ dy·y.
      const HostTensor dy = HostTensor::floats(dt, {N, C, Ho, Wo}, randomFloats(N * C * Ho * Wo, -1, 1, 3));
      HostTensor dx(dt, {N, C, H, W}), dgrid(dt, {N, Ho, Wo, 2});
      run(makeCall("GridSampler2DGrad", {&dy, &x, &grid}, {&dx, &dgrid}, modeAttrs(m)));
      const std::vector<float> gy = dy.toFloats(), gx = dx.toFloats(), gg = dgrid.toFloats();
      std::vector<double> want_dx(xs.size(), 0.0);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t q = 0; q < Ho * Wo; ++q)
          for (auto [off, wt] : taps(gs[(n * Ho * Wo + q) * 2], gs[(n * Ho * Wo + q) * 2 + 1], H, W, m))
            for (int64_t c = 0; c < C; ++c)
              want_dx[static_cast<size_t>((n * C + c) * H * W + off)] += wt * gy[static_cast<size_t>((n * C + c) * Ho * Wo + q)];
      for (size_t i = 0; i < want_dx.size(); ++i) EXPECT_NEAR(gx[i], want_dx[i], 2 * tol * (1 + std::fabs(want_dx[i]))) << i;
      if (dt == ACL_FLOAT16) continue;  // the grid gradient by differences needs fp32 inputs
      // Bilinear sampling has kinks at integer coordinates: accept either
      // one-sided difference (exact on each linear piece).
      for (int64_t e = 0; e < N * Ho * Wo * 2; ++e) {
        const int64_t n = e / (Ho * Wo * 2), q = e / 2 % (Ho * Wo);
        std::vector<float> hi = gs, lo = gs;
        hi[static_cast<size_t>(e)] += 1e-3f, lo[static_cast<size_t>(e)] -= 1e-3f;
        double left = 0, right = 0;
        for (int64_t c = 0; c < C; ++c) {
          const double g0 = gy[static_cast<size_t>((n * C + c) * Ho * Wo + q)], mid = sample(gs, n, c, q);
          right += g0 * (sample(hi, n, c, q) - mid) / (static_cast<double>(hi[e]) - gs[e]);
          left += g0 * (mid - sample(lo, n, c, q)) / (static_cast<double>(gs[e]) - lo[e]);
        }
        if (m.interp == "nearest") left = right = 0;
        const double got = gg[static_cast<size_t>(e)];
        const bool ok = std::fabs(got - left) <= 2e-2 * (1 + std::fabs(left)) ||
                        std::fabs(got - right) <= 2e-2 * (1 + std::fabs(right));
        EXPECT_TRUE(ok) << "dgrid " << e << ": got " << got << ", one-sided differences " << left << " / " << right;
      }
    }
  }
}

namespace {

// Weighted taps of a 3-D grid point (x, y, z) in a D x H x W volume (trilinear / nearest).
std::vector<std::pair<int64_t, double>> taps3d(const double* gv, int64_t d, int64_t h, int64_t w, const Mode& m) {
  const int64_t size[3] = {w, h, d};
  double ic[3];
  for (int k = 0; k < 3; ++k) ic[k] = padRef(unnorm(gv[k], size[k], m.align), size[k], m);
  std::vector<std::pair<int64_t, double>> t;
  auto add = [&](const int64_t* c, double wt) {
    for (int k = 0; k < 3; ++k)
      if (c[k] < 0 || c[k] >= size[k]) return;
    t.push_back({(c[2] * h + c[1]) * w + c[0], wt});
  };
  if (m.interp == "nearest") {
    // PyTorch's 3-D kernel rounds with std::round (half away from zero); its 2-D one uses nearbyint
    const int64_t c[3] = {static_cast<int64_t>(std::round(ic[0])), static_cast<int64_t>(std::round(ic[1])),
                          static_cast<int64_t>(std::round(ic[2]))};
    add(c, 1.0);
    return t;
  }
  for (int corner = 0; corner < 8; ++corner) {
    int64_t c[3];
    double wt = 1;
    for (int k = 0; k < 3; ++k) {
      const double lo = std::floor(ic[k]), frac = ic[k] - lo;
      const int bit = (corner >> k) & 1;
      c[k] = static_cast<int64_t>(lo) + bit;
      wt *= bit ? frac : 1 - frac;
    }
    add(c, wt);
  }
  return t;
}

}  // namespace

TEST(KernelGridSampler, Volumetric3d) {
  const int64_t N = 2, C = 2, D = 4, H = 5, W = 3, P = 7;  // grid [N, 1, 1, P, 3]
  for (const Mode& m : modes()) {
    if (m.interp == "bicubic") continue;
    SCOPED_TRACE(m.interp + " " + m.padding + (m.align ? " align" : ""));
    const HostTensor x = HostTensor::floats(ACL_FLOAT, {N, C, D, H, W}, randomFloats(N * C * D * H * W, -2, 2, 8));
    const HostTensor grid = HostTensor::floats(ACL_FLOAT, {N, 1, 1, P, 3}, randomFloats(N * P * 3, -1.3f, 1.3f, 9));
    HostTensor y(ACL_FLOAT, {N, C, 1, 1, P});
    run(makeCall("GridSampler3D", {&x, &grid}, {&y}, modeAttrs(m)));
    const HostTensor dy = HostTensor::floats(ACL_FLOAT, {N, C, 1, 1, P}, randomFloats(N * C * P, -1, 1, 10));
    HostTensor dx(ACL_FLOAT, {N, C, D, H, W}), dgrid(ACL_FLOAT, {N, 1, 1, P, 3});
    run(makeCall("GridSampler3DGrad", {&dy, &x, &grid}, {&dx, &dgrid}, modeAttrs(m)));
    const std::vector<float> xs = x.toFloats(), gs = grid.toFloats(), ys = y.toFloats(), gy = dy.toFloats();
    const std::vector<float> gx = dx.toFloats();
    std::vector<double> want_dx(xs.size(), 0.0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t q = 0; q < P; ++q) {
        const double gv[3] = {gs[(n * P + q) * 3], gs[(n * P + q) * 3 + 1], gs[(n * P + q) * 3 + 2]};
        const auto t = taps3d(gv, D, H, W, m);
        for (int64_t c = 0; c < C; ++c) {
          double want = 0;
          for (auto [off, wt] : t) {
            want += wt * xs[static_cast<size_t>((n * C + c) * D * H * W + off)];
            want_dx[static_cast<size_t>((n * C + c) * D * H * W + off)] += wt * gy[static_cast<size_t>((n * C + c) * P + q)];
          }
          EXPECT_NEAR(ys[static_cast<size_t>((n * C + c) * P + q)], want, 1e-5 * (1 + std::fabs(want)));
        }
      }
    for (size_t i = 0; i < want_dx.size(); ++i) EXPECT_NEAR(gx[i], want_dx[i], 1e-5 * (1 + std::fabs(want_dx[i]))) << i;
  }
  const HostTensor x(ACL_FLOAT, {1, 1, 2, 2, 2}), grid(ACL_FLOAT, {1, 1, 1, 1, 3});
  HostTensor y(ACL_FLOAT, {1, 1, 1, 1, 1});
  EXPECT_KERNEL_ERROR(makeCall("GridSampler3D", {&x, &grid}, {&y}, modeAttrs({"bicubic", "zeros", false})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "bicubic is 2-D only");
}

// Exact .5 source coordinates: 3-D nearest rounds half away from zero, 2-D
// nearest half to even (both as PyTorch's CPU kernels).
TEST(KernelGridSampler, NearestHalfCoordinates) {
  std::vector<float> xv(27);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i);
  const AttrMap a = modeAttrs({"nearest", "zeros", true});
  // align_corners over 3 voxels: coordinate = g + 1, so g = -0.5 -> 0.5, g = 0.5 -> 1.5
  const HostTensor x3 = HostTensor::floats(ACL_FLOAT, {1, 1, 3, 3, 3}, xv);
  const HostTensor g3 = HostTensor::floats(ACL_FLOAT, {1, 1, 1, 1, 3}, {-0.5f, 0.5f, -1.0f});  // (x, y, z)
  HostTensor y3(ACL_FLOAT, {1, 1, 1, 1, 1});
  run(makeCall("GridSampler3D", {&x3, &g3}, {&y3}, a));
  EXPECT_EQ(y3.toFloats()[0], (0 * 3 + 2) * 3 + 1);  // z 0, y round(1.5) = 2, x round(0.5) = 1
  const HostTensor x2 = HostTensor::floats(ACL_FLOAT, {1, 1, 3, 3}, std::vector<float>(xv.begin(), xv.begin() + 9));
  const HostTensor g2 = HostTensor::floats(ACL_FLOAT, {1, 1, 1, 2}, {-0.5f, 0.5f});
  HostTensor y2(ACL_FLOAT, {1, 1, 1, 1});
  run(makeCall("GridSampler2D", {&x2, &g2}, {&y2}, a));
  EXPECT_EQ(y2.toFloats()[0], 2 * 3 + 0);  // y nearbyint(1.5) = 2, x nearbyint(0.5) = 0
}

TEST(KernelGridSampler, EmptyThreadsAndErrors) {
  const HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 3, 5, 7}, randomFloats(210, -1, 1, 4));
  const HostTensor empty(ACL_FLOAT, {2, 0, 4, 2});
  HostTensor y0(ACL_FLOAT, {2, 3, 0, 4});
  run(makeCall("GridSampler2D", {&x, &empty}, {&y0}, modeAttrs({"bilinear", "zeros", false})));
  // A large backward: identical bits on one and all host threads.
  const HostTensor big = HostTensor::floats(ACL_FLOAT16, {4, 8, 20, 20}, randomFloats(4 * 8 * 400, -1, 1, 5));
  const HostTensor grid = HostTensor::floats(ACL_FLOAT16, {4, 30, 30, 2}, randomFloats(4 * 900 * 2, -1, 1, 6));
  const HostTensor dy = HostTensor::floats(ACL_FLOAT16, {4, 8, 30, 30}, randomFloats(4 * 8 * 900, -1, 1, 7));
  std::vector<std::vector<float>> r;
  for (int threads : {1, 0}) {
    setHostThreadLimitForTesting(threads);
    HostTensor dx(ACL_FLOAT16, {4, 8, 20, 20}), dg(ACL_FLOAT16, {4, 30, 30, 2});
    run(makeCall("GridSampler2DGrad", {&dy, &big, &grid}, {&dx, &dg}, modeAttrs({"bicubic", "border", false})));
    r.push_back(dx.toFloats());
    r.push_back(dg.toFloats());
  }
  setHostThreadLimitForTesting(0);
  EXPECT_EQ(r[0], r[2]);
  EXPECT_EQ(r[1], r[3]);
  const HostTensor g3(ACL_FLOAT, {2, 4, 6, 3});
  HostTensor y(ACL_FLOAT, {2, 3, 4, 6});
  EXPECT_KERNEL_ERROR(makeCall("GridSampler2D", {&x, &g3}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "input grid");
  const HostTensor g(ACL_FLOAT, {2, 4, 6, 2});
  EXPECT_KERNEL_ERROR(makeCall("GridSampler2D", {&x, &g}, {&y}, attrs({{"interpolation_mode", std::string("area")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "interpolation_mode");
  EXPECT_KERNEL_ERROR(makeCall("GridSampler2D", {&x, &g}, {&y}, attrs({{"padding_mode", std::string("wrap")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "padding_mode");
  HostTensor wrong(ACL_FLOAT, {2, 3, 6, 4});
  EXPECT_KERNEL_ERROR(makeCall("GridSampler2D", {&x, &g}, {&wrong}), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
  const HostTensor gh(ACL_FLOAT16, {2, 4, 6, 2});
  EXPECT_KERNEL_ERROR(makeCall("GridSampler2D", {&x, &gh}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "dtype");
}
