// C API: model capture and replay (aclmdlRI*, Note [Model capture] in runtime/model_capture.h).
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ascend_sim/acl_sim.h"
#include "runtime/error_state.h"
#include "runtime/model_capture.h"
#include "runtime/runtime.h"

using namespace ascend_sim;

struct aclmdlRIImpl {
  std::shared_ptr<CapturedModel> model;
};

namespace {

// Live handles (a destroyed or made-up handle is refused, not dereferenced).
struct Handles {
  std::mutex mu;
  std::unordered_map<aclmdlRI, std::unique_ptr<aclmdlRIImpl>> live;
};
Handles& handles() {
  static auto* h = new Handles();  // leaked: models may be destroyed during static destruction
  return *h;
}

aclmdlRI newHandle(std::shared_ptr<CapturedModel> model) {
  auto impl = std::make_unique<aclmdlRIImpl>();
  impl->model = std::move(model);
  aclmdlRI h = impl.get();
  Handles& all = handles();
  std::lock_guard<std::mutex> lock(all.mu);
  all.live.emplace(h, std::move(impl));
  return h;
}

std::shared_ptr<CapturedModel> modelOf(aclmdlRI h) {
  Handles& all = handles();
  std::lock_guard<std::mutex> lock(all.mu);
  auto it = all.live.find(h);
  if (it == all.live.end())
    throwAcl(ACL_ERROR_RT_INVALID_HANDLE, "model run instance " + ptrString(h) + " is not alive");
  return it->second->model;
}

void destroyHandle(aclmdlRI h) {
  Handles& all = handles();
  std::lock_guard<std::mutex> lock(all.mu);
  all.live.erase(h);
}

// The handle of the model a stream is capturing (created by aclmdlRICaptureBegin).
aclmdlRI handleOf(const std::shared_ptr<CapturedModel>& model) {
  Handles& all = handles();
  std::lock_guard<std::mutex> lock(all.mu);
  for (auto& [h, impl] : all.live)
    if (impl->model == model) return h;
  return nullptr;
}

std::string streamName(const Stream& s) {
  return "stream " + std::to_string(s.id()) + " of device " + std::to_string(s.device());
}

// Refuses a model whose capture has not ended: its task list is still being written.
void requireCaptured(const CapturedModel& m, aclmdlRI h, const char* use) {
  if (m.capturing.load())
    throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED,
             "model run instance " + ptrString(h) + " is still being captured on stream " +
                 std::to_string(m.stream_id) + "; end the capture before " + use + " it");
}

void submitModel(const std::shared_ptr<CapturedModel>& m, aclmdlRI h, Stream& s) {
  requireCaptured(*m, h, "executing");
  if (s.device() != m->device)
    throwAcl(ACL_ERROR_RT_STREAM_CONTEXT, "model run instance " + ptrString(h) + " was captured on device " +
                                              std::to_string(m->device) + " but " + streamName(s) +
                                              " is on another device");
  s.submit(modelExecuteTask(m));
}

}  // namespace

extern "C" {

ASCEND_SIM_API aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  return guardApi("aclmdlRICaptureBegin", [&] {
    if (mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL)
      throwAcl(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
               "capture mode ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL is not modelled by the simulated NPU (use GLOBAL "
               "or RELAXED)");
    if (mode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL && mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
      throwAcl(ACL_ERROR_INVALID_PARAM, "unknown capture mode " + std::to_string(static_cast<int>(mode)));
    std::shared_ptr<Stream> s = Runtime::get().stream(stream);
    if (s->id() == 0)
      throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED,
               "cannot capture on the default stream of device " + std::to_string(s->device()) +
                   " (its synchronous copies and memsets would join the model); capture on a stream from "
                   "aclrtCreateStream");
    auto model = std::make_shared<CapturedModel>();
    model->device = s->device();
    model->stream_id = s->id();
    model->mode = mode;
    s->beginCapture(model);  // refuses a stream that already captures
    if (mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) Runtime::get().device(s->device()).addGlobalCaptures(1);
    newHandle(std::move(model));
  });
}

ASCEND_SIM_API aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status, aclmdlRI* modelRI) {
  return guardApi("aclmdlRICaptureGetInfo", [&] {
    std::shared_ptr<CapturedModel> m = Runtime::get().stream(stream)->capture();
    if (status)
      *status = !m               ? ACL_MODEL_RI_CAPTURE_STATUS_NONE
                : m->invalidated ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
                                 : ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    if (modelRI) *modelRI = m ? handleOf(m) : nullptr;
  });
}

ASCEND_SIM_API aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI) {
  return guardApi("aclmdlRICaptureEnd", [&] {
    if (!modelRI) throwAcl(ACL_ERROR_INVALID_PARAM, "modelRI must not be null");
    *modelRI = nullptr;
    std::shared_ptr<Stream> s = Runtime::get().stream(stream);
    std::shared_ptr<CapturedModel> m = s->endCapture();
    if (!m) throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED, streamName(*s) + " is not capturing a model");
    m->capturing.store(false);
    if (m->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) Runtime::get().device(s->device()).addGlobalCaptures(-1);
    aclmdlRI h = handleOf(m);
    if (m->invalidated) {
      destroyHandle(h);
      throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
               "the capture on " + streamName(*s) + " was invalidated by " + m->invalid_reason + " during the capture");
    }
    *modelRI = h;
  });
}

ASCEND_SIM_API aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  return guardApi("aclmdlRIExecuteAsync", [&] {
    std::shared_ptr<CapturedModel> m = modelOf(modelRI);
    submitModel(m, modelRI, *Runtime::get().stream(stream));
  });
}

ASCEND_SIM_API aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
  return guardApi("aclmdlRIExecute", [&] {
    (void)timeout;  // the op execute timeout (aclrtSetOpExecuteTimeOut) still bounds each kept op
    std::shared_ptr<CapturedModel> m = modelOf(modelRI);
    refuseWhileDeviceCaptures(m->device, "aclmdlRIExecute");  // it waits for the device
    std::shared_ptr<Stream> s = Runtime::get().device(m->device).defaultStream();
    submitModel(m, modelRI, *s);
    s->waitIdle();
    StreamFault f;
    if (s->takeFault(&f)) throwAcl(f.code, f.message);
  });
}

ASCEND_SIM_API aclError aclsimModelTaskCount(aclmdlRI modelRI, size_t* count) {
  return guardApi("aclsimModelTaskCount", [&] {
    if (!count) throwAcl(ACL_ERROR_INVALID_PARAM, "count must not be null");
    std::shared_ptr<CapturedModel> m = modelOf(modelRI);
    requireCaptured(*m, modelRI, "counting the tasks of");
    *count = m->tasks.size();
  });
}

ASCEND_SIM_API aclError aclsimInvalidateCapture(aclrtStream stream, const char* reason) {
  return guardApi("aclsimInvalidateCapture", [&] {
    std::shared_ptr<Stream> s = Runtime::get().stream(stream);
    if (!s->capture()) throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED, streamName(*s) + " is not capturing a model");
    s->invalidateCapture(reason && *reason ? reason : "the host");
  });
}

ASCEND_SIM_API aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  return guardApi("aclmdlRIDestroy", [&] {
    requireCaptured(*modelOf(modelRI), modelRI, "destroying");
    destroyHandle(modelRI);  // replays already submitted hold the model
  });
}

}  // extern "C"
