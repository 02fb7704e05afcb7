// The work handle of one ProcessGroupHCCL operation.
//
// Note [When an HCCL work is complete]
// A collective runs on the communicator's stream. The handle has two views of
// it, as in torch's NCCL backend:
//  - stream order: wait() (HCCL_BLOCKING_WAIT unset) and synchronize() make the
//    caller's current stream wait for the collective's end event and return at
//    once; later ops on that stream see the result. If the collective failed,
//    that stream inherits the failure (simulator event semantics), so the next
//    synchronize or .cpu() raises instead of reading garbage.
//  - host completion: isCompleted(), the future, and wait() with
//    HCCL_BLOCKING_WAIT=1 (or a barrier) follow the device. A completion
//    callback on the communicator's stream tells the process group's watchdog,
//    which finishes the work (value or error) on its own thread — never on the
//    simulator's stream worker, so future callbacks may launch NPU ops.
// The future's value is the list of result tensors (what DDP's reducer reads);
// a failure or a timeout sets the future's error and wait() raises it.
//
// Note [The future orders the waiting stream]
// The future is device-aware, as NCCL's is: c10's Future records an event on
// the current stream when it is marked completed, and Future::wait() (what
// DDP's reducer calls before it copies the reduced buckets into the
// gradients) blocks the host until completion, then makes the caller's
// current stream wait for that event. Without it the host would wait but the
// simulated timeline would not: the gradient copies and the optimizer would
// start, in simulated time, before the all-reduce ended.
// The watchdog marks the future on the group's future stream after making
// that stream wait for the collective's end event, so the future's event sits
// exactly at the collective's end in simulated time. (On the communicator's
// stream it would land after whatever collectives were queued meanwhile,
// which depends on host timing.) The watchdog finishes works in stream
// order, so the future stream's clock does not run ahead of a later end
// (the stream comes from the pool, though: work of others on it, or another
// group's future stream being the same one, can delay it in simulated time).
// A fast collective can complete before the launching thread has set the
// events: the future is marked by whichever of setEvents and complete() comes
// second. If the device has a failed task's error pending, the future is
// marked without events (the error stays for the user's next launch); if the
// wait on the end event raises it, the future carries that error.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include "csrc/core/NPUEvent.h"
#include "csrc/core/NPUStream.h"

namespace torch_npu {
namespace distributed {

class WorkHCCL : public c10d::Work {
 public:
  WorkHCCL(int rank, c10d::OpType type, std::string description, c10::DeviceIndex device,
           std::vector<at::Tensor> results, std::chrono::milliseconds timeout,
           bool block_host_on_wait);  // barriers, and every work under HCCL_BLOCKING_WAIT=1

  bool wait(std::chrono::milliseconds timeout = kNoTimeout) override;
  void synchronize() override;
  std::vector<at::Tensor> result() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

  // Set by the process group when launching: `ready` (the communicator
  // stream's wait for the caller) must outlive its queued record/wait; `end`
  // is recorded on the communicator's stream after the collective.
  // The future is marked by whichever comes second of setEvents and a successful complete().
  void setEvents(std::shared_ptr<NPUEvent> ready, std::shared_ptr<NPUEvent> end, NPUStream future_stream);
  // Called once by the watchdog: finishes the work and its future.
  void complete(std::exception_ptr error);

  // "all_reduce (SeqNum=5, rank 0 of 2, npu:0)" for messages.
  const std::string& description() const { return description_; }
  std::chrono::steady_clock::time_point started() const { return started_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  c10::DeviceIndex device() const { return device_; }

 private:
  void blockCurrentStream();
  void markFuture();

  const std::string description_;
  const c10::DeviceIndex device_;
  const std::vector<at::Tensor> results_;
  const std::chrono::milliseconds timeout_;
  const bool block_host_on_wait_;
  const std::chrono::steady_clock::time_point started_;
  std::shared_ptr<NPUEvent> ready_;
  std::shared_ptr<NPUEvent> end_;
  std::optional<NPUStream> future_stream_;
  std::mutex future_mu_;  // guards the three below (the caller and the watchdog thread race)
  bool events_set_ = false;
  bool succeeded_ = false;
  bool future_marked_ = false;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

}  // namespace distributed
}  // namespace torch_npu
