// Layout (AsStrided / ViewCopy), creation (Fill / Range) and random kernels.
#include <algorithm>
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(KernelLayout, AsStridedTransposedAndOffset) {
  HostTensor x = HostTensor::ints(ACL_INT32, {20}, iota(20));
  HostTensor y(ACL_INT32, {3, 4});
  // Transposed view of a [4,3] matrix starting at element 5.
  run(makeCall("AsStrided", {&x}, {&y}, attrs({{"size", std::vector<int64_t>{3, 4}}, {"stride", std::vector<int64_t>{1, 3}}, {"storage_offset", int64_t{5}}})));
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{5, 8, 11, 14, 6, 9, 12, 15, 7, 10, 13, 16}));
  // Broadcast (stride 0) view of fp16 data.
  HostTensor xh = HostTensor::floats(ACL_FLOAT16, {4}, {1, 2, 3, 4}), yh(ACL_FLOAT16, {2, 3});
  run(makeCall("AsStrided", {&xh}, {&yh}, attrs({{"size", std::vector<int64_t>{2, 3}}, {"stride", std::vector<int64_t>{2, 0}}, {"storage_offset", int64_t{1}}})));
  EXPECT_EQ(yh.toFloats(), (std::vector<float>{2, 2, 2, 4, 4, 4}));
  EXPECT_KERNEL_ERROR(makeCall("AsStrided", {&x}, {&y}, attrs({{"size", std::vector<int64_t>{3, 4}}, {"stride", std::vector<int64_t>{1, 3}}, {"storage_offset", int64_t{10}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "reaches elements [10, 21], outside x of 20 elements");
  EXPECT_KERNEL_ERROR(makeCall("AsStrided", {&x}, {&y}, attrs({{"size", std::vector<int64_t>{3, 4}}, {"stride", std::vector<int64_t>{1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "different lengths");
}

TEST(KernelLayout, ViewCopyLeavesOtherElements) {
  HostTensor src = HostTensor::floats(ACL_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor dst = HostTensor::floats(ACL_FLOAT, {12}, std::vector<float>(12, -1.0f));
  // Write src transposed into a [3,2] column block at offset 2, row stride 4.
  run(makeCall("ViewCopy", {&src}, {&dst}, attrs({{"size", std::vector<int64_t>{2, 3}}, {"dst_stride", std::vector<int64_t>{1, 4}}, {"dst_storage_offset", int64_t{2}}})));
  EXPECT_EQ(dst.toFloats(), (std::vector<float>{-1, -1, 1, 4, -1, -1, 2, 5, -1, -1, 3, 6}));
  EXPECT_KERNEL_ERROR(makeCall("ViewCopy", {&src}, {&dst}, attrs({{"size", std::vector<int64_t>{2, 3}}, {"dst_stride", std::vector<int64_t>{1, 4}}, {"dst_storage_offset", int64_t{4}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "outside dst of 12 elements");
  HostTensor srch(ACL_FLOAT16, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("ViewCopy", {&srch}, {&dst}, attrs({{"size", std::vector<int64_t>{2, 3}}, {"dst_stride", std::vector<int64_t>{3, 1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "float16");
}

TEST(KernelCreation, FillAndRange) {
  HostTensor v = HostTensor::floats(ACL_FLOAT, {}, {-2.75f});
  HostTensor yi(ACL_INT32, {3, 5}), yh(ACL_FLOAT16, {7});
  run(makeCall("Fill", {&v}, {&yi}));
  EXPECT_EQ(yi.toInts(), std::vector<int64_t>(15, -2));
  run(makeCall("Fill", {&v}, {&yh}));
  EXPECT_EQ(yh.toFloats(), std::vector<float>(7, -2.75f));
  HostTensor vb = HostTensor::ints(ACL_BOOL, {1}, {1}), yb(ACL_FLOAT, {});
  run(makeCall("Fill", {&vb}, {&yb}));
  EXPECT_EQ(yb.toFloats(), std::vector<float>{1.0f});

  HostTensor s = HostTensor::floats(ACL_FLOAT, {}, {1.0f}), l = HostTensor::floats(ACL_FLOAT, {}, {2.0f}), d = HostTensor::floats(ACL_FLOAT, {}, {0.1f});
  HostTensor r(ACL_FLOAT, {10});
  run(makeCall("Range", {&s, &l, &d}, {&r}));
  auto rv = r.toFloats();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(rv[i], static_cast<float>(1.0 + i * static_cast<double>(0.1f)));
  HostTensor si = HostTensor::ints(ACL_INT64, {}, {10}), li = HostTensor::ints(ACL_INT64, {}, {0}), di = HostTensor::ints(ACL_INT64, {}, {-3});
  HostTensor ri(ACL_INT64, {4});
  run(makeCall("Range", {&si, &li, &di}, {&ri}));
  EXPECT_EQ(ri.toInts(), (std::vector<int64_t>{10, 7, 4, 1}));
  EXPECT_KERNEL_ERROR(makeCall("Range", {&s, &l, &d}, {&ri}), ACL_ERROR_OP_INPUT_NOT_MATCH, "does not match");
}

TEST(KernelCreation, LinSpaceFromBothEnds) {
  HostTensor s = HostTensor::floats(ACL_FLOAT, {}, {-1.0f}), e = HostTensor::floats(ACL_FLOAT, {}, {2.0f});
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{7}, int64_t{10}}) {
    HostTensor y(ACL_FLOAT, {n});
    run(makeCall("LinSpace", {&s, &e}, {&y}));
    const auto v = y.toFloats();
    const float step = n > 1 ? 3.0f / static_cast<float>(n - 1) : 0.0f;
    for (int64_t i = 0; i < n; ++i) {  // the reference formula, independently: symmetric, exact ends
      const float expected = n == 1 ? -1.0f : (i < n / 2 ? -1.0f + step * static_cast<float>(i)
                                                         : 2.0f - step * static_cast<float>(n - 1 - i));
      EXPECT_EQ(v[i], expected) << "n " << n << " i " << i;
    }
    if (n > 1) {
      EXPECT_EQ(v.back(), 2.0f);
    }
  }
  HostTensor yi(ACL_INT32, {5});
  run(makeCall("LinSpace", {&s, &e}, {&yi}));
  EXPECT_EQ(yi.toInts(), (std::vector<int64_t>{-1, 0, 0, 1, 2}));  // -1, -0.25, 0.5, 1.25, 2 truncated
  HostTensor y2(ACL_FLOAT, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("LinSpace", {&s, &e}, {&y2}), ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 1-D");
}

TEST(KernelRandom, PhiloxKnownAnswerDeterminismAndMoments) {
  // Random123 known-answer test: philox4x32_10, counter 0, key 0.
  HostTensor raw(ACL_FLOAT, {4});
  run(makeCall("PhiloxRandomUniform", {}, {&raw}, attrs({{"seed", int64_t{0}}, {"offset", int64_t{0}}, {"from", 0.0f}, {"to", 1.0f}})));
  const uint32_t kat[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(raw.toFloats()[i], static_cast<float>(kat[i] >> 8) / 16777216.0f);

  const int64_t n = 100003;
  AttrMap u = attrs({{"seed", int64_t{1234}}, {"offset", int64_t{8}}, {"from", -2.0f}, {"to", 3.0f}});
  HostTensor a(ACL_FLOAT, {n}), b(ACL_FLOAT, {n});
  run(makeCall("PhiloxRandomUniform", {}, {&a}, u));
  run(makeCall("PhiloxRandomUniform", {}, {&b}, u));
  EXPECT_EQ(a.toFloats(), b.toFloats());
  auto av = a.toFloats();
  double mean = 0, var = 0;
  for (float f : av) {
    ASSERT_GE(f, -2.0f);
    ASSERT_LT(f, 3.0f);
    mean += f;
  }
  mean /= n;
  for (float f : av) var += (f - mean) * (f - mean);
  EXPECT_NEAR(mean, 0.5, 0.03);
  EXPECT_NEAR(std::sqrt(var / n), 5.0 / std::sqrt(12.0), 0.02);
  // Offset shifts the stream by 4 elements per step.
  HostTensor c(ACL_FLOAT, {n});
  run(makeCall("PhiloxRandomUniform", {}, {&c}, attrs({{"seed", int64_t{1234}}, {"offset", int64_t{9}}, {"from", -2.0f}, {"to", 3.0f}})));
  EXPECT_EQ(c.toFloats()[0], av[4]);
  HostTensor d(ACL_FLOAT, {n});
  run(makeCall("PhiloxRandomUniform", {}, {&d}, attrs({{"seed", int64_t{1235}}, {"offset", int64_t{8}}, {"from", -2.0f}, {"to", 3.0f}})));
  EXPECT_NE(d.toFloats()[0], av[0]);

  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor g(dt, {n}), g2(dt, {n});
    AttrMap na = attrs({{"seed", int64_t{7}}, {"offset", int64_t{0}}, {"mean", 1.5f}, {"std", 2.0f}});
    run(makeCall("PhiloxRandomNormal", {}, {&g}, na));
    run(makeCall("PhiloxRandomNormal", {}, {&g2}, na));
    auto gv = g.toFloats();
    EXPECT_EQ(gv, g2.toFloats());
    double m = 0, v = 0;
    for (float f : gv) {
      ASSERT_TRUE(std::isfinite(f));
      m += f;
    }
    m /= n;
    for (float f : gv) v += (f - m) * (f - m);
    EXPECT_NEAR(m, 1.5, 0.03);
    EXPECT_NEAR(std::sqrt(v / n), 2.0, 0.03);
  }
  HostTensor iy(ACL_INT32, {4});
  EXPECT_KERNEL_ERROR(makeCall("PhiloxRandomUniform", {}, {&iy}, attrs({{"seed", int64_t{0}}})), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  EXPECT_KERNEL_ERROR(makeCall("PhiloxRandomNormal", {}, {&raw}), ACL_ERROR_OP_ATTR_NOT_MATCH, "seed");
}

TEST(KernelRandom, UniformIntKnownAnswerRangeAndWideRange) {
  // Lanes of philox4x32_10(counter 0, key 0) reduced modulo the range.
  const uint64_t kat[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  HostTensor y(ACL_INT64, {4});
  run(makeCall("StatelessRandomUniformInt", {}, {&y},
               attrs({{"seed", int64_t{0}}, {"offset", int64_t{0}}, {"from", int64_t{-9}}, {"to", int64_t{10}}})));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y.toInts()[i], -9 + static_cast<int64_t>(kat[i] % 19)) << i;
  // A range wider than 2^32 takes one 64-bit draw from two lanes.
  const int64_t from = -(int64_t{1} << 40), to = int64_t{1} << 40;
  HostTensor w(ACL_INT64, {2});
  run(makeCall("StatelessRandomUniformInt", {}, {&w},
               attrs({{"seed", int64_t{0}}, {"offset", int64_t{0}}, {"from", from}, {"to", to}})));
  const uint64_t range = static_cast<uint64_t>(to - from);
  EXPECT_EQ(w.toInts()[0], from + static_cast<int64_t>(((kat[1] << 32) | kat[0]) % range));
  EXPECT_EQ(w.toInts()[1], from + static_cast<int64_t>(((kat[3] << 32) | kat[2]) % range));
  // Every dtype receives values inside [from, to), the same for every run; empty outputs are fine.
  for (aclDataType dt : {ACL_INT8, ACL_UINT8, ACL_INT32, ACL_INT64, ACL_FLOAT, ACL_FLOAT16, ACL_BOOL}) {
    const int64_t lo = dt == ACL_UINT8 || dt == ACL_BOOL ? 0 : -3, hi = dt == ACL_BOOL ? 2 : 7;
    HostTensor a(dt, {1001}), b(dt, {1001});
    AttrMap at = attrs({{"seed", int64_t{5}}, {"offset", int64_t{3}}, {"from", lo}, {"to", hi}});
    run(makeCall("StatelessRandomUniformInt", {}, {&a}, at));
    run(makeCall("StatelessRandomUniformInt", {}, {&b}, at));
    EXPECT_EQ(a.toInts(), b.toInts());
    std::vector<int> seen(static_cast<size_t>(hi - lo), 0);
    for (int64_t v : a.toInts()) {
      ASSERT_GE(v, lo);
      ASSERT_LT(v, hi);
      ++seen[static_cast<size_t>(v - lo)];
    }
    for (int count : seen) EXPECT_GT(count, 0) << dtypeName(dt);
  }
  HostTensor empty(ACL_INT32, {0});
  run(makeCall("StatelessRandomUniformInt", {}, {&empty},
               attrs({{"seed", int64_t{1}}, {"from", int64_t{0}}, {"to", int64_t{3}}})));
  EXPECT_KERNEL_ERROR(makeCall("StatelessRandomUniformInt", {}, {&y},
                               attrs({{"seed", int64_t{0}}, {"from", int64_t{3}}, {"to", int64_t{3}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "must be less than 'to'");
}

TEST(KernelRandom, RandpermIsAPermutationFromTheFisherYatesDraws) {
  // Reference: Fisher-Yates from the top with the Philox draws of (seed 0, offset 0).
  const uint64_t kat[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  std::vector<int64_t> want = {0, 1, 2, 3, 4};
  for (int64_t i = 4, k = 0; i >= 1; --i, ++k) std::swap(want[i], want[kat[k] % static_cast<uint64_t>(i + 1)]);
  HostTensor y(ACL_INT64, {5});
  run(makeCall("StatelessRandperm", {}, {&y}, attrs({{"seed", int64_t{0}}, {"offset", int64_t{0}}})));
  EXPECT_EQ(y.toInts(), want);
  for (aclDataType dt : {ACL_INT32, ACL_INT64}) {
    HostTensor a(dt, {1000}), b(dt, {1000});
    const AttrMap at = attrs({{"seed", int64_t{9}}, {"offset", int64_t{4}}});
    run(makeCall("StatelessRandperm", {}, {&a}, at));
    run(makeCall("StatelessRandperm", {}, {&b}, at));
    EXPECT_EQ(a.toInts(), b.toInts());
    std::vector<int64_t> sorted = a.toInts();
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i);
  }
  HostTensor empty(ACL_INT64, {0}), f(ACL_FLOAT, {3}), two(ACL_INT64, {2, 2});
  run(makeCall("StatelessRandperm", {}, {&empty}, attrs({{"seed", int64_t{1}}})));
  EXPECT_KERNEL_ERROR(makeCall("StatelessRandperm", {}, {&f}, attrs({{"seed", int64_t{1}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "float32");
  EXPECT_KERNEL_ERROR(makeCall("StatelessRandperm", {}, {&two}, attrs({{"seed", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 1-D");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
