// Captured models: the tasks a stream collected between aclmdlRICaptureBegin and
// aclmdlRICaptureEnd, and their replay.
//
// Note [Model capture]
// A capturing stream keeps what is submitted to it instead of running it (Stream::submit). Only
// tasks that are pure device work are kept: ops (their OpLaunch holds the compiled plan, the
// device addresses and any host-placed operand bytes, so running the same task again recomputes
// from whatever the addresses hold then), device-to-device copies and memsets. Everything whose
// meaning depends on the host or on other streams is refused while a capture is active, and the
// refusal invalidates the capture, as CUDA graphs and CANN's capture do:
//  - in every mode: an event record or wait, a callback or a collective on the capturing stream, an
//    async copy between it and host memory (the host bytes would be the capture's, not the
//    replay's), and a synchronize of the capturing stream;
//  - in ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, from any thread: the calls that wait for the device or
//    copy synchronously (aclrtSynchronizeDevice, aclrtSynchronizeEvent, aclrtMemcpy, aclrtMemset),
//    while any stream of the device captures.
// aclmdlRIExecuteAsync submits one task, "ModelExecute", that runs the kept tasks in order on the
// executing stream's worker. Its simulated duration is the sum of theirs (the device does the same
// work; what a model saves is host time: no dispatch, no allocation, no plan lookup, one queue
// hand-off). Each kept task is recorded with its own start and duration, and the replay itself as a
// zero-length "ModelExecute" marker where it begins, so a profile shows the launch and its kernels
// and a sum over the records counts the replay's time once. One model runs once at a time (a kept op writes its operands'
// addresses into its launch), so two streams replaying one model take turns.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "runtime/stream.h"

namespace ascend_sim {

struct CapturedModel {
  int device = 0;
  int stream_id = 0;  // the stream that captured it
  aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
  // Written under the capturing stream's mutex until the capture ends (`capturing` false), read-only
  // after: a model still being captured is refused by everything that reads its tasks.
  std::vector<Task> tasks;
  std::atomic<bool> capturing{true};
  std::atomic<bool> invalidated{false};
  std::string invalid_reason;  // the call that invalidated the capture; read once the capture ended
  std::mutex run_mu;           // one replay at a time
};

// Whether a task of this kind may be kept in a model.
bool capturableKind(TaskKind kind);

// Fails (ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED) if a stream of `device` captures in global mode,
// and invalidates those captures: `api` is the refused call, named in the error.
void refuseWhileDeviceCaptures(int device, const std::string& api);

// Fails (ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED) if `stream` captures, and invalidates the capture.
void refuseWhileStreamCaptures(Stream& stream, const std::string& api);

// The task that replays `model` on a stream (Note [Model capture]).
Task modelExecuteTask(const std::shared_ptr<CapturedModel>& model);

}  // namespace ascend_sim
