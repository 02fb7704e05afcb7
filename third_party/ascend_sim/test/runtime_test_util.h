// Helpers shared by the runtime test suites.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "ascend_sim/acl.h"

// Expects an ACL call to succeed and shows the simulator's message otherwise.
#define EXPECT_ACL_OK(expr) EXPECT_EQ((expr), ACL_SUCCESS) << aclGetRecentErrMsg()
#define ASSERT_ACL_OK(expr) ASSERT_EQ((expr), ACL_SUCCESS) << aclGetRecentErrMsg()

// Expects a specific ACL status code.
#define EXPECT_ACL_ERR(expr, code) EXPECT_EQ((expr), (code)) << aclGetRecentErrMsg()

inline std::string lastAclMessage() { return aclGetRecentErrMsg(); }

// Sets ACL_PRECISION_MODE for a scope and restores the previous mode however
// the scope ends (a failed ASSERT returns early), so that no later test runs
// in a mode it did not ask for.
class ScopedPrecisionMode {
 public:
  explicit ScopedPrecisionMode(const char* mode) {
    EXPECT_ACL_OK(aclGetCompileopt(ACL_PRECISION_MODE, saved_, sizeof saved_));
    EXPECT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, mode));
  }
  ~ScopedPrecisionMode() { EXPECT_ACL_OK(aclSetCompileopt(ACL_PRECISION_MODE, saved_)); }
  ScopedPrecisionMode(const ScopedPrecisionMode&) = delete;
  ScopedPrecisionMode& operator=(const ScopedPrecisionMode&) = delete;

 private:
  char saved_[64] = {};
};

// A test on device 0 whose device buffers (devAlloc) are freed when it ends.
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_ACL_OK(aclrtSetDevice(0)); }
  void TearDown() override {
    for (void* p : device_buffers_) aclrtFree(p);
  }
  void* devAlloc(size_t n) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    device_buffers_.push_back(p);
    return p;
  }

 private:
  std::vector<void*> device_buffers_;
};
