// Dropout kernels (OPS.md "Dropout", Note [Dropout bit masks]): the bit mask
// of DropOutGenMask against the Bernoulli stream, DropOutDoMask and the fused
// softmax + dropout forward/backward against double references, validation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

int64_t maskBytes(int64_t n) { return (n + 127) / 128 * 16; }

HostTensor genMask(int64_t n, float keep, int64_t seed, int64_t offset) {
  HostTensor m(ACL_UINT8, {maskBytes(n)});
  run(makeCall("DropOutGenMask", {}, {&m},
               attrs({{"shape", std::vector<int64_t>{n}}, {"keep_prob", keep}, {"seed", seed}, {"offset", offset}})));
  return m;
}

bool bit(const std::vector<int64_t>& bytes, int64_t i) { return (bytes[i / 8] >> (i % 8)) & 1; }

TEST(KernelDropout, GenMaskIsTheBernoulliStreamAsBits) {
  // Not multiples of 128: padding bits must be 0. The second spans three of the kernel's blocks.
  for (const int64_t n : {int64_t{1001}, int64_t{2 * 16384 + 1001}}) {
    HostTensor b(ACL_BOOL, {n});
    run(makeCall("StatelessBernoulli", {}, {&b}, attrs({{"p", 0.7f}, {"seed", int64_t{42}}, {"offset", int64_t{6}}})));
    const auto expected = b.toInts();
    const auto bytes = genMask(n, 0.7f, 42, 6).toInts();
    ASSERT_EQ(static_cast<int64_t>(bytes.size()), maskBytes(n));
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(bit(bytes, i), expected[i] != 0) << i;
    for (int64_t i = n; i < maskBytes(n) * 8; ++i) ASSERT_FALSE(bit(bytes, i)) << i;
  }
  // keep 0 / 1: nothing / everything kept.
  for (int64_t v : genMask(300, 0.0f, 1, 0).toInts()) ASSERT_EQ(v, 0);
  const auto all = genMask(300, 1.0f, 1, 0).toInts();
  for (int64_t i = 0; i < 300; ++i) ASSERT_TRUE(bit(all, i));
}

TEST(KernelDropout, DoMaskScalesKeptElements) {
  for (const int64_t rows : {int64_t{7}, int64_t{7 * 43}}) {  // the second spans several of the kernel's blocks
    const int64_t n = rows * 111;
    const auto xv = randomFloats(n, -4.0f, 4.0f, 3);
    const auto bytes = genMask(n, 0.6f, 9, 0);
    const auto mask = bytes.toInts();
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      HostTensor x = HostTensor::floats(dt, {rows, 111}, xv), y(dt, {rows, 111});
      run(makeCall("DropOutDoMask", {&x, &bytes}, {&y}, attrs({{"keep_prob", 0.6f}})));
      const auto xs = x.toFloats(), ys = y.toFloats();
      for (int64_t i = 0; i < n; ++i) {
        const float want = bit(mask, i) ? roundTo(dt, xs[i] * (1.0f / 0.6f)) : 0.0f;
        ASSERT_EQ(ys[i], want) << dtypeName(dt) << " " << i;
      }
    }
  }
  const int64_t n = 777;
  const auto xv = randomFloats(n, -4.0f, 4.0f, 3);
  const auto bytes = genMask(n, 0.6f, 9, 0);
  HostTensor x = HostTensor::floats(ACL_FLOAT, {n}, xv), y(ACL_FLOAT, {n});
  run(makeCall("DropOutDoMask", {&x, &bytes}, {&y}, attrs({{"keep_prob", 0.0f}})));
  for (float v : y.toFloats()) ASSERT_EQ(v, 0.0f);
}

// softmax(alpha * x1 + x2) along `axis` of [2, 5, 3], and its dropped copy.
TEST(KernelDropout, AxpySoftmaxDropoutAndItsGradient) {
  const Shape shape{2, 5, 3};
  const int64_t n = 30;
  const auto x1v = randomFloats(n, -3.0f, 3.0f, 5), x2v = randomFloats(n, -3.0f, 3.0f, 6);
  const auto dyv = randomFloats(n, -1.0f, 1.0f, 7);
  const float alpha = 0.125f, keep = 0.8f;
  const HostTensor mask = genMask(n, keep, 11, 0);
  const auto mbits = mask.toInts();
  for (int64_t axis : {-1, 1, 0}) {
    const int64_t ax = axis < 0 ? 2 : axis;
    const int64_t dim = shape[ax];
    int64_t inner = 1;
    for (size_t k = ax + 1; k < shape.size(); ++k) inner *= shape[k];
    // Double reference.
    std::vector<double> sm(n), dx(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t base = i - ((i / inner) % dim) * inner;
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < dim; ++k) mx = std::max(mx, alpha * x1v[base + k * inner] + double(x2v[base + k * inner]));
      for (int64_t k = 0; k < dim; ++k) sum += std::exp(alpha * x1v[base + k * inner] + double(x2v[base + k * inner]) - mx);
      sm[i] = std::exp(alpha * x1v[i] + double(x2v[i]) - mx) / sum;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t base = i - ((i / inner) % dim) * inner;
      double dot = 0;
      for (int64_t k = 0; k < dim; ++k) {
        const int64_t j = base + k * inner;
        dot += (bit(mbits, j) ? dyv[j] / keep : 0.0) * sm[j];
      }
      dx[i] = alpha * ((bit(mbits, i) ? dyv[i] / keep : 0.0) - dot) * sm[i];
    }
    SCOPED_TRACE("axis " + std::to_string(axis));
    HostTensor x1 = HostTensor::floats(ACL_FLOAT, shape, x1v), x2 = HostTensor::floats(ACL_FLOAT, shape, x2v);
    HostTensor y1(ACL_FLOAT, shape), y2(ACL_FLOAT, shape);
    run(makeCall("AxpyWithSoftmaxAndDropOutDoMask", {&x1, &x2, &mask}, {&y1, &y2},
                 attrs({{"alpha", alpha}, {"input_keep_prob", keep}, {"axis", axis}})));
    const auto s = y1.toFloats(), d = y2.toFloats();
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_NEAR(s[i], sm[i], 1e-6) << i;
      ASSERT_NEAR(d[i], bit(mbits, i) ? sm[i] / keep : 0.0, 2e-6) << i;
    }
    HostTensor dy = HostTensor::floats(ACL_FLOAT, shape, dyv), g(ACL_FLOAT, shape);
    run(makeCall("DropoutWithMulsAndSoftmaxGrad", {&dy, &mask, &y1}, {&g},
                 attrs({{"alpha", alpha}, {"input_keep_prob", keep}, {"axes", std::vector<int64_t>{axis}}})));
    const auto gv = g.toFloats();
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(gv[i], dx[i], 1e-6) << i;
  }
}

TEST(KernelDropout, CostOfTheFusedSoftmaxIsOnePass) {
  const Shape shape{8, 64, 128};
  HostTensor x1(ACL_FLOAT16, shape), x2(ACL_FLOAT16, shape), y1(ACL_FLOAT16, shape), y2(ACL_FLOAT16, shape);
  const HostTensor mask(ACL_UINT8, {maskBytes(8 * 64 * 128)});
  const OpCall fused = makeCall("AxpyWithSoftmaxAndDropOutDoMask", {&x1, &x2, &mask}, {&y1, &y2},
                                attrs({{"alpha", 1.0f}, {"input_keep_prob", 0.9f}, {"axis", int64_t{-1}}}));
  const KernelCost c = kernel("AxpyWithSoftmaxAndDropOutDoMask").cost(fused);
  EXPECT_EQ(c.core, CoreType::kVector);
  // HBM traffic: the two inputs, the mask and the two outputs, nothing else.
  const double io = 4.0 * 8 * 64 * 128 * 2 + maskBytes(8 * 64 * 128);
  EXPECT_NEAR(c.mte_bytes, io, io * 0.05);
}

TEST(KernelDropout, Validation) {
  HostTensor x(ACL_FLOAT, {200}), y(ACL_FLOAT, {200}), small(ACL_UINT8, {16}), ok(ACL_UINT8, {32});
  HostTensor xi(ACL_INT32, {200}), yi(ACL_INT32, {200});
  EXPECT_KERNEL_ERROR(makeCall("DropOutDoMask", {&x, &small}, {&y}, attrs({{"keep_prob", 0.5f}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "a bit mask of 200 elements has 32");
  EXPECT_KERNEL_ERROR(makeCall("DropOutDoMask", {&xi, &ok}, {&yi}, attrs({{"keep_prob", 0.5f}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x dtype int32");
  EXPECT_KERNEL_ERROR(makeCall("DropOutDoMask", {&x, &ok}, {&y}, attrs({{"keep_prob", 1.5f}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "'keep_prob' must be in [0, 1]");
  EXPECT_KERNEL_ERROR(makeCall("DropOutGenMask", {}, {&small},
                               attrs({{"shape", std::vector<int64_t>{200}}, {"keep_prob", 0.5f}, {"seed", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output y has 16 bytes");
  HostTensor y1(ACL_FLOAT, {200}), y2(ACL_FLOAT, {100});
  EXPECT_KERNEL_ERROR(makeCall("AxpyWithSoftmaxAndDropOutDoMask", {&x, &y, &ok}, {&y1, &y2},
                               attrs({{"alpha", 1.0f}, {"input_keep_prob", 0.5f}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output");
}

}  // namespace
