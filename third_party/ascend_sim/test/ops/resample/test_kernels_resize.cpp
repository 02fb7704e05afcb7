// Resize kernels (Note [Resize numerics]): ResizeNearestNeighborV2,
// ResizeBilinearV2, ResizeD (linear / cubic), UpsampleNearest3d,
// UpsampleTrilinear3d and their gradients, against a reference written from
// PyTorch's formulas and evaluated in double (source indices in the
// arithmetic PyTorch uses), forward and backward, fp32 and fp16, ratios from
// sizes and from scale factors, both align_corners modes, empty batches,
// thread-count independence and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

enum class Mode { kNearest, kExact, kLinear, kCubic };

struct Spec {
  std::string op, grad_op;
  Mode mode;
  bool align = false;
  Shape x, y;                 // forward shapes
  std::vector<float> scales;  // attr (empty = none)
};

// Reference taps of one dim: (index, weight) per output index.
std::vector<std::vector<std::pair<int64_t, double>>> refTaps(Mode m, bool align, int64_t in, int64_t out, float sc) {
  float r;
  if (align) r = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  else r = sc > 0 ? sc : static_cast<float>(in) / static_cast<float>(out);
  std::vector<std::vector<std::pair<int64_t, double>>> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    auto& t = taps[static_cast<size_t>(o)];
    if (m == Mode::kNearest) {
      int64_t i = out == in ? o : (out == 2 * in ? o / 2 : static_cast<int64_t>(std::floor(static_cast<float>(o) * r)));
      t.push_back({std::min(i, in - 1), 1.0});
    } else if (m == Mode::kExact) {
      t.push_back({std::min(static_cast<int64_t>(std::floor(static_cast<float>((o + 0.5) * r))), in - 1), 1.0});
    } else if (m == Mode::kLinear) {
      if (in == out) {
        t.push_back({o, 1.0});
        continue;
      }
      double s = align ? static_cast<double>(r) * o : std::max(0.0, static_cast<double>(r) * (o + 0.5) - 0.5);
      const int64_t i0 = static_cast<int64_t>(s);
      const double l1 = s - i0;
      t.push_back({i0, 1.0 - l1});
      t.push_back({std::min(i0 + 1, in - 1), l1});
    } else {
      const float s = align ? r * static_cast<float>(o) : r * (static_cast<float>(o) + 0.5f) - 0.5f;
      const double i = std::floor(static_cast<double>(s));
      const double x = static_cast<double>(s) - i;
      const double a = -0.75;
      auto near = [a](double v) { return ((a + 2) * v - (a + 3)) * v * v + 1; };
      auto far = [a](double v) { return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a; };
      const double w[4] = {far(x + 1), near(x), near(1 - x), far(2 - x)};
      for (int k = 0; k < 4; ++k)
        t.push_back({std::max<int64_t>(0, std::min<int64_t>(static_cast<int64_t>(i) - 1 + k, in - 1)), w[k]});
    }
  }
  return taps;
}

// Visits every (output flat, input flat, weight) of the resize in row-major output order.
void forEachTap(const Spec& s, const std::function<void(int64_t, int64_t, double)>& fn) {
  const size_t sp = s.x.size() - 2;
  std::vector<std::vector<std::vector<std::pair<int64_t, double>>>> taps;
  for (size_t d = 0; d < sp; ++d)
    taps.push_back(refTaps(s.mode, s.align, s.x[d + 2], s.y[d + 2], s.scales.empty() ? 0.0f : s.scales[d]));
  const Shape in(s.x.begin() + 2, s.x.end()), out(s.y.begin() + 2, s.y.end());
  const int64_t planes = s.x[0] * s.x[1], ip = numelOf(in), op = numelOf(out);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t q = 0; q < op; ++q) {
      std::vector<int64_t> oc(sp);
      int64_t rem = q;
      for (size_t d = sp; d-- > 0;) oc[d] = rem % out[d], rem /= out[d];
      std::function<void(size_t, int64_t, double)> rec = [&](size_t d, int64_t off, double w) {
        if (d == sp) return fn(p * op + q, p * ip + off, w);
        for (const auto& [i, wk] : taps[d][static_cast<size_t>(oc[d])]) rec(d + 1, off * in[d] + i, w * wk);
      };
      rec(0, 0, 1.0);
    }
}

AttrMap specAttrs(const Spec& s) {
  AttrMap a;
  if (s.op == "ResizeD") {
    a.set("mode", std::string(s.mode == Mode::kCubic ? "cubic" : "linear"));
    a.set("coordinate_transformation_mode", std::string(s.align ? "align_corners" : "pytorch_half_pixel"));
  } else if (s.mode == Mode::kLinear) {
    a.set("align_corners", s.align);
  } else {
    a.set("half_pixel_centers", s.mode == Mode::kExact);
  }
  if (!s.scales.empty()) a.set("scales", s.scales);
  return a;
}

const std::vector<Spec>& specs() {
  static const std::vector<Spec> v = {
      {"ResizeNearestNeighborV2", "ResizeNearestNeighborV2Grad", Mode::kNearest, false, {2, 3, 5, 7}, {2, 3, 9, 4}},
      {"ResizeNearestNeighborV2", "ResizeNearestNeighborV2Grad", Mode::kNearest, false, {1, 2, 3, 4}, {1, 2, 6, 4}},
      {"ResizeNearestNeighborV2", "ResizeNearestNeighborV2Grad", Mode::kNearest, false, {1, 2, 5, 5}, {1, 2, 8, 8},
       {static_cast<float>(1.0 / 1.7), static_cast<float>(1.0 / 1.7)}},
      {"ResizeNearestNeighborV2", "ResizeNearestNeighborV2Grad", Mode::kExact, false, {2, 1, 5, 7}, {2, 1, 9, 3}},
      {"ResizeBilinearV2", "ResizeBilinearV2Grad", Mode::kLinear, false, {2, 3, 4, 5}, {2, 3, 7, 3}},
      {"ResizeBilinearV2", "ResizeBilinearV2Grad", Mode::kLinear, true, {2, 3, 4, 5}, {2, 3, 7, 3}},
      {"ResizeBilinearV2", "ResizeBilinearV2Grad", Mode::kLinear, true, {1, 2, 4, 5}, {1, 2, 1, 5}},
      {"ResizeBilinearV2", "ResizeBilinearV2Grad", Mode::kLinear, false, {1, 2, 4, 4}, {1, 2, 10, 10},
       {static_cast<float>(1.0 / 2.5), static_cast<float>(1.0 / 2.5)}},
      {"ResizeD", "ResizeGradD", Mode::kLinear, false, {2, 3, 6}, {2, 3, 11}},
      {"ResizeD", "ResizeGradD", Mode::kLinear, true, {2, 3, 6}, {2, 3, 4}},
      {"ResizeD", "ResizeGradD", Mode::kCubic, false, {2, 2, 4, 5}, {2, 2, 9, 3}},
      {"ResizeD", "ResizeGradD", Mode::kCubic, true, {2, 2, 4, 5}, {2, 2, 9, 3}},
      {"UpsampleNearest3d", "UpsampleNearest3dGrad", Mode::kNearest, false, {1, 2, 3, 4, 5}, {1, 2, 5, 8, 2}},
      {"UpsampleTrilinear3d", "UpsampleTrilinear3dGrad", Mode::kLinear, false, {1, 2, 3, 4, 5}, {1, 2, 5, 8, 2}},
      {"UpsampleTrilinear3d", "UpsampleTrilinear3dGrad", Mode::kLinear, true, {1, 2, 3, 4, 5}, {1, 2, 5, 8, 2}},
  };
  return v;
}

void expectNear(const std::vector<float>& got, const std::vector<double>& want, aclDataType dt) {
  ASSERT_EQ(got.size(), want.size());
  const double rtol = dt == ACL_FLOAT ? 1e-5 : 1e-3, atol = dt == ACL_FLOAT ? 1e-5 : 1e-3;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << "element " << i;
}

}  // namespace

TEST(KernelResize, ForwardMatchesReference) {
  for (const Spec& s : specs()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(s.op + " " + shapeToString(s.x) + " -> " + shapeToString(s.y) + (s.align ? " align" : "") + " " +
                   dtypeName(dt));
      const HostTensor x = HostTensor::floats(dt, s.x, randomFloats(numelOf(s.x), -2, 2, 7));
      HostTensor y(dt, s.y);
      run(makeCall(s.op, {&x}, {&y}, specAttrs(s)));
      const std::vector<float> xs = x.toFloats();
      std::vector<double> want(static_cast<size_t>(numelOf(s.y)), 0.0);
      forEachTap(s, [&](int64_t o, int64_t i, double w) { want[o] += w * xs[i]; });
      for (double& w : want) w = roundTo(dt, static_cast<float>(w));
      expectNear(y.toFloats(), want, dt);
    }
  }
}

TEST(KernelResize, BackwardMatchesReference) {
  for (const Spec& s : specs()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(s.grad_op + " " + shapeToString(s.x) + " -> " + shapeToString(s.y) + (s.align ? " align" : "") +
                   " " + dtypeName(dt));
      const HostTensor dy = HostTensor::floats(dt, s.y, randomFloats(numelOf(s.y), -2, 2, 9));
      HostTensor dx(dt, s.x);
      run(makeCall(s.grad_op, {&dy}, {&dx}, specAttrs(s)));
      const std::vector<float> gs = dy.toFloats();
      std::vector<double> want(static_cast<size_t>(numelOf(s.x)), 0.0);
      forEachTap(s, [&](int64_t o, int64_t i, double w) { want[i] += w * gs[o]; });
      for (double& w : want) w = roundTo(dt, static_cast<float>(w));
      expectNear(dx.toFloats(), want, dt);
    }
  }
}

TEST(KernelResize, NearestCopiesBitsOfAnyDtype) {
  const Spec& s = specs()[0];
  for (aclDataType dt : {ACL_INT64, ACL_INT32, ACL_UINT8, ACL_BOOL}) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<int64_t> v(static_cast<size_t>(numelOf(s.x)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = dt == ACL_BOOL ? static_cast<int64_t>(i % 3 == 0) : static_cast<int64_t>(i * 3 % 101);
    const HostTensor x = HostTensor::ints(dt, s.x, v);
    HostTensor y(dt, s.y);
    run(makeCall(s.op, {&x}, {&y}, specAttrs(s)));
    std::vector<int64_t> want(static_cast<size_t>(numelOf(s.y)));
    forEachTap(s, [&](int64_t o, int64_t i, double) { want[o] = v[i]; });
    EXPECT_EQ(y.toInts(), want);
  }
}

TEST(KernelResize, EmptyBatchAndThreadCountIndependence) {
  Spec s = specs()[4];
  s.x[0] = s.y[0] = 0;
  const HostTensor x(ACL_FLOAT, s.x);
  HostTensor y(ACL_FLOAT, s.y);
  run(makeCall(s.op, {&x}, {&y}, specAttrs(s)));
  run(makeCall(s.grad_op, {&y}, {const_cast<HostTensor*>(&x)}, specAttrs(s)));
  // A large gradient with many planes: identical bits on 1 and all threads.
  const Spec& big = specs()[11];
  Shape ys = {8, 16, 37, 29}, xs = {8, 16, 12, 11};
  const HostTensor dy = HostTensor::floats(ACL_FLOAT16, ys, randomFloats(numelOf(ys), -1, 1, 5));
  std::vector<std::vector<float>> out;
  for (int threads : {1, 0}) {
    setHostThreadLimitForTesting(threads);
    HostTensor dx(ACL_FLOAT16, xs);
    run(makeCall(big.grad_op, {&dy}, {&dx}, specAttrs(big)));
    out.push_back(dx.toFloats());
  }
  setHostThreadLimitForTesting(0);
  EXPECT_EQ(out[0], out[1]);
}

TEST(KernelResize, ValidationErrors) {
  const HostTensor x(ACL_FLOAT, {1, 2, 4, 5});
  HostTensor y(ACL_FLOAT, {1, 2, 8, 10});
  HostTensor y3(ACL_FLOAT, {1, 2, 8});
  EXPECT_KERNEL_ERROR(makeCall("ResizeBilinearV2", {&x}, {&y3}), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 4-D");
  HostTensor yc(ACL_FLOAT, {1, 3, 8, 10});
  EXPECT_KERNEL_ERROR(makeCall("ResizeBilinearV2", {&x}, {&yc}), ACL_ERROR_OP_INPUT_NOT_MATCH, "must have the N, C");
  HostTensor y0(ACL_FLOAT, {1, 2, 0, 10});
  EXPECT_KERNEL_ERROR(makeCall("ResizeBilinearV2", {&x}, {&y0}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "spatial sizes must be positive");
  EXPECT_KERNEL_ERROR(makeCall("ResizeD", {&x}, {&y}, attrs({{"mode", std::string("area")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "expected \"linear\" or \"cubic\"");
  EXPECT_KERNEL_ERROR(makeCall("ResizeD", {&x}, {&y},
                               attrs({{"mode", std::string("cubic")},
                                      {"coordinate_transformation_mode", std::string("asymmetric")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "coordinate_transformation_mode");
  EXPECT_KERNEL_ERROR(makeCall("ResizeBilinearV2", {&x}, {&y}, attrs({{"scales", std::vector<float>{0.5f}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "list of 2 floats");
  EXPECT_KERNEL_ERROR(makeCall("ResizeBilinearV2", {&x}, {&y}, attrs({{"scales", std::vector<float>{0.5f, -1.0f}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "must be >= 0");
  EXPECT_KERNEL_ERROR(makeCall("ResizeNearestNeighborV2", {&x}, {&y}, attrs({{"align_corners", true}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "align_corners=true is not supported");
  const HostTensor xi(ACL_INT32, {1, 2, 4, 5});
  HostTensor yi(ACL_INT32, {1, 2, 8, 10});
  EXPECT_KERNEL_ERROR(makeCall("ResizeBilinearV2", {&xi}, {&yi}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x");
  EXPECT_KERNEL_ERROR(makeCall("ResizeNearestNeighborV2Grad", {&xi}, {&yi}), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "input grads");
  HostTensor yh(ACL_FLOAT16, {1, 2, 8, 10});
  EXPECT_KERNEL_ERROR(makeCall("ResizeBilinearV2", {&x}, {&yh}), ACL_ERROR_OP_INPUT_NOT_MATCH, "dtype");
}
