#include "runtime/model_capture.h"

#include <chrono>
#include <stdexcept>

#include "runtime/error_state.h"
#include "runtime/runtime.h"

namespace ascend_sim {

bool capturableKind(TaskKind kind) {
  return kind == TaskKind::kOp || kind == TaskKind::kMemcpy || kind == TaskKind::kMemset;
}

void refuseWhileDeviceCaptures(int device, const std::string& api) {
  Device& d = Runtime::get().device(device);
  if (d.globalCaptures() == 0) return;
  std::string streams;
  for (const std::shared_ptr<Stream>& s : d.streams()) {
    std::shared_ptr<CapturedModel> m = s->capture();
    if (!m || m->mode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) continue;
    s->invalidateCapture(api);
    streams += (streams.empty() ? "" : ", ") + std::to_string(s->id());
  }
  if (streams.empty()) return;
  throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED,
           api + " is not permitted while stream " + streams + " of device " + std::to_string(device) +
               " is capturing a model (it would wait for the device or touch host memory); the capture is "
               "invalidated");
}

void refuseWhileStreamCaptures(Stream& stream, const std::string& api) {
  if (!stream.capture()) return;
  stream.invalidateCapture(api);
  throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED,
           api + " is not permitted on stream " + std::to_string(stream.id()) + " of device " +
               std::to_string(stream.device()) +
               " while it captures a model (its work runs only when the model does); the capture is invalidated");
}

Task modelExecuteTask(const std::shared_ptr<CapturedModel>& model) {
  const HostTag launch = currentHostTag();  // the replay's launch, given to every kept task's record
  Task task{
      TaskKind::kModel, "ModelExecute", [model, launch](Stream& on) {
        std::lock_guard<std::mutex> lock(model->run_mu);
        const double start = on.clockUs();
        double elapsed = 0;
        for (size_t i = 0; i < model->tasks.size(); ++i) {
          const Task& kept = model->tasks[i];
          const auto wall_start = std::chrono::steady_clock::now();
          double duration = 0;
          try {
            duration = kept.run(on);
          } catch (const std::exception& e) {
            throw std::runtime_error("task " + std::to_string(i) + " of the model ('" + kept.name + "'): " + e.what());
          }
          const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
          on.recordNested(kept, launch, start + elapsed, duration, wall_s);
          elapsed += duration;
        }
        return elapsed;
      }};
  task.may_run_on_submitter = true;  // its tasks are ops, copies and memsets: none waits
  task.records_nested = true;
  return task;
}

}  // namespace ascend_sim
