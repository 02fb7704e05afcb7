// MatMul / BatchMatMul: bit-exact against an fp32 ascending-k fma reference.

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

// Reference: C[i,j] = fma chain over ascending k in fp32, + bias, rounded to out dtype.
std::vector<float> refMatmul(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>* bias,
                             int64_t m, int64_t n, int64_t k, bool ta, bool tb, aclDataType out) {
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) {
        float av = ta ? a[kk * m + i] : a[i * k + kk];
        float bv = tb ? b[j * k + kk] : b[kk * n + j];
        acc = std::fma(av, bv, acc);
      }
      if (bias) acc = acc + (*bias)[j];
      c[i * n + j] = roundTo(out, acc);
    }
  return c;
}

void checkMatmul(aclDataType dt, int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool with_bias) {
  HostTensor a = HostTensor::floats(dt, ta ? Shape{k, m} : Shape{m, k}, randomFloats(m * k, -1, 1, 11));
  HostTensor b = HostTensor::floats(dt, tb ? Shape{n, k} : Shape{k, n}, randomFloats(k * n, -1, 1, 12));
  HostTensor bias = HostTensor::floats(dt, {n}, randomFloats(n, -1, 1, 13));
  HostTensor y(dt, {m, n});
  AttrMap at = attrs({{"transpose_x1", ta}, {"transpose_x2", tb}});
  if (with_bias) run(makeCall("MatMul", {&a, &b, &bias}, {&y}, at));
  else run(makeCall("MatMul", {&a, &b}, {&y}, at));
  std::vector<float> rb = bias.toFloats();
  auto want = refMatmul(a.toFloats(), b.toFloats(), with_bias ? &rb : nullptr, m, n, k, ta, tb, dt);
  auto got = y.toFloats();
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << dtypeName(dt) << " m" << m << " n" << n << " k" << k << " ta" << ta << " tb" << tb << " at " << i;
}

TEST(KernelMatMul, BitExactOddShapesTransposesBias) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        checkMatmul(dt, 37, 29, 53, ta, tb, false);
        checkMatmul(dt, 7, 17, 300, ta, tb, true);
      }
  checkMatmul(ACL_FLOAT, 1, 1, 1, false, false, true);
  checkMatmul(ACL_FLOAT, 100, 3, 0, false, false, true);  // K = 0: bias only
}

// Note [Host split of the Cube's work]: few rows and many columns are split into column groups,
// many rows into row ranges with a partial last one; every element keeps its own FMA chain.
TEST(KernelMatMul, BitExactOverTheHostSplit) {
  forEachHostIsa([](HostIsa) {  // the packing and tiles of every SIMD level of the host
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        checkMatmul(ACL_FLOAT, 13, 211, 70, ta, tb, true);   // two row ranges x column groups
        checkMatmul(ACL_FLOAT, 5, 500, 17, ta, tb, false);   // one row range x column groups, odd panel count
        checkMatmul(ACL_FLOAT, 101, 45, 40, ta, tb, true);   // row ranges of 12 and a remainder
      }
    checkMatmul(ACL_FLOAT16, 13, 211, 70, false, true, true);
    checkMatmul(ACL_FLOAT16, 13, 211, 70, false, false, true);  // row-major fp16 B: packHalfBRowsAvx512
  });
}

TEST(KernelMatMul, BatchBroadcast) {
  const int64_t m = 5, n = 19, k = 23;
  HostTensor a = HostTensor::floats(ACL_FLOAT, {2, 1, m, k}, randomFloats(2 * m * k, -1, 1, 21));
  HostTensor b = HostTensor::floats(ACL_FLOAT, {3, n, k}, randomFloats(3 * k * n, -1, 1, 22));
  HostTensor y(ACL_FLOAT, {2, 3, m, n});
  run(makeCall("BatchMatMul", {&a, &b}, {&y}, attrs({{"adj_x2", true}})));
  auto ra = a.toFloats(), rb = b.toFloats(), got = y.toFloats();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      std::vector<float> sa(ra.begin() + i * m * k, ra.begin() + (i + 1) * m * k);
      std::vector<float> sb(rb.begin() + j * n * k, rb.begin() + (j + 1) * n * k);
      auto want = refMatmul(sa, sb, nullptr, m, n, k, false, true, ACL_FLOAT);
      for (int64_t e = 0; e < m * n; ++e) ASSERT_EQ(got[(i * 3 + j) * m * n + e], want[e]);
    }
}

TEST(KernelMatMul, ValidationAndCost) {
  HostTensor a(ACL_FLOAT, {3, 4}), b(ACL_FLOAT, {5, 6}), y(ACL_FLOAT, {3, 6});
  EXPECT_KERNEL_ERROR(makeCall("MatMul", {&a, &b}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "K=4");
  HostTensor ai(ACL_INT32, {3, 4}), bi(ACL_INT32, {4, 6}), yi(ACL_INT32, {3, 6});
  EXPECT_KERNEL_ERROR(makeCall("MatMul", {&ai, &bi}, {&yi}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  HostTensor b2(ACL_FLOAT, {4, 6}), ybad(ACL_FLOAT, {3, 7});
  EXPECT_KERNEL_ERROR(makeCall("MatMul", {&a, &b2}, {&ybad}), ACL_ERROR_OP_INPUT_NOT_MATCH, "[3,6]");
  HostTensor a3(ACL_FLOAT, {2, 3, 4});
  EXPECT_KERNEL_ERROR(makeCall("MatMul", {&a3, &b2}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 2-D");
  HostTensor big1(ACL_FLOAT16, {17, 33}), big2(ACL_FLOAT16, {33, 1}), big_y(ACL_FLOAT16, {17, 1});
  OpCall c = makeCall("MatMul", {&big1, &big2}, {&big_y});
  KernelCost cost = kernel("MatMul").cost(c);
  EXPECT_EQ(cost.core, CoreType::kCube);
  EXPECT_EQ(cost.cube_macs, 32.0 * 48 * 16);
  EXPECT_EQ(cost.flops, 2.0 * 17 * 33);
  EXPECT_EQ(cost.mte_bytes, 2.0 * (17 * 33 + 33 + 17));
}

// Large enough for every level of the Cube's blocking (K blocks, row panels,
// several threads). Speed is the benchmarks' business (benchmarks/sim), not a test's.
TEST(KernelMatMul, Fp32_512IsBitExactAcrossTheBlocking) {
  const int64_t s = 512;
  HostTensor a = HostTensor::floats(ACL_FLOAT, {s, s}, randomFloats(s * s, -1, 1, 31));
  HostTensor b = HostTensor::floats(ACL_FLOAT, {s, s}, randomFloats(s * s, -1, 1, 32));
  HostTensor y(ACL_FLOAT, {s, s});
  run(makeCall("MatMul", {&a, &b}, {&y}));
  // Spot-check a few elements bit-exactly.
  auto ra = a.toFloats(), rb = b.toFloats(), got = y.toFloats();
  for (int64_t e : {int64_t{0}, int64_t{s * s - 1}, int64_t{12345}}) {
    float acc = 0;
    for (int64_t kk = 0; kk < s; ++kk) acc = std::fma(ra[(e / s) * s + kk], rb[kk * s + e % s], acc);
    EXPECT_EQ(got[e], acc);
  }
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
