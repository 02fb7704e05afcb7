// The task queue's error propagation, and streams and events.
#include <thread>

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
