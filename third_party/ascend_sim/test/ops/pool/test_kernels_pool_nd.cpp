// N-d pooling kernels (Note [N-d pooling numerics]): AdaptiveMaxPool2d/3d,
// AdaptiveAvgPool3d, AvgPool3D, MaxPool3DWithArgmax and their gradients
// against a reference that enumerates every window from PyTorch's
// definitions (double sums): padding, strides, dilation, ceil_mode,
// count_include_pad, divisor_override, NaN, fp32 / fp16, empty batches,
// thread-count independence and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

struct PoolCase {
  std::string op;  // forward op type
  Shape x, y;
  AttrMap attrs;
  bool max;
};

// Reference window (flat plane offsets) of output flat position q, and the divisor.
struct RefWindow {
  std::vector<int64_t> offsets;
  double divisor = 1;
  bool sequential = false;    // adaptive avg: one division per dim
  std::vector<double> parts;  // the per-dim window sizes
};

int64_t attrAt(const AttrMap& a, const char* name, size_t i, int64_t fallback) {
  if (!a.has(name)) return fallback;
  const auto& v = a.get<std::vector<int64_t>>(name);
  return v.size() == 1 ? v[0] : v[i];
}

RefWindow window(const PoolCase& c, int64_t q) {
  const size_t r = c.x.size() - 2;
  std::vector<int64_t> o(r);
  for (size_t a = r; a-- > 0;) o[a] = q % c.y[a + 2], q /= c.y[a + 2];
  std::vector<std::vector<int64_t>> lists(r);
  RefWindow w;
  double include = 1, clipped = 1;
  for (size_t a = 0; a < r; ++a) {
    const int64_t in = c.x[a + 2], out = c.y[a + 2];
    if (c.op.rfind("Adaptive", 0) == 0) {
      const int64_t st = static_cast<int64_t>(std::floor(static_cast<double>(o[a] * in) / out));
      const int64_t en = static_cast<int64_t>(std::ceil(static_cast<double>((o[a] + 1) * in) / out));
      for (int64_t i = st; i < en; ++i) lists[a].push_back(i);
      w.parts.push_back(static_cast<double>(en - st));
      continue;
    }
    const int64_t k = attrAt(c.attrs, "ksize", a, 1), s = attrAt(c.attrs, "strides", a, 1);
    const int64_t p = attrAt(c.attrs, "pads", a, 0), d = attrAt(c.attrs, "dilations", a, 1);
    if (c.max) {
      for (int64_t m = 0; m < k; ++m) {
        const int64_t i = o[a] * s - p + m * d;
        if (i >= 0 && i < in) lists[a].push_back(i);
      }
    } else {
      const int64_t st = o[a] * s - p, en = std::min(st + k, in + p);
      include *= static_cast<double>(en - st);
      for (int64_t i = std::max<int64_t>(st, 0); i < std::min(en, in); ++i) lists[a].push_back(i);
      clipped *= static_cast<double>(lists[a].size());
    }
  }
  w.sequential = c.op == "AdaptiveAvgPool3d";
  const bool cip = c.attrs.has("count_include_pad") ? c.attrs.get<bool>("count_include_pad") : true;
  const int64_t div = c.attrs.has("divisor_override") ? c.attrs.get<int64_t>("divisor_override") : 0;
  w.divisor = div != 0 ? static_cast<double>(div) : (cip ? include : clipped);
  std::vector<int64_t> offs = {0};
  for (size_t a = 0; a < r; ++a) {
    std::vector<int64_t> next;
    for (int64_t b : offs)
      for (int64_t i : lists[a]) next.push_back(b * c.x[a + 2] + i);
    if (lists[a].empty()) next.clear();
    offs.swap(next);
  }
  w.offsets = offs;
  return w;
}

std::string gradOp(const PoolCase& c) {
  return c.op == "MaxPool3DWithArgmax" ? "MaxPool3DGradWithArgmax" : c.op + "Grad";
}

const std::vector<PoolCase>& cases() {
  using V = std::vector<int64_t>;
  static const std::vector<PoolCase> v = {
      {"AdaptiveMaxPool2d", {2, 3, 7, 5}, {2, 3, 3, 4}, attrs({{"output_size", V{3, 4}}}), true},
      {"AdaptiveMaxPool3d", {1, 2, 5, 4, 3}, {1, 2, 2, 3, 2}, attrs({{"output_size", V{2, 3, 2}}}), true},
      {"AdaptiveAvgPool3d", {1, 2, 5, 4, 3}, {1, 2, 3, 2, 2}, attrs({{"output_size", V{3, 2, 2}}}), false},
      {"AvgPool3D", {2, 2, 5, 6, 4}, {2, 2, 3, 6, 2},
       attrs({{"ksize", V{2, 3, 2}}, {"strides", V{2, 1, 2}}, {"pads", V{1, 1, 0}}}), false},
      {"AvgPool3D", {2, 2, 5, 6, 4}, {2, 2, 3, 6, 2},
       attrs({{"ksize", V{2, 3, 2}}, {"strides", V{2, 1, 2}}, {"pads", V{1, 1, 0}}, {"count_include_pad", false}}),
       false},
      {"AvgPool3D", {1, 2, 5, 5, 5}, {1, 2, 3, 3, 3},
       attrs({{"ksize", V{3}}, {"strides", V{2}}, {"pads", V{1}}, {"ceil_mode", true}, {"divisor_override", int64_t{5}}}),
       false},
      {"MaxPool3DWithArgmax", {2, 2, 6, 7, 5}, {2, 2, 3, 3, 3},
       attrs({{"ksize", V{3}}, {"strides", V{2}}, {"pads", V{1}}, {"dilations", V{1, 2, 1}}}), true},
      {"MaxPool3DWithArgmax", {1, 2, 5, 5, 5}, {1, 2, 3, 3, 3},
       attrs({{"ksize", V{2}}, {"strides", V{2}}, {"ceil_mode", true}}), true},
      {"AvgPool3D", {1, 1, 4, 4, 4}, {1, 1, 2, 2, 2},
       attrs({{"ksize", V{2}}, {"strides", V{2}}, {"divisor_override", int64_t{-3}}}), false},
      {"AvgPool3D", {0, 2, 5, 5, 5}, {0, 2, 2, 2, 2}, attrs({{"ksize", V{2}}, {"strides", V{2}}}), false},
  };
  return v;
}

double tolFor(aclDataType dt) { return dt == ACL_FLOAT ? 1e-5 : 2e-3; }

}  // namespace

TEST(KernelPoolNd, ForwardMatchesWindows) {
  for (const PoolCase& c : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(c.op + " " + shapeToString(c.x) + " " + dtypeName(dt));
      std::vector<float> xv = randomFloats(numelOf(c.x), -2, 2, 3);
      if (!xv.empty()) xv[5] = NAN;
      const HostTensor x = HostTensor::floats(dt, c.x, xv);
      HostTensor y(dt, c.y), arg(ACL_INT64, c.y);
      OpCall call = makeCall(c.op, {&x}, {&y}, c.attrs);
      if (c.max) call.outputs.push_back(arg.arg());
      run(call);
      const std::vector<float> xs = x.toFloats(), ys = y.toFloats();
      const std::vector<int64_t> as = arg.toInts();
      const int64_t in_plane = numelOf(c.x) / std::max<int64_t>(1, c.x[0] * c.x[1]);
      const int64_t out_plane = numelOf(c.y) / std::max<int64_t>(1, c.y[0] * c.y[1]);
      for (int64_t at = 0; at < numelOf(c.y); ++at) {
        const RefWindow w = window(c, at % out_plane);
        const float* plane = xs.data() + at / out_plane * in_plane;
        if (c.max) {
          // Expected: the max, NaN if any element is NaN; argmax addresses that value.
          double best = -INFINITY;
          bool nan = false;
          for (int64_t off : w.offsets) nan |= std::isnan(plane[off]), best = std::max<double>(best, plane[off]);
          if (nan) EXPECT_TRUE(std::isnan(ys[at])) << at;
          else EXPECT_EQ(ys[at], best) << at;
          ASSERT_GE(as[at], 0);
          EXPECT_TRUE(std::isnan(ys[at]) ? std::isnan(plane[as[at]]) : plane[as[at]] == ys[at]) << at;
          continue;
        }
        double sum = 0;
        for (int64_t off : w.offsets) sum += plane[off];
        double want = w.offsets.empty() ? 0 : sum;
        if (!w.offsets.empty()) {
          if (w.sequential) for (double pdim : w.parts) want /= pdim;
          else want /= w.divisor;
        }
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(ys[at])) << at;
        else EXPECT_NEAR(ys[at], want, tolFor(dt) * (1 + std::fabs(want))) << at;
      }
    }
  }
}

TEST(KernelPoolNd, GradientsMatchWindows) {
  for (const PoolCase& c : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(gradOp(c) + " " + shapeToString(c.x) + " " + dtypeName(dt));
      const HostTensor x = HostTensor::floats(dt, c.x, randomFloats(numelOf(c.x), -2, 2, 4));
      const HostTensor dy = HostTensor::floats(dt, c.y, randomFloats(numelOf(c.y), -1, 1, 5));
      HostTensor y(dt, c.y), arg(ACL_INT64, c.y), dx(dt, c.x);
      AttrMap ga = c.attrs;
      std::vector<double> want(static_cast<size_t>(numelOf(c.x)), 0.0);
      const std::vector<float> gs = dy.toFloats();
      const int64_t in_plane = numelOf(c.x) / std::max<int64_t>(1, c.x[0] * c.x[1]);
      const int64_t out_plane = numelOf(c.y) / std::max<int64_t>(1, c.y[0] * c.y[1]);
      OpCall call = makeCall(gradOp(c), {&dy}, {&dx}, ga);
      if (c.max) {
        OpCall fwd = makeCall(c.op, {&x}, {&y, &arg}, c.attrs);
        run(fwd);
        call = makeCall(gradOp(c), {&x, &dy, &arg}, {&dx}, ga);
        const std::vector<int64_t> as = arg.toInts();
        for (int64_t at = 0; at < numelOf(c.y); ++at) want[static_cast<size_t>(at / out_plane * in_plane + as[at])] += gs[at];
      } else {
        call.attrs.set("orig_input_shape", c.x);
        for (int64_t at = 0; at < numelOf(c.y); ++at) {
          const RefWindow w = window(c, at % out_plane);
          double delta = gs[at];
          if (w.sequential) for (double pdim : w.parts) delta /= pdim;
          else delta /= w.divisor;
          for (int64_t off : w.offsets) want[static_cast<size_t>(at / out_plane * in_plane + off)] += delta;
        }
      }
      run(call);
      const std::vector<float> got = dx.toFloats();
      for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tolFor(dt) * (1 + std::fabs(want[i]))) << i;
    }
  }
}

TEST(KernelPoolNd, ThreadCountIndependence) {
  const PoolCase& c = cases()[3];
  Shape xs = {8, 16, 9, 10, 8}, ys = {8, 16, 5, 10, 4};
  const HostTensor dy = HostTensor::floats(ACL_FLOAT16, ys, randomFloats(numelOf(ys), -1, 1, 6));
  std::vector<std::vector<float>> r;
  for (int threads : {1, 0}) {
    setHostThreadLimitForTesting(threads);
    HostTensor dx(ACL_FLOAT16, xs);
    OpCall call = makeCall("AvgPool3DGrad", {&dy}, {&dx}, c.attrs);
    call.attrs.set("orig_input_shape", xs);
    run(call);
    r.push_back(dx.toFloats());
  }
  setHostThreadLimitForTesting(0);
  EXPECT_EQ(r[0], r[1]);
}

TEST(KernelPoolNd, ValidationErrors) {
  using V = std::vector<int64_t>;
  const HostTensor x(ACL_FLOAT, {1, 2, 5, 5, 5});
  HostTensor y(ACL_FLOAT, {1, 2, 3, 3, 3}), arg(ACL_INT64, {1, 2, 3, 3, 3});
  EXPECT_KERNEL_ERROR(makeCall("MaxPool3DWithArgmax", {&x}, {&y, &arg}, attrs({{"ksize", V{2}}, {"strides", V{2}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "does not match the pooled shape [1,2,2,2,2]");
  EXPECT_KERNEL_ERROR(makeCall("MaxPool3DWithArgmax", {&x}, {&y, &arg},
                               attrs({{"ksize", V{2}}, {"strides", V{2}}, {"pads", V{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "at most half of the effective kernel size");
  EXPECT_KERNEL_ERROR(makeCall("AvgPool3D", {&x}, {&y}, attrs({{"ksize", V{2, 2}}, {"strides", V{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'ksize' [2,2] must be 3 values >= 1");
  EXPECT_KERNEL_ERROR(makeCall("AvgPool3D", {&x}, {&y}, attrs({{"ksize", V{3}}, {"strides", V{2}}, {"dilations", V{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "no dilation");
  const HostTensor x4(ACL_FLOAT, {1, 2, 5, 5});
  EXPECT_KERNEL_ERROR(makeCall("AdaptiveMaxPool3d", {&x4}, {&y, &arg}, attrs({{"output_size", V{3, 3, 3}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 5-D");
  HostTensor dx(ACL_FLOAT, {1, 2, 5, 5, 5});
  const HostTensor bad = HostTensor::ints(ACL_INT64, {1, 2, 3, 3, 3}, std::vector<int64_t>(54, 125));
  EXPECT_KERNEL_ERROR(makeCall("AdaptiveMaxPool3dGrad", {&x, &y, &bad}, {&dx}, attrs({{"output_size", V{3, 3, 3}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "argmax 125 at position [0,0,0,0,0] is outside the input plane");
  HostTensor dx2(ACL_FLOAT, {1, 2, 5, 5, 4});
  EXPECT_KERNEL_ERROR(makeCall("AdaptiveAvgPool3dGrad", {&y}, {&dx2},
                               attrs({{"output_size", V{3, 3, 3}}, {"orig_input_shape", V{1, 2, 5, 5, 5}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "does not match orig_input_shape");
  const HostTensor xi(ACL_INT32, {1, 2, 5, 5, 5});
  HostTensor yi(ACL_INT32, {1, 2, 3, 3, 3});
  EXPECT_KERNEL_ERROR(makeCall("AdaptiveAvgPool3d", {&xi}, {&yi}, attrs({{"output_size", V{3, 3, 3}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x");
}
