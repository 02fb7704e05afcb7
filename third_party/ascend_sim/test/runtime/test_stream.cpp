// Streams: ordering, async copies, callbacks, queries, faults surfacing at
// synchronize, handle validation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "kernel/kernel.h"
#include "runtime_test_util.h"

using namespace ascend_sim;

namespace {

// A kernel that fails while executing (a device fault), registered for these tests.
void validateOk(const OpCall&) {}
void computeFault(const OpCall&) {
  throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, "integer division by zero at element 3");
}
KernelCost costNone(const OpCall&) { return KernelCost{}; }
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"StreamTestFault", &validateOk, &computeFault, &costNone});

aclError launchFault(aclrtStream s) {
  return aclopExecuteV2("StreamTestFault", 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, s);
}

// A kernel that notes the thread it ran on, and tries to synchronize its own stream.
std::atomic<std::thread::id> g_probe_thread{};
std::atomic<int> g_probe_sync_status{-1};
void computeProbe(const OpCall&) {
  g_probe_thread.store(std::this_thread::get_id());
  g_probe_sync_status.store(aclrtSynchronizeStream(nullptr));
}
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"StreamTestThreadProbe", &validateOk, &computeProbe, &costNone});

aclError launchProbe(aclrtStream s) {
  return aclopExecuteV2("StreamTestThreadProbe", 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, s);
}

struct Order {
  std::mutex mu;
  std::vector<int> seen;
};
struct Step {
  Order* order;
  int value;
};
void recordStep(void* p) {
  auto* s = static_cast<Step*>(p);
  std::lock_guard<std::mutex> lock(s->order->mu);
  s->order->seen.push_back(s->value);
}
void waitForRelease(void* p) {
  auto* released = static_cast<std::atomic<int>*>(p);
  while (!released->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
void slowCallback(void* p) {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  static_cast<std::atomic<int>*>(p)->store(1);
}

}  // namespace

TEST(Stream, CreateDestroyAndStaleHandle) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_NE(s, nullptr);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_ERR(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_NE(lastAclMessage().find("not a live stream"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
  int32_t idle = 0;
  EXPECT_ACL_ERR(aclrtStreamQuery(s, &idle), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERR(aclrtDestroyStream(nullptr), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERR(aclrtDestroyStream(reinterpret_cast<aclrtStream>(0xdeadbeef)), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERR(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Stream, TasksRunInOrder) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Order order;
  std::vector<Step> steps;
  for (int i = 0; i < 100; ++i) steps.push_back(Step{&order, i});
  for (auto& st : steps) ASSERT_ACL_OK(aclrtLaunchCallback(&recordStep, &st, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_EQ(order.seen.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order.seen[static_cast<size_t>(i)], i);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_ERR(aclrtLaunchCallback(nullptr, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Stream, QueryReportsBusyThenIdle) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> done{0};
  ASSERT_ACL_OK(aclrtLaunchCallback(&slowCallback, &done, s));
  int32_t idle = 1;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &idle));
  EXPECT_EQ(idle, 0);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(done.load(), 1);
  ASSERT_ACL_OK(aclrtStreamQuery(s, &idle));
  EXPECT_EQ(idle, 1);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(Stream, DestroyDrainsPendingWork) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> done{0};
  ASSERT_ACL_OK(aclrtLaunchCallback(&slowCallback, &done, s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_EQ(done.load(), 1);
}

TEST(Stream, AsyncCopiesAreOrdered) {
  const size_t n = 1 << 20;
  std::vector<unsigned char> a(n, 1), b(n, 2), out(n, 0);
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, a.data(), n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, n, 3, n / 2, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(static_cast<char*>(d) + n / 2, n / 2, b.data(), n / 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(out.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[n / 2 - 1], 3);
  EXPECT_EQ(out[n / 2], 2);
  EXPECT_EQ(out[n / 2 + n / 4 - 1], 2);
  EXPECT_EQ(out[n / 2 + n / 4], 1);
  // A synchronous copy is ordered after queued work on the device.
  std::atomic<int> slow{0};
  ASSERT_ACL_OK(aclrtLaunchCallback(&slowCallback, &slow, s));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, n, 9, n, s));
  std::vector<unsigned char> sync_out(n, 0);
  ASSERT_ACL_OK(aclrtMemcpy(sync_out.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(sync_out[n - 1], 9);
  // Bad arguments are reported at once.
  EXPECT_ACL_ERR(aclrtMemcpyAsync(d, n, a.data(), n + 1, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtMemcpyAsync(a.data(), n, d, n, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_INVALID_MEMORY);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST(Stream, FaultSurfacesAtSynchronizeAndClears) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(launchFault(s));  // enqueued fine: the fault happens on the device
  Order order;
  Step after{&order, 42};
  ASSERT_ACL_OK(aclrtLaunchCallback(&recordStep, &after, s));
  EXPECT_ACL_ERR(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
  const std::string msg = lastAclMessage();
  EXPECT_NE(msg.find("aclrtSynchronizeStream: op 'StreamTestFault' failed on device 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("integer division by zero at element 3"), std::string::npos) << msg;
  // Later tasks still ran; the error was reported once.
  EXPECT_EQ(order.seen, std::vector<int>{42});
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

// Note [Ops run on the submitting thread of an idle stream]
TEST(Stream, AnOpOnAnIdleStreamRunsOnTheSubmittingThread) {
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  g_probe_thread.store(std::thread::id());
  g_probe_sync_status.store(-1);
  ASSERT_ACL_OK(launchProbe(nullptr));
  EXPECT_EQ(g_probe_thread.load(), std::this_thread::get_id());  // done before the launch returned
  // While it runs, the submitter is the stream's worker: it cannot wait for its own stream.
  EXPECT_EQ(g_probe_sync_status.load(), ACL_ERROR_RT_STREAM_CONTEXT);
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  int32_t idle = 0;
  ASSERT_ACL_OK(aclrtStreamQuery(nullptr, &idle));
  EXPECT_EQ(idle, 1);
}

TEST(Stream, AnOpBehindPendingWorkWaitsForTheWorker) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> released{0};
  Order order;
  Step before{&order, 1}, after{&order, 2};
  g_probe_thread.store(std::thread::id());
  ASSERT_ACL_OK(aclrtLaunchCallback(&waitForRelease, &released, s));
  ASSERT_ACL_OK(aclrtLaunchCallback(&recordStep, &before, s));
  ASSERT_ACL_OK(launchProbe(s));
  ASSERT_ACL_OK(aclrtLaunchCallback(&recordStep, &after, s));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(g_probe_thread.load(), std::thread::id()) << "the op ran before the work queued ahead of it";
  EXPECT_TRUE(order.seen.empty());
  released.store(1);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_NE(g_probe_thread.load(), std::thread::id());
  EXPECT_NE(g_probe_thread.load(), std::this_thread::get_id());
  EXPECT_EQ(order.seen, (std::vector<int>{1, 2}));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(Stream, FaultOfAnOpRunOnItsSubmitterSurfacesAtSynchronize) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(launchFault(s));  // the stream is idle: the op ran in this call, and the call still succeeds
  int32_t idle = 0;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &idle));
  EXPECT_EQ(idle, 1);
  EXPECT_ACL_ERR(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(lastAclMessage().find("op 'StreamTestFault' failed"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(Stream, FaultSurfacesAtSynchronizeDevice) {
  ASSERT_ACL_OK(launchFault(nullptr));  // default stream
  EXPECT_ACL_ERR(aclrtSynchronizeDevice(), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(lastAclMessage().find("StreamTestFault"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
}

TEST(Stream, ResetDeviceDestroysItsStreams) {
  ASSERT_ACL_OK(aclrtSetDevice(5));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtResetDevice(5));
  EXPECT_ACL_ERR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERR(aclrtFree(d), ACL_ERROR_RT_INVALID_MEMORY);
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

TEST(Stream, StreamsOnSeveralDevicesAndThreads) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int dev = 0; dev < 4; ++dev) {
    threads.emplace_back([dev, &failures] {
      if (aclrtSetDevice(dev) != ACL_SUCCESS) ++failures;
      aclrtStream s = nullptr;
      if (aclrtCreateStream(&s) != ACL_SUCCESS) ++failures;
      std::vector<int> src(4096, dev), out(4096, -1);
      void* d = nullptr;
      if (aclrtMalloc(&d, 4096 * sizeof(int), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) ++failures;
      for (int i = 0; i < 20; ++i) {
        aclrtMemcpyAsync(d, 4096 * sizeof(int), src.data(), 4096 * sizeof(int), ACL_MEMCPY_HOST_TO_DEVICE, s);
        aclrtMemcpyAsync(out.data(), 4096 * sizeof(int), d, 4096 * sizeof(int), ACL_MEMCPY_DEVICE_TO_HOST, s);
      }
      if (aclrtSynchronizeStream(s) != ACL_SUCCESS) ++failures;
      if (out != src) ++failures;
      int32_t owner = -1;
      aclrtPointerGetDevice(d, &owner);
      if (owner != dev) ++failures;
      aclrtDestroyStream(s);
      aclrtFree(d);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}
