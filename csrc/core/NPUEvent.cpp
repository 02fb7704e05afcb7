#include "csrc/core/NPUEvent.h"

#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUGraph.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {

NPUEvent::~NPUEvent() {
  if (event_ == nullptr) return;
  // A queued record may still reference the event: let the queue finish it.
  try {
    TaskQueue::forDevice(device_).drain();
  } catch (...) {
    // An unrelated task's error stays reported by the queue's next user.
  }
  NPU_CHECK_ACL_WARN(aclrtDestroyEvent(event_));
}

void NPUEvent::createOn(c10::DeviceIndex device) {
  if (event_ != nullptr) {
    TORCH_CHECK(device == device_, "NPU event was created on npu:", static_cast<int>(device_),
                " and cannot be used with a stream of npu:", static_cast<int>(device));
    return;
  }
  DeviceSwitch guard(device);
  NPU_CHECK_ACL(aclrtCreateEvent(&event_));
  device_ = device;
}

void NPUEvent::record(const NPUStream& stream) {
  createOn(stream.device_index());
  aclrtEvent ev = event_;
  aclrtStream s = stream.handle();
  refuseDuringCapture(stream.device_index(), "Recording an NPU event", s);  // Note [NPU graphs]
  pending_records_.fetch_add(1);
  recorded_ = true;
  auto* pending = &pending_records_;
  TaskQueue::forDevice(device_).enqueue(CallTask{"EventRecord", [ev, s, pending] {
                                                   const aclError status = aclrtRecordEvent(ev, s);
                                                   pending->fetch_sub(1);
                                                   return status;
                                                 }});
}

void NPUEvent::block(const NPUStream& stream) {
  if (!recorded_) return;  // waiting on a never-recorded event is a no-op (CUDA semantics)
  aclrtEvent ev = event_;
  aclrtStream s = stream.handle();
  refuseDuringCapture(stream.device_index(), "Waiting for an NPU event", s);  // Note [NPU graphs]
  TaskQueue::forDevice(stream.device_index())
      .enqueue(CallTask{"StreamWaitEvent", [ev, s] { return aclrtStreamWaitEvent(s, ev); }});
}

bool NPUEvent::query() const {
  if (!recorded_) return true;
  if (pending_records_.load() > 0) return false;
  aclrtEventStatus status = ACL_EVENT_STATUS_NOT_READY;
  NPU_CHECK_ACL(aclrtQueryEvent(event_, &status));
  return status == ACL_EVENT_STATUS_COMPLETE;
}

void NPUEvent::synchronize() const {
  if (!recorded_) return;
  TaskQueue::forDevice(device_).drain();
  NPU_CHECK_ACL(aclrtSynchronizeEvent(event_));
}

float NPUEvent::elapsed_time(const NPUEvent& end) const {
  TORCH_CHECK(recorded_ && end.recorded_,
              "elapsed_time: both events must be recorded before computing the elapsed time");
  synchronize();
  end.synchronize();
  float ms = 0;
  NPU_CHECK_ACL(aclrtEventElapsedTime(&ms, event_, end.event_));
  return ms;
}

}  // namespace torch_npu
