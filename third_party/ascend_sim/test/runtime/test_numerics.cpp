// Numerics through the runtime: ACL_PRECISION_MODE (captured per launch) and
// fp16 overflow (saturation + sticky flag on 910A, IEEE on 910B2). The
// per-preset checks run in child processes, see Note [Per-preset tests in a
// child process] in sim_test_util.h.
#include <cmath>
#include <string>
#include <vector>

#include "sim_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::string getMode() {
  char buf[64] = {};
  EXPECT_ACL_OK(aclGetCompileopt(ACL_PRECISION_MODE, buf, sizeof buf));
  return buf;
}

float toHalf(float v) { return halfToFloat(floatToHalf(v)); }

// fp32 reference: ascending-k fma over (optionally fp16-rounded) operands.
std::vector<float> refMatmul(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n,
                             int64_t k, bool round_operands, bool round_result) {
  std::vector<float> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        float av = a[i * k + kk], bv = b[kk * n + j];
        if (round_operands) {
          av = toHalf(av);
          bv = toHalf(bv);
        }
        acc = std::fma(av, bv, acc);
      }
      c[i * n + j] = round_result ? toHalf(acc) : acc;
    }
  return c;
}

class Numerics : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    default_mode_ = getMode();
  }
  void TearDown() override { EXPECT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, default_mode_.c_str())); }
  std::string default_mode_;
};

TEST_F(Numerics, PrecisionModeOptionValidation) {
  const std::string soc = aclrtGetSocName();
  EXPECT_EQ(default_mode_, soc == "Ascend910A" ? "allow_fp32_to_fp16" : "must_keep_origin_dtype");
  EXPECT_ACL_ERR(aclSetCompileopt(ACL_PRECISION_MODE, "allow_mix_precision_bogus"), ACL_ERROR_INVALID_PARAM);
  const std::string msg = lastAclMessage();
  for (const char* v : {"allow_fp32_to_fp16", "must_keep_origin_dtype", "force_fp16", "allow_mix_precision_bogus"})
    EXPECT_NE(msg.find(v), std::string::npos) << msg;
  EXPECT_ACL_ERR(aclSetCompileopt(ACL_PRECISION_MODE, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclSetCompileopt(static_cast<aclCompileOpt>(7), "force_fp16"), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(getMode(), default_mode_);  // unchanged by the failures
  ASSERT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, "force_fp16"));
  EXPECT_EQ(getMode(), "force_fp16");
  char tiny[4];
  EXPECT_ACL_ERR(aclGetCompileopt(ACL_PRECISION_MODE, tiny, sizeof tiny), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Numerics, PrecisionModeSwitchesFp32MatMulAtLaunch) {
  const int64_t m = 23, n = 17, k = 91;
  // Values with more mantissa bits than fp16 holds, so the modes differ.
  auto av = simRandom(m * k, -3, 3, 21), bv = simRandom(k * n, -3, 3, 22);
  DevTensor a(ACL_FLOAT, {m, k}), b(ACL_FLOAT, {k, n});
  a.setFloats(av);
  b.setFloats(bv);
  DevTensor y1(ACL_FLOAT, {m, n}), y2(ACL_FLOAT, {m, n}), y3(ACL_FLOAT, {m, n});
  ASSERT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, "allow_fp32_to_fp16"));
  ASSERT_ACL_OK(launchOp("MatMul", {&a, &b}, {&y1}));
  ASSERT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype"));  // queued op keeps its mode
  ASSERT_ACL_OK(launchOp("MatMul", {&a, &b}, {&y2}));
  ASSERT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, "force_fp16"));
  ASSERT_ACL_OK(launchOp("MatMul", {&a, &b}, {&y3}));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_EQ(y1.floats(), refMatmul(av, bv, m, n, k, true, false));
  EXPECT_EQ(y2.floats(), refMatmul(av, bv, m, n, k, false, false));
  EXPECT_EQ(y3.floats(), refMatmul(av, bv, m, n, k, true, true));
  EXPECT_NE(y1.floats(), y2.floats());
  // fp16 operands are unaffected by the mode.
  DevTensor ah(ACL_FLOAT16, {m, k}), bh(ACL_FLOAT16, {k, n}), yh1(ACL_FLOAT16, {m, n}), yh2(ACL_FLOAT16, {m, n});
  ah.setFloats(av);
  bh.setFloats(bv);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype"));
  ASSERT_ACL_OK(launchOp("MatMul", {&ah, &bh}, {&yh1}));
  ASSERT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, "allow_fp32_to_fp16"));
  ASSERT_ACL_OK(launchOp("MatMul", {&ah, &bh}, {&yh2}));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_EQ(yh1.floats(), yh2.floats());
}

// fp16 overflow on the current preset: 60000 + 60000, inf + -inf, 1 + 1.
void checkOverflowOnCurrentPreset() {
  const bool saturate = std::string(aclrtGetSocName()) == "Ascend910A";
  ASSERT_ACL_OK(aclrtSetDevice(0));
  uint32_t flag = 7;
  ASSERT_ACL_OK(aclrtResetOverflowStatus(nullptr));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, nullptr));
  EXPECT_EQ(flag, 0u);
  DevTensor x(ACL_FLOAT16, {3}), y(ACL_FLOAT16, {3}), z(ACL_FLOAT16, {3});
  x.setFloats({1.0f, 60000.0f, INFINITY});
  y.setFloats({1.0f, 60000.0f, -INFINITY});
  // No overflow yet.
  DevTensor ok(ACL_FLOAT16, {1}), ok2(ACL_FLOAT16, {1});
  ok.setFloats({2.0f});
  ASSERT_ACL_OK(launchOp("Add", {&ok, &ok}, {&ok2}));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, nullptr));
  EXPECT_EQ(flag, 0u);
  ASSERT_ACL_OK(launchOp("Add", {&x, &y}, {&z}));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, nullptr));
  const auto bits = z.raw16();
  EXPECT_EQ(bits[0], 0x4000);  // 2.0
  if (saturate) {
    EXPECT_EQ(flag, 1u);
    EXPECT_EQ(bits[1], 0x7bff);  // +65504
    EXPECT_EQ(bits[2], 0x0000);  // NaN -> 0
  } else {
    EXPECT_EQ(flag, 0u);
    EXPECT_EQ(bits[1], 0x7c00);  // +inf
    EXPECT_EQ(bits[2] & 0x7c00, 0x7c00);
    EXPECT_NE(bits[2] & 0x03ff, 0);  // NaN
  }
  // Sticky: a clean op does not clear it; reset (ordered on the stream) does.
  ASSERT_ACL_OK(launchOp("Add", {&ok, &ok}, {&ok2}));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, nullptr));
  EXPECT_EQ(flag, saturate ? 1u : 0u);
  ASSERT_ACL_OK(aclrtResetOverflowStatus(nullptr));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, nullptr));
  EXPECT_EQ(flag, 0u);
  // fp32 -> fp16 Cast of an out-of-range value and fp16 MatMul overflow.
  DevTensor big(ACL_FLOAT, {2}), cast(ACL_FLOAT16, {2});
  big.setFloats({1e6f, -1e6f});
  ASSERT_ACL_OK(launchOp("Cast", {&big}, {&cast}));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, nullptr));
  EXPECT_EQ(flag, saturate ? 1u : 0u);
  EXPECT_EQ(cast.floats(), saturate ? (std::vector<float>{65504.0f, -65504.0f})
                                    : (std::vector<float>{INFINITY, -INFINITY}));
  ASSERT_ACL_OK(aclrtResetOverflowStatus(nullptr));
  DevTensor ma(ACL_FLOAT16, {1, 2}), mb(ACL_FLOAT16, {2, 1}), mc(ACL_FLOAT16, {1, 1});
  ma.setFloats({300.0f, 300.0f});
  mb.setFloats({300.0f, 300.0f});
  ASSERT_ACL_OK(launchOp("MatMul", {&ma, &mb}, {&mc}));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, nullptr));
  EXPECT_EQ(flag, saturate ? 1u : 0u);
  EXPECT_EQ(mc.floats()[0], saturate ? 65504.0f : INFINITY);
  // Errors.
  EXPECT_ACL_ERR(aclrtGetOverflowStatus(nullptr, 4, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtGetOverflowStatus(&flag, 2, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtResetOverflowStatus(nullptr));
}

TEST_F(Numerics, Fp16OverflowOnThisProcessPreset) { checkOverflowOnCurrentPreset(); }

TEST(NumericsChild, Fp16Overflow) {
  ASCEND_SIM_CHILD_ONLY();
  checkOverflowOnCurrentPreset();
}

TEST(NumericsChild, DefaultPrecisionMode) {
  ASCEND_SIM_CHILD_ONLY();
  const std::string soc = aclrtGetSocName();
  EXPECT_EQ(getMode(), soc == "Ascend910A" ? "allow_fp32_to_fp16" : "must_keep_origin_dtype");
  int64_t cores = 0, vec = 0, l2 = 0;
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores));
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &vec));
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &l2));
  if (soc == "Ascend910A") {
    EXPECT_EQ(cores, 32);
    EXPECT_EQ(vec, 32);
    EXPECT_EQ(l2, 32ll << 20);
  } else {
    EXPECT_EQ(cores, 24);
    EXPECT_EQ(vec, 48);
    EXPECT_EQ(l2, 192ll << 20);
  }
}

TEST(NumericsPresets, SaturationOn910AInChildProcess) {
  if (isTestChild()) GTEST_SKIP();
  ChildResult r = runSelf("NumericsChild.*", "ASCEND_SIM_SOC_VERSION=Ascend910A");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[  PASSED  ] 2 tests"), std::string::npos) << r.out;
}

TEST(NumericsPresets, IeeeOn910B2InChildProcess) {
  if (isTestChild()) GTEST_SKIP();
  ChildResult r = runSelf("NumericsChild.*", "ASCEND_SIM_SOC_VERSION=Ascend910B2");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[  PASSED  ] 2 tests"), std::string::npos) << r.out;
}

TEST_F(Numerics, BitIdenticalRunToRun) {
  const int64_t m = 64, n = 48, k = 200;
  DevTensor a(ACL_FLOAT16, {m, k}), b(ACL_FLOAT16, {k, n}), y1(ACL_FLOAT16, {m, n}), y2(ACL_FLOAT16, {m, n});
  a.setFloats(simRandom(m * k, -1, 1, 31));
  b.setFloats(simRandom(k * n, -1, 1, 32));
  ASSERT_ACL_OK(launchOp("MatMul", {&a, &b}, {&y1}));
  ASSERT_ACL_OK(launchOp("MatMul", {&a, &b}, {&y2}));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_EQ(y1.raw16(), y2.raw16());
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
