// Im2col / Col2im (Note [Im2col layout]) against a reference from the
// definition (double sums for Col2im): strides, dilations, padding, every
// dtype for Im2col, fp32 / fp16 Col2im, empty batches, thread-count
// independence and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

struct ColCase {
  Shape image;  // N, C, H, W
  std::vector<int64_t> k, s, d, p;
  int64_t oh() const { return (image[2] + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1; }
  int64_t ow() const { return (image[3] + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1; }
  Shape cols() const { return {image[0], image[1] * k[0] * k[1], oh() * ow()}; }
  // Image flat index read by column flat index q, or -1 (padding).
  int64_t source(int64_t q) const {
    const int64_t L = oh() * ow(), rows = image[1] * k[0] * k[1];
    const int64_t n = q / (rows * L), r = q / L % rows, l = q % L;
    const int64_t c = r / (k[0] * k[1]), i = r / k[1] % k[0], j = r % k[1];
    const int64_t h = l / ow() * s[0] - p[0] + i * d[0], w = l % ow() * s[1] - p[1] + j * d[1];
    if (h < 0 || h >= image[2] || w < 0 || w >= image[3]) return -1;
    return ((n * image[1] + c) * image[2] + h) * image[3] + w;
  }
};

AttrMap im2colAttrs(const ColCase& c) {
  return attrs({{"ksizes", c.k}, {"strides", c.s}, {"dilations", c.d}, {"pads", c.p}});
}
AttrMap col2imAttrs(const ColCase& c) {
  return attrs({{"kernel_size", c.k}, {"stride", c.s}, {"dilation", c.d}, {"padding", c.p},
                {"output_size", std::vector<int64_t>{c.image[2], c.image[3]}}});
}

const std::vector<ColCase>& cases() {
  static const std::vector<ColCase> v = {
      {{2, 3, 5, 6}, {2, 3}, {1, 1}, {1, 1}, {0, 0}},
      {{1, 2, 7, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {{2, 1, 8, 5}, {2, 2}, {1, 2}, {2, 1}, {2, 0}},
      {{0, 3, 4, 4}, {2, 2}, {1, 1}, {1, 1}, {0, 0}},
  };
  return v;
}

}  // namespace

TEST(KernelIm2col, Im2colMatchesDefinition) {
  for (const ColCase& c : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT8}) {
      SCOPED_TRACE(shapeToString(c.image) + " k" + shapeToString(c.k) + " " + dtypeName(dt));
      std::vector<int64_t> v(static_cast<size_t>(numelOf(c.image)));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i % 101) - 50;
      const HostTensor x = HostTensor::ints(dt, c.image, v);
      HostTensor y(dt, c.cols());
      run(makeCall("Im2col", {&x}, {&y}, im2colAttrs(c)));
      std::vector<int64_t> want(static_cast<size_t>(numelOf(c.cols())));
      for (size_t q = 0; q < want.size(); ++q) {
        const int64_t src = c.source(static_cast<int64_t>(q));
        want[q] = src < 0 ? 0 : v[static_cast<size_t>(src)];
      }
      EXPECT_EQ(y.toInts(), want);
    }
  }
}

TEST(KernelIm2col, Col2imSumsEveryColumnElement) {
  for (const ColCase& c : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(shapeToString(c.image) + " k" + shapeToString(c.k) + " " + dtypeName(dt));
      const HostTensor cols = HostTensor::floats(dt, c.cols(), randomFloats(numelOf(c.cols()), -1, 1, 3));
      HostTensor img(dt, c.image);
      run(makeCall("Col2im", {&cols}, {&img}, col2imAttrs(c)));
      const std::vector<float> cv = cols.toFloats();
      std::vector<double> want(static_cast<size_t>(numelOf(c.image)), 0.0);
      for (size_t q = 0; q < cv.size(); ++q) {
        const int64_t dst = c.source(static_cast<int64_t>(q));
        if (dst >= 0) want[static_cast<size_t>(dst)] += cv[q];
      }
      const std::vector<float> got = img.toFloats();
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], (dt == ACL_FLOAT ? 1e-5 : 2e-3) * (1 + std::fabs(want[i]))) << i;
    }
  }
}

TEST(KernelIm2col, ThreadCountIndependence) {
  const ColCase c{{4, 16, 20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const HostTensor cols = HostTensor::floats(ACL_FLOAT16, c.cols(), randomFloats(numelOf(c.cols()), -1, 1, 4));
  std::vector<std::vector<float>> r;
  for (int threads : {1, 0}) {
    setHostThreadLimitForTesting(threads);
    HostTensor img(ACL_FLOAT16, c.image);
    run(makeCall("Col2im", {&cols}, {&img}, col2imAttrs(c)));
    r.push_back(img.toFloats());
  }
  setHostThreadLimitForTesting(0);
  EXPECT_EQ(r[0], r[1]);
}

TEST(KernelIm2col, ValidationErrors) {
  const ColCase c = cases()[0];
  const HostTensor x(ACL_FLOAT, c.image);
  HostTensor y(ACL_FLOAT, c.cols()), wrong(ACL_FLOAT, {2, 18, 21});
  EXPECT_KERNEL_ERROR(makeCall("Im2col", {&x}, {&wrong}, im2colAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [2,18,21] does not match [N, C*kh*kw, L] = [2,18,16]");
  ColCase big = c;
  big.k = {6, 3};
  HostTensor y2(ACL_FLOAT, {2, 54, 1});
  EXPECT_KERNEL_ERROR(makeCall("Im2col", {&x}, {&y2}, im2colAttrs(big)), ACL_ERROR_OP_INPUT_NOT_MATCH, "too small");
  ColCase zero = c;
  zero.s = {0, 1};
  EXPECT_KERNEL_ERROR(makeCall("Im2col", {&x}, {&y}, im2colAttrs(zero)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'strides' [0,1] must be 2 values >= 1");
  HostTensor img(ACL_FLOAT, {2, 3, 5, 7});
  EXPECT_KERNEL_ERROR(makeCall("Col2im", {&y}, {&img}, col2imAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "does not match output_size [5,6]");
  const HostTensor yi(ACL_INT32, c.cols());
  HostTensor imgi(ACL_INT32, c.image);
  EXPECT_KERNEL_ERROR(makeCall("Col2im", {&yi}, {&imgi}, col2imAttrs(c)), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x");
  const HostTensor x3(ACL_FLOAT, {3, 5, 6});
  EXPECT_KERNEL_ERROR(makeCall("Im2col", {&x3}, {&y}, im2colAttrs(c)), ACL_ERROR_OP_INPUT_NOT_MATCH, "[N, C, H, W]");
}
