// An NPU event whose record/wait are ordered with the task queue.
//
// Note [Events and the task queue]
// Recording must happen after the ops already queued for the stream, so a
// record is itself a queued task. Until the queue thread has performed it the
// event counts as "not ready" (pending_records_ > 0), never as complete.
#pragma once

#include <atomic>

#include <c10/core/Device.h>

#include "ascend_sim/acl.h"
#include "csrc/core/NPUStream.h"

namespace torch_npu {

class NPUEvent {
 public:
  NPUEvent() = default;
  ~NPUEvent();
  NPUEvent(const NPUEvent&) = delete;
  NPUEvent& operator=(const NPUEvent&) = delete;

  void record(const NPUStream& stream);
  // Makes `stream` wait (on the device) until this event's last record.
  void block(const NPUStream& stream);
  bool query() const;
  void synchronize() const;
  // Simulated device milliseconds between this event and `end`.
  float elapsed_time(const NPUEvent& end) const;
  bool was_recorded() const { return recorded_; }
  c10::DeviceIndex device_index() const { return device_; }

 private:
  void createOn(c10::DeviceIndex device);

  aclrtEvent event_ = nullptr;
  c10::DeviceIndex device_ = -1;
  bool recorded_ = false;
  std::atomic<int> pending_records_{0};
};

}  // namespace torch_npu
