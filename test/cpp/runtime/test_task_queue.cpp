// The task queue's error propagation, and streams and events.
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "csrc/core/NPUEvent.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"
#include "npu_test_util.h"

using torch_npu::TaskQueue;
using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

torch_npu::AclOpLaunch bogusLaunch() {
  torch_npu::AclOpLaunch launch;
  launch.op_type = "NoSuchOp";
  launch.stream = torch_npu::getCurrentNPUStream(0).handle();
  return launch;
}

// Restores the TASK_QUEUE_ENABLE switch when leaving a test.
struct QueueEnabledGuard {
  bool saved = TaskQueue::enabled();
  ~QueueEnabledGuard() { TaskQueue::setEnabled(saved); }
};

}  // namespace

TEST(NpuTaskQueue, FailedLaunchRaisesAtNextEnqueueOrDrain) {
  QueueEnabledGuard guard;
  TaskQueue::setEnabled(true);
  TaskQueue& queue = TaskQueue::forDevice(0);
  queue.drain();
  queue.enqueue(bogusLaunch());
  EXPECT_THROW_WITH(queue.drain(), "NoSuchOp");
  queue.drain();  // the error is reported once

  queue.enqueue(bogusLaunch());
  while (!queue.idle()) std::this_thread::yield();
  EXPECT_THROW_WITH(at::ones({3}, at::TensorOptions().device(npu())), "NoSuchOp");
  // After the error, the queue works normally.
  expectClose(at::ones({17}, at::TensorOptions().device(npu())).mul(3), at::full({17}, 3.f));
}

TEST(NpuTaskQueue, DisabledQueueRaisesImmediately) {
  QueueEnabledGuard guard;
  TaskQueue::forDevice(0).drain();
  TaskQueue::setEnabled(false);
  EXPECT_THROW_WITH(TaskQueue::forDevice(0).enqueue(bogusLaunch()), "NoSuchOp");
  // Ops still work synchronously.
  const at::Tensor x = at::randn({5, 19});
  expectClose(x.to(npu()).exp().add(1), x.exp().add(1));
}

// Note [Task slots]: more tasks than the ring holds, with the worker held back at first, run in
// order; the producer waits while the ring is full; a finished task's closure is released at once.
TEST(NpuTaskQueue, TasksBeyondTheRingsCapacityRunInOrder) {
  QueueEnabledGuard guard;
  TaskQueue::setEnabled(true);
  TaskQueue& queue = TaskQueue::forDevice(0);
  queue.drain();
  std::atomic<bool> released{false};
  queue.enqueue(torch_npu::CallTask{"hold", [&] {
                                      while (!released) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                      return ACL_SUCCESS;
                                    }});
  constexpr int kTasks = 10000;  // more than twice the ring
  std::vector<int> seen;
  seen.reserve(kTasks);
  auto witness = std::make_shared<int>(0);
  std::atomic<int> enqueued{0};
  std::thread producer([&] {
    for (int i = 0; i < kTasks; ++i) {
      queue.enqueue(torch_npu::CallTask{"step", [&seen, i, witness] {
                                          seen.push_back(i);
                                          return ACL_SUCCESS;
                                        }});
      ++enqueued;
    }
  });
  // The producer fills the ring (however slowly a loaded host schedules it), then must wait.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (enqueued.load() <= 1000 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int stalled_at = enqueued.load();
  EXPECT_LT(stalled_at, kTasks) << "the producer did not wait for room in the ring";
  EXPECT_GT(stalled_at, 1000);
  released = true;
  producer.join();
  queue.drain();
  ASSERT_EQ(seen.size(), static_cast<size_t>(kTasks));
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)], i);
  EXPECT_EQ(witness.use_count(), 1) << "finished tasks still hold their closures";
}

TEST(NpuStreamsEvents, EventAfterWorkIsComplete) {
  const at::Tensor a = at::randn({257, 129}), b = at::randn({129, 65});
  const auto stream = torch_npu::getCurrentNPUStream(0);
  at::Tensor c = at::mm(a.to(npu()), b.to(npu()));
  torch_npu::NPUEvent event;
  EXPECT_FALSE(event.was_recorded());
  event.record(stream);
  event.synchronize();
  EXPECT_TRUE(event.query());
  EXPECT_TRUE(stream.query());
  expectClose(c, at::mm(a, b), 1e-4, 1e-4);
}

TEST(NpuStreamsEvents, ElapsedTimeAroundMatmulIsPositive) {
  const auto stream = torch_npu::getCurrentNPUStream(0);
  const at::Tensor a = at::randn({255, 257}).to(npu()), b = at::randn({257, 253}).to(npu());
  torch_npu::NPUEvent start, end;
  start.record(stream);
  at::Tensor c = at::mm(a, b);
  end.record(stream);
  end.synchronize();
  EXPECT_GT(start.elapsed_time(end), 0.f);
}

TEST(NpuStreamsEvents, SideStreamOrderedByEvent) {
  const at::Tensor x = at::randn({33, 17});
  at::Tensor dev = x.to(npu());
  const auto main = torch_npu::getCurrentNPUStream(0);
  const auto side = torch_npu::getStreamFromPool(0);
  EXPECT_NE(side, main);
  torch_npu::NPUEvent produced;
  at::Tensor y = dev.mul(2);
  produced.record(main);
  torch_npu::setCurrentNPUStream(side);
  produced.block(side);
  at::Tensor z = y.add(1);
  torch_npu::NPUEvent consumed;
  consumed.record(side);
  torch_npu::setCurrentNPUStream(main);
  consumed.block(main);
  side.synchronize();
  expectClose(z, x.mul(2).add(1));
}

// Note [Descriptors reused per thread]: the launching thread's descriptor cache is bounded between
// launches. Each product below brings two new input descriptors ([1,n] and [n,1]), so the cache
// passes its bound inside a launch; clearing it there would free a descriptor the launch still
// passes (valgrind and AddressSanitizer's run of this suite report the read).
TEST(NpuTaskQueue, DescriptorCacheStaysValidPastItsBound) {
  for (int64_t n = 1; n <= 2200; ++n) {
    const at::Tensor a = at::ones({1, n});
    const at::Tensor b = at::full({n, 1}, 0.5f);
    const at::Tensor got = at::mm(a.to(npu()), b.to(npu()));
    if (n % 500 == 0 || n == 2200) {
      ASSERT_EQ(got.item<float>(), 0.5f * static_cast<float>(n)) << "n " << n;
    }
  }
}
