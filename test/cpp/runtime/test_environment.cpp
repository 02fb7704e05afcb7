// The environment every plugin test runs in.
//
// Note [Seeded per test]
// Each test starts from a seed of its own, derived from its full name: its random
// data does not depend on which tests ran before it in the same process. With one
// seed for the whole program, adding a test anywhere reshuffled the draws of every
// test after it in its ctest shard, and a fragile comparison surfaced in CI only.
// TORCH_NPU_TEST_SEED=N gives every test another seed, so a sweep over N looks for
// inputs a test's tolerance does not cover:
//   for n in 1 2 3; do TORCH_NPU_TEST_SEED=$n ./torch_npu_tests --gtest_filter=...; done
//
// The per-op suites compare with PyTorch's fp32 CPU results at fp32 tolerances,
// so the Cube keeps fp32 operands (must_keep_origin_dtype). The Ascend910A default
// (allow_fp32_to_fp16) has its own tests, which set the mode themselves (see
// test_matmul_ops.cpp).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "ascend_sim/acl.h"
#include "csrc/core/NPUGenerator.h"

namespace {

uint64_t fnv1a(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::string seedShift() {
  const char* shift = std::getenv("TORCH_NPU_TEST_SEED");
  return shift == nullptr ? "" : "#" + std::string(shift);
}

class SeedEachTest : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& test) override {
    // The generators take seeds below 2^63.
    const uint64_t seed = fnv1a(std::string(test.test_suite_name()) + "." + test.name() + seedShift()) >> 1;
    at::manual_seed(seed);
    torch_npu::NPUGenerator::forDevice(0).manual_seed(seed);
  }
};

class PrecisionModeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ::testing::UnitTest::GetInstance()->listeners().Append(new SeedEachTest);
    ASSERT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype"), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new PrecisionModeEnvironment);

}  // namespace
