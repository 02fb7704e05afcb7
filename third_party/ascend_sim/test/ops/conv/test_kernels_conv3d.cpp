// Conv3D, Conv3DBackpropInput, Conv3DBackpropFilter against double
// references written here from the definitions (Note [3-D convolution]):
// strides, pads, dilations, groups, bias, fp32 (one fp32 accumulator in the
// stated order: exact to a few ulps) and fp16 (one rounding), the adjoint
// identities, cropped outputs, precision modes and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "format_test_util.h"
#include "kernel_test_util.h"
#include "pointwise_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

struct Cfg {
  int64_t n, ci, co, groups;
  int64_t in[3], k[3], s[3], pad[3], dil[3];
  int64_t out(int d) const { return (in[d] + 2 * pad[d] - dil[d] * (k[d] - 1) - 1) / s[d] + 1; }
  Shape xs() const { return {n, ci, in[0], in[1], in[2]}; }
  Shape fs() const { return {co, ci / groups, k[0], k[1], k[2]}; }
  Shape ys() const { return {n, co, out(0), out(1), out(2)}; }
  AttrMap attrs() const {
    AttrMap m;
    m.set("strides", std::vector<int64_t>{s[0], s[1], s[2]});
    m.set("pads", std::vector<int64_t>{pad[0], pad[0], pad[1], pad[1], pad[2], pad[2]});
    m.set("dilations", std::vector<int64_t>{dil[0], dil[1], dil[2]});
    m.set("groups", groups);
    return m;
  }
};

const std::vector<Cfg>& configs() {
  static const std::vector<Cfg> v = {
      {2, 3, 4, 1, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
      {1, 4, 6, 2, {6, 7, 5}, {2, 3, 2}, {2, 1, 2}, {1, 1, 0}, {1, 2, 1}},
      {2, 6, 3, 3, {3, 4, 4}, {1, 2, 3}, {1, 2, 1}, {0, 1, 1}, {1, 1, 2}},
  };
  return v;
}

int64_t numel(const Shape& s) { return numelOf(s); }

// y (double) of the definition; dx and dw of <y, dy>.
std::vector<double> refForward(const Cfg& c, const std::vector<float>& x, const std::vector<float>& w,
                               const std::vector<float>* bias) {
  const Shape ys = c.ys();
  std::vector<double> y(static_cast<size_t>(numel(ys)), 0.0);
  const int64_t cig = c.ci / c.groups, cog = c.co / c.groups;
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t co = 0; co < c.co; ++co)
      for (int64_t od = 0; od < ys[2]; ++od)
        for (int64_t oh = 0; oh < ys[3]; ++oh)
          for (int64_t ow = 0; ow < ys[4]; ++ow) {
            double acc = bias ? (*bias)[co] : 0.0;
            for (int64_t cl = 0; cl < cig; ++cl)
              for (int64_t a = 0; a < c.k[0]; ++a)
                for (int64_t i = 0; i < c.k[1]; ++i)
                  for (int64_t j = 0; j < c.k[2]; ++j) {
                    const int64_t pd = od * c.s[0] - c.pad[0] + a * c.dil[0],
                                  ph = oh * c.s[1] - c.pad[1] + i * c.dil[1],
                                  pw = ow * c.s[2] - c.pad[2] + j * c.dil[2];
                    if (pd < 0 || pd >= c.in[0] || ph < 0 || ph >= c.in[1] || pw < 0 || pw >= c.in[2]) continue;
                    const int64_t ci = co / cog * cig + cl;
                    acc += static_cast<double>(x[(((n * c.ci + ci) * c.in[0] + pd) * c.in[1] + ph) * c.in[2] + pw]) *
                           w[(((co * cig + cl) * c.k[0] + a) * c.k[1] + i) * c.k[2] + j];
                  }
            y[(((n * c.co + co) * ys[2] + od) * ys[3] + oh) * ys[4] + ow] = acc;
          }
  return y;
}

double dot(const std::vector<float>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

TEST(KernelConv3d, ForwardMatchesTheDefinition) {
  uint32_t seed = 10;
  for (const Cfg& c : configs())
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      const auto xv = roundedTo(dt, randomFloats(numel(c.xs()), -1, 1, ++seed));
      const auto wv = roundedTo(dt, randomFloats(numel(c.fs()), -1, 1, ++seed));
      const auto bv = roundedTo(dt, randomFloats(c.co, -1, 1, ++seed));
      HostTensor x = HostTensor::floats(dt, c.xs(), xv), w = HostTensor::floats(dt, c.fs(), wv),
                 b = HostTensor::floats(dt, {c.co}, bv), y(dt, c.ys());
      run(makeCall("Conv3D", {&x, &w, &b}, {&y}, c.attrs()));
      expectNear(dt, y.toFloats(), refForward(c, xv, wv, &bv), 8, 1);
    }
}

// <conv(x), dy> = <x, bpi(dy)> = <w, bpf(x, dy)>, with bpi and bpf checked elementwise through
// one-hot probes of the definition (every dx / dw element is a sum over the same products).
TEST(KernelConv3d, BackpropsAreTheAdjoints) {
  uint32_t seed = 40;
  for (const Cfg& c : configs()) {
    const auto xv = randomFloats(numel(c.xs()), -1, 1, ++seed), wv = randomFloats(numel(c.fs()), -1, 1, ++seed);
    const auto dyv = randomFloats(numel(c.ys()), -1, 1, ++seed);
    HostTensor x = HostTensor::floats(ACL_FLOAT, c.xs(), xv), w = HostTensor::floats(ACL_FLOAT, c.fs(), wv);
    HostTensor dy = HostTensor::floats(ACL_FLOAT, c.ys(), dyv), dx(ACL_FLOAT, c.xs()), dw(ACL_FLOAT, c.fs());
    AttrMap bpi = c.attrs(), bpf = c.attrs();
    const Shape xs = c.xs(), fs = c.fs();
    bpi.set("input_size", std::vector<int64_t>(xs.begin(), xs.end()));
    bpf.set("filter_size", std::vector<int64_t>(fs.begin(), fs.end()));
    run(makeCall("Conv3DBackpropInput", {&w, &dy}, {&dx}, bpi));
    run(makeCall("Conv3DBackpropFilter", {&x, &dy}, {&dw}, bpf));
    // dx[e] = <conv(onehot_e, w), dy>, dw[e] = <conv(x, onehot_e), dy>
    const std::vector<float> gdx = dx.toFloats(), gdw = dw.toFloats();
    std::vector<double> dyd(dyv.begin(), dyv.end());
    for (size_t e = 0; e < xv.size(); e += 7) {
      std::vector<float> probe(xv.size(), 0.0f);
      probe[e] = 1.0f;
      const double want = dot(std::vector<float>(dyv), refForward(c, probe, wv, nullptr));
      EXPECT_NEAR(gdx[e], want, 1e-5 * (1 + std::fabs(want))) << "dx " << e;
    }
    for (size_t e = 0; e < wv.size(); e += 3) {
      std::vector<float> probe(wv.size(), 0.0f);
      probe[e] = 1.0f;
      const double want = dot(std::vector<float>(dyv), refForward(c, xv, probe, nullptr));
      EXPECT_NEAR(gdw[e], want, 1e-5 * (1 + std::fabs(want)) * std::sqrt(static_cast<double>(c.n * numel(c.ys()))))
          << "dw " << e;
    }
  }
}

TEST(KernelConv3d, CroppedOutputAndPrecisionMode) {
  const Cfg c = configs()[1];
  HostTensor x = HostTensor::floats(ACL_FLOAT, c.xs(), randomFloats(numel(c.xs()), -1, 1, 3));
  HostTensor w = HostTensor::floats(ACL_FLOAT, c.fs(), randomFloats(numel(c.fs()), -1, 1, 4));
  HostTensor y(ACL_FLOAT, c.ys());
  Shape cropped = c.ys();
  cropped[2] -= 1;  // stride 2 in depth: one trailing plane may be missing
  HostTensor yc(ACL_FLOAT, cropped);
  run(makeCall("Conv3D", {&x, &w}, {&y}, c.attrs()));
  run(makeCall("Conv3D", {&x, &w}, {&yc}, c.attrs()));
  const std::vector<float> full = y.toFloats(), part = yc.toFloats();
  const int64_t plane = c.ys()[3] * c.ys()[4];
  for (int64_t nc = 0; nc < c.n * c.co; ++nc)
    for (int64_t e = 0; e < cropped[2] * plane; ++e)
      ASSERT_EQ(part[nc * cropped[2] * plane + e], full[(nc * c.ys()[2]) * plane + e]);
  // allow_fp32_to_fp16: the fp32 operands are rounded to fp16 first
  OpCall call = makeCall("Conv3D", {&x, &w}, {&y}, c.attrs());
  call.ctx.precision = PrecisionMode::kAllowFp32ToFp16;
  run(call);
  const std::vector<float> xh = roundedTo(ACL_FLOAT16, x.toFloats()), wh = roundedTo(ACL_FLOAT16, w.toFloats());
  expectNear(ACL_FLOAT, y.toFloats(), refForward(c, xh, wh, nullptr), 8, 1);
}

TEST(KernelConv3d, ValidationErrors) {
  const Cfg c = configs()[0];
  HostTensor x(ACL_FLOAT, c.xs()), w(ACL_FLOAT, c.fs()), y(ACL_FLOAT, c.ys());
  HostTensor x4(ACL_FLOAT, {2, 3, 4, 5});
  EXPECT_KERNEL_ERROR(makeCall("Conv3D", {&x4, &w}, {&y}, c.attrs()), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 5-D");
  HostTensor ybad(ACL_FLOAT, {2, 4, 2, 3, 3});
  EXPECT_KERNEL_ERROR(makeCall("Conv3D", {&x, &w}, {&ybad}, c.attrs()), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "(N, Co, Do, Ho, Wo)");
  HostTensor wbad(ACL_FLOAT, {4, 2, 3, 3, 3});
  EXPECT_KERNEL_ERROR(makeCall("Conv3D", {&x, &wbad}, {&y}, c.attrs()), ACL_ERROR_OP_INPUT_NOT_MATCH, "does not fit");
  HostTensor wh(ACL_FLOAT16, c.fs());
  EXPECT_KERNEL_ERROR(makeCall("Conv3D", {&x, &wh}, {&y}, c.attrs()), ACL_ERROR_OP_INPUT_NOT_MATCH, "dtype");
  AttrMap bad = c.attrs();
  bad.set("pads", std::vector<int64_t>{1, 1});
  EXPECT_KERNEL_ERROR(makeCall("Conv3D", {&x, &w}, {&y}, bad), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "'pads' must have 6 values");
  HostTensor dx(ACL_FLOAT, c.xs());
  EXPECT_KERNEL_ERROR(makeCall("Conv3DBackpropInput", {&w, &y}, {&dx}, c.attrs()), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "input_size");
  const KernelCost cost = kernel("Conv3D").cost(makeCall("Conv3D", {&x, &w}, {&y}, c.attrs()));
  EXPECT_EQ(cost.core, CoreType::kCube);
  EXPECT_GE(cost.cube_macs, static_cast<double>(c.n * numel(c.ys()) / c.n * 27 * 3));
}

// Every operand in NDC1HWC0 / FRACTAL_Z_3D (pads poisoned with NaN) gives the NCDHW result bit for bit, in the
// precision modes that keep and that round fp32 operands; output pads are zero; a mix of formats works too.
TEST(KernelConv3d, PrivateFormatsBitIdenticalToNcdhw) {
  LaunchContext rounding;
  rounding.precision = PrecisionMode::kAllowFp32ToFp16;
  uint32_t seed = 900;
  const auto random = [&](aclDataType dt, const Shape& s) {
    FormatTensor t(s.size() == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND, dt, s);
    t.set(randomFloats(static_cast<size_t>(numelOf(s)), -1, 1, ++seed));
    return t;
  };
  for (const LaunchContext& mode : {LaunchContext{}, rounding})
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
      for (const Cfg& c : configs()) {
        const Shape xs = c.xs(), fs = c.fs(), ys = c.ys();
        AttrMap bpi = c.attrs(), bpf = c.attrs();
        bpi.set("input_size", std::vector<int64_t>(xs.begin(), xs.end()));
        bpf.set("filter_size", std::vector<int64_t>(fs.begin(), fs.end()));
        FormatTensor x = random(dt, xs), w = random(dt, fs), dy = random(dt, ys), b = random(dt, {c.co});
        FormatTensor y(ACL_FORMAT_NCDHW, dt, ys), dx(ACL_FORMAT_NCDHW, dt, xs), dw(ACL_FORMAT_NCDHW, dt, fs);
        run(opCall("Conv3D", {&x, &w, &b}, {&y}, c.attrs(), mode));
        run(opCall("Conv3DBackpropInput", {&w, &dy}, {&dx}, bpi, mode));
        run(opCall("Conv3DBackpropFilter", {&x, &dy}, {&dw}, bpf, mode));
        FormatTensor x6 = transTo(x, ACL_FORMAT_NDC1HWC0), wz = transTo(w, ACL_FRACTAL_Z_3D),
                     dy6 = transTo(dy, ACL_FORMAT_NDC1HWC0);
        for (FormatTensor* t : {&x6, &wz, &dy6}) poisonPads(*t);
        FormatTensor y6(ACL_FORMAT_NDC1HWC0, dt, ys), dx6(ACL_FORMAT_NDC1HWC0, dt, xs), dwz(ACL_FRACTAL_Z_3D, dt, fs);
        run(opCall("Conv3D", {&x6, &wz, &b}, {&y6}, c.attrs(), mode));
        run(opCall("Conv3DBackpropInput", {&wz, &dy6}, {&dx6}, bpi, mode));
        run(opCall("Conv3DBackpropFilter", {&x6, &dy6}, {&dwz}, bpf, mode));
        EXPECT_EQ(transTo(y6, ACL_FORMAT_NCDHW).bytes(), y.bytes());
        EXPECT_EQ(transTo(dx6, ACL_FORMAT_NCDHW).bytes(), dx.bytes());
        EXPECT_EQ(transTo(dwz, ACL_FORMAT_NCDHW).bytes(), dw.bytes());
        expectZeroPads(y6, "y");
        expectZeroPads(dx6, "dx");
        expectZeroPads(dwz, "dw");
        FormatTensor y_mixed(ACL_FORMAT_NCDHW, dt, ys);  // NCDHW x, FRACTAL_Z_3D filter
        run(opCall("Conv3D", {&x, &wz, &b}, {&y_mixed}, c.attrs(), mode));
        EXPECT_EQ(y_mixed.bytes(), y.bytes());
      }
  const Cfg& c = configs()[0];
  FormatTensor x(ACL_FORMAT_NCDHW, ACL_FLOAT, c.xs()), w(ACL_FORMAT_NCDHW, ACL_FLOAT, c.fs());
  FormatTensor wrong(ACL_FRACTAL_Z_3D, ACL_FLOAT, c.xs()), y(ACL_FORMAT_NCDHW, ACL_FLOAT, c.ys());
  EXPECT_KERNEL_ERROR(opCall("Conv3D", {&wrong, &w}, {&y}, c.attrs()), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "supported: ND, NCDHW or NDC1HWC0");
}

// Note [3-D convolution on the 2-D Cube path]: the Cube's products give the reference loops' bits
// (the portable SIMD level runs the loops), for fp32 and fp16, the precision modes, strides the
// host's strided read does and does not take, pads beyond the window's reach, dilation, groups,
// bias, a cropped y, an empty batch, and an infinite filter tap (its zero products are NaN in both);
// with every operand in NDC1HWC0 / FRACTAL_Z_3D too (pads poisoned; the products read and write
// those layouts directly where they can, Note [Conv operands from private formats]).
TEST(KernelConv3d, CubePathBitIdenticalToTheReferenceLoops) {
  std::vector<Cfg> cfgs = configs();
  cfgs.push_back({2, 20, 18, 1, {5, 9, 11}, {3, 3, 3}, {2, 2, 3}, {1, 1, 2}, {1, 1, 1}});
  cfgs.push_back({1, 16, 32, 2, {4, 6, 7}, {2, 1, 2}, {1, 1, 1}, {3, 0, 2}, {2, 1, 1}});
  cfgs.push_back({0, 3, 4, 1, {3, 4, 4}, {1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}});
  cfgs.push_back({2, 17, 33, 1, {4, 6, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}});
  cfgs.push_back({1, 18, 20, 1, {5, 7, 6}, {3, 3, 3}, {2, 2, 1}, {1, 1, 1}, {1, 1, 1}});
  LaunchContext rounding, fp16;
  rounding.precision = PrecisionMode::kAllowFp32ToFp16;
  fp16.precision = PrecisionMode::kForceFp16;
  // The three ops' output bytes (as NCDHW) for one case at the current SIMD level.
  const auto outputs = [](const Cfg& c, aclDataType dt, const LaunchContext& mode, bool inf_tap, bool cropped,
                          bool private_formats) {
    uint32_t seed = 70;
    const auto random = [&](const Shape& s) {
      FormatTensor t(s.size() == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND, dt, s);
      t.set(randomFloats(static_cast<size_t>(numelOf(s)), -1, 1, ++seed));
      return t;
    };
    Shape ys = c.ys();
    if (cropped) ys[4] -= 1;  // width stride 3: up to two trailing columns may be missing
    const Shape xs = c.xs(), fs = c.fs();
    AttrMap bpi = c.attrs(), bpf = c.attrs();
    bpi.set("input_size", std::vector<int64_t>(xs.begin(), xs.end()));
    bpf.set("filter_size", std::vector<int64_t>(fs.begin(), fs.end()));
    FormatTensor x = random(xs), w = random(fs), dy = random(ys), b = random({c.co});
    if (inf_tap) {
      std::vector<float> wv = w.values();
      wv[wv.size() / 2] = INFINITY;
      w.set(wv);
    }
    const aclFormat act = private_formats ? ACL_FORMAT_NDC1HWC0 : ACL_FORMAT_NCDHW;
    const aclFormat filt = private_formats ? ACL_FRACTAL_Z_3D : ACL_FORMAT_NCDHW;
    if (private_formats) {
      x = transTo(x, act), w = transTo(w, filt), dy = transTo(dy, act);
      for (FormatTensor* t : {&x, &w, &dy}) poisonPads(*t);
    }
    FormatTensor y(act, dt, ys), dx(act, dt, xs), dw(filt, dt, fs);
    run(opCall("Conv3D", {&x, &w, &b}, {&y}, c.attrs(), mode));
    run(opCall("Conv3DBackpropInput", {&w, &dy}, {&dx}, bpi, mode));
    run(opCall("Conv3DBackpropFilter", {&x, &dy}, {&dw}, bpf, mode));
    std::vector<std::vector<uint8_t>> bytes;
    for (const FormatTensor* t : {&y, &dx, &dw}) {
      if (private_formats) expectZeroPads(*t, "output");
      bytes.push_back(private_formats ? transTo(*t, ACL_FORMAT_NCDHW).bytes() : t->bytes());
    }
    return bytes;
  };
  int cube_levels = 0;
  for (size_t ci = 0; ci < cfgs.size(); ++ci)
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
      for (const LaunchContext& ctx : {LaunchContext{}, rounding, fp16})
        for (bool inf_tap : {false, true}) {
          const bool cropped = ci == 3;
          std::vector<std::vector<std::vector<uint8_t>>> runs;  // per level: NCDHW, private formats
          forEachHostIsa([&](HostIsa level) {
            if (level != HostIsa::kPortable) ++cube_levels;
            runs.push_back(outputs(cfgs[ci], dt, ctx, inf_tap, cropped, false));
            runs.push_back(outputs(cfgs[ci], dt, ctx, inf_tap, cropped, true));
          });
          for (size_t r = 0; r + 1 < runs.size(); ++r)
            for (size_t op = 0; op < 3; ++op)
              EXPECT_EQ(runs[r][op], runs[runs.size() - 2][op])
                  << "config " << ci << " dtype " << dt << " op " << op << " inf tap " << inf_tap << " run " << r;
        }
  if (cube_levels == 0) GTEST_SKIP() << "this host's Cube does not read in place (no AVX2): nothing to compare";
}
