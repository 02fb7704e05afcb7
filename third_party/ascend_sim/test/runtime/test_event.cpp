// Events: record / wait / query / synchronize and elapsed simulated time.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ascend_sim/acl_sim.h"
#include "cost/cost_model.h"
#include "chip/chip_config.h"
#include "runtime_test_util.h"

using namespace ascend_sim;

namespace {
void slowSet(void* p) {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  static_cast<std::atomic<int>*>(p)->store(1);
}
void readFlag(void* p) {
  auto* pair = static_cast<std::pair<std::atomic<int>*, int>*>(p);
  pair->second = pair->first->load();
}
}  // namespace

TEST(Event, CreateDestroyAndInvalidHandles) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  aclrtEventStatus st = ACL_EVENT_STATUS_NOT_READY;
  ASSERT_ACL_OK(aclrtQueryEvent(e, &st));
  EXPECT_EQ(st, ACL_EVENT_STATUS_COMPLETE);  // never recorded
  ASSERT_ACL_OK(aclrtSynchronizeEvent(e));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_ERR(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERR(aclrtRecordEvent(e, nullptr), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_NE(lastAclMessage().find("not a live event"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclrtQueryEvent(nullptr, &st), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERR(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Event, ElapsedTimeIsSimulatedAndMonotone) {
  const size_t n = 64 << 20;  // 64 MiB
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent e0, e1, e2;
  ASSERT_ACL_OK(aclrtCreateEvent(&e0));
  ASSERT_ACL_OK(aclrtCreateEvent(&e1));
  ASSERT_ACL_OK(aclrtCreateEvent(&e2));
  ASSERT_ACL_OK(aclrtRecordEvent(e0, s));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, n, 0, n, s));
  ASSERT_ACL_OK(aclrtRecordEvent(e1, s));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, n, 0, n, s));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, n, 0, n, s));
  ASSERT_ACL_OK(aclrtRecordEvent(e2, s));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(e2));
  float one = 0, three = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&one, e0, e1));
  ASSERT_ACL_OK(aclrtEventElapsedTime(&three, e0, e2));
  // One memset of 64 MiB at 1.2 TB/s plus setup, in simulated ms.
  const CostModel model(ChipConfig::preset(aclrtGetSocName()));
  EXPECT_NEAR(one, model.memsetUs(n) / 1000.0, 1e-6);
  EXPECT_GT(one, 0.0f);
  EXPECT_NEAR(three, 3 * one, 1e-5);
  aclrtEvent never;
  ASSERT_ACL_OK(aclrtCreateEvent(&never));
  float ms = 0;
  EXPECT_ACL_ERR(aclrtEventElapsedTime(&ms, e0, never), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(lastAclMessage().find("never recorded"), std::string::npos) << lastAclMessage();
  for (aclrtEvent e : {e0, e1, e2, never}) ASSERT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST(Event, ElapsedTimeOfPendingRecordIsAnError) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent a, b;
  ASSERT_ACL_OK(aclrtCreateEvent(&a));
  ASSERT_ACL_OK(aclrtCreateEvent(&b));
  ASSERT_ACL_OK(aclrtRecordEvent(a, s));
  std::atomic<int> flag{0};
  ASSERT_ACL_OK(aclrtLaunchCallback(&slowSet, &flag, s));
  ASSERT_ACL_OK(aclrtRecordEvent(b, s));
  aclrtEventStatus st = ACL_EVENT_STATUS_COMPLETE;
  ASSERT_ACL_OK(aclrtQueryEvent(b, &st));
  EXPECT_EQ(st, ACL_EVENT_STATUS_NOT_READY);
  float ms = 0;
  EXPECT_ACL_ERR(aclrtEventElapsedTime(&ms, a, b), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(lastAclMessage().find("has not completed"), std::string::npos) << lastAclMessage();
  ASSERT_ACL_OK(aclrtSynchronizeEvent(b));
  EXPECT_EQ(flag.load(), 1);
  ASSERT_ACL_OK(aclrtQueryEvent(b, &st));
  EXPECT_EQ(st, ACL_EVENT_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, a, b));
  ASSERT_ACL_OK(aclrtDestroyEvent(a));
  ASSERT_ACL_OK(aclrtDestroyEvent(b));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(Event, StreamWaitEventOrdersStreamsAndTime) {
  aclrtStream producer, consumer;
  ASSERT_ACL_OK(aclrtCreateStream(&producer));
  ASSERT_ACL_OK(aclrtCreateStream(&consumer));
  const size_t n = 16 << 20;
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent ready, done_p, start_c, done_c;
  for (aclrtEvent* e : {&ready, &done_p, &start_c, &done_c}) ASSERT_ACL_OK(aclrtCreateEvent(e));

  ASSERT_ACL_OK(aclrtRecordEvent(start_c, producer));
  std::atomic<int> flag{0};
  ASSERT_ACL_OK(aclrtLaunchCallback(&slowSet, &flag, producer));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, n, 1, n, producer));
  ASSERT_ACL_OK(aclrtRecordEvent(ready, producer));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, ready));
  std::pair<std::atomic<int>*, int> seen{&flag, -1};
  ASSERT_ACL_OK(aclrtLaunchCallback(&readFlag, &seen, consumer));
  ASSERT_ACL_OK(aclrtRecordEvent(done_c, consumer));
  ASSERT_ACL_OK(aclrtSynchronizeStream(consumer));
  EXPECT_EQ(seen.second, 1);  // the consumer waited for the producer
  // The consumer's clock was raised to the producer's: done_c is after the memset.
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start_c, done_c));
  EXPECT_GT(ms, 0.0f);
  // Device sim time covers all streams.
  double us = 0;
  ASSERT_ACL_OK(aclsimGetDeviceSimTime(&us));
  EXPECT_GE(us, ms * 1000.0 - 1e-3);
  // Waiting on a never-recorded event is a no-op.
  aclrtEvent fresh;
  ASSERT_ACL_OK(aclrtCreateEvent(&fresh));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, fresh));
  ASSERT_ACL_OK(aclrtSynchronizeStream(consumer));
  EXPECT_ACL_ERR(aclrtStreamWaitEvent(consumer, reinterpret_cast<aclrtEvent>(0x1234)), ACL_ERROR_RT_INVALID_HANDLE);
  for (aclrtEvent e : {ready, done_p, start_c, done_c, fresh}) ASSERT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtDestroyStream(producer));
  ASSERT_ACL_OK(aclrtDestroyStream(consumer));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST(Event, EventOfAnotherDeviceIsRejected) {
  aclrtEvent e;
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_ERR(aclrtRecordEvent(e, nullptr), ACL_ERROR_RT_STREAM_CONTEXT);
  EXPECT_NE(lastAclMessage().find("belongs to device 1"), std::string::npos) << lastAclMessage();
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

TEST(CostModel, SanityTargets) {
  const CostModel b2(ChipConfig::preset("Ascend910B2"));
  KernelCost mm;
  mm.core = CoreType::kCube;
  mm.cube_macs = 4096.0 * 4096.0 * 4096.0;
  mm.mte_bytes = 3 * 4096.0 * 4096.0 * 2;
  EXPECT_NEAR(b2.opUs(mm), 388.0 + CostModel::kLaunchUs, 2.0);  // docs/simulator.md §4
  KernelCost add;
  add.vector_bytes = 3 * 64.0 * 1024 * 1024 * 2;
  add.mte_bytes = 3 * 64.0 * 1024 * 1024 * 2;
  EXPECT_NEAR(b2.opUs(add), 252.0 + CostModel::kLaunchUs, 2.0);
  EXPECT_GT(b2.mteUs(add), b2.vectorUs(add));  // memory-bound
  const CostModel a(ChipConfig::preset("Ascend910A"));
  EXPECT_NEAR(a.cubeUs(mm), 4096.0 * 4096 * 4096 / (4096.0 * 32 * 1e9) * 1e6, 1e-6);
  EXPECT_NEAR(a.memcpyUs(25000000, ACL_MEMCPY_HOST_TO_DEVICE), 1000.0 + CostModel::kDmaSetupUs, 1e-6);
}

TEST(CostModel, RecurrentStepsAddTheUnitsAndABarrierPerStep) {
  const CostModel b2(ChipConfig::preset("Ascend910B2"));
  KernelCost c;
  c.core = CoreType::kAiCore;
  c.cube_macs = 1e9;
  c.vector_repeats = 1e5;
  c.mte_bytes = 1e6;
  const double overlapped = b2.opUs(c);
  EXPECT_NEAR(overlapped, CostModel::kLaunchUs + std::max(b2.cubeUs(c), b2.vectorUs(c)), 1e-9);
  c.serial_steps = 32;
  EXPECT_NEAR(b2.opUs(c), CostModel::kLaunchUs + b2.cubeUs(c) + b2.vectorUs(c) + 32 * CostModel::kStepBarrierUs, 1e-9);
}
