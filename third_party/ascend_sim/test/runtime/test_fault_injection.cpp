// Injected faults (aclsimInjectFault, Note [Fault injection]): a task that
// faults on its stream, the n-th of a name, synchronous copies, exhausted
// HBM, a hung task, bad specs; the device is usable after each.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "ascend_sim/acl_sim.h"
#include "runtime_test_util.h"

namespace {

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

class FaultInjection : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    ASSERT_ACL_OK(aclrtCreateStream(&stream_));
    ASSERT_ACL_OK(aclrtMalloc(&a_, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&b_, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMemset(a_, kBytes, 7, kBytes));
  }
  void TearDown() override {
    EXPECT_ACL_OK(aclsimClearFaults());
    aclrtFree(a_);
    aclrtFree(b_);
    aclrtDestroyStream(stream_);
  }
  aclError copyAToB() {
    const aclError e = aclrtMemcpyAsync(b_, kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_);
    return e != ACL_SUCCESS ? e : aclrtSynchronizeStream(stream_);
  }
  std::vector<unsigned char> bytesOfB() {
    std::vector<unsigned char> host(kBytes);
    EXPECT_ACL_OK(aclrtMemcpy(host.data(), kBytes, b_, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
    return host;
  }
  static constexpr size_t kBytes = 256;
  aclrtStream stream_ = nullptr;
  void* a_ = nullptr;
  void* b_ = nullptr;
};

TEST_F(FaultInjection, TheNthTaskOfANameFaultsOnItsStreamAndTheStreamRecovers) {
  ASSERT_ACL_OK(aclrtMemset(b_, kBytes, 0, kBytes));
  ASSERT_ACL_OK(aclsimInjectFault("task:MemcpyD2D:2"));
  EXPECT_ACL_OK(copyAToB());  // the first one passes
  ASSERT_ACL_OK(aclrtMemset(b_, kBytes, 0, kBytes));
  EXPECT_ACL_ERR(copyAToB(), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_TRUE(has(lastAclMessage(), "task 'MemcpyD2D' failed on device 0")) << lastAclMessage();
  EXPECT_TRUE(has(lastAclMessage(), "injected fault: task 'MemcpyD2D' faulted on the device")) << lastAclMessage();
  EXPECT_EQ(bytesOfB(), std::vector<unsigned char>(kBytes, 0));  // the faulted copy copied nothing
  EXPECT_ACL_OK(copyAToB());  // the rule expired; the stream runs normally
  EXPECT_EQ(bytesOfB(), std::vector<unsigned char>(kBytes, 7));
}

TEST_F(FaultInjection, ASynchronousCopyReturnsTheFaultAtOnce) {
  ASSERT_ACL_OK(aclsimInjectFault("task:MemcpyD2H"));
  std::vector<unsigned char> host(kBytes, 1);
  EXPECT_ACL_ERR(aclrtMemcpy(host.data(), kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_TRUE(has(lastAclMessage(), "injected fault: task 'MemcpyD2H'")) << lastAclMessage();
  EXPECT_EQ(host, std::vector<unsigned char>(kBytes, 1));
  EXPECT_ACL_OK(aclrtMemcpy(host.data(), kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(host, std::vector<unsigned char>(kBytes, 7));
}

TEST_F(FaultInjection, ExhaustedHbmRefusesEveryMallocUntilCleared) {
  ASSERT_ACL_OK(aclsimInjectFault("malloc:2"));
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  void* q = nullptr;
  for (int i = 0; i < 3; ++i) {
    EXPECT_ACL_ERR(aclrtMalloc(&q, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_TRUE(has(lastAclMessage(), "injected fault: HBM exhausted, cannot allocate 64 bytes")) << lastAclMessage();
  }
  ASSERT_ACL_OK(aclsimClearFaults());
  ASSERT_ACL_OK(aclrtMalloc(&q, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_OK(aclrtFree(q));
}

// Restores the default op execute timeout when it goes out of scope.
struct ScopedOpTimeoutMs {
  explicit ScopedOpTimeoutMs(uint32_t ms) { EXPECT_ACL_OK(aclrtSetOpExecuteTimeOutWithMs(ms)); }
  ~ScopedOpTimeoutMs() { EXPECT_ACL_OK(aclrtSetOpExecuteTimeOut(0)); }
};

uint64_t hungTasks() {
  uint64_t n = 0;
  EXPECT_ACL_OK(aclsimGetHungTaskCount(&n));
  return n;
}

TEST_F(FaultInjection, AHungTaskFailsAtTheOpExecuteTimeoutAndTheStreamGoesOn) {
  ScopedOpTimeoutMs timeout(300);
  ASSERT_ACL_OK(aclrtMemset(b_, kBytes, 0, kBytes));
  ASSERT_ACL_OK(aclsimInjectFault("hang:MemcpyD2D"));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_ACL_OK(aclrtMemcpyAsync(b_, kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_));
  ASSERT_ACL_OK(aclrtMemsetAsync(a_, kBytes, 3, kBytes, stream_));  // queued behind the hung copy
  EXPECT_ACL_ERR(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_AICORE_TIMEOUT);
  // The hang lasts the timeout (a lower bound only: the machine may be slower, never faster).
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300));
  EXPECT_TRUE(has(lastAclMessage(), "task 'MemcpyD2D' failed on device 0")) << lastAclMessage();
  EXPECT_TRUE(has(lastAclMessage(), "did not finish within the op execute timeout of 300 ms")) << lastAclMessage();
  EXPECT_EQ(bytesOfB(), std::vector<unsigned char>(kBytes, 0));  // the hung copy copied nothing
  std::vector<unsigned char> host(kBytes);
  ASSERT_ACL_OK(aclrtMemcpy(host.data(), kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(host, std::vector<unsigned char>(kBytes, 3));  // the task behind it ran
  EXPECT_ACL_OK(copyAToB());
  EXPECT_EQ(hungTasks(), 0u);
}

TEST_F(FaultInjection, ClearingTheFaultsReleasesAHungTask) {
  ASSERT_ACL_OK(aclsimInjectFault("hang:MemcpyD2D"));  // the default timeout: 68 s
  ASSERT_ACL_OK(aclrtMemcpyAsync(b_, kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_));
  std::thread releaser([] {
    // Released only once the task is inside its hang (clearing earlier would remove the rule instead).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (hungTasks() == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(hungTasks(), 1u);
    EXPECT_ACL_OK(aclsimClearFaults());
  });
  EXPECT_ACL_ERR(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_AICORE_EXCEPTION);
  releaser.join();
  EXPECT_TRUE(has(lastAclMessage(), "task 'MemcpyD2D' hung on the device until aclsimClearFaults released it"))
      << lastAclMessage();
  EXPECT_ACL_OK(copyAToB());
  EXPECT_EQ(bytesOfB(), std::vector<unsigned char>(kBytes, 7));
}

TEST_F(FaultInjection, BadSpecsAreRefusedWholeAndSayWhatIsAccepted) {
  EXPECT_ACL_ERR(aclsimInjectFault("task:MemcpyD2D;boom"), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(has(lastAclMessage(), "fault rule 'boom': unknown kind 'boom'")) << lastAclMessage();
  EXPECT_TRUE(has(lastAclMessage(), "task:<name>[:<n>], hang:<name>[:<n>], malloc[:<n>]")) << lastAclMessage();
  EXPECT_ACL_ERR(aclsimInjectFault("hang"), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(has(lastAclMessage(), "expected hang:<name>[:<n>]")) << lastAclMessage();
  EXPECT_ACL_ERR(aclsimInjectFault("task:X:two"), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(has(lastAclMessage(), "'two' is not a count from 1")) << lastAclMessage();
  EXPECT_ACL_ERR(aclsimInjectFault("malloc:1:2"), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimInjectFault(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_OK(copyAToB());  // the first rule of the refused spec was not added
}

}  // namespace
