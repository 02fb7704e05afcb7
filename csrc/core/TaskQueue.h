// Note [Task queue]
//
// As in Ascend's torch_npu, op launches do not go to the device from the
// Python thread: they are pushed as typed tasks into a per-device queue and a
// queue thread hands them to the simulator (which in turn runs them
// asynchronously on its streams). This overlaps host dispatch with device
// execution.
//
//   TASK_QUEUE_ENABLE=1 (default)  queue + queue thread
//   TASK_QUEUE_ENABLE=0            launch synchronously from the calling thread
//   ASCEND_LAUNCH_BLOCKING=1       also wait for the device after every task,
//                                  so an error points at the op that caused it
//
// Errors are never dropped: the first failure of a queued task is kept (with
// the task's op name) and raised by the next enqueue() or drain() on that
// device; later tasks of the failed batch still run, as on the device.
//
// Memory safety: tasks hold raw device pointers. That is safe because the
// caching allocator reuses freed blocks only for later work on the same
// stream (stream order), and everything that really frees device memory
// (empty_cache) drains the queue first.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <c10/core/Device.h>

#include "csrc/core/AclOpLaunch.h"

namespace torch_npu {

// An asynchronous memcpy. For host-to-device copies `staging` owns a copy of
// the host bytes, so the caller's buffer may be reused at once.
struct CopyTask {
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  aclrtMemcpyKind kind = ACL_MEMCPY_DEVICE_TO_DEVICE;
  aclrtStream stream = nullptr;
  std::shared_ptr<void> staging;
};

// Anything else ordered with the queue (event record/wait): a named call.
struct CallTask {
  std::string name;
  std::function<aclError()> call;
};

using Task = std::variant<AclOpLaunch, CopyTask, CallTask>;

// The host context of a task's launch, handed to the simulator with the task
// (sim::setTaskTag, Note [Host tags] in the simulator): the profiler's thread
// id of the launching thread, the wall clock at the launch, and the launching
// thread's scope (OpDump.h; null unless an op dump set one).
// The name of the profiler's host event of each launch (Note [Launch events]).
constexpr const char* kLaunchEventName = "NPU launch";
// Launch ids start here, above any autograd sequence number, which the
// profiler keeps in the same field.
constexpr uint64_t kFirstLaunchId = uint64_t{1} << 40;

struct LaunchTag {
  uint64_t thread_id = 0;
  double launch_us = 0;
  uint64_t launch_id = 0;  // unique per launch; the sequence number of its profiler event
  std::shared_ptr<const std::string> scope;
  static LaunchTag now(uint64_t launch_id);
};

class TaskQueue {
 public:
  // True while a failed task's error waits for the next launch to raise it.
  bool hasPendingError() const { return has_pending_error_.load(std::memory_order_acquire); }
  static TaskQueue& forDevice(c10::DeviceIndex device);

  // Raises a pending error of an earlier task, then queues (or runs) `task`.
  void enqueue(Task task);
  // The same for an op launch, moved straight into its ring slot (Note [Task slots]).
  void enqueue(AclOpLaunch&& launch);
  // Waits until every queued task was handed to the device, then raises a
  // pending error. Does not wait for the device itself.
  void drain();
  bool idle();

  // Runtime switches (also read from the environment at start-up).
  static void setEnabled(bool enabled);
  static bool enabled();
  static bool launchBlocking();

  explicit TaskQueue(c10::DeviceIndex device);
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

 private:
  static constexpr size_t kCapacity = 4096;  // tasks; enqueue blocks beyond it

  // Note [Task slots]
  // The queue is a ring of kCapacity slots, allocated when the worker starts. A task is moved into
  // the slot at tail_, and the worker runs it in place at head_, advancing head_ only when it is
  // done, so a producer never writes a slot that is running. Reusing slots keeps the launch path
  // free of allocation: a deque would allocate a node per op launch (a launch is larger than a
  // deque block) on the Python thread and free it on the worker. An op launch is moved from
  // OpCommand straight into the AclOpLaunch the slot holds, not through a Task in between: its
  // operand lists keep their elements inline, so each move copies them. Producers that find the ring
  // full sleep until it is half empty, and drain() until it is empty; the worker wakes them only
  // then, so a full ring does not cost a wake-up per task.
  struct Slot {
    Task task;
    LaunchTag tag;
  };

  // Note [Spin before sleeping]
  // With the ring empty, the worker polls it for kSpinMicros before it sleeps on the condition
  // variable. In a stream of launches the next one usually arrives within that time, so the
  // worker skips a sleep and a wake-up: together several microseconds per op on a two-core host,
  // more than the launch itself. The launching thread notifies only a worker that sleeps
  // (worker_sleeping_, read under the mutex it already holds), so it does not touch the condition
  // variable, whose cache line the worker owns, at every launch. An idle queue costs one short spin
  // after its last task.
  static constexpr int kSpinMicros = 20;
  void spinForWork();

  // Note [A worker without the producers' mutex]
  // mutex_ orders the producers among themselves (tail_, the slot at tail_) and guards the sleeps
  // on the condition variables; the worker takes it only to sleep and to wake a waiting producer
  // or drain(). In the steady state it reads the producers' progress from published_tail_
  // (acquire: the slot's contents are visible) and publishes its own in head_ (release: the slot
  // is free again), so a launch never finds the worker holding the mutex, and never has to wake it
  // from a futex wait for the mutex when it unlocks. published_tail_ has a cache line of its own
  // (producers write it); head_ shares its line with the waiters' counters, which the worker reads
  // after every task and a producer writes only when it waits. A waiting producer or drainer
  // raises its counter before it checks head_, and the worker reads the counters after it moves
  // head_ (both sequentially consistent), so one of them sees the other: no wake-up is lost.

  // enqueue's body: put(Task&) moves the task into a slot (or into a local Task when the queue is
  // off), name() names it for ASCEND_LAUNCH_BLOCKING.
  template <typename Put, typename Name>
  void submit(aclrtStream stream, Put put, Name name);
  void workerLoop();
  void run(const Task& task, const LaunchTag& tag);  // on the worker or the caller; records errors
  static void release(Slot* slot);
  void raisePendingError();
  void waitForDevice(aclrtStream stream, const std::string& name);

  void wakeWaiters(size_t head);  // on the worker, after it moved head_
  void waitOnWorker(std::unique_lock<std::mutex>& lock, std::atomic<int>& waiting, size_t max_queued);

  c10::DeviceIndex device_;
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable changed_;  // the ring became empty or half empty (see above)
  std::vector<Slot> slots_;
  size_t tail_ = 0;  // next free slot (counts up; the slot is tail_ % kCapacity); under mutex_
  bool worker_started_ = false;
  bool worker_sleeping_ = false;  // the worker waits on not_empty_ (under mutex_): only then is it notified
  // Note [A worker without the producers' mutex]
  alignas(64) std::atomic<size_t> published_tail_{0};  // tail_, for the worker
  alignas(64) std::atomic<size_t> head_{0};  // next task to run; written by the worker only
  std::atomic<int> producers_waiting_{0};
  std::atomic<int> drainers_waiting_{0};
  std::atomic<bool> running_out_of_order_{false};  // the task_queue_lifo mutation runs a task off the ring
  alignas(64) std::string pending_error_;
  std::atomic<bool> has_pending_error_{false};  // pending_error_ is set (read without the mutex)
};

}  // namespace torch_npu
