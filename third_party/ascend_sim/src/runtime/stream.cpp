#include "runtime/stream.h"

#include <chrono>

#include <algorithm>
#include <utility>

#include "kernel/kernel.h"
#include "runtime/error_state.h"
#include "runtime/fault_injection.h"
#include "runtime/model_capture.h"

namespace ascend_sim {

namespace {
thread_local const Stream* t_worker_of = nullptr;
}

Stream::Stream(int device, int id, TaskRecorder* recorder, UtilizationMeter* utilization)
    : device_(device), id_(id), recorder_(recorder), utilization_(utilization) {}

Stream::~Stream() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  if (worker_.joinable()) {
    if (worker_.get_id() == std::this_thread::get_id())
      worker_.detach();  // destroyed from its own callback: cannot join itself
    else
      worker_.join();  // the worker drains the queue before it exits
  }
}

bool Stream::onWorkerThread() { return t_worker_of != nullptr; }

void Stream::submit(Task task) {
  task.host = currentHostTag();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (capture_) {  // Note [Model capture]
      if (capture_->invalidated)
        throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                 "stream " + std::to_string(id_) + " of device " + std::to_string(device_) +
                     " is capturing a model that " + capture_->invalid_reason +
                     " invalidated; end the capture before submitting more work");
      if (!capturableKind(task.kind)) {
        capture_->invalidated = true;
        capture_->invalid_reason = "'" + task.name + "'";
        throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED,
                 "'" + task.name + "' cannot be captured on stream " + std::to_string(id_) + " of device " +
                     std::to_string(device_) +
                     " (a model keeps ops, device-to-device copies and memsets only); the capture is invalidated");
      }
      capture_->tasks.push_back(std::move(task));
      return;
    }
    ++submitted_;
    const bool run_here = task.may_run_on_submitter && !task.on_complete && queue_.empty() && !running_;
    if (!run_here) {
      queue_.push_back(std::move(task));
      if (!worker_.joinable()) worker_ = std::thread([this] { workerLoop(); });
      work_cv_.notify_one();
      return;
    }
    running_ = true;
  }
  // Note [Ops run on the submitting thread of an idle stream]
  const Stream* outer = std::exchange(t_worker_of, this);
  runTask(task);
  t_worker_of = outer;
}

void Stream::waitIdle() {
  if (t_worker_of == this)
    throwAcl(ACL_ERROR_RT_STREAM_CONTEXT, "cannot wait for stream " + std::to_string(id_) + " of device " +
                                              std::to_string(device_) + " from one of its own callbacks");
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = submitted_;
  done_cv_.wait(lock, [&] { return completed_ >= target; });
}

bool Stream::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ == submitted_;
}

bool Stream::takeFault(StreamFault* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!has_fault_) return false;
  *out = std::move(fault_);
  fault_ = StreamFault{};
  has_fault_ = false;
  // The host has now been told: records submitted from here on describe new
  // work and must not carry the reported failure (Note [Failures travel
  // through events]); records already executed keep it.
  failure_since_record_.clear();
  return true;
}

std::string Stream::takeFailureSinceRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(failure_since_record_, std::string());
}

double Stream::clockUs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return clock_us_;
}

void Stream::raiseClockTo(double t_us) {
  std::lock_guard<std::mutex> lock(mu_);
  clock_us_ = std::max(clock_us_, t_us);
}

void Stream::accountHostTask(TaskKind kind, const std::string& name, double not_before_us, double duration_us,
                             double bytes) {
  double start;
  {
    std::lock_guard<std::mutex> lock(mu_);
    start = std::max(clock_us_, not_before_us);
    clock_us_ = start + duration_us;
  }
  if (recorder_) recorder_->add(TaskRecord{kind, name, id_, start, duration_us, nullptr, bytes, currentHostTag()});
}

void Stream::beginCapture(std::shared_ptr<CapturedModel> model) {
  std::lock_guard<std::mutex> lock(mu_);
  if (capture_)
    throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED,
             "stream " + std::to_string(id_) + " of device " + std::to_string(device_) + " is already capturing");
  capture_ = std::move(model);
}

std::shared_ptr<CapturedModel> Stream::endCapture() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(capture_, nullptr);
}

std::shared_ptr<CapturedModel> Stream::capture() const {
  std::lock_guard<std::mutex> lock(mu_);
  return capture_;
}

void Stream::invalidateCapture(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!capture_ || capture_->invalidated) return;
  capture_->invalidated = true;
  capture_->invalid_reason = reason;
}

void Stream::recordNested(const Task& task, const HostTag& launch, double start_us, double duration_us, double wall_s) {
  if (utilization_) utilization_->addTask(task.kind, task.detail.get(), wall_s);
  if (recorder_)
    recorder_->add(TaskRecord{task.kind, task.name, id_, start_us, duration_us, task.detail, task.bytes, launch});
}

void Stream::resetClock() {
  std::lock_guard<std::mutex> lock(mu_);
  clock_us_ = 0;
}

void Stream::workerLoop() {
  t_worker_of = this;
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // An op running on its submitter keeps the queue waiting behind it.
      work_cv_.wait(lock, [&] { return !running_ && (stopping_ || !queue_.empty()); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
    }
    runTask(task);
  }
}

void Stream::runTask(Task& task) {
  double duration = 0;
  double end_us = 0;
  std::string error;
  bool failed = false;
  aclError fault_code = ACL_ERROR_RT_AICORE_EXCEPTION;
  const auto wall_start = std::chrono::steady_clock::now();
  try {
    if (auto injected = FaultInjector::get().onTask(task.name)) {
      fault_code = injected->code;
      throw std::runtime_error(injected->message);
    }
    duration = task.run(*this);
  } catch (const std::exception& e) {
    failed = true;
    error = e.what();
  } catch (...) {
    failed = true;
    error = "unknown exception";
  }
  if (utilization_ && !failed)
    utilization_->addTask(task.kind, task.detail.get(),
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  bool queued_behind = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const double start = clock_us_;
    clock_us_ += duration;
    // Recorded before the task counts as completed, so a synchronize that
    // returns sees its record.
    if (recorder_ && !failed)
      recorder_->add(TaskRecord{task.kind, std::move(task.name), id_, start, task.records_nested ? 0.0 : duration,
                                std::move(task.detail), task.bytes, task.host});
    if (failed) {
      const char* what = task.kind == TaskKind::kOp ? "op '" : "task '";
      std::string message = std::string(what) + task.name + "' failed on device " + std::to_string(device_) +
                            " stream " + std::to_string(id_) + ": " + error;
      if (failure_since_record_.empty()) failure_since_record_ = message;
      if (!has_fault_) {
        has_fault_ = true;
        fault_ = StreamFault{fault_code, std::move(message)};
      }
    }
    ++completed_;
    running_ = false;
    end_us = clock_us_;
    queued_behind = !queue_.empty();
  }
  if (task.on_complete) task.on_complete(end_us);
  done_cv_.notify_all();
  // Tasks submitted while an op ran on its submitter wait for the worker.
  if (queued_behind) work_cv_.notify_one();
}

}  // namespace ascend_sim
