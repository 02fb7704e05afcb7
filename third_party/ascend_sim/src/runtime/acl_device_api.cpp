// C API: init, devices, streams, events and simulated time.
#include <memory>

#include "ascend_sim/acl_sim.h"
#include "runtime/error_state.h"
#include "runtime/model_capture.h"
#include "runtime/runtime.h"

using namespace ascend_sim;

namespace {

// Reports (and clears) a pending task fault as the call's error.
void throwFault(const StreamFault& f) { throwAcl(f.code, f.message); }

void synchronizeStream(const std::shared_ptr<Stream>& s) {
  refuseWhileStreamCaptures(*s, "aclrtSynchronizeStream");
  refuseWhileDeviceCaptures(s->device(), "aclrtSynchronizeStream");
  s->waitIdle();
  StreamFault f;
  if (s->takeFault(&f)) throwFault(f);
}

void requireOut(const void* p, const char* what) {
  if (!p) throwAcl(ACL_ERROR_INVALID_PARAM, std::string(what) + " must not be null");
}

}  // namespace

extern "C" {

ASCEND_SIM_API aclError aclInit(const char* configPath) {
  return guardApi("aclInit", [&] {
    if (configPath && *configPath) Runtime::get().configureFromIni(configPath);
    Runtime::get().chip();  // surfaces configuration errors
  });
}

ASCEND_SIM_API aclError aclFinalize(void) {
  return guardApi("aclFinalize", [&] { Runtime::get().drainAll(); });
}

ASCEND_SIM_API aclError aclrtGetDeviceCount(uint32_t* count) {
  return guardApi("aclrtGetDeviceCount", [&] {
    requireOut(count, "count");
    *count = static_cast<uint32_t>(Runtime::get().deviceCount());
  });
}

ASCEND_SIM_API aclError aclrtSetDevice(int32_t deviceId) {
  return guardApi("aclrtSetDevice", [&] { Runtime::get().setCurrentDevice(deviceId); });
}

ASCEND_SIM_API aclError aclrtGetDevice(int32_t* deviceId) {
  return guardApi("aclrtGetDevice", [&] {
    requireOut(deviceId, "deviceId");
    *deviceId = Runtime::get().currentDeviceId();
  });
}

ASCEND_SIM_API aclError aclrtResetDevice(int32_t deviceId) {
  return guardApi("aclrtResetDevice", [&] { Runtime::get().resetDevice(deviceId); });
}

ASCEND_SIM_API const char* aclrtGetSocName(void) {
  const char* name = nullptr;
  guardApi("aclrtGetSocName", [&] { name = Runtime::get().chip().soc_name; });
  return name;
}

ASCEND_SIM_API aclError aclrtGetMemInfo(size_t* freeBytes, size_t* totalBytes) {
  return guardApi("aclrtGetMemInfo", [&] {
    requireOut(freeBytes, "freeBytes");
    requireOut(totalBytes, "totalBytes");
    HbmArena& a = Runtime::get().currentDevice().arena();
    *totalBytes = a.capacity();
    *freeBytes = a.capacity() - a.bytesInUse();
  });
}

// ---- streams ----

ASCEND_SIM_API aclError aclrtCreateStream(aclrtStream* stream) {
  return guardApi("aclrtCreateStream", [&] {
    requireOut(stream, "stream");
    Runtime& rt = Runtime::get();
    *stream = rt.registerStream(rt.currentDevice().createStream());
  });
}

ASCEND_SIM_API aclError aclrtDestroyStream(aclrtStream stream) {
  return guardApi("aclrtDestroyStream", [&] {
    Runtime& rt = Runtime::get();
    if (rt.stream(stream)->capture())
      throwAcl(ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED,
               "cannot destroy a stream while it captures a model; end the capture first (aclmdlRICaptureEnd)");
    std::shared_ptr<Stream> s = rt.unregisterStream(stream);
    s->waitIdle();
    rt.device(s->device()).removeStream(s);
    // The last reference joins the worker.
  });
}

ASCEND_SIM_API aclError aclrtSynchronizeStream(aclrtStream stream) {
  return guardApi("aclrtSynchronizeStream", [&] { synchronizeStream(Runtime::get().stream(stream)); });
}

ASCEND_SIM_API aclError aclrtSynchronizeDevice(void) {
  return guardApi("aclrtSynchronizeDevice", [&] {
    Device& d = Runtime::get().currentDevice();
    refuseWhileDeviceCaptures(d.id(), "aclrtSynchronizeDevice");
    d.waitIdle();
    StreamFault f;
    if (d.takeFault(&f)) throwFault(f);
  });
}

ASCEND_SIM_API aclError aclrtStreamQuery(aclrtStream stream, int32_t* idle) {
  return guardApi("aclrtStreamQuery", [&] {
    requireOut(idle, "idle");
    *idle = Runtime::get().stream(stream)->idle() ? 1 : 0;
  });
}

ASCEND_SIM_API aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtStream stream) {
  return guardApi("aclrtLaunchCallback", [&] {
    if (!fn) throwAcl(ACL_ERROR_INVALID_PARAM, "callback function must not be null");
    Runtime::get().stream(stream)->submit(Task{TaskKind::kCallback, "Callback", [fn, userData](Stream&) {
                                                 fn(userData);
                                                 return 0.0;
                                               }});
  });
}

// ---- events ----

ASCEND_SIM_API aclError aclrtCreateEvent(aclrtEvent* event) {
  return guardApi("aclrtCreateEvent", [&] {
    requireOut(event, "event");
    Runtime& rt = Runtime::get();
    *event = rt.registerEvent(std::make_shared<Event>(rt.currentDevice().id()));
  });
}

ASCEND_SIM_API aclError aclrtDestroyEvent(aclrtEvent event) {
  // Pending records/waits hold their own reference to the event.
  return guardApi("aclrtDestroyEvent", [&] { Runtime::get().unregisterEvent(event); });
}

namespace {
// Note [Event records name their event]: an EventRecord or EventWait record's
// shapes are "event=<handle>:seq=<n>" (the n-th record of that event), so that
// a trace can pair each wait with the record it waits for (the scaling
// prediction replays those dependencies).
std::shared_ptr<const TaskDetail> eventDetail(aclrtEvent event, uint64_t seq) {
  auto d = std::make_shared<TaskDetail>();
  d->shapes = "event=" + ptrString(event) + ":seq=" + std::to_string(seq);
  d->core = ACL_CORE_AI_CPU;  // the task scheduler, as records of events always said
  return d;
}
}  // namespace

ASCEND_SIM_API aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return guardApi("aclrtRecordEvent", [&] {
    Runtime& rt = Runtime::get();
    std::shared_ptr<Event> e = rt.event(event);
    std::shared_ptr<Stream> s = rt.stream(stream);
    if (s->device() != e->device())
      throwAcl(ACL_ERROR_RT_STREAM_CONTEXT, "event " + ptrString(event) + " belongs to device " +
                                                std::to_string(e->device()) + " but the stream runs on device " +
                                                std::to_string(s->device()));
    refuseWhileStreamCaptures(*s, "aclrtRecordEvent");  // before the record takes a sequence number
    const uint64_t seq = e->beginRecord(s);
    // See Note [Failures travel through events] in event.h.
    auto failure = std::make_shared<std::string>();
    Task task{TaskKind::kEventRecord, "EventRecord", [failure](Stream& st) {
                *failure = st.takeFailureSinceRecord();
                return 0.0;
              }};
    task.on_complete = [e, seq, failure](double end_us) { e->complete(seq, end_us, std::move(*failure)); };
    task.detail = eventDetail(event, seq);
    s->submit(std::move(task));
  });
}

ASCEND_SIM_API aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return guardApi("aclrtStreamWaitEvent", [&] {
    Runtime& rt = Runtime::get();
    std::shared_ptr<Event> e = rt.event(event);
    std::shared_ptr<Stream> s = rt.stream(stream);
    refuseWhileStreamCaptures(*s, "aclrtStreamWaitEvent");
    const uint64_t target = e->recordedSeq();
    if (target == 0) return;  // never recorded: nothing to wait for
    Task task{TaskKind::kEventWait, "EventWait", [e, target](Stream& st) {
                e->waitFor(target);
                st.raiseClockTo(e->latestTimeUs());
                const std::string failure = e->failureOf(target);
                if (!failure.empty())
                  throwAcl(ACL_ERROR_RT_AICORE_EXCEPTION,
                           "waited on an event recorded after a failed task: " + failure);
                return 0.0;
              }};
    task.detail = eventDetail(event, target);
    s->submit(std::move(task));
  });
}

ASCEND_SIM_API aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  return guardApi("aclrtQueryEvent", [&] {
    requireOut(status, "status");
    *status = Runtime::get().event(event)->completed() ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  });
}

ASCEND_SIM_API aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return guardApi("aclrtSynchronizeEvent", [&] {
    std::shared_ptr<Event> e = Runtime::get().event(event);
    refuseWhileDeviceCaptures(e->device(), "aclrtSynchronizeEvent");
    const uint64_t seq = e->recordedSeq();
    e->waitFor(seq);
    if (std::shared_ptr<Stream> s = e->lastStream()) {
      StreamFault f;
      if (s->takeFault(&f)) throwFault(f);
    }
    const std::string failure = e->failureOf(seq);  // fault already taken, but the record still carries it
    if (!failure.empty())
      throwAcl(ACL_ERROR_RT_AICORE_EXCEPTION, "event " + ptrString(event) + " was recorded after a failed task: " + failure);
  });
}

ASCEND_SIM_API aclError aclrtEventElapsedTime(float* ms, aclrtEvent start, aclrtEvent end) {
  return guardApi("aclrtEventElapsedTime", [&] {
    requireOut(ms, "ms");
    Runtime& rt = Runtime::get();
    std::shared_ptr<Event> a = rt.event(start), b = rt.event(end);
    double ta = 0, tb = 0;
    if (!a->timeIfComplete(&ta))
      throwAcl(ACL_ERROR_INVALID_PARAM, "start event " + ptrString(start) +
                                            (a->recordedSeq() == 0 ? " was never recorded" : " has not completed yet"));
    if (!b->timeIfComplete(&tb))
      throwAcl(ACL_ERROR_INVALID_PARAM, "end event " + ptrString(end) +
                                            (b->recordedSeq() == 0 ? " was never recorded" : " has not completed yet"));
    *ms = static_cast<float>((tb - ta) / 1000.0);
  });
}

ASCEND_SIM_API aclError aclsimGetDeviceSimTime(double* us) {
  return guardApi("aclsimGetDeviceSimTime", [&] {
    requireOut(us, "us");
    Device& d = Runtime::get().currentDevice();
    d.waitIdle();
    *us = d.simTimeUs();
  });
}

}  // extern "C"
