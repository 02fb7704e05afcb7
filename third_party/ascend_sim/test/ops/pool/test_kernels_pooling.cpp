// MaxPoolWithArgmaxV1 / MaxPoolGradWithArgmaxV1 / AvgPoolV2 / AvgPoolV2Grad /
// AdaptiveAvgPool2d / AdaptiveAvgPool2dGrad (Note [Pooling numerics] in
// ops/pool/pooling.cpp): against straightforward references of PyTorch's
// semantics (ceil_mode, dilation, count_include_pad, divisor_override,
// adaptive up/down), NaN and argmax rules, fp16, NC1HWC0 operands,
// determinism over host thread counts, validation, cost.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "common/dtype.h"
#include "format_test_util.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

FormatTensor randomTensor(aclDataType dt, const Shape& s, uint32_t seed, aclFormat f = ACL_FORMAT_NCHW) {
  FormatTensor t(f, dt, s);
  t.set(randomFloats(static_cast<size_t>(numelOf(s)), -2, 2, seed));
  return t;
}

struct PoolCfg {
  int64_t n, c, h, w, kh, kw, sh, sw;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  int64_t dh = 1, dw = 1;
  bool ceil = false;
  bool include_pad = true;
  int64_t divisor = 0;
  static int64_t out(int64_t in, int64_t k, int64_t s, int64_t lo, int64_t hi, int64_t d, bool ceil) {
    const int64_t span = in + lo + hi - d * (k - 1) - 1;
    int64_t o = (span + (ceil ? s - 1 : 0)) / s + 1;
    if (ceil && (o - 1) * s >= in + lo) --o;
    return o;
  }
  int64_t ho() const { return out(h, kh, sh, pt, pb, dh, ceil); }
  int64_t wo() const { return out(w, kw, sw, pl, pr, dw, ceil); }
  Shape xs() const { return {n, c, h, w}; }
  Shape ys() const { return {n, c, ho(), wo()}; }
  AttrMap attrs(bool with_dil = true) const {
    AttrMap m;
    m.set("ksize", std::vector<int64_t>{kh, kw});
    m.set("strides", std::vector<int64_t>{sh, sw});
    m.set("pads", std::vector<int64_t>{pt, pb, pl, pr});
    if (with_dil) m.set("dilations", std::vector<int64_t>{dh, dw});
    m.set("ceil_mode", ceil);
    return m;
  }
  AttrMap avgAttrs() const {
    AttrMap m = attrs(false);
    m.set("count_include_pad", include_pad);
    m.set("divisor_override", divisor);
    return m;
  }
  std::string name() const {
    char b[160];
    std::snprintf(b, sizeof b, "x[%lld,%lld,%lld,%lld] k%lldx%lld s%lld,%lld p%lld,%lld,%lld,%lld d%lld,%lld ceil%d pad%d div%lld",
                  (long long)n, (long long)c, (long long)h, (long long)w, (long long)kh, (long long)kw, (long long)sh,
                  (long long)sw, (long long)pt, (long long)pb, (long long)pl, (long long)pr, (long long)dh, (long long)dw,
                  ceil, include_pad, (long long)divisor);
    return b;
  }
};

// ---- references (PyTorch's CPU algorithms, written out plainly) -----------------------------

void refMax(const PoolCfg& c, const std::vector<float>& x, std::vector<float>* y, std::vector<int64_t>* idx) {
  const int64_t ho = c.ho(), wo = c.wo();
  y->assign(static_cast<size_t>(c.n * c.c * ho * wo), 0);
  idx->assign(y->size(), 0);
  for (int64_t p = 0; p < c.n * c.c; ++p)
    for (int64_t oh = 0; oh < ho; ++oh)
      for (int64_t ow = 0; ow < wo; ++ow) {
        double best = -INFINITY;
        int64_t bi = -1;
        bool first = true;
        for (int64_t i = 0; i < c.kh; ++i)
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t ih = oh * c.sh - c.pt + i * c.dh, iw = ow * c.sw - c.pl + j * c.dw;
            if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
            const double v = x[(p * c.h + ih) * c.w + iw];
            if (first || v > best || (std::isnan(v) && !std::isnan(best))) best = v, bi = ih * c.w + iw;
            first = false;
          }
        (*y)[(p * ho + oh) * wo + ow] = static_cast<float>(best);
        (*idx)[(p * ho + oh) * wo + ow] = bi;
      }
}

struct Win {
  int64_t h0, h1, w0, w1, div;
};
Win avgWin(const PoolCfg& c, int64_t oh, int64_t ow) {
  int64_t h0 = oh * c.sh - c.pt, w0 = ow * c.sw - c.pl;
  int64_t h1 = std::min(h0 + c.kh, c.h + c.pb), w1 = std::min(w0 + c.kw, c.w + c.pr);
  const int64_t pool = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0), h1 = std::min(h1, c.h), w1 = std::min(w1, c.w);
  const int64_t div = c.divisor ? c.divisor : c.include_pad ? pool : (h1 - h0) * (w1 - w0);
  return Win{h0, h1, w0, w1, div};
}

// exact: fp32 row-major sum / divisor; dbl: double.
void refAvg(const PoolCfg& c, const std::vector<float>& x, std::vector<float>* exact, std::vector<double>* dbl) {
  const int64_t ho = c.ho(), wo = c.wo();
  exact->assign(static_cast<size_t>(c.n * c.c * ho * wo), 0);
  dbl->assign(exact->size(), 0);
  for (int64_t p = 0; p < c.n * c.c; ++p)
    for (int64_t oh = 0; oh < ho; ++oh)
      for (int64_t ow = 0; ow < wo; ++ow) {
        const Win wn = avgWin(c, oh, ow);
        float s = 0;
        double d = 0;
        for (int64_t ih = wn.h0; ih < wn.h1; ++ih)
          for (int64_t iw = wn.w0; iw < wn.w1; ++iw) s += x[(p * c.h + ih) * c.w + iw], d += x[(p * c.h + ih) * c.w + iw];
        const size_t e = static_cast<size_t>((p * ho + oh) * wo + ow);
        (*exact)[e] = s / static_cast<float>(wn.div);
        (*dbl)[e] = d / wn.div;
      }
}

std::vector<double> refAvgGrad(const PoolCfg& c, const std::vector<float>& dy) {
  const int64_t ho = c.ho(), wo = c.wo();
  std::vector<double> dx(static_cast<size_t>(c.n * c.c * c.h * c.w), 0.0);
  for (int64_t p = 0; p < c.n * c.c; ++p)
    for (int64_t oh = 0; oh < ho; ++oh)
      for (int64_t ow = 0; ow < wo; ++ow) {
        const Win wn = avgWin(c, oh, ow);
        for (int64_t ih = wn.h0; ih < wn.h1; ++ih)
          for (int64_t iw = wn.w0; iw < wn.w1; ++iw)
            dx[(p * c.h + ih) * c.w + iw] += double(dy[(p * ho + oh) * wo + ow]) / wn.div;
      }
  return dx;
}

int64_t aStart(int64_t i, int64_t o, int64_t in) { return static_cast<int64_t>(std::floor(double(i) * in / o)); }
int64_t aEnd(int64_t i, int64_t o, int64_t in) { return static_cast<int64_t>(std::ceil(double(i + 1) * in / o)); }

std::vector<double> refAdaptive(const std::vector<float>& x, int64_t planes, int64_t h, int64_t w, int64_t ho, int64_t wo) {
  std::vector<double> y(static_cast<size_t>(planes * ho * wo));
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < ho; ++oh)
      for (int64_t ow = 0; ow < wo; ++ow) {
        double s = 0;
        const int64_t h0 = aStart(oh, ho, h), h1 = aEnd(oh, ho, h), w0 = aStart(ow, wo, w), w1 = aEnd(ow, wo, w);
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) s += x[(p * h + ih) * w + iw];
        y[(p * ho + oh) * wo + ow] = s / double((h1 - h0) * (w1 - w0));
      }
  return y;
}

std::vector<double> refAdaptiveGrad(const std::vector<float>& dy, int64_t planes, int64_t h, int64_t w, int64_t ho,
                                    int64_t wo) {
  std::vector<double> dx(static_cast<size_t>(planes * h * w), 0.0);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < ho; ++oh)
      for (int64_t ow = 0; ow < wo; ++ow) {
        const int64_t h0 = aStart(oh, ho, h), h1 = aEnd(oh, ho, h), w0 = aStart(ow, wo, w), w1 = aEnd(ow, wo, w);
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            dx[(p * h + ih) * w + iw] += double(dy[(p * ho + oh) * wo + ow]) / double((h1 - h0) * (w1 - w0));
      }
  return dx;
}

void expectNear(const std::vector<float>& got, const std::vector<double>& want, const std::string& what, double rel = 2e-6) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], rel * (1 + std::fabs(want[i]))) << what << " at " << i;
}

const std::vector<PoolCfg>& maxConfigs() {
  static const std::vector<PoolCfg> v = {
      PoolCfg{2, 3, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1},                        // ResNet stem pool
      PoolCfg{2, 3, 8, 8, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, true},            // ceil_mode adds a partial window
      PoolCfg{1, 2, 13, 11, 3, 2, 2, 3, 1, 0, 1, 0, 1, 1, true},          // odd sizes, asymmetric pads
      PoolCfg{1, 2, 10, 10, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},                // dilation 2
      PoolCfg{2, 20, 7, 6, 2, 2, 2, 2, 1, 1, 1, 1, 2, 1, true},           // dilation, ceil, pads, C not multiple of 16
      PoolCfg{1, 1, 5, 5, 5, 5, 1, 1},                                    // global
  };
  return v;
}

// ---- max pooling ------------------------------------------------------------------------------

TEST(KernelPool, MaxPoolMatchesReference) {
  uint32_t seed = 10;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (const PoolCfg& c : maxConfigs()) {
      FormatTensor x = randomTensor(dt, c.xs(), ++seed);
      FormatTensor y(ACL_FORMAT_NCHW, dt, c.ys()), idx(ACL_FORMAT_NCHW, ACL_INT64, c.ys());
      run(opCall("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, c.attrs()));
      std::vector<float> ry;
      std::vector<int64_t> ri;
      refMax(c, x.values(), &ry, &ri);
      expectSameBits(y.values(), ry, "max " + c.name());
      EXPECT_EQ(idx.ints(), ri) << c.name();
      // Grad: scatter-add of dy at argmax.
      FormatTensor dy = randomTensor(dt, c.ys(), ++seed), dx(ACL_FORMAT_NCHW, dt, c.xs());
      run(opCall("MaxPoolGradWithArgmaxV1", {&x, &dy, &idx}, {&dx}, c.attrs()));
      std::vector<double> want(static_cast<size_t>(numelOf(c.xs())), 0.0);
      const std::vector<float> dyv = dy.values();
      for (size_t o = 0; o < ri.size(); ++o) {
        const int64_t plane = static_cast<int64_t>(o) / (c.ho() * c.wo());
        want[plane * c.h * c.w + ri[o]] += dyv[o];
      }
      if (dt == ACL_FLOAT16)
        for (double& v : want) v = roundTo(ACL_FLOAT16, static_cast<float>(v));
      expectNear(dx.values(), want, "max grad " + c.name(), dt == ACL_FLOAT ? 2e-6 : 1e-3);
    }
}

TEST(KernelPool, MaxPoolNanTiesInfAndPadding) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // One 4x4 plane, 2x2 windows stride 2 (4 windows), plus pad 1 windows below.
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT, {1, 1, 4, 4});
  x.set({1, nan, 3, 3,     //
         nan, 0, 3, 2,     //
         -inf, -inf, -5, -5,  //
         -inf, -inf, -5, -6});
  PoolCfg c{1, 1, 4, 4, 2, 2, 2, 2};
  FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys()), idx(ACL_FORMAT_NCHW, ACL_INT64, c.ys());
  run(opCall("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, c.attrs()));
  std::vector<float> yv = y.values();
  EXPECT_TRUE(std::isnan(yv[0]));
  EXPECT_EQ(idx.ints(), (std::vector<int64_t>{1, 2, 8, 10}));  // first NaN; first of tied 3s; first -inf; first -5
  EXPECT_EQ(yv[1], 3.0f);
  EXPECT_EQ(yv[2], -inf);
  EXPECT_EQ(yv[3], -5.0f);
  // With padding 1 (k3 s2): negative values never lose to the (implicit) padding.
  PoolCfg cp{1, 1, 4, 4, 3, 3, 2, 2, 1, 1, 1, 1};
  FormatTensor neg(ACL_FORMAT_NCHW, ACL_FLOAT, {1, 1, 4, 4});
  std::vector<float> nv(16);
  for (int i = 0; i < 16; ++i) nv[i] = -1.0f - i;
  neg.set(nv);
  FormatTensor y2(ACL_FORMAT_NCHW, ACL_FLOAT, cp.ys()), i2(ACL_FORMAT_NCHW, ACL_INT64, cp.ys());
  run(opCall("MaxPoolWithArgmaxV1", {&neg}, {&y2, &i2}, cp.attrs()));
  EXPECT_EQ(y2.values(), (std::vector<float>{-1, -2, -5, -6}));
  EXPECT_EQ(i2.ints(), (std::vector<int64_t>{0, 1, 4, 5}));
  // Grad: overlapping windows with the same argmax accumulate.
  PoolCfg co{1, 1, 3, 3, 2, 2, 1, 1};
  FormatTensor xo(ACL_FORMAT_NCHW, ACL_FLOAT, {1, 1, 3, 3});
  xo.set({0, 0, 0, 0, 9, 0, 0, 0, 0});
  FormatTensor yo(ACL_FORMAT_NCHW, ACL_FLOAT, co.ys()), io(ACL_FORMAT_NCHW, ACL_INT64, co.ys());
  run(opCall("MaxPoolWithArgmaxV1", {&xo}, {&yo, &io}, co.attrs()));
  EXPECT_EQ(io.ints(), (std::vector<int64_t>{4, 4, 4, 4}));
  FormatTensor dyo(ACL_FORMAT_NCHW, ACL_FLOAT, co.ys()), dxo(ACL_FORMAT_NCHW, ACL_FLOAT, co.xs());
  dyo.set({1, 2, 3, 4});
  run(opCall("MaxPoolGradWithArgmaxV1", {&xo, &dyo, &io}, {&dxo}, co.attrs()));
  EXPECT_EQ(dxo.values(), (std::vector<float>{0, 0, 0, 0, 10, 0, 0, 0, 0}));
}

// ---- avg pooling ------------------------------------------------------------------------------

TEST(KernelPool, AvgPoolVariantsMatchReference) {
  std::vector<PoolCfg> cfgs;
  for (bool ceil : {false, true})
    for (bool inc : {false, true})
      for (int64_t div : {int64_t{0}, int64_t{5}}) {
        PoolCfg a{2, 3, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1};
        PoolCfg b{1, 2, 13, 11, 3, 2, 2, 3, 1, 0, 1, 1};
        PoolCfg d{1, 17, 8, 7, 3, 3, 2, 2, 0, 1, 1, 0};
        for (PoolCfg* p : {&a, &b, &d}) {
          p->ceil = ceil, p->include_pad = inc, p->divisor = div;
          cfgs.push_back(*p);
        }
      }
  uint32_t seed = 50;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (const PoolCfg& c : cfgs) {
      FormatTensor x = randomTensor(dt, c.xs(), ++seed);
      FormatTensor y(ACL_FORMAT_NCHW, dt, c.ys());
      run(opCall("AvgPoolV2", {&x}, {&y}, c.avgAttrs()));
      std::vector<float> exact;
      std::vector<double> dbl;
      refAvg(c, x.values(), &exact, &dbl);
      if (dt == ACL_FLOAT) expectNear(y.values(), dbl, "avg " + c.name());
      for (float& v : exact) v = roundTo(dt, v);
      expectSameBits(y.values(), exact, "avg exact " + c.name());
      FormatTensor dy = randomTensor(dt, c.ys(), ++seed), dx(ACL_FORMAT_NCHW, dt, c.xs());
      AttrMap ga = c.avgAttrs();
      ga.set("orig_input_shape", c.xs());
      run(opCall("AvgPoolV2Grad", {&dy}, {&dx}, ga));
      expectNear(dx.values(), refAvgGrad(c, dy.values()), "avg grad " + c.name(), dt == ACL_FLOAT ? 2e-6 : 2e-3);
    }
}

TEST(KernelPool, AvgPoolCeilModeWindowBeyondPadding) {
  // 5 wide, k2 s2, ceil: 3 outputs; the last window covers only column 4 (no padding at all).
  PoolCfg c{1, 1, 1, 5, 1, 2, 1, 2, 0, 0, 0, 0, 1, 1, true, true};
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs());
  x.set({1, 2, 3, 4, 10});
  FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys());
  ASSERT_EQ(c.ys(), (Shape{1, 1, 1, 3}));
  run(opCall("AvgPoolV2", {&x}, {&y}, c.avgAttrs()));
  EXPECT_EQ(y.values(), (std::vector<float>{1.5f, 3.5f, 10.0f}));  // PyTorch: the clipped window divides by 1
  c.pl = c.pr = 1;  // with padding, count_include_pad counts the pad column but not beyond it
  FormatTensor y2(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys());
  ASSERT_EQ(c.ys(), (Shape{1, 1, 1, 3}));
  run(opCall("AvgPoolV2", {&x}, {&y2}, c.avgAttrs()));
  EXPECT_EQ(y2.values(), (std::vector<float>{0.5f, 2.5f, 7.0f}));
  c.include_pad = false;
  run(opCall("AvgPoolV2", {&x}, {&y2}, c.avgAttrs()));
  EXPECT_EQ(y2.values(), (std::vector<float>{1.0f, 2.5f, 7.0f}));
}

// ---- adaptive ------------------------------------------------------------------------------

TEST(KernelPool, AdaptiveAvgPoolUpAndDown) {
  struct A {
    int64_t h, w, ho, wo;
  };
  uint32_t seed = 80;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (const A& a : {A{13, 11, 4, 5}, A{2, 2, 7, 7}, A{5, 5, 5, 5}, A{7, 7, 1, 1}, A{6, 9, 4, 3}, A{3, 10, 7, 4}}) {
      const Shape xs{2, 3, a.h, a.w}, ys{2, 3, a.ho, a.wo};
      FormatTensor x = randomTensor(dt, xs, ++seed), y(ACL_FORMAT_NCHW, dt, ys);
      AttrMap at;
      at.set("output_size", std::vector<int64_t>{a.ho, a.wo});
      run(opCall("AdaptiveAvgPool2d", {&x}, {&y}, at));
      const double tol = dt == ACL_FLOAT ? 2e-6 : 1e-3;
      expectNear(y.values(), refAdaptive(x.values(), 6, a.h, a.w, a.ho, a.wo), "adaptive", tol);
      FormatTensor dy = randomTensor(dt, ys, ++seed), dx(ACL_FORMAT_NCHW, dt, xs);
      AttrMap ga;
      ga.set("orig_input_shape", xs);
      run(opCall("AdaptiveAvgPool2dGrad", {&dy}, {&dx}, ga));
      expectNear(dx.values(), refAdaptiveGrad(dy.values(), 6, a.h, a.w, a.ho, a.wo), "adaptive grad", dt == ACL_FLOAT ? 2e-6 : 2e-3);
    }
  // 2x2 -> 3x3: output (1,1) averages all four inputs; PyTorch divides by kh then kw.
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT, {1, 1, 2, 2}), y(ACL_FORMAT_NCHW, ACL_FLOAT, {1, 1, 3, 3});
  x.set({1, 2, 3, 5});
  AttrMap at;
  at.set("output_size", std::vector<int64_t>{3, 3});
  run(opCall("AdaptiveAvgPool2d", {&x}, {&y}, at));
  EXPECT_EQ(y.values(), (std::vector<float>{1, 1.5f, 2, 2, 11.0f / 2 / 2, 3.5f, 3, 4, 5}));
}

// ---- formats, determinism -------------------------------------------------------------------

TEST(KernelPool, Nc1hwc0OperandsBitIdentical) {
  const PoolCfg c{2, 20, 9, 7, 3, 3, 2, 2, 1, 1, 1, 0, 1, 1, true};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    FormatTensor x = randomTensor(dt, c.xs(), 91), dy = randomTensor(dt, c.ys(), 92);
    FormatTensor x5 = transTo(x, ACL_FORMAT_NC1HWC0), dy5 = transTo(dy, ACL_FORMAT_NC1HWC0);
    // Max + grad.
    FormatTensor y(ACL_FORMAT_NCHW, dt, c.ys()), idx(ACL_FORMAT_NCHW, ACL_INT64, c.ys()),
                 dx(ACL_FORMAT_NCHW, dt, c.xs());
    run(opCall("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, c.attrs()));
    run(opCall("MaxPoolGradWithArgmaxV1", {&x, &dy, &idx}, {&dx}, c.attrs()));
    FormatTensor y5(ACL_FORMAT_NC1HWC0, dt, c.ys()), dx5(ACL_FORMAT_NC1HWC0, dt, c.xs());
    FormatTensor idx2(ACL_FORMAT_NCHW, ACL_INT64, c.ys());
    run(opCall("MaxPoolWithArgmaxV1", {&x5}, {&y5, &idx2}, c.attrs()));
    run(opCall("MaxPoolGradWithArgmaxV1", {&x5, &dy5, &idx2}, {&dx5}, c.attrs()));
    EXPECT_EQ(transTo(y5, ACL_FORMAT_NCHW).bytes(), y.bytes());
    EXPECT_EQ(idx2.bytes(), idx.bytes());
    EXPECT_EQ(transTo(dx5, ACL_FORMAT_NCHW).bytes(), dx.bytes());
    EXPECT_EQ(transTo(transTo(dx5, ACL_FORMAT_NCHW), ACL_FORMAT_NC1HWC0).bytes(), dx5.bytes());  // zero pads
    // Avg + grad, adaptive + grad.
    PoolCfg ca = c;
    ca.include_pad = false;
    AttrMap ga = ca.avgAttrs();
    ga.set("orig_input_shape", c.xs());
    AttrMap aa, agr;
    aa.set("output_size", std::vector<int64_t>{c.ho(), c.wo()});
    agr.set("orig_input_shape", c.xs());
    struct Run {
      const char* op;
      AttrMap attrs;
      bool fwd;
    };
    for (const Run& r : {Run{"AvgPoolV2", ca.avgAttrs(), true}, Run{"AvgPoolV2Grad", ga, false},
                         Run{"AdaptiveAvgPool2d", aa, true}, Run{"AdaptiveAvgPool2dGrad", agr, false}}) {
      FormatTensor o(ACL_FORMAT_NCHW, dt, r.fwd ? c.ys() : c.xs()), o5(ACL_FORMAT_NC1HWC0, dt, r.fwd ? c.ys() : c.xs());
      run(opCall(r.op, {r.fwd ? &x : &dy}, {&o}, r.attrs));
      run(opCall(r.op, {r.fwd ? &x5 : &dy5}, {&o5}, r.attrs));
      EXPECT_EQ(transTo(o5, ACL_FORMAT_NCHW).bytes(), o.bytes()) << r.op;
      EXPECT_EQ(transTo(transTo(o5, ACL_FORMAT_NCHW), ACL_FORMAT_NC1HWC0).bytes(), o5.bytes()) << r.op << " pads";
    }
  }
}

TEST(KernelPool, DeterministicAcrossHostThreadCounts) {
  const PoolCfg c{4, 40, 17, 15, 3, 3, 2, 2, 1, 1, 1, 1};
  FormatTensor x = randomTensor(ACL_FLOAT, c.xs(), 95), dy = randomTensor(ACL_FLOAT, c.ys(), 96);
  std::vector<std::vector<uint8_t>> res;
  for (int threads : {1, 2, 0}) {
    setHostThreadLimitForTesting(threads);
    FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys()), idx(ACL_FORMAT_NCHW, ACL_INT64, c.ys());
    FormatTensor dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs()), ya(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys()),
                 dxa(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs());
    run(opCall("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, c.attrs()));
    run(opCall("MaxPoolGradWithArgmaxV1", {&x, &dy, &idx}, {&dx}, c.attrs()));
    run(opCall("AvgPoolV2", {&x}, {&ya}, c.avgAttrs()));
    AttrMap ga = c.avgAttrs();
    ga.set("orig_input_shape", c.xs());
    run(opCall("AvgPoolV2Grad", {&dy}, {&dxa}, ga));
    std::vector<uint8_t> all;
    for (const FormatTensor* t : {&y, &idx, &dx, &ya, &dxa}) {
      auto b = t->bytes();
      all.insert(all.end(), b.begin(), b.end());
    }
    res.push_back(all);
  }
  setHostThreadLimitForTesting(0);
  EXPECT_EQ(res[1], res[0]);
  EXPECT_EQ(res[2], res[0]);
}

// ---- validation, cost, speed ------------------------------------------------------------------

TEST(KernelPool, ValidationErrors) {
  const PoolCfg c{1, 2, 6, 6, 3, 3, 2, 2, 1, 1, 1, 1};
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs()), y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys()),
               idx(ACL_FORMAT_NCHW, ACL_INT64, c.ys());
  AttrMap a = c.attrs();
  a.set("pads", std::vector<int64_t>{2, 2, 2, 2});
  EXPECT_KERNEL_ERROR(opCall("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, a), ACL_ERROR_OP_ATTR_NOT_MATCH, "at most half");
  FormatTensor ybad(ACL_FORMAT_NCHW, ACL_FLOAT, {1, 2, 4, 4});
  EXPECT_KERNEL_ERROR(opCall("MaxPoolWithArgmaxV1", {&x}, {&ybad, &idx}, c.attrs()), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [1,2,4,4] must be [1,2,3,3]");
  AttrMap nok = c.attrs();
  nok.set("ksize", std::vector<int64_t>{3});
  EXPECT_KERNEL_ERROR(opCall("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, nok), ACL_ERROR_OP_ATTR_NOT_MATCH, "'ksize' must have 2 values");
  FormatTensor xi(ACL_FORMAT_NCHW, ACL_INT32, c.xs());
  EXPECT_KERNEL_ERROR(opCall("AvgPoolV2", {&xi}, {&y}, c.avgAttrs()), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  FormatTensor x3(ACL_FORMAT_ND, ACL_FLOAT, {2, 6, 6});
  EXPECT_KERNEL_ERROR(opCall("AvgPoolV2", {&x3}, {&y}, c.avgAttrs()), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 4-D");
  AttrMap dil = c.avgAttrs();
  dil.set("dilations", std::vector<int64_t>{2, 2});
  EXPECT_KERNEL_ERROR(opCall("AvgPoolV2", {&x}, {&y}, dil), ACL_ERROR_OP_ATTR_NOT_MATCH, "dilations");
  FormatTensor dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs());
  EXPECT_KERNEL_ERROR(opCall("AvgPoolV2Grad", {&y}, {&dx}, c.avgAttrs()), ACL_ERROR_OP_ATTR_NOT_MATCH, "orig_input_shape");
  AttrMap ad;
  ad.set("output_size", std::vector<int64_t>{2, 2});
  EXPECT_KERNEL_ERROR(opCall("AdaptiveAvgPool2d", {&x}, {&y}, ad), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [1,2,2,2]");
  // argmax out of range: a device fault at compute.
  FormatTensor dy(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys());
  FormatTensor bad = FormatTensor(ACL_FORMAT_NCHW, ACL_INT64, c.ys());
  std::vector<int64_t> iv(9, 0);
  iv[4] = 36;
  storeInt(ACL_INT64, bad.arg.data, 0, 9, iv.data());
  EXPECT_KERNEL_ERROR(opCall("MaxPoolGradWithArgmaxV1", {&x, &dy, &bad}, {&dx}, c.attrs()), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "argmax 36");
  FormatTensor nz(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, c.xs());
  EXPECT_KERNEL_ERROR(opCall("AvgPoolV2", {&nz}, {&y}, c.avgAttrs()), ACL_ERROR_OP_UNSUPPORTED_FORMAT, "FRACTAL_NZ");
}

TEST(KernelPool, CostIsVector) {
  const PoolCfg c{2, 64, 32, 32, 3, 3, 2, 2, 1, 1, 1, 1};
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT16, c.xs()), y(ACL_FORMAT_NCHW, ACL_FLOAT16, c.ys()),
               idx(ACL_FORMAT_NCHW, ACL_INT64, c.ys());
  KernelCost k = kernel("MaxPoolWithArgmaxV1").cost(opCall("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, c.attrs()));
  EXPECT_EQ(k.core, CoreType::kVector);
  EXPECT_EQ(k.mte_bytes, 2.0 * 2 * 64 * 32 * 32 + 2.0 * 2 * 64 * 16 * 16 + 8.0 * 2 * 64 * 16 * 16);
  EXPECT_GT(k.vector_repeats, 0);
  EXPECT_GE(k.block_dim, 1u);
}

}  // namespace
