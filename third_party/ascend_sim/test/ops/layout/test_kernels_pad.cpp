// PadV3 / PadV3Grad (Note [Pad index maps]) against a reference that maps
// every output coordinate by mirroring or clamping j − begin: 1-3 padded
// dims, negative pads (crops), all dtypes forward, fp32/fp16 gradients
// accumulated in double, empty tensors, thread-count independence and
// validation errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

struct PadCase {
  Shape x;
  std::vector<int64_t> pads;  // begin/end per dim
  bool reflect;
};

Shape outShape(const PadCase& c) {
  Shape o;
  for (size_t d = 0; d < c.x.size(); ++d) o.push_back(c.x[d] + c.pads[2 * d] + c.pads[2 * d + 1]);
  return o;
}

// Flat x position read by flat output position p.
int64_t sourceOf(const PadCase& c, int64_t p) {
  const Shape o = outShape(c);
  std::vector<int64_t> idx(o.size());
  for (size_t d = o.size(); d-- > 0;) idx[d] = p % o[d], p /= o[d];
  int64_t flat = 0;
  for (size_t d = 0; d < o.size(); ++d) {
    int64_t i = idx[d] - c.pads[2 * d];
    const int64_t x = c.x[d];
    if (c.reflect) {
      if (i < 0) i = -i;
      if (i >= x) i = 2 * (x - 1) - i;
    } else {
      i = std::min(std::max<int64_t>(i, 0), x - 1);
    }
    flat = flat * x + i;
  }
  return flat;
}

AttrMap padAttrs(const PadCase& c) {
  return attrs({{"paddings", c.pads}, {"mode", std::string(c.reflect ? "reflect" : "edge")}});
}

const std::vector<PadCase>& cases() {
  static const std::vector<PadCase> v = {
      {{2, 3, 7}, {0, 0, 0, 0, 3, 2}, true},
      {{2, 3, 7}, {0, 0, 0, 0, 3, 2}, false},
      {{2, 3, 5, 6}, {0, 0, 0, 0, 2, 4, 1, 5}, true},
      {{2, 3, 5, 6}, {0, 0, 0, 0, 7, 1, 0, 3}, false},
      {{1, 2, 3, 4, 5}, {0, 0, 0, 0, 2, 1, 3, 0, 1, 4}, true},
      {{1, 2, 3, 4, 5}, {0, 0, 0, 0, 2, 5, 0, 3, 6, 1}, false},
      {{3, 9}, {0, 0, -2, 3}, true},   // crop 2 at the start, reflect 3 at the end
      {{3, 9}, {0, 0, 4, -3}, false},  // pad 4 at the start, crop 3 at the end
      {{4, 6}, {1, 2, 0, 0}, true},    // a leading padded dim (one plane)
      {{0, 3, 7}, {0, 0, 0, 0, 3, 2}, true},
  };
  return v;
}

}  // namespace

TEST(KernelPad, ForwardCopiesEveryDtype) {
  for (const PadCase& c : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_INT8, ACL_BOOL}) {
      SCOPED_TRACE(shapeToString(c.x) + " pads " + shapeToString(c.pads) + (c.reflect ? " reflect " : " edge ") +
                   dtypeName(dt));
      std::vector<int64_t> v(static_cast<size_t>(numelOf(c.x)));
      for (size_t i = 0; i < v.size(); ++i) v[i] = dt == ACL_BOOL ? static_cast<int64_t>(i % 3 == 1) : static_cast<int64_t>(i % 97) - 40;
      const HostTensor x = HostTensor::ints(dt, c.x, v);
      HostTensor y(dt, outShape(c));
      run(makeCall("PadV3", {&x}, {&y}, padAttrs(c)));
      std::vector<int64_t> want(static_cast<size_t>(numelOf(outShape(c))));
      for (size_t p = 0; p < want.size(); ++p) want[p] = v[static_cast<size_t>(sourceOf(c, static_cast<int64_t>(p)))];
      EXPECT_EQ(y.toInts(), want);
    }
  }
}

TEST(KernelPad, GradAccumulatesEverySource) {
  for (const PadCase& c : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(shapeToString(c.x) + " pads " + shapeToString(c.pads) + (c.reflect ? " reflect " : " edge ") +
                   dtypeName(dt));
      const Shape o = outShape(c);
      const HostTensor dy = HostTensor::floats(dt, o, randomFloats(static_cast<size_t>(numelOf(o)), -1, 1, 3));
      HostTensor dx(dt, c.x);
      run(makeCall("PadV3Grad", {&dy}, {&dx}, padAttrs(c)));
      const std::vector<float> g = dy.toFloats();
      std::vector<double> want(static_cast<size_t>(numelOf(c.x)), 0.0);
      for (int64_t p = 0; p < numelOf(o); ++p) want[static_cast<size_t>(sourceOf(c, p))] += g[static_cast<size_t>(p)];
      const std::vector<float> got = dx.toFloats();
      for (size_t i = 0; i < want.size(); ++i) {
        const double tol = dt == ACL_FLOAT ? 1e-5 : 2e-3 * (1 + std::fabs(want[i]));
        EXPECT_NEAR(got[i], want[i], tol) << i;
      }
    }
  }
}

TEST(KernelPad, GradBitsDoNotDependOnThreads) {
  const PadCase c{{64, 33, 40}, {0, 0, 0, 0, 20, 30}, false};
  const Shape o = outShape(c);
  const HostTensor dy = HostTensor::floats(ACL_FLOAT16, o, randomFloats(static_cast<size_t>(numelOf(o)), -1, 1, 5));
  std::vector<std::vector<float>> r;
  for (int threads : {1, 0}) {
    setHostThreadLimitForTesting(threads);
    HostTensor dx(ACL_FLOAT16, c.x);
    run(makeCall("PadV3Grad", {&dy}, {&dx}, padAttrs(c)));
    r.push_back(dx.toFloats());
  }
  setHostThreadLimitForTesting(0);
  EXPECT_EQ(r[0], r[1]);
}

TEST(KernelPad, ValidationErrors) {
  const HostTensor x(ACL_FLOAT, {2, 3, 4});
  HostTensor y(ACL_FLOAT, {2, 3, 12});
  auto call = [&](std::vector<int64_t> pads, const char* mode, HostTensor* out) {
    return makeCall("PadV3", {&x}, {out}, attrs({{"paddings", pads}, {"mode", std::string(mode)}}));
  };
  EXPECT_KERNEL_ERROR(call({0, 0, 0, 0, 4, 4}, "reflect", &y), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "each pad must be smaller than the dim");
  EXPECT_KERNEL_ERROR(call({0, 0, 4, 4}, "reflect", &y), ACL_ERROR_OP_ATTR_NOT_MATCH, "expected 2 per dim");
  EXPECT_KERNEL_ERROR(call({0, 0, 0, 0, 3, 3}, "reflect", &y), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
  EXPECT_KERNEL_ERROR(call({0, 0, 0, 0, 4, 4}, "circular", &y), ACL_ERROR_OP_ATTR_NOT_MATCH, "expected \"reflect\"");
  const HostTensor empty(ACL_FLOAT, {2, 3, 0});
  HostTensor y2(ACL_FLOAT, {2, 3, 2});
  EXPECT_KERNEL_ERROR(makeCall("PadV3", {&empty}, {&y2}, attrs({{"paddings", std::vector<int64_t>{0, 0, 0, 0, 1, 1}},
                                                                {"mode", std::string("edge")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "the dim must be non-empty");
  const HostTensor xi(ACL_INT32, {2, 3, 12});
  HostTensor dxi(ACL_INT32, {2, 3, 4});
  EXPECT_KERNEL_ERROR(makeCall("PadV3Grad", {&xi}, {&dxi}, attrs({{"paddings", std::vector<int64_t>{0, 0, 0, 0, 3, 5}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input dy");
  const HostTensor scalar(ACL_FLOAT, {});
  HostTensor ys(ACL_FLOAT, {});
  EXPECT_KERNEL_ERROR(makeCall("PadV3", {&scalar}, {&ys}, attrs({{"paddings", std::vector<int64_t>{}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "rank >= 1");
}
