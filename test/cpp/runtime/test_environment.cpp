// Random test data is seeded, so a failure reproduces run to run.
// The per-op suites compare with PyTorch's fp32 CPU results at fp32
// tolerances, so the Cube keeps fp32 operands (must_keep_origin_dtype).
// The Ascend910A default (allow_fp32_to_fp16) has its own tests, which set
// the mode themselves (see test_matmul_ops.cpp).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "ascend_sim/acl.h"

namespace {

class PrecisionModeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    at::manual_seed(0);
    ASSERT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype"), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new PrecisionModeEnvironment);

}  // namespace
