// Elementwise kernels against straightforward references.
#include <limits>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(KernelDtype, HalfConversionRoundTripAndRounding) {
  // Every finite half round-trips through float exactly.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t hh = static_cast<uint16_t>(h);
    float f = halfToFloat(hh);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
      continue;
    }
    ASSERT_EQ(floatToHalf(f), hh) << h;
  }
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);  // ties to even -> inf
  EXPECT_EQ(floatToHalf(-kInf), 0xfc00);
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048), 0x3c00);          // tie -> even
  EXPECT_EQ(floatToHalf(1.0f + 3.0f / 2048), 0x3c02);          // tie -> even (up)
  EXPECT_EQ(floatToHalf(5.9604645e-8f), 0x0001);                // smallest subnormal
  EXPECT_EQ(floatToHalf(2.98023224e-8f), 0x0000);               // half of it: tie -> 0
  EXPECT_EQ(floatToHalf(2.98023259e-8f), 0x0001);               // just above the tie
  EXPECT_EQ(floatToBf16(1.0f + 1.0f / 256), 0x3f80);            // tie -> even
  EXPECT_EQ(floatToBf16(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(kNaN))));
}

TEST(KernelElementwise, AddSameShapeAllDtypes) {
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_UINT8, ACL_INT32, ACL_INT64};
  for (aclDataType dt : types) {
    std::vector<float> a = randomFloats(37 * 5, -50, 50, 1), b = randomFloats(37 * 5, -50, 50, 2);
    if (!isFloatDtype(dt))
      for (auto* v : {&a, &b})
        for (float& x : *v) x = std::trunc(x) + (dt == ACL_UINT8 ? 50 : 0);
    HostTensor x1 = HostTensor::floats(dt, {37, 5}, a), x2 = HostTensor::floats(dt, {37, 5}, b);
    HostTensor y(dt, {37, 5});
    run(makeCall("Add", {&x1, &x2}, {&y}));
    std::vector<float> ra = x1.toFloats(), rb = x2.toFloats(), ry = y.toFloats();
    for (size_t i = 0; i < ry.size(); ++i) {
      if (isFloatDtype(dt)) {
        ASSERT_EQ(ry[i], roundTo(dt, ra[i] + rb[i])) << dtypeName(dt) << i;
      } else {
        int64_t s = static_cast<int64_t>(ra[i]) + static_cast<int64_t>(rb[i]);
        int64_t wrapped = dt == ACL_INT8 ? static_cast<int8_t>(s) : dt == ACL_UINT8 ? static_cast<uint8_t>(s) : s;
        ASSERT_EQ(static_cast<int64_t>(ry[i]), wrapped) << dtypeName(dt) << i;
      }
    }
  }
}

TEST(KernelElementwise, BroadcastIncludingScalar) {
  // [3,1,5] * [4,1] -> [3,4,5]; and [] + [2,3]
  std::vector<float> a = randomFloats(15, -2, 2, 3), b = randomFloats(4, -2, 2, 4);
  HostTensor x1 = HostTensor::floats(ACL_FLOAT, {3, 1, 5}, a), x2 = HostTensor::floats(ACL_FLOAT, {4, 1}, b);
  HostTensor y(ACL_FLOAT, {3, 4, 5});
  run(makeCall("Mul", {&x1, &x2}, {&y}));
  auto ry = y.toFloats();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) ASSERT_EQ(ry[(i * 4 + j) * 5 + k], a[i * 5 + k] * b[j]);

  HostTensor s = HostTensor::floats(ACL_FLOAT, {}, {2.5f});
  HostTensor m = HostTensor::floats(ACL_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y2(ACL_FLOAT, {2, 3});
  run(makeCall("Sub", {&s, &m}, {&y2}));
  EXPECT_EQ(y2.toFloats(), (std::vector<float>{1.5f, 0.5f, -0.5f, -1.5f, -2.5f, -3.5f}));
}

TEST(KernelElementwise, LargeBroadcastMatchesReference) {
  // Inner dim larger than a chunk, broadcast along the middle dim.
  const int64_t A = 3, B = 2, C = 2500;
  auto a = randomFloats(A * B * C, -1, 1, 5), b = randomFloats(A * C, -1, 1, 6);
  HostTensor x1 = HostTensor::floats(ACL_FLOAT16, {A, B, C}, a), x2 = HostTensor::floats(ACL_FLOAT16, {A, 1, C}, b);
  HostTensor y(ACL_FLOAT16, {A, B, C});
  run(makeCall("Maximum", {&x1, &x2}, {&y}));
  auto ra = x1.toFloats(), rb = x2.toFloats(), ry = y.toFloats();
  for (int64_t i = 0; i < A; ++i)
    for (int64_t j = 0; j < B; ++j)
      for (int64_t k = 0; k < C; ++k)
        ASSERT_EQ(ry[(i * B + j) * C + k], std::max(ra[(i * B + j) * C + k], rb[i * C + k]));
}

TEST(KernelElementwise, ValidationErrors) {
  HostTensor a(ACL_FLOAT, {3, 4}), b(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Add", {&a, &b}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x1 shape [3,4] does not broadcast to output shape [2,3]");
  HostTensor h(ACL_FLOAT16, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Add", {&b, &h}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "float16");
  HostTensor i1(ACL_INT32, {2, 3}), i2(ACL_INT32, {2, 3}), iy(ACL_INT32, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("RealDiv", {&i1, &i2}, {&iy}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  EXPECT_KERNEL_ERROR(makeCall("Exp", {&i1}, {&iy}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  EXPECT_KERNEL_ERROR(makeCall("Add", {&b}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 2 inputs, got 1");
  HostTensor row(ACL_FLOAT, {3}), big(ACL_FLOAT, {2, 3});
  HostTensor small_y(ACL_FLOAT, {1, 3});
  EXPECT_KERNEL_ERROR(makeCall("Add", {&row, &row}, {&big}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "does not equal the broadcast shape [3]");
  HostTensor nz(ACL_FLOAT, {2, 3});
  nz.setFormat(ACL_FORMAT_FRACTAL_NZ);
  EXPECT_KERNEL_ERROR(makeCall("Add", {&nz, &b}, {&y}), ACL_ERROR_OP_UNSUPPORTED_FORMAT, "format 29");
  HostTensor by(ACL_BOOL, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Axpy", {&b, &b}, {&y}), ACL_ERROR_OP_ATTR_NOT_MATCH, "alpha");
  EXPECT_KERNEL_ERROR(makeCall("Equal", {&b, &b}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output y dtype float32");
}

TEST(KernelElementwise, DivisionAndNaN) {
  HostTensor a = HostTensor::floats(ACL_FLOAT, {5}, {1, -1, 0, kNaN, 3});
  HostTensor b = HostTensor::floats(ACL_FLOAT, {5}, {0, 0, 0, 1, kNaN});
  HostTensor y(ACL_FLOAT, {5});
  run(makeCall("RealDiv", {&a, &b}, {&y}));
  auto r = y.toFloats();
  EXPECT_EQ(r[0], kInf);
  EXPECT_EQ(r[1], -kInf);
  EXPECT_TRUE(std::isnan(r[2]));
  run(makeCall("Maximum", {&a, &b}, {&y}));
  r = y.toFloats();
  EXPECT_EQ(r[0], 1);
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_TRUE(std::isnan(r[4]));
  run(makeCall("Minimum", {&b, &a}, {&y}));
  r = y.toFloats();
  EXPECT_EQ(r[1], -1);
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_TRUE(std::isnan(r[4]));
}

TEST(KernelElementwise, IntegerFloorDivPowAndFault) {
  HostTensor a = HostTensor::ints(ACL_INT32, {6}, {7, -7, 7, -7, 2, -1});
  HostTensor b = HostTensor::ints(ACL_INT32, {6}, {2, 2, -2, -2, 10, -3});
  HostTensor y(ACL_INT32, {6});
  run(makeCall("FloorDiv", {&a, &b}, {&y}));
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{3, -4, -4, 3, 0, 0}));
  run(makeCall("Pow", {&a, &b}, {&y}));
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{49, 49, 0, 0, 1024, -1}));
  HostTensor z = HostTensor::ints(ACL_INT32, {6}, {1, 1, 0, 1, 1, 1});
  EXPECT_KERNEL_ERROR(makeCall("FloorDiv", {&a, &z}, {&y}), ACL_ERROR_RT_AICORE_EXCEPTION, "division by zero");
  HostTensor fa = HostTensor::floats(ACL_FLOAT, {2}, {7, -7}), fb = HostTensor::floats(ACL_FLOAT, {2}, {2, 2});
  HostTensor fy(ACL_FLOAT, {2});
  run(makeCall("FloorDiv", {&fa, &fb}, {&fy}));
  EXPECT_EQ(fy.toFloats(), (std::vector<float>{3, -4}));
}

TEST(KernelElementwise, AxpyComparisonsLogicalSelect) {
  HostTensor a = HostTensor::floats(ACL_FLOAT, {4}, {1, 2, 3, kNaN});
  HostTensor b = HostTensor::floats(ACL_FLOAT, {4}, {1, 1, 4, kNaN});
  HostTensor y(ACL_FLOAT, {4});
  run(makeCall("Axpy", {&a, &b}, {&y}, attrs({{"alpha", 0.5f}})));
  auto r = y.toFloats();
  EXPECT_EQ(r[0], 1.5f);
  EXPECT_EQ(r[2], 5.0f);
  HostTensor yb(ACL_BOOL, {4});
  const std::pair<const char*, std::vector<int64_t>> cmp[] = {
      {"Equal", {1, 0, 0, 0}}, {"NotEqual", {0, 1, 1, 1}}, {"Less", {0, 0, 1, 0}},
      {"LessEqual", {1, 0, 1, 0}}, {"Greater", {0, 1, 0, 0}}, {"GreaterEqual", {1, 1, 0, 0}}};
  for (auto& c : cmp) {
    run(makeCall(c.first, {&a, &b}, {&yb}));
    EXPECT_EQ(yb.toInts(), c.second) << c.first;
  }
  HostTensor i64a = HostTensor::ints(ACL_INT64, {2}, {(1LL << 60) + 1, 5});
  HostTensor i64b = HostTensor::ints(ACL_INT64, {2}, {(1LL << 60), 5});
  HostTensor yb2(ACL_BOOL, {2});
  run(makeCall("Equal", {&i64a, &i64b}, {&yb2}));  // exact int64 comparison
  EXPECT_EQ(yb2.toInts(), (std::vector<int64_t>{0, 1}));

  HostTensor p = HostTensor::ints(ACL_BOOL, {4}, {1, 1, 0, 0}), q = HostTensor::ints(ACL_BOOL, {4}, {1, 0, 1, 0});
  run(makeCall("LogicalAnd", {&p, &q}, {&yb}));
  EXPECT_EQ(yb.toInts(), (std::vector<int64_t>{1, 0, 0, 0}));
  run(makeCall("LogicalOr", {&p, &q}, {&yb}));
  EXPECT_EQ(yb.toInts(), (std::vector<int64_t>{1, 1, 1, 0}));
  run(makeCall("LogicalNot", {&p}, {&yb}));
  EXPECT_EQ(yb.toInts(), (std::vector<int64_t>{0, 0, 1, 1}));

  HostTensor cond = HostTensor::ints(ACL_BOOL, {2, 1}, {1, 0});
  HostTensor x1 = HostTensor::ints(ACL_INT32, {3}, {1, 2, 3});
  HostTensor x2 = HostTensor::ints(ACL_INT32, {}, {-9});
  HostTensor ys(ACL_INT32, {2, 3});
  run(makeCall("SelectV2", {&cond, &x1, &x2}, {&ys}));
  EXPECT_EQ(ys.toInts(), (std::vector<int64_t>{1, 2, 3, -9, -9, -9}));
  EXPECT_KERNEL_ERROR(makeCall("SelectV2", {&x1, &x1, &x2}, {&ys}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "condition");
}

TEST(KernelElementwise, UnaryFloatOps) {
  auto v = randomFloats(203, 0.1f, 4.0f, 7);
  v[0] = -3.0f;
  struct Case { const char* op; double (*ref)(double); bool positive_only; };
  const Case cases[] = {
      {"Neg", [](double x) { return -x; }, false},
      {"Abs", [](double x) { return std::fabs(x); }, false},
      {"Exp", [](double x) { return std::exp(x); }, false},
      {"Log", [](double x) { return std::log(x); }, true},
      {"Sqrt", [](double x) { return std::sqrt(x); }, true},
      {"Rsqrt", [](double x) { return 1 / std::sqrt(x); }, true},
      {"Relu", [](double x) { return x > 0 ? x : 0; }, false},
      {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, false},
      {"Tanh", [](double x) { return std::tanh(x); }, false},
      {"Reciprocal", [](double x) { return 1 / x; }, false},
      {"Square", [](double x) { return x * x; }, false},
      {"Sign", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }, false},
  };
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const Case& c : cases) {
      std::vector<float> in = v;
      if (c.positive_only) in[0] = 3.0f;
      HostTensor x = HostTensor::floats(dt, {7, 29}, in), y(dt, {7, 29});
      run(makeCall(c.op, {&x}, {&y}));
      auto rx = x.toFloats(), ry = y.toFloats();
      double tol = dt == ACL_FLOAT ? 2e-6 : dt == ACL_FLOAT16 ? 1e-3 : 8e-3;
      for (size_t i = 0; i < ry.size(); ++i) {
        double want = c.ref(rx[i]);
        ASSERT_NEAR(ry[i], want, tol * std::max(1.0, std::fabs(want))) << c.op << " " << dtypeName(dt) << " " << rx[i];
      }
    }
  }
  HostTensor x = HostTensor::floats(ACL_FLOAT, {3}, {kNaN, -0.0f, -2}), y(ACL_FLOAT, {3});
  run(makeCall("Relu", {&x}, {&y}));
  EXPECT_TRUE(std::isnan(y.toFloats()[0]));
  EXPECT_FALSE(std::signbit(y.toFloats()[1]));
  // Sign of NaN is 0 and of -0 is +0, as torch.sign on the CPU (the differential fuzzer found NaN).
  run(makeCall("Sign", {&x}, {&y}));
  EXPECT_EQ(y.toFloats(), (std::vector<float>{0.0f, 0.0f, -1.0f}));
  EXPECT_FALSE(std::signbit(y.toFloats()[1]));
  HostTensor ix = HostTensor::ints(ACL_INT8, {3}, {-128, -5, 7}), iy(ACL_INT8, {3});
  run(makeCall("Neg", {&ix}, {&iy}));
  EXPECT_EQ(iy.toInts(), (std::vector<int64_t>{-128, 5, -7}));
  run(makeCall("Abs", {&ix}, {&iy}));
  EXPECT_EQ(iy.toInts(), (std::vector<int64_t>{-128, 5, 7}));
}

TEST(KernelElementwise, PowerAndGrads) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, 3}), y(ACL_FLOAT, {3});
  run(makeCall("Power", {&x}, {&y}, attrs({{"power", 2.0f}, {"scale", 2.0f}, {"shift", 1.0f}})));
  EXPECT_EQ(y.toFloats(), (std::vector<float>{9, 25, 49}));
  HostTensor g = HostTensor::floats(ACL_FLOAT, {4}, {1, 2, 3, 4}), f = HostTensor::floats(ACL_FLOAT, {4}, {-1, 0, 0.5f, 2});
  HostTensor bp(ACL_FLOAT, {4});
  run(makeCall("ReluGrad", {&g, &f}, {&bp}));
  EXPECT_EQ(bp.toFloats(), (std::vector<float>{0, 0, 3, 4}));
  run(makeCall("ThresholdGradV2D", {&g, &f}, {&bp}, attrs({{"threshold", 0.5f}})));
  EXPECT_EQ(bp.toFloats(), (std::vector<float>{0, 0, 0, 4}));
  HostTensor yy = HostTensor::floats(ACL_FLOAT, {2}, {0.25f, 0.5f}), dy = HostTensor::floats(ACL_FLOAT, {2}, {2, 4});
  HostTensor z(ACL_FLOAT, {2});
  run(makeCall("SigmoidGrad", {&yy, &dy}, {&z}));
  EXPECT_EQ(z.toFloats(), (std::vector<float>{2 * 0.25f * 0.75f, 4 * 0.5f * 0.5f}));
  run(makeCall("TanhGrad", {&yy, &dy}, {&z}));
  EXPECT_EQ(z.toFloats(), (std::vector<float>{2 * (1 - 0.0625f), 4 * 0.75f}));
}

int64_t wrapTo(aclDataType to, int64_t v) {
  switch (to) {
    case ACL_INT8: return static_cast<int8_t>(v);
    case ACL_UINT8: return static_cast<uint8_t>(v);
    case ACL_INT32: return static_cast<int32_t>(v);
    default: return v;
  }
}

TEST(KernelCast, AllPairs) {
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_UINT8, ACL_INT32, ACL_INT64, ACL_BOOL};
  const std::vector<float> src = {0.0f, 1.0f, -1.5f, 2.75f, 100.0f, -129.0f, 300.0f, 0.5f};
  for (aclDataType from : types) {
    for (aclDataType to : types) {
      HostTensor x = HostTensor::floats(from, {8}, src), y(to, {8});
      run(makeCall("Cast", {&x}, {&y}));
      auto xs = x.toFloats(), ys = y.toFloats();
      for (size_t i = 0; i < xs.size(); ++i) {
        float v = xs[i], want;
        if (to == ACL_BOOL) want = v != 0;
        else if (!isFloatDtype(from) && !isFloatDtype(to)) want = static_cast<float>(wrapTo(to, static_cast<int64_t>(v)));
        else if (isFloatDtype(to)) want = roundTo(to, v);
        else {
          double lo = to == ACL_INT8 ? -128 : to == ACL_UINT8 ? 0 : -2147483648.0;
          double hi = to == ACL_INT8 ? 127 : to == ACL_UINT8 ? 255 : 2147483647.0;
          want = static_cast<float>(std::min(hi, std::max(lo, std::trunc(static_cast<double>(v)))));
        }
        ASSERT_EQ(ys[i], want) << dtypeName(from) << "->" << dtypeName(to) << " " << v;
      }
    }
  }
  HostTensor n = HostTensor::floats(ACL_FLOAT, {4}, {kNaN, kInf, -kInf, 3e10f}), ni(ACL_INT32, {4});
  run(makeCall("Cast", {&n}, {&ni}));
  EXPECT_EQ(ni.toInts(), (std::vector<int64_t>{0, 2147483647, -2147483648LL, 2147483647}));
  HostTensor big = HostTensor::ints(ACL_INT64, {2}, {(1LL << 40) + 7, -3}), bi(ACL_INT32, {2});
  run(makeCall("Cast", {&big}, {&bi}));  // int -> int wraps
  EXPECT_EQ(bi.toInts(), (std::vector<int64_t>{7, -3}));
}

// Note [Copies without a map] skips the Vector pass of a Cast and a Fill: long runs over many
// chunks and blocks, a staged input loaded straight into an fp32 output, a broadcast value.
TEST(KernelCast, LongRunsAndFillsConvertEveryElement) {
  const int64_t cols = 40001;  // several staged chunks per block, and not a multiple of one
  std::vector<float> src(static_cast<size_t>(5 * cols));
  for (size_t i = 0; i < src.size(); ++i) src[i] = (static_cast<float>(i % 977) - 488.3f) * 61.7f;
  const std::pair<aclDataType, aclDataType> pairs[] = {
      {ACL_FLOAT, ACL_FLOAT16}, {ACL_FLOAT16, ACL_FLOAT}, {ACL_BF16, ACL_FLOAT},
      {ACL_FLOAT, ACL_BF16},    {ACL_FLOAT, ACL_FLOAT},   {ACL_INT32, ACL_FLOAT},
      {ACL_INT32, ACL_INT64},   {ACL_BOOL, ACL_INT64},    {ACL_INT64, ACL_INT32}};
  for (const auto& [from, to] : pairs) {
    HostTensor x = HostTensor::floats(from, {5, cols}, src), y(to, {5, cols});
    run(makeCall("Cast", {&x}, {&y}));
    const std::vector<float> xs = x.toFloats(), ys = y.toFloats();
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(ys[i], roundTo(to, xs[i])) << dtypeName(from) << " -> " << dtypeName(to) << " at " << i;
  }
  for (aclDataType from : {ACL_FLOAT, ACL_FLOAT16}) {  // Fill: a broadcast 0-d value, the same copy
    for (aclDataType to : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      HostTensor value = HostTensor::floats(from, {}, {-1234.56f}), y(to, {5, cols});
      run(makeCall("Fill", {&value}, {&y}));
      const float want = roundTo(to, value.toFloats()[0]);
      for (float v : y.toFloats()) ASSERT_EQ(v, want) << dtypeName(from) << " -> " << dtypeName(to);
    }
  }
}

// A strided fp16 run (a transposed Cube operand) is gathered and converted a block at a time.
TEST(KernelDtype, StridedHalfLoadsConvertEveryElement) {
  std::vector<uint16_t> h(3 * 200 + 1);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i * 331u);  // infs and NaNs too
  for (int64_t n : {1, 63, 64, 65, 200}) {
    std::vector<float> dst(static_cast<size_t>(n));
    loadFloat(ACL_FLOAT16, h.data(), 1, 3, n, dst.data());
    for (int64_t i = 0; i < n; ++i) {
      const float want = halfToFloat(h[static_cast<size_t>(1 + 3 * i)]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(dst[static_cast<size_t>(i)])) << i;
      } else {
        ASSERT_EQ(dst[static_cast<size_t>(i)], want) << "n " << n << " at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
