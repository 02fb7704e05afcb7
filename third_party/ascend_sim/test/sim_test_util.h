// Helpers for the AI Core / numerics / profiling / compile-cache suites:
// device tensors, launching an op through aclopExecuteV2, and re-running this
// test binary in a child process with a different environment.
//
// Note [Per-preset tests in a child process]
// The chip preset (ASCEND_SIM_SOC_VERSION) and the log settings are read by
// the simulator at first use, so a test that needs another preset re-executes
// this binary (/proc/self/exe) with the variables set and a gtest filter
// naming a "*Child" test. Child tests GTEST_SKIP unless ASCEND_SIM_TEST_CHILD=1,
// so they are inert in a normal run. The parent checks the exit status (and,
// for logs, the child's stdout).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "runtime_test_util.h"

namespace ascend_sim {
namespace test {

inline bool isTestChild() {
  const char* v = std::getenv("ASCEND_SIM_TEST_CHILD");
  return v && std::string(v) == "1";
}

#define ASCEND_SIM_CHILD_ONLY() \
  if (!::ascend_sim::test::isTestChild()) GTEST_SKIP() << "runs only as a child process (see sim_test_util.h)"

struct ChildResult {
  int exit_code = -1;
  std::string out;  // stdout (stderr too if merge_stderr)
};

// Runs this binary with `env` ("A=1 B=2") and --gtest_filter=filter.
inline ChildResult runSelf(const std::string& filter, const std::string& env, bool merge_stderr = false) {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  ChildResult r;
  if (n <= 0) return r;
  exe[n] = '\0';
  // The child runs exactly `filter`: not a shard of it (Note [Sharded GoogleTest runs]).
  const std::string cmd = "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX " + env + " ASCEND_SIM_TEST_CHILD=1 '" +
                          exe + "' --gtest_filter='" + filter +
                          "'" + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, got);
  const int st = pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// A device buffer holding a tensor; host values go through dtype conversion.
class DevTensor {
 public:
  DevTensor(aclDataType dt, Shape shape) : dt_(dt), shape_(std::move(shape)) {
    bytes_ = static_cast<size_t>(numelOf(shape_)) * dtypeSize(dt);
    EXPECT_EQ(aclrtMalloc(&ptr_, bytes_ ? bytes_ : 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    desc_ = aclCreateTensorDesc(dt, static_cast<int>(shape_.size()), shape_.data(), ACL_FORMAT_ND);
    buf_ = aclCreateDataBuffer(ptr_, bytes_);
  }
  ~DevTensor() {
    aclDestroyDataBuffer(buf_);
    aclDestroyTensorDesc(desc_);
    aclrtFree(ptr_);
  }
  DevTensor(const DevTensor&) = delete;
  DevTensor& operator=(const DevTensor&) = delete;

  void setFloats(const std::vector<float>& v) {
    std::vector<uint8_t> host(bytes_ + 1);
    storeFloat(dt_, host.data(), 0, static_cast<int64_t>(v.size()), v.data());
    EXPECT_EQ(aclrtMemcpy(ptr_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  }
  void setInts(const std::vector<int64_t>& v) {
    std::vector<uint8_t> host(bytes_ + 1);
    storeInt(dt_, host.data(), 0, static_cast<int64_t>(v.size()), v.data());
    EXPECT_EQ(aclrtMemcpy(ptr_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  }
  std::vector<float> floats() const {
    std::vector<uint8_t> host(bytes_ + 1);
    EXPECT_EQ(aclrtMemcpy(host.data(), bytes_, ptr_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    std::vector<float> v(static_cast<size_t>(numelOf(shape_)));
    loadFloat(dt_, host.data(), 0, 1, numelOf(shape_), v.data());
    return v;
  }
  std::vector<uint16_t> raw16() const {
    std::vector<uint16_t> v(static_cast<size_t>(numelOf(shape_)));
    EXPECT_EQ(aclrtMemcpy(v.data(), bytes_, ptr_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return v;
  }
  std::vector<int64_t> ints() const {
    std::vector<uint8_t> host(bytes_ + 1);
    EXPECT_EQ(aclrtMemcpy(host.data(), bytes_, ptr_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    std::vector<int64_t> v(static_cast<size_t>(numelOf(shape_)));
    loadInt(dt_, host.data(), 0, 1, numelOf(shape_), v.data());
    return v;
  }
  void* data() const { return ptr_; }
  aclTensorDesc* desc() const { return desc_; }
  aclDataBuffer* buf() const { return buf_; }

 private:
  aclDataType dt_;
  Shape shape_;
  size_t bytes_ = 0;
  void* ptr_ = nullptr;
  aclTensorDesc* desc_ = nullptr;
  aclDataBuffer* buf_ = nullptr;
};

// Launches op on `stream` (the default one unless given); does not synchronize.
inline aclError launchOp(const char* op, std::vector<const DevTensor*> ins, std::vector<const DevTensor*> outs,
                         aclopAttr* attr = nullptr, aclrtStream stream = nullptr) {
  std::vector<aclTensorDesc*> id, od;
  std::vector<aclDataBuffer*> ib, ob;
  for (auto* t : ins) {
    id.push_back(t->desc());
    ib.push_back(t->buf());
  }
  for (auto* t : outs) {
    od.push_back(t->desc());
    ob.push_back(t->buf());
  }
  return aclopExecuteV2(op, static_cast<int>(ins.size()), id.data(), ib.data(), static_cast<int>(outs.size()),
                        od.data(), ob.data(), attr, stream);
}

// Deterministic pseudo-random values in [lo, hi).
inline std::vector<float> simRandom(size_t n, float lo, float hi, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) * (1.0f / 16777216.0f);
  }
  return v;
}

}  // namespace test
}  // namespace ascend_sim
