#include "csrc/distributed/WorkHCCL.h"

#include <ATen/core/jit_type.h>
#include <c10/core/StreamGuard.h>

#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {
namespace distributed {

namespace {
// The NPU of the results, if every result lives there (Note [The future orders the waiting stream]);
// else none: c10's Future refuses storages outside its devices.
std::vector<c10::Device> futureDevices(const std::vector<at::Tensor>& results, c10::DeviceIndex device) {
  const c10::Device npu(c10::DeviceType::PrivateUse1, device);
  for (const at::Tensor& t : results)
    if (t.defined() && t.device() != npu) return {};
  return {npu};
}
}  // namespace

WorkHCCL::WorkHCCL(int rank, c10d::OpType type, std::string description, c10::DeviceIndex device,
                   std::vector<at::Tensor> results, std::chrono::milliseconds timeout, bool block_host_on_wait)
    : c10d::Work(rank, type),
      description_(std::move(description)),
      device_(device),
      results_(std::move(results)),
      timeout_(timeout),
      block_host_on_wait_(block_host_on_wait),
      started_(std::chrono::steady_clock::now()),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()),
                                                       futureDevices(results_, device))) {}

void WorkHCCL::setEvents(std::shared_ptr<NPUEvent> ready, std::shared_ptr<NPUEvent> end, NPUStream future_stream) {
  bool mark = false;
  {
    std::lock_guard<std::mutex> lock(future_mu_);
    ready_ = std::move(ready);
    end_ = std::move(end);
    future_stream_ = future_stream;
    events_set_ = true;
    mark = succeeded_ && !future_marked_;
    future_marked_ = future_marked_ || mark;
  }
  if (mark) markFuture();
}

void WorkHCCL::complete(std::exception_ptr error) {
  finish(error);
  if (error) {
    future_->setErrorIfNeeded(error);
    return;
  }
  bool mark = false;
  {
    std::lock_guard<std::mutex> lock(future_mu_);
    succeeded_ = true;
    mark = events_set_ && !future_marked_;
    future_marked_ = future_marked_ || mark;
  }
  if (mark) markFuture();
}

void WorkHCCL::markFuture() {
  DeviceSwitch guard(device_);  // future callbacks run with the work's device current
  const auto value = c10::IValue(results_);
  // Note [The future orders the waiting stream]: the future's event goes at the collective's end.
  if (!future_stream_ || !end_ || !end_->was_recorded() || TaskQueue::forDevice(device_).hasPendingError()) {
    future_->markCompleted(value, std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>>{});  // no events
    return;
  }
  try {
    end_->block(*future_stream_);
    c10::StreamGuard on_future_stream(future_stream_->unwrap());  // c10 records the future's event here
    future_->markCompleted(value);
  } catch (...) {  // the device's pending error was raised here: the waiter gets it
    future_->setErrorIfNeeded(std::current_exception());
  }
}

void WorkHCCL::blockCurrentStream() {
  if (end_ && end_->was_recorded()) end_->block(getCurrentNPUStream(device_));
}

bool WorkHCCL::wait(std::chrono::milliseconds timeout) {
  if (block_host_on_wait_) {
    const auto limit = timeout == kNoTimeout ? timeout_ : timeout;
    std::unique_lock<std::mutex> lock(mutex_);
    const bool done = cv_.wait_for(lock, limit, [&] { return completed_; });
    TORCH_CHECK(done, "HCCL ", description_, " did not complete within ", limit.count(),
                " ms (HCCL_BLOCKING_WAIT=1); a rank may have died or called a different collective");
    if (exception_) std::rethrow_exception(exception_);
    lock.unlock();
    blockCurrentStream();
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exception_) std::rethrow_exception(exception_);
  }
  blockCurrentStream();
  return true;
}

void WorkHCCL::synchronize() { blockCurrentStream(); }

std::vector<at::Tensor> WorkHCCL::result() { return results_; }

c10::intrusive_ptr<c10::ivalue::Future> WorkHCCL::getFuture() { return future_; }

}  // namespace distributed
}  // namespace torch_npu
