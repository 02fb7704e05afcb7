#include "csrc/core/TaskQueue.h"

#include <ATen/record_function.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "csrc/core/Env.h"
#include "csrc/core/Logging.h"
#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUGraph.h"
#include "csrc/core/OpDump.h"
#include "csrc/core/SimulatorExtensions.h"
#include "csrc/core/TestMutations.h"

namespace torch_npu {
namespace {

// Set on every queue's worker thread.
thread_local bool on_worker_thread = false;

inline void spinPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

std::atomic<bool>& enabledFlag() {
  static std::atomic<bool> flag{envFlag("TASK_QUEUE_ENABLE", true)};
  return flag;
}

std::atomic<bool>& blockingFlag() {
  static std::atomic<bool> flag{envFlag("ASCEND_LAUNCH_BLOCKING", false)};
  return flag;
}

const std::string& taskName(const Task& task) {
  static const std::string kMemcpy = "memcpy";
  if (auto* op = std::get_if<AclOpLaunch>(&task)) return op->op_type;
  if (auto* call = std::get_if<CallTask>(&task)) return call->name;
  return kMemcpy;
}

aclrtStream taskStream(const Task& task) {
  if (auto* op = std::get_if<AclOpLaunch>(&task)) return op->stream;
  if (auto* copy = std::get_if<CopyTask>(&task)) return copy->stream;
  return nullptr;
}

aclError execute(const Task& task) {
  if (auto* op = std::get_if<AclOpLaunch>(&task)) return op->execute();
  if (auto* copy = std::get_if<CopyTask>(&task)) {
    const aclError status =
        aclrtMemcpyAsync(copy->dst, copy->bytes, copy->src, copy->bytes, copy->kind, copy->stream);
    if (status != ACL_SUCCESS || !copy->staging) return status;
    // The device reads the staging buffer when the stream reaches the copy:
    // keep it alive until a callback queued right behind the copy runs.
    auto* keep = new std::shared_ptr<void>(copy->staging);
    const aclError cb = aclrtLaunchCallback(
        [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); }, keep, copy->stream);
    if (cb != ACL_SUCCESS) {
      aclrtSynchronizeStream(copy->stream);  // no callback: wait before freeing
      delete keep;
    }
    return cb;
  }
  return std::get<CallTask>(task).call();
}

}  // namespace

TaskQueue& TaskQueue::forDevice(c10::DeviceIndex device) {
  // Deliberately leaked: queue threads may still run during static destruction.
  static auto* queues = [] {
    auto* v = new std::vector<std::unique_ptr<TaskQueue>>();
    for (int i = 0; i < device_count(); ++i) v->push_back(std::make_unique<TaskQueue>(i));
    return v;
  }();
  check_device_index(device);
  return *(*queues)[device];
}

TaskQueue::TaskQueue(c10::DeviceIndex device) : device_(device) {}

void TaskQueue::setEnabled(bool enabled) { enabledFlag() = enabled; }
bool TaskQueue::enabled() { return enabledFlag(); }
bool TaskQueue::launchBlocking() { return blockingFlag(); }

LaunchTag LaunchTag::now(uint64_t launch_id) {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();  // the profiler's clock
  return LaunchTag{at::RecordFunction::currentThreadId(),
                   std::chrono::duration<double, std::micro>(since_epoch).count(), launch_id, currentLaunchScope()};
}

void TaskQueue::run(const Task& task, const LaunchTag& tag) {
  sim::setTaskTag(tag.thread_id, tag.launch_us, tag.launch_id);
  // The scope changes rarely (only while an op dump names layers): hand it over when it does.
  static thread_local std::shared_ptr<const std::string> handed_scope;
  if (tag.scope != handed_scope) {
    sim::setTaskScope(tag.scope ? tag.scope->c_str() : nullptr);
    handed_scope = tag.scope;
  }
  // A custom handler (OpCommand::SetCustomHandler) is the user's code and may throw: its message
  // becomes the task's error, raised by the next enqueue or drain, and the worker goes on.
  aclError status = ACL_SUCCESS;
  std::string thrown;
  try {
    status = execute(task);
  } catch (const c10::Error& e) {
    status = ACL_ERROR_RT_INTERNAL_ERROR;
    thrown = e.what_without_backtrace();
  } catch (const std::exception& e) {
    status = ACL_ERROR_RT_INTERNAL_ERROR;
    thrown = e.what();
  }
  if (status != ACL_SUCCESS) {
    std::string msg = "NPU op '" + taskName(task) + "' failed with " + aclErrorName(status) + " (" +
                      std::to_string(status) + "): " + (thrown.empty() ? aclGetRecentErrMsg() : thrown);
    NPU_LOGE("{}", msg);
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_error_.empty()) pending_error_ = std::move(msg);
    has_pending_error_.store(true, std::memory_order_release);
  }
}

void TaskQueue::raisePendingError() {
  if (!has_pending_error_.load(std::memory_order_acquire)) return;  // every launch asks: no lock then
  std::string msg;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    msg.swap(pending_error_);
    has_pending_error_.store(false, std::memory_order_relaxed);
  }
  TORCH_CHECK(msg.empty(), msg);
}

void TaskQueue::waitForDevice(aclrtStream stream, const std::string& name) {
  if (deviceIsCapturing(device_)) return;  // nothing runs until a replay; a synchronize would end the capture
  DeviceSwitch guard(device_);
  const aclError status = stream ? aclrtSynchronizeStream(stream) : aclrtSynchronizeDevice();
  TORCH_CHECK(status == ACL_SUCCESS, "NPU op '", name, "' failed on the device with ",
              aclErrorName(status), ": ", aclGetRecentErrMsg(),
              " (ASCEND_LAUNCH_BLOCKING=1: this is the op that failed)");
}

template <typename Put, typename Name>
void TaskQueue::submit(aclrtStream stream, Put put, Name name) {
  // Note [Launch events]: while torch's profiler runs, every launch is a host event of its own, a
  // child of the op that launched it, like cudaLaunchKernel under CUDA. The event's sequence number
  // is the launch id that the launch's device tasks carry (sim::setTaskTag), so a profiler ties
  // each task to its host op exactly, without comparing clocks (torch_npu/npu/autograd_profiler.py):
  // the host's launch times are system-clock readings, its op intervals TSC readings converted to
  // the same epoch, and the two disagree by up to a microsecond.
  static std::atomic<uint64_t> next_launch_id{kFirstLaunchId};
  const uint64_t launch_id = next_launch_id.fetch_add(1, std::memory_order_relaxed);
  // Without a profiler (or any RecordFunction callback) there is no event object to build.
  c10::optional<at::RecordFunction> launch_event;
  if (auto callbacks = at::getStepCallbacksUnlessEmpty(at::RecordScope::FUNCTION)) {
    launch_event.emplace(std::move(*callbacks));
    if (launch_event->isActive()) launch_event->before(kLaunchEventName, static_cast<int64_t>(launch_id));
  }
  raisePendingError();
  const bool blocking = launchBlocking();
  std::string blocking_name = blocking ? std::string(name()) : std::string();
  const LaunchTag tag = LaunchTag::now(launch_id);
  if (!enabled()) {
    Task task;
    put(task);
    DeviceSwitch guard(device_);
    run(task, tag);
    raisePendingError();
  } else {
    bool wake_worker = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!worker_started_) {
        slots_.resize(kCapacity);
        // Detached: the queue is leaked and its thread may outlive main().
        std::thread([this] { workerLoop(); }).detach();
        worker_started_ = true;
      }
      if (tail_ - head_.load(std::memory_order_acquire) >= kCapacity) {
        waitOnWorker(lock, producers_waiting_, kCapacity - 1);
      }
      Slot& slot = slots_[tail_ % kCapacity];
      put(slot.task);
      slot.tag = tag;
      ++tail_;
      published_tail_.store(tail_, std::memory_order_release);
      wake_worker = worker_sleeping_;
    }
    if (wake_worker) not_empty_.notify_one();  // a spinning or busy worker finds the task itself
    if (blocking) drain();
  }
  if (blocking) waitForDevice(stream, blocking_name);
}

void TaskQueue::enqueue(Task task) {
  const aclrtStream stream = taskStream(task);
  submit(
      stream, [&](Task& slot) { slot = std::move(task); }, [&]() -> const std::string& { return taskName(task); });
}

void TaskQueue::enqueue(AclOpLaunch&& launch) {
  const aclrtStream stream = launch.stream;
  const std::string op_type = launchBlocking() ? launch.op_type : std::string();
  submit(
      stream,
      [&](Task& slot) {  // Note [Task slots]: into the slot's own launch when it holds one
        if (auto* op = std::get_if<AclOpLaunch>(&slot)) {
          *op = std::move(launch);
        } else {
          slot = std::move(launch);
        }
      },
      [&]() -> const std::string& { return op_type; });
}

void TaskQueue::workerLoop() {
  // Note [A worker without the producers' mutex]
  on_worker_thread = true;
  if (aclrtSetDevice(device_) != ACL_SUCCESS) {
    NPU_LOGE("task queue of device {} cannot bind its device: {}", device_, aclGetRecentErrMsg());
  }
  size_t head = head_.load(std::memory_order_relaxed);
  for (;;) {
    if (published_tail_.load(std::memory_order_acquire) == head) {
      spinForWork();
      if (published_tail_.load(std::memory_order_acquire) == head) {
        std::unique_lock<std::mutex> lock(mutex_);
        worker_sleeping_ = true;
        not_empty_.wait(lock, [&] { return published_tail_.load(std::memory_order_relaxed) != head; });
        worker_sleeping_ = false;
      }
    }
    if (TORCH_NPU_MUTATED("task_queue_lifo")) {  // Note [Test mutations]: the newest task first
      Slot newest;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        newest = std::move(slots_[(tail_ - 1) % kCapacity]);
        --tail_;
        published_tail_.store(tail_, std::memory_order_release);
        running_out_of_order_.store(true);
      }
      run(newest.task, newest.tag);
      running_out_of_order_.store(false);
    } else {
      // Note [Task slots]: the oldest task runs in its slot, which no producer reuses before head_ moves on.
      Slot& slot = slots_[head % kCapacity];
      run(slot.task, slot.tag);
      release(&slot);
      head_.store(++head);  // sequentially consistent: see wakeWaiters
    }
    wakeWaiters(head);
  }
}

void TaskQueue::wakeWaiters(size_t head) {
  if (producers_waiting_.load() == 0 && drainers_waiting_.load() == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t queued = tail_ - head;
  if ((drainers_waiting_.load() > 0 && queued == 0) || (producers_waiting_.load() > 0 && queued <= kCapacity / 2))
    changed_.notify_all();
}

void TaskQueue::waitOnWorker(std::unique_lock<std::mutex>& lock, std::atomic<int>& waiting, size_t max_queued) {
  // Note [A worker without the producers' mutex]: raise the counter, then read head_.
  waiting.fetch_add(1);
  changed_.wait(lock, [&] {
    return tail_ - head_.load() <= max_queued && !running_out_of_order_.load();
  });
  waiting.fetch_sub(1);
}

void TaskQueue::spinForWork() {
  // Note [Spin before sleeping]
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
  for (int i = 1;; ++i) {
    if (published_tail_.load(std::memory_order_acquire) != head_.load(std::memory_order_relaxed)) return;
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return;
    spinPause();
  }
}

void TaskQueue::release(Slot* slot) {
  // Copies hold their staging buffer and calls their closure: let them go now, not when the slot
  // is reused. A finished op launch owns nothing but its own containers, which the next launch
  // written into the slot reuses.
  if (!std::holds_alternative<AclOpLaunch>(slot->task)) slot->task.emplace<AclOpLaunch>();
  slot->tag.scope.reset();
}

void TaskQueue::drain() {
  // The running task counts until it returns: a drain from inside it (stream() in a custom
  // handler) would wait for itself.
  TORCH_CHECK(!on_worker_thread, "NPU task queue of device ", static_cast<int>(device_),
              ": a queued task (a custom handler) waits ",
              "for its own queue; inside OpCommand::SetCustomHandler use getCurrentNPUStream().stream(false)");
  {
    std::unique_lock<std::mutex> lock(mutex_);
    waitOnWorker(lock, drainers_waiting_, 0);
  }
  raisePendingError();
}

bool TaskQueue::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return head_.load() == tail_ && !running_out_of_order_.load();
}

}  // namespace torch_npu
