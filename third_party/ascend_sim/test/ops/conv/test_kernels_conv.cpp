// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter (Note [Convolution on the
// Cube] in ops/conv/conv2d.cpp): against double-precision references (fp32
// tolerance), bit-exact against fp32 references that follow the documented
// accumulation orders, fp16 and precision modes, NC1HWC0 / FRACTAL_Z operands
// bit-identical to NCHW ones, determinism over host thread counts, cost,
// validation, speed, and the aclopExecuteV2 path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "common/dtype.h"
#include "format_test_util.h"
#include "kernel_test_util.h"
#include "runtime_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

FormatTensor nchw(aclDataType dt, const Shape& s, uint32_t seed, float lo = -1, float hi = 1) {
  FormatTensor t(s.size() == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND, dt, s);
  std::vector<float> v = randomFloats(static_cast<size_t>(numelOf(s)), lo, hi, seed);
  storeFloat(dt, t.arg.data, 0, static_cast<int64_t>(v.size()), v.data());
  return t;
}

struct Cfg {
  int64_t n, ci, h, w, co, kh, kw;
  int64_t sh = 1, sw = 1;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  int64_t dh = 1, dw = 1;
  int64_t groups = 1;
  int64_t ho() const { return (h + pt + pb - dh * (kh - 1) - 1) / sh + 1; }
  int64_t wo() const { return (w + pl + pr - dw * (kw - 1) - 1) / sw + 1; }
  int64_t cig() const { return ci / groups; }
  int64_t cog() const { return co / groups; }
  Shape xs() const { return {n, ci, h, w}; }
  Shape fs() const { return {co, ci / groups, kh, kw}; }
  Shape ys() const { return {n, co, ho(), wo()}; }
  std::string name() const {
    char b[200];
    std::snprintf(b, sizeof b,
                  "x[%lld,%lld,%lld,%lld] f[%lld,%lld,%lld,%lld] s%lld,%lld p%lld,%lld,%lld,%lld d%lld,%lld g%lld",
                  (long long)n, (long long)ci, (long long)h, (long long)w, (long long)co, (long long)cig(),
                  (long long)kh, (long long)kw, (long long)sh, (long long)sw, (long long)pt, (long long)pb,
                  (long long)pl, (long long)pr, (long long)dh, (long long)dw, (long long)groups);
    return b;
  }
};

AttrMap convAttrs(const Cfg& c) {
  AttrMap m;
  m.set("strides", std::vector<int64_t>{c.sh, c.sw});
  m.set("pads", std::vector<int64_t>{c.pt, c.pb, c.pl, c.pr});
  m.set("dilations", std::vector<int64_t>{c.dh, c.dw});
  m.set("groups", c.groups);
  return m;
}

const std::vector<Cfg>& configs() {
  static const std::vector<Cfg> v = [] {
    std::vector<Cfg> r;
    r.push_back(Cfg{2, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1});             // 3x3 pad 1
    r.push_back(Cfg{2, 5, 13, 11, 7, 3, 3, 2, 2, 1, 0, 2, 1});           // stride 2, asymmetric pads, 13x11
    r.push_back(Cfg{1, 4, 12, 12, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2});  // dilation 2, groups 2
    r.push_back(Cfg{2, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8});    // depthwise
    r.push_back(Cfg{2, 17, 7, 7, 33, 1, 1});                             // 1x1, channels not multiple of 16
    r.push_back(Cfg{1, 3, 20, 20, 10, 7, 7, 2, 2, 3, 3, 3, 3});          // 7x7 stride 2 pad 3
    r.push_back(Cfg{1, 6, 10, 9, 9, 2, 3, 2, 1, 0, 1, 1, 0, 1, 2, 3});   // mixed everything, groups 3
    r.push_back(Cfg{1, 20, 6, 5, 18, 3, 3, 3, 2, 0, 2, 1, 1, 1, 1, 2});  // stride 3 (gaps in dx), groups 2
    // Wide enough for the Cube to read the padded input in place (Note [The Cube reads a padded
    // input]): forward and stride-1 backprop input, rows ending in partial tiles, 3 panels.
    r.push_back(Cfg{4, 5, 12, 30, 40, 3, 3, 1, 1, 1, 1, 1, 1});
    r.push_back(Cfg{8, 3, 16, 40, 16, 7, 7, 2, 2, 3, 3, 3, 3});          // first-layer shape, stride 2
    r.push_back(Cfg{2, 4, 12, 28, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2});  // dilation 2, groups 2
    // More output channels than one filter-gradient band (96 rows) holds, ending in a partial tile.
    r.push_back(Cfg{1, 4, 6, 6, 101, 3, 3, 1, 1, 1, 1, 1, 1});
    return r;
  }();
  return v;
}

// ---- references ------------------------------------------------------------------------------

// Input element under tap (i, j) of output (ho, wo), or nullptr-equivalent (inside = false).
struct Tap {
  bool inside;
  int64_t ih, iw;
};
Tap tapOf(const Cfg& c, int64_t oh, int64_t ow, int64_t i, int64_t j) {
  const int64_t ih = oh * c.sh - c.pt + i * c.dh, iw = ow * c.sw - c.pl + j * c.dw;
  return Tap{ih >= 0 && ih < c.h && iw >= 0 && iw < c.w, ih, iw};
}

// fp32 references in the documented accumulation orders (fma chains, zeros
// for padding / non-contributing positions included), and double references
// with the sum of |products| for tolerances.
struct Ref {
  std::vector<float> exact;
  std::vector<double> dbl, mag;
};

Ref refForward(const Cfg& c, const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>* bias) {
  const int64_t ho = c.ho(), wo = c.wo();
  Ref r;
  r.exact.resize(static_cast<size_t>(c.n * c.co * ho * wo));
  r.dbl.resize(r.exact.size());
  r.mag.resize(r.exact.size());
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t co = 0; co < c.co; ++co) {
      const int64_t g = co / c.cog();
      for (int64_t oh = 0; oh < ho; ++oh)
        for (int64_t ow = 0; ow < wo; ++ow) {
          float acc = 0;
          double d = 0, m = 0;
          for (int64_t ci = 0; ci < c.cig(); ++ci)
            for (int64_t i = 0; i < c.kh; ++i)
              for (int64_t j = 0; j < c.kw; ++j) {
                const Tap t = tapOf(c, oh, ow, i, j);
                const float xv = t.inside ? x[((n * c.ci + g * c.cig() + ci) * c.h + t.ih) * c.w + t.iw] : 0.0f;
                const float wv = w[((co * c.cig() + ci) * c.kh + i) * c.kw + j];
                acc = std::fma(xv, wv, acc);
                d += double(xv) * wv;
                m += std::fabs(double(xv) * wv);
              }
          if (bias) {
            acc = acc + (*bias)[co];
            d += (*bias)[co];
            m += std::fabs((*bias)[co]);
          }
          const size_t e = static_cast<size_t>(((n * c.co + co) * ho + oh) * wo + ow);
          r.exact[e] = acc;
          r.dbl[e] = d;
          r.mag[e] = m;
        }
    }
  return r;
}

Ref refBackpropInput(const Cfg& c, const std::vector<float>& w, const std::vector<float>& dy) {
  const int64_t ho = c.ho(), wo = c.wo();
  Ref r;
  r.exact.resize(static_cast<size_t>(c.n * c.ci * c.h * c.w));
  r.dbl.resize(r.exact.size());
  r.mag.resize(r.exact.size());
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t ci = 0; ci < c.ci; ++ci) {
      const int64_t g = ci / c.cig(), cl = ci % c.cig();
      for (int64_t h = 0; h < c.h; ++h)
        for (int64_t x = 0; x < c.w; ++x) {
          float acc = 0;
          double d = 0, m = 0;
          for (int64_t col = 0; col < c.cog(); ++col) {
            const int64_t co = g * c.cog() + col;
            for (int64_t i = 0; i < c.kh; ++i)
              for (int64_t j = 0; j < c.kw; ++j) {
                const int64_t th = h + c.pt - i * c.dh, tw = x + c.pl - j * c.dw;
                const bool ok =
                    th >= 0 && tw >= 0 && th % c.sh == 0 && tw % c.sw == 0 && th / c.sh < ho && tw / c.sw < wo;
                const float a = ok ? dy[((n * c.co + co) * ho + th / c.sh) * wo + tw / c.sw] : 0.0f;
                const float wv = w[((co * c.cig() + cl) * c.kh + i) * c.kw + j];
                acc = std::fma(a, wv, acc);
                d += double(a) * wv;
                m += std::fabs(double(a) * wv);
              }
          }
          const size_t e = static_cast<size_t>(((n * c.ci + ci) * c.h + h) * c.w + x);
          r.exact[e] = acc;
          r.dbl[e] = d;
          r.mag[e] = m;
        }
    }
  return r;
}

Ref refBackpropFilter(const Cfg& c, const std::vector<float>& x, const std::vector<float>& dy) {
  const int64_t ho = c.ho(), wo = c.wo();
  Ref r;
  r.exact.resize(static_cast<size_t>(c.co * c.cig() * c.kh * c.kw));
  r.dbl.resize(r.exact.size());
  r.mag.resize(r.exact.size());
  for (int64_t co = 0; co < c.co; ++co) {
    const int64_t g = co / c.cog();
    for (int64_t ci = 0; ci < c.cig(); ++ci)
      for (int64_t i = 0; i < c.kh; ++i)
        for (int64_t j = 0; j < c.kw; ++j) {
          float acc = 0;
          double d = 0, m = 0;
          for (int64_t n = 0; n < c.n; ++n)
            for (int64_t oh = 0; oh < ho; ++oh)
              for (int64_t ow = 0; ow < wo; ++ow) {
                const Tap t = tapOf(c, oh, ow, i, j);
                const float xv = t.inside ? x[((n * c.ci + g * c.cig() + ci) * c.h + t.ih) * c.w + t.iw] : 0.0f;
                const float dv = dy[((n * c.co + co) * ho + oh) * wo + ow];
                acc = std::fma(dv, xv, acc);
                d += double(dv) * xv;
                m += std::fabs(double(dv) * xv);
              }
          const size_t e = static_cast<size_t>(((co * c.cig() + ci) * c.kh + i) * c.kw + j);
          r.exact[e] = acc;
          r.dbl[e] = d;
          r.mag[e] = m;
        }
  }
  return r;
}

// ---- comparing results -----------------------------------------------------------------------

void expectNear(const std::vector<float>& got, const Ref& ref, const std::string& what) {
  ASSERT_EQ(got.size(), ref.dbl.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = 2e-6 * ref.mag[i] + 1e-7;
    ASSERT_NEAR(got[i], ref.dbl[i], tol) << what << " at " << i;
  }
}

std::vector<float> roundAll(aclDataType dt, std::vector<float> v) {
  for (float& x : v) x = roundTo(dt, x);
  return v;
}

AttrMap withShape(AttrMap m, const char* name, const Shape& s) {
  m.set(name, std::vector<int64_t>(s.begin(), s.end()));
  return m;
}

// ---- tests -------------------------------------------------------------------------------------

TEST(KernelConv, ForwardMatchesReferences) {
  forEachHostIsa([](HostIsa) {  // every SIMD level of the host gives the same bits
    uint32_t seed = 100;
    for (const Cfg& c : configs())
      for (bool with_bias : {false, true}) {
        FormatTensor x = nchw(ACL_FLOAT, c.xs(), ++seed), w = nchw(ACL_FLOAT, c.fs(), ++seed);
        FormatTensor b = nchw(ACL_FLOAT, {c.co}, ++seed);
        FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys());
        if (with_bias)
          run(opCall("Conv2D", {&x, &w, &b}, {&y}, convAttrs(c)));
        else
          run(opCall("Conv2D", {&x, &w}, {&y}, convAttrs(c)));
        const std::vector<float> bv = b.values();
        const Ref r = refForward(c, x.values(), w.values(), with_bias ? &bv : nullptr);
        expectNear(y.values(), r, "fwd " + c.name());
        expectSameBits(y.values(), r.exact, "fwd exact " + c.name());
      }
  });
}

TEST(KernelConv, BackpropInputMatchesReferences) {
  forEachHostIsa([](HostIsa) {  // every SIMD level of the host gives the same bits
    uint32_t seed = 200;
    for (const Cfg& c : configs()) {
      FormatTensor w = nchw(ACL_FLOAT, c.fs(), ++seed), dy = nchw(ACL_FLOAT, c.ys(), ++seed);
      FormatTensor dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs());
      run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, withShape(convAttrs(c), "input_size", c.xs())));
      const Ref r = refBackpropInput(c, w.values(), dy.values());
      expectNear(dx.values(), r, "bpi " + c.name());
      expectSameBits(dx.values(), r.exact, "bpi exact " + c.name());
    }
  });
}

TEST(KernelConv, BackpropFilterMatchesReferences) {
  forEachHostIsa([](HostIsa) {  // every SIMD level of the host gives the same bits
    uint32_t seed = 300;
    for (const Cfg& c : configs()) {
      FormatTensor x = nchw(ACL_FLOAT, c.xs(), ++seed), dy = nchw(ACL_FLOAT, c.ys(), ++seed);
      FormatTensor dw(ACL_FORMAT_NCHW, ACL_FLOAT, c.fs());
      run(opCall("Conv2DBackpropFilter", {&x, &dy}, {&dw}, withShape(convAttrs(c), "filter_size", c.fs())));
      const Ref r = refBackpropFilter(c, x.values(), dy.values());
      expectNear(dw.values(), r, "bpf " + c.name());
      expectSameBits(dw.values(), r.exact, "bpf exact " + c.name());
    }
  });
}

// The backward ops are the adjoints of the forward: <conv(x), dy> = <x, bpi(dy)> = <w, bpf(x, dy)>.
TEST(KernelConv, BackwardIsAdjointOfForward) {
  uint32_t seed = 400;
  for (const Cfg& c : configs()) {
    FormatTensor x = nchw(ACL_FLOAT, c.xs(), ++seed), w = nchw(ACL_FLOAT, c.fs(), ++seed),
                 dy = nchw(ACL_FLOAT, c.ys(), ++seed);
    FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys()), dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs()),
        dw(ACL_FORMAT_NCHW, ACL_FLOAT, c.fs());
    run(opCall("Conv2D", {&x, &w}, {&y}, convAttrs(c)));
    run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, withShape(convAttrs(c), "input_size", c.xs())));
    run(opCall("Conv2DBackpropFilter", {&x, &dy}, {&dw}, withShape(convAttrs(c), "filter_size", c.fs())));
    auto dot = [](const std::vector<float>& a, const std::vector<float>& b) {
      double s = 0;
      for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
      return s;
    };
    const double a = dot(y.values(), dy.values()), b = dot(x.values(), dx.values()), d = dot(w.values(), dw.values());
    EXPECT_NEAR(a, b, 1e-4 * (1 + std::fabs(a))) << c.name();
    EXPECT_NEAR(a, d, 1e-4 * (1 + std::fabs(a))) << c.name();
  }
}

// fp16 operands: products are exact in fp32, so the result is the fp32 chain over the fp16
// values rounded once to fp16 — bit for bit.
// Note [Cropped convolution outputs]: y may lack trailing rows/columns of its
// natural Ho x Wo (by fewer than max(stride, dilation)), as transposed
// convolutions with output_padding produce. Conv2D then computes the first
// windows, and the backward ops act as if the missing dy entries were zero.
TEST(KernelConv, CroppedOutputsAreTheLeadingWindows) {
  Cfg c{2, 4, 12, 11, 6, 3, 2};
  c.sh = 2, c.sw = 1, c.dh = 1, c.dw = 3, c.pt = c.pb = 1, c.groups = 2;
  const Shape full = c.ys(), cropped = {c.n, c.co, c.ho() - 1, c.wo() - 2};  // < max(2, 1) and < max(1, 3)
  FormatTensor x = nchw(ACL_FLOAT, c.xs(), 11), w = nchw(ACL_FLOAT, c.fs(), 12);
  FormatTensor y_full(ACL_FORMAT_NCHW, ACL_FLOAT, full), y_crop(ACL_FORMAT_NCHW, ACL_FLOAT, cropped);
  run(opCall("Conv2D", {&x, &w}, {&y_full}, convAttrs(c)));
  run(opCall("Conv2D", {&x, &w}, {&y_crop}, convAttrs(c)));
  const std::vector<float> yf = y_full.values(), yc = y_crop.values();
  // dy: random on the cropped shape, and the same values zero-padded to the full shape
  FormatTensor dy_crop = nchw(ACL_FLOAT, cropped, 13);
  const std::vector<float> dyc = dy_crop.values();
  std::vector<float> dyf(static_cast<size_t>(numelOf(full)), 0.0f);
  for (int64_t nc = 0; nc < c.n * c.co; ++nc)
    for (int64_t h = 0; h < cropped[2]; ++h)
      for (int64_t x0 = 0; x0 < cropped[3]; ++x0) {
        const float crop_y = yc[(nc * cropped[2] + h) * cropped[3] + x0];
        ASSERT_EQ(crop_y, yf[(nc * full[2] + h) * full[3] + x0]) << "y at " << nc << "," << h << "," << x0;
        dyf[(nc * full[2] + h) * full[3] + x0] = dyc[(nc * cropped[2] + h) * cropped[3] + x0];
      }
  FormatTensor dy_full(ACL_FORMAT_NCHW, ACL_FLOAT, full);
  storeFloat(ACL_FLOAT, dy_full.arg.data, 0, static_cast<int64_t>(dyf.size()), dyf.data());
  for (const char* op : {"Conv2DBackpropInput", "Conv2DBackpropFilter"}) {
    const bool bpi = std::string(op) == "Conv2DBackpropInput";
    FormatTensor out_crop(ACL_FORMAT_NCHW, ACL_FLOAT, bpi ? c.xs() : c.fs()),
        out_full(ACL_FORMAT_NCHW, ACL_FLOAT, bpi ? c.xs() : c.fs());
    const AttrMap a =
        bpi ? withShape(convAttrs(c), "input_size", c.xs()) : withShape(convAttrs(c), "filter_size", c.fs());
    run(opCall(op, {bpi ? &w : &x, &dy_crop}, {&out_crop}, a));
    run(opCall(op, {bpi ? &w : &x, &dy_full}, {&out_full}, a));
    expectSameBits(out_crop.values(), out_full.values(), op);
  }
  // Cropping by max(stride, dilation) or more is a shape error.
  FormatTensor y_short(ACL_FORMAT_NCHW, ACL_FLOAT, {c.n, c.co, c.ho() - 2, c.wo()});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w}, {&y_short}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "(N, Co, Ho, Wo)");
  FormatTensor y_long(ACL_FORMAT_NCHW, ACL_FLOAT, {c.n, c.co, c.ho(), c.wo() + 1});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w}, {&y_long}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "(N, Co, Ho, Wo)");
}

TEST(KernelConv, Fp16IsOneRoundingOfTheFp32Accumulator) {
  uint32_t seed = 500;
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16})
    for (const Cfg& c : configs()) {
      FormatTensor x = nchw(dt, c.xs(), ++seed, -2, 2), w = nchw(dt, c.fs(), ++seed, -2, 2),
                   dy = nchw(dt, c.ys(), ++seed, -2, 2);
      FormatTensor b = nchw(dt, {c.co}, ++seed);
      FormatTensor y(ACL_FORMAT_NCHW, dt, c.ys()), dx(ACL_FORMAT_NCHW, dt, c.xs()), dw(ACL_FORMAT_NCHW, dt, c.fs());
      run(opCall("Conv2D", {&x, &w, &b}, {&y}, convAttrs(c)));
      run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, withShape(convAttrs(c), "input_size", c.xs())));
      run(opCall("Conv2DBackpropFilter", {&x, &dy}, {&dw}, withShape(convAttrs(c), "filter_size", c.fs())));
      const std::vector<float> bv = b.values();
      expectSameBits(y.values(), roundAll(dt, refForward(c, x.values(), w.values(), &bv).exact), "fwd " + c.name());
      expectSameBits(dx.values(), roundAll(dt, refBackpropInput(c, w.values(), dy.values()).exact), "bpi " + c.name());
      expectSameBits(dw.values(), roundAll(dt, refBackpropFilter(c, x.values(), dy.values()).exact), "bpf " + c.name());
    }
}

// Note [Strided input gradient by phases]: with fp16-valued operands (fp16 data; fp32 under
// allow_fp32_to_fp16 or force_fp16) Conv2DBackpropInput with a stride skips the stride-dilated
// zeros; the bits are still the contract's chain over every (co, i, j) including the zeros. With
// an inf tap in the filter the zeros must be multiplied (NaN where 0 * inf meets), so the kernel
// keeps them. Strides 2 and 3, a 1x1 window (phases without taps), dilation, pads, groups, every
// SIMD level of the host.
TEST(KernelConv, StridedInputGradientByPhasesKeepsBits) {
  const Cfg cases[] = {Cfg{2, 16, 28, 28, 24, 3, 3, 2, 2, 1, 1, 1, 1}, Cfg{2, 17, 28, 30, 20, 1, 1, 2, 2},
                       Cfg{1, 5, 27, 40, 9, 3, 3, 3, 2, 0, 2, 1, 1}, Cfg{1, 6, 26, 30, 8, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2},
                       Cfg{2, 8, 24, 26, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2}};
  forEachHostIsa([&](HostIsa) {
    uint32_t seed = 900;
    for (const Cfg& c : cases)
      for (const PrecisionMode pm : {PrecisionMode::kAllowFp32ToFp16, PrecisionMode::kForceFp16})
        for (const bool inf_tap : {false, true}) {
          FormatTensor w = nchw(ACL_FLOAT, c.fs(), ++seed), dy = nchw(ACL_FLOAT, c.ys(), ++seed);
          if (inf_tap) storeFloat(ACL_FLOAT, w.arg.data, 4, 1, std::vector<float>{INFINITY}.data());
          LaunchContext ctx;
          ctx.precision = pm;
          FormatTensor dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs());
          run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, withShape(convAttrs(c), "input_size", c.xs()), ctx));
          std::vector<float> want =
              refBackpropInput(c, roundAll(ACL_FLOAT16, w.values()), roundAll(ACL_FLOAT16, dy.values())).exact;
          if (pm == PrecisionMode::kForceFp16) want = roundAll(ACL_FLOAT16, want);
          if (inf_tap) {  // NaN payloads are the host's; compare which elements are NaN, and the rest's bits
            const std::vector<float> got = dx.values();
            size_t nans = 0;
            for (size_t i = 0; i < got.size(); ++i) {
              ASSERT_EQ(std::isnan(got[i]), std::isnan(want[i])) << c.name() << " at " << i;
              if (std::isnan(want[i])) {
                ++nans;
              } else {
                ASSERT_EQ(got[i], want[i]) << c.name() << " at " << i;
              }
            }
            EXPECT_GT(nans, 0u) << c.name();
          } else {
            expectSameBits(dx.values(), want, "bpi " + c.name());
          }
        }
    for (const Cfg& c : cases) {  // fp16 data
      FormatTensor w = nchw(ACL_FLOAT16, c.fs(), ++seed, -2, 2), dy = nchw(ACL_FLOAT16, c.ys(), ++seed, -2, 2);
      FormatTensor dx(ACL_FORMAT_NCHW, ACL_FLOAT16, c.xs());
      run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, withShape(convAttrs(c), "input_size", c.xs())));
      expectSameBits(dx.values(), roundAll(ACL_FLOAT16, refBackpropInput(c, w.values(), dy.values()).exact),
                     "bpi fp16 " + c.name());
    }
  });
}

TEST(KernelConv, PrecisionModes) {
  const Cfg c = configs()[1];
  FormatTensor x = nchw(ACL_FLOAT, c.xs(), 601), w = nchw(ACL_FLOAT, c.fs(), 602), dy = nchw(ACL_FLOAT, c.ys(), 603);
  const std::vector<float> xh = roundAll(ACL_FLOAT16, x.values()), wh = roundAll(ACL_FLOAT16, w.values()),
                           dyh = roundAll(ACL_FLOAT16, dy.values());
  for (PrecisionMode pm :
       {PrecisionMode::kMustKeepOriginDtype, PrecisionMode::kAllowFp32ToFp16, PrecisionMode::kForceFp16}) {
    LaunchContext ctx;
    ctx.precision = pm;
    FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys()), dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs()),
        dw(ACL_FORMAT_NCHW, ACL_FLOAT, c.fs());
    run(opCall("Conv2D", {&x, &w}, {&y}, convAttrs(c), ctx));
    run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, withShape(convAttrs(c), "input_size", c.xs()), ctx));
    run(opCall("Conv2DBackpropFilter", {&x, &dy}, {&dw}, withShape(convAttrs(c), "filter_size", c.fs()), ctx));
    const bool keep = pm == PrecisionMode::kMustKeepOriginDtype;
    std::vector<float> ey = refForward(c, keep ? x.values() : xh, keep ? w.values() : wh, nullptr).exact;
    std::vector<float> edx = refBackpropInput(c, keep ? w.values() : wh, keep ? dy.values() : dyh).exact;
    std::vector<float> edw = refBackpropFilter(c, keep ? x.values() : xh, keep ? dy.values() : dyh).exact;
    if (pm == PrecisionMode::kForceFp16) {
      ey = roundAll(ACL_FLOAT16, ey);
      edx = roundAll(ACL_FLOAT16, edx);
      edw = roundAll(ACL_FLOAT16, edw);
    }
    expectSameBits(y.values(), ey, "fwd");
    expectSameBits(dx.values(), edx, "bpi");
    expectSameBits(dw.values(), edw, "bpf");
    if (!keep) {  // the mode has a visible effect on random fp32 data
      const std::vector<float> plain = refForward(c, x.values(), w.values(), nullptr).exact;
      EXPECT_NE(std::memcmp(plain.data(), y.values().data(), plain.size() * 4), 0);
    }
  }
  // Saturation mode: an operand beyond fp16 range saturates and raises the overflow flag.
  FormatTensor big = nchw(ACL_FLOAT, c.xs(), 604);
  storeFloat(ACL_FLOAT, big.arg.data, 3, 1, std::vector<float>{1e6f}.data());
  LaunchContext ctx;
  ctx.precision = PrecisionMode::kAllowFp32ToFp16;
  ctx.fp16_saturation = true;
  bool ovf = false;
  ctx.overflow = &ovf;
  FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys());
  run(opCall("Conv2D", {&big, &w}, {&y}, convAttrs(c), ctx));
  EXPECT_TRUE(ovf);
  std::vector<float> xs = roundAll(ACL_FLOAT16, big.values());
  xs[3] = 65504.0f;
  expectSameBits(y.values(), refForward(c, xs, wh, nullptr).exact, "saturated");
}

// Every operand in NC1HWC0 / FRACTAL_Z (pads poisoned) gives the NCHW result bit for bit; output
// pads are zero. Under every SIMD level of the host (Note [Conv operands from private formats]:
// the operands are read from the storage directly where it can) and in the precision modes that
// keep and that round fp32 operands (and results), with one operand value beyond fp16 range on a
// saturating chip: the same bits and the same overflow flag.
TEST(KernelConv, PrivateFormatsBitIdenticalToNchw) {
  LaunchContext rounding, forced;
  rounding.precision = PrecisionMode::kAllowFp32ToFp16;
  rounding.fp16_saturation = true;
  forced.precision = PrecisionMode::kForceFp16;  // fp32 results rounded through fp16 too
  forEachHostIsa([&](HostIsa) {
    uint32_t seed = 700;
    for (const LaunchContext& mode : {LaunchContext{}, rounding, forced})
      for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
        for (const Cfg& c : configs()) {
          // every other config: one value that saturates in fp16 (a different operand each time);
          // the others must raise no flag (the poisoned pads are NaN)
          const bool saturating = mode.fp16_saturation && dt == ACL_FLOAT && seed % 8 == 0;
          FormatTensor x = nchw(dt, c.xs(), ++seed), w = nchw(dt, c.fs(), ++seed), dy = nchw(dt, c.ys(), ++seed);
          FormatTensor b = nchw(dt, {c.co}, ++seed);
          if (saturating) {
            FormatTensor* big = seed % 3 == 0 ? &x : seed % 3 == 1 ? &w : &dy;
            storeFloat(ACL_FLOAT, big->arg.data, 1, 1, std::vector<float>{-1e6f}.data());
          }
          bool ovf_nchw = false, ovf_private = false;
          LaunchContext ctx_nchw = mode, ctx_private = mode;
          ctx_nchw.overflow = &ovf_nchw;
          ctx_private.overflow = &ovf_private;
          FormatTensor y(ACL_FORMAT_NCHW, dt, c.ys()), dx(ACL_FORMAT_NCHW, dt, c.xs()), dw(ACL_FORMAT_NCHW, dt, c.fs());
          const AttrMap bpi_attrs = withShape(convAttrs(c), "input_size", c.xs());
          const AttrMap bpf_attrs = withShape(convAttrs(c), "filter_size", c.fs());
          run(opCall("Conv2D", {&x, &w, &b}, {&y}, convAttrs(c), ctx_nchw));
          run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, bpi_attrs, ctx_nchw));
          run(opCall("Conv2DBackpropFilter", {&x, &dy}, {&dw}, bpf_attrs, ctx_nchw));
          FormatTensor x5 = transTo(x, ACL_FORMAT_NC1HWC0), wz = transTo(w, ACL_FORMAT_FRACTAL_Z),
                       dy5 = transTo(dy, ACL_FORMAT_NC1HWC0), b5 = transTo(b, ACL_FORMAT_NC1HWC0);
          for (FormatTensor* t : {&x5, &wz, &dy5, &b5}) poisonPads(*t);
          FormatTensor y5(ACL_FORMAT_NC1HWC0, dt, c.ys()), dx5(ACL_FORMAT_NC1HWC0, dt, c.xs()),
              dwz(ACL_FORMAT_FRACTAL_Z, dt, c.fs());
          run(opCall("Conv2D", {&x5, &wz, &b5}, {&y5}, convAttrs(c), ctx_private));
          run(opCall("Conv2DBackpropInput", {&wz, &dy5}, {&dx5}, bpi_attrs, ctx_private));
          run(opCall("Conv2DBackpropFilter", {&x5, &dy5}, {&dwz}, bpf_attrs, ctx_private));
          EXPECT_EQ(transTo(y5, ACL_FORMAT_NCHW).bytes(), y.bytes()) << c.name();
          EXPECT_EQ(transTo(dx5, ACL_FORMAT_NCHW).bytes(), dx.bytes()) << c.name();
          EXPECT_EQ(transTo(dwz, ACL_FORMAT_NCHW).bytes(), dw.bytes()) << c.name();
          EXPECT_EQ(ovf_private, ovf_nchw) << c.name();
          EXPECT_EQ(ovf_nchw, saturating) << c.name();
          expectZeroPads(y5, "y " + c.name());
          expectZeroPads(dx5, "dx " + c.name());
          expectZeroPads(dwz, "dw " + c.name());
          // Mixed: NCHW x with a FRACTAL_Z filter into an NC1HWC0 y.
          FormatTensor y5b(ACL_FORMAT_NC1HWC0, dt, c.ys());
          run(opCall("Conv2D", {&x, &wz, &b}, {&y5b}, convAttrs(c), mode));
          EXPECT_EQ(transTo(y5b, ACL_FORMAT_NCHW).bytes(), y.bytes()) << c.name();
        }
  });
}

TEST(KernelConv, DeterministicAcrossHostThreadCounts) {
  const Cfg c{3, 32, 15, 17, 48, 3, 3, 1, 1, 1, 1, 1, 1};
  FormatTensor x = nchw(ACL_FLOAT, c.xs(), 801), w = nchw(ACL_FLOAT, c.fs(), 802), dy = nchw(ACL_FLOAT, c.ys(), 803);
  std::vector<std::vector<uint8_t>> results;
  for (int threads : {1, 2, 3, 0}) {
    setHostThreadLimitForTesting(threads);
    FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys()), dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs()),
        dw(ACL_FORMAT_NCHW, ACL_FLOAT, c.fs());
    run(opCall("Conv2D", {&x, &w}, {&y}, convAttrs(c)));
    run(opCall("Conv2DBackpropInput", {&w, &dy}, {&dx}, withShape(convAttrs(c), "input_size", c.xs())));
    run(opCall("Conv2DBackpropFilter", {&x, &dy}, {&dw}, withShape(convAttrs(c), "filter_size", c.fs())));
    std::vector<uint8_t> all = y.bytes();
    for (const auto& v : {dx.bytes(), dw.bytes()}) all.insert(all.end(), v.begin(), v.end());
    results.push_back(all);
  }
  setHostThreadLimitForTesting(0);
  for (size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[i], results[0]) << "thread setting " << i;
}

TEST(KernelConv, Cost) {
  const Cfg c{2, 64, 16, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1};
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT16, c.xs()), w(ACL_FORMAT_NCHW, ACL_FLOAT16, c.fs()),
      y(ACL_FORMAT_NCHW, ACL_FLOAT16, c.ys());
  KernelCost k = kernel("Conv2D").cost(opCall("Conv2D", {&x, &w}, {&y}, convAttrs(c)));
  EXPECT_EQ(k.core, CoreType::kCube);
  EXPECT_EQ(k.cube_macs, 512.0 * 576 * 64);  // M = N*Ho*Wo, K = Ci*kh*kw, N = Co
  EXPECT_EQ(k.flops, 2.0 * 512 * 576 * 64);
  EXPECT_EQ(k.mte_bytes, 2.0 * (2 * 64 * 16 * 16 * 2 + 64 * 64 * 9));
  EXPECT_GE(k.block_dim, 1u);
  EXPECT_LE(k.block_dim, 32u);
  // Depthwise: per group M = 512 (padded 512), K = 9 -> 16, N = 1 -> 16.
  const Cfg d{2, 64, 16, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64};
  FormatTensor wd(ACL_FORMAT_NCHW, ACL_FLOAT16, d.fs());
  k = kernel("Conv2D").cost(opCall("Conv2D", {&x, &wd}, {&y}, convAttrs(d)));
  EXPECT_EQ(k.cube_macs, 64.0 * 512 * 16 * 16);
  // Backprop filter: M = Co = 64, K = N*Ho*Wo = 512, N = Ci*kh*kw = 576; private formats count padded bytes.
  FormatTensor x5(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {2, 20, 16, 16}),
      dy5(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {2, 20, 16, 16});
  FormatTensor dwz(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT16, {20, 20, 3, 3});
  const Cfg e{2, 20, 16, 16, 20, 3, 3, 1, 1, 1, 1, 1, 1};
  k = kernel("Conv2DBackpropFilter")
          .cost(opCall("Conv2DBackpropFilter", {&x5, &dy5}, {&dwz}, withShape(convAttrs(e), "filter_size", e.fs())));
  EXPECT_EQ(k.core, CoreType::kCube);
  EXPECT_EQ(k.cube_macs, 32.0 * 512 * 192);
  EXPECT_EQ(k.mte_bytes, 2.0 * (2 * (2 * 2 * 16 * 16 * 16) + 2 * 9 * 2 * 256));
}

TEST(KernelConv, ValidationErrors) {
  const Cfg c{2, 8, 6, 6, 4, 3, 3};
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs()), y(ACL_FORMAT_NCHW, ACL_FLOAT, c.ys());
  FormatTensor w3(ACL_FORMAT_NCHW, ACL_FLOAT, {4, 3, 3, 3});
  AttrMap g2 = convAttrs(c);
  g2.set("groups", int64_t{2});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w3}, {&y}, g2), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "filter channels 3 x groups 2 != input channels 8");
  FormatTensor w(ACL_FORMAT_NCHW, ACL_FLOAT, c.fs()), ybad(ACL_FORMAT_NCHW, ACL_FLOAT, {2, 4, 5, 4});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w}, {&ybad}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must be [2,4,4,4]");
  FormatTensor w5(ACL_FORMAT_NCHW, ACL_FLOAT, {5, 4, 3, 3});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w5}, {&y}, g2), ACL_ERROR_OP_INPUT_NOT_MATCH, "not divisible by groups 2");
  FormatTensor wh(ACL_FORMAT_NCHW, ACL_FLOAT16, c.fs());
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &wh}, {&y}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input filter dtype float16 does not match input x dtype float32");
  FormatTensor xi(ACL_FORMAT_NCHW, ACL_INT32, c.xs());
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&xi, &w}, {&y}, convAttrs(c)), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  FormatTensor xz(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, c.xs());
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&xz, &w}, {&y}, convAttrs(c)), ACL_ERROR_OP_UNSUPPORTED_FORMAT, "NC1HWC0");
  FormatTensor bias(ACL_FORMAT_ND, ACL_FLOAT, {5});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w, &bias}, {&y}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "bias shape [5]");
  AttrMap bad = convAttrs(c);
  bad.set("strides", std::vector<int64_t>{0, 1});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w}, {&y}, bad), ACL_ERROR_OP_ATTR_NOT_MATCH, "strides");
  bad = convAttrs(c);
  bad.set("pads", std::vector<int64_t>{1, 1});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &w}, {&y}, bad), ACL_ERROR_OP_ATTR_NOT_MATCH, "'pads' must have 4 values");
  FormatTensor wbig(ACL_FORMAT_NCHW, ACL_FLOAT, {4, 8, 7, 7});
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x, &wbig}, {&y}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "larger than the padded input");
  FormatTensor dx(ACL_FORMAT_NCHW, ACL_FLOAT, c.xs());
  EXPECT_KERNEL_ERROR(opCall("Conv2DBackpropInput", {&w, &y}, {&dx}, convAttrs(c)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "input_size");
  EXPECT_KERNEL_ERROR(
      opCall("Conv2DBackpropInput", {&w, &y}, {&dx}, withShape(convAttrs(c), "input_size", {2, 8, 6, 7})),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "does not match input_size [2,8,6,7]");
  FormatTensor dw(ACL_FORMAT_NCHW, ACL_FLOAT, c.fs());
  EXPECT_KERNEL_ERROR(
      opCall("Conv2DBackpropFilter", {&x, &y}, {&dw}, withShape(convAttrs(c), "filter_size", {4, 8, 3, 2})),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "filter_size");
  // Wrong storage shape for a private-format descriptor.
  FormatTensor x5(ACL_FORMAT_NC1HWC0, ACL_FLOAT, c.xs());
  x5.arg.shape = {2, 1, 6, 6, 8};
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x5, &w}, {&y}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH, "storage shape");
  EXPECT_KERNEL_ERROR(opCall("Conv2D", {&x}, {&y}, convAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 2..3 inputs");
}

// ---- through aclopExecuteV2 -----------------------------------------------------------------

TEST(KernelConv, RuntimeConv2DOn5hdWithFractalZFilter) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  const Cfg c{1, 20, 5, 6, 18, 3, 3, 1, 1, 1, 1, 1, 1};
  FormatTensor x = nchw(ACL_FLOAT16, c.xs(), 1001), w = nchw(ACL_FLOAT16, c.fs(), 1002);
  FormatTensor x5 = transTo(x, ACL_FORMAT_NC1HWC0), wz = transTo(w, ACL_FORMAT_FRACTAL_Z);
  FormatTensor y(ACL_FORMAT_NCHW, ACL_FLOAT16, c.ys());
  run(opCall("Conv2D", {&x, &w}, {&y}, convAttrs(c)));
  const Shape xs = c.xs(), fs = c.fs(), ys = c.ys();
  auto devCopy = [](const FormatTensor& t) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, t.arg.bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ACL_OK(aclrtMemcpy(p, t.arg.bytes, t.arg.data, t.arg.bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return p;
  };
  void* dx = devCopy(x5);
  void* dwp = devCopy(wz);
  FormatTensor y5(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, ys);
  void* dy = devCopy(y5);
  aclTensorDesc* xd = aclCreateTensorDesc(ACL_FLOAT16, 5, x5.arg.shape.data(), ACL_FORMAT_NC1HWC0);
  ASSERT_ACL_OK(aclSetTensorOriginShape(xd, 4, xs.data()));
  ASSERT_ACL_OK(aclSetTensorOriginFormat(xd, ACL_FORMAT_NCHW));
  aclTensorDesc* wd = aclCreateTensorDesc(ACL_FLOAT16, 4, wz.arg.shape.data(), ACL_FORMAT_FRACTAL_Z);
  ASSERT_ACL_OK(aclSetTensorOriginShape(wd, 4, fs.data()));
  ASSERT_ACL_OK(aclSetTensorOriginFormat(wd, ACL_FORMAT_NCHW));
  aclTensorDesc* yd = aclCreateTensorDesc(ACL_FLOAT16, 5, y5.arg.shape.data(), ACL_FORMAT_NC1HWC0);
  ASSERT_ACL_OK(aclSetTensorOriginShape(yd, 4, ys.data()));
  ASSERT_ACL_OK(aclSetTensorOriginFormat(yd, ACL_FORMAT_NCHW));
  aclDataBuffer* xb = aclCreateDataBuffer(dx, x5.arg.bytes);
  aclDataBuffer* wb = aclCreateDataBuffer(dwp, wz.arg.bytes);
  aclDataBuffer* yb = aclCreateDataBuffer(dy, y5.arg.bytes);
  aclopAttr* attr = aclopCreateAttr();
  const int64_t strides[] = {1, 1}, pads[] = {1, 1, 1, 1}, dil[] = {1, 1};
  ASSERT_ACL_OK(aclopSetAttrListInt(attr, "strides", 2, strides));
  ASSERT_ACL_OK(aclopSetAttrListInt(attr, "pads", 4, pads));
  ASSERT_ACL_OK(aclopSetAttrListInt(attr, "dilations", 2, dil));
  ASSERT_ACL_OK(aclopSetAttrInt(attr, "groups", 1));
  aclTensorDesc* in[] = {xd, wd};
  aclDataBuffer* inb[] = {xb, wb};
  aclTensorDesc* out[] = {yd};
  aclDataBuffer* outb[] = {yb};
  ASSERT_ACL_OK(aclopExecuteV2("Conv2D", 2, in, inb, 1, out, outb, attr, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclrtMemcpy(y5.arg.data, y5.arg.bytes, dy, y5.arg.bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(transTo(y5, ACL_FORMAT_NCHW).bytes(), y.bytes());
  // A groups mismatch is reported at launch.
  ASSERT_ACL_OK(aclopSetAttrInt(attr, "groups", 3));
  EXPECT_ACL_ERR(aclopExecuteV2("Conv2D", 2, in, inb, 1, out, outb, attr, nullptr), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_NE(lastAclMessage().find("Conv2D: filter channels 20 x groups 3 != input channels 20"), std::string::npos)
      << lastAclMessage();
  aclopDestroyAttr(attr);
  for (aclDataBuffer* b : {xb, wb, yb}) aclDestroyDataBuffer(b);
  for (aclTensorDesc* d : {xd, wd, yd}) aclDestroyTensorDesc(d);
  for (void* p : {dx, dwp, dy}) aclrtFree(p);
}

}  // namespace
