// C API: device and host memory, copies and memset.
//
// Note [Copies and ordering]
// aclrtMemcpy / aclrtMemset (synchronous) first wait for every stream of the
// device(s) involved, then copy on the calling thread, and account the copy
// on the device's default stream clock after all earlier work. The *Async
// variants validate both ranges at once and enqueue a task. As with CUDA, the
// caller must keep the host buffer of an async H2D/D2H copy alive (and, for
// H2D, unchanged) until the stream reaches the copy.
// aclrtFree does not wait for the device: freeing memory still used by queued
// work is a caller error (the task then reads or writes freed HBM, never host
// memory).
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "ascend_sim/acl_sim.h"
#include "runtime/error_state.h"
#include "runtime/fault_injection.h"
#include "runtime/model_capture.h"
#include "runtime/runtime.h"

using namespace ascend_sim;

namespace {

constexpr size_t kHostAlignment = 64;  // aclrtMallocHost alignment [B]

struct HostAllocations {
  std::mutex mu;
  std::unordered_set<void*> live;
};
HostAllocations& hostAllocations() {
  static auto* h = new HostAllocations();  // leaked: usable during exit
  return *h;
}

const char* kindName(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
  }
  return "unknown";
}

const char* taskName(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE: return "MemcpyH2D";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "MemcpyD2H";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "MemcpyD2D";
    default: return "MemcpyH2H";
  }
}

// HBM bytes a copy reads + writes (profiling records): D2D reads and writes.
double hbmBytes(size_t count, aclrtMemcpyKind kind) {
  if (kind == ACL_MEMCPY_HOST_TO_HOST) return 0;
  return static_cast<double>(count) * (kind == ACL_MEMCPY_DEVICE_TO_DEVICE ? 2 : 1);
}

// One side of a copy: a host pointer, or a validated device range.
struct Operand {
  bool device = false;
  int device_id = -1;
  void* host = nullptr;  // host-accessible address
};

Operand resolveOperand(const void* p, size_t n, bool want_device, const char* role, aclrtMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  if (want_device) {
    if (!rt.deviceOwning(p))
      throwAcl(ACL_ERROR_RT_INVALID_MEMORY, std::string(role) + " " + ptrString(p) + " is not device memory, but " +
                                                kindName(kind) + " needs a device " + role);
    DeviceRange r = rt.resolve(p, n);
    return Operand{true, r.device, r.host};
  }
  if (rt.deviceOwning(p))
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, std::string(role) + " " + ptrString(p) + " is device memory, but " +
                                              kindName(kind) + " needs a host " + role);
  return Operand{false, -1, const_cast<void*>(p)};
}

struct CopyPlan {
  Operand dst, src;
  int device = -1;  // device whose clock the copy advances (-1: host only)
};

CopyPlan planCopy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE)
    throwAcl(ACL_ERROR_INVALID_PARAM, "unknown memcpy kind " + std::to_string(static_cast<int>(kind)));
  if (count > destMax)
    throwAcl(ACL_ERROR_INVALID_PARAM, "count " + std::to_string(count) + " bytes exceeds destMax " +
                                          std::to_string(destMax) + " bytes");
  if (count > 0 && (!dst || !src))
    throwAcl(ACL_ERROR_INVALID_PARAM, std::string(dst ? "src" : "dst") + " must not be null");
  const bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  CopyPlan plan;
  if (count == 0) return plan;
  plan.dst = resolveOperand(dst, count, dst_dev, "destination", kind);
  plan.src = resolveOperand(src, count, src_dev, "source", kind);
  plan.device = dst_dev ? plan.dst.device_id : src_dev ? plan.src.device_id : -1;
  return plan;
}

void waitDevice(int id) {
  if (id >= 0) Runtime::get().device(id).waitIdle();
}

}  // namespace

extern "C" {

ASCEND_SIM_API aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  (void)policy;  // huge or normal pages: the simulated HBM is one arena, every policy allocates alike
  return guardApi("aclrtMalloc", [&] {
    if (!devPtr) throwAcl(ACL_ERROR_INVALID_PARAM, "devPtr must not be null");
    if (FaultInjector::get().onMalloc())
      throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, "injected fault: HBM exhausted, cannot allocate " + std::to_string(size) +
                                                   " bytes (aclsimInjectFault / ASCEND_SIM_FAULTS)");
    *devPtr = Runtime::get().currentDevice().arena().allocate(size);
  });
}

ASCEND_SIM_API aclError aclrtFree(void* devPtr) {
  return guardApi("aclrtFree", [&] {
    if (!devPtr) throwAcl(ACL_ERROR_INVALID_PARAM, "devPtr must not be null");
    Device* d = Runtime::get().deviceOwning(devPtr);
    if (!d) throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "pointer " + ptrString(devPtr) + " is not device memory");
    d->arena().free(devPtr);
  });
}

ASCEND_SIM_API aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return guardApi("aclrtMallocHost", [&] {
    if (!hostPtr) throwAcl(ACL_ERROR_INVALID_PARAM, "hostPtr must not be null");
    if (size == 0) throwAcl(ACL_ERROR_INVALID_PARAM, "size must be positive, got 0 bytes");
    void* p = nullptr;
    if (posix_memalign(&p, kHostAlignment, size) != 0)
      throwAcl(ACL_ERROR_BAD_ALLOC, "cannot allocate " + std::to_string(size) + " bytes of host memory");
    auto& h = hostAllocations();
    std::lock_guard<std::mutex> lock(h.mu);
    h.live.insert(p);
    *hostPtr = p;
  });
}

ASCEND_SIM_API aclError aclrtFreeHost(void* hostPtr) {
  return guardApi("aclrtFreeHost", [&] {
    auto& h = hostAllocations();
    std::lock_guard<std::mutex> lock(h.mu);
    if (!hostPtr || h.live.erase(hostPtr) == 0)
      throwAcl(ACL_ERROR_INVALID_PARAM, "pointer " + ptrString(hostPtr) + " was not returned by aclrtMallocHost");
    std::free(hostPtr);
  });
}

ASCEND_SIM_API aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  return guardApi("aclrtMemcpy", [&] {
    CopyPlan plan = planCopy(dst, destMax, src, count, kind);
    for (int device : {plan.src.device_id, plan.dst.device_id})
      if (device >= 0) refuseWhileDeviceCaptures(device, "aclrtMemcpy");
    if (count == 0) return;
    waitDevice(plan.dst.device_id);
    if (plan.src.device_id != plan.dst.device_id) waitDevice(plan.src.device_id);
    if (auto injected = FaultInjector::get().onTask(taskName(kind))) throwAcl(injected->code, injected->message);
    std::memmove(plan.dst.host, plan.src.host, count);
    if (plan.device >= 0) {
      Runtime& rt = Runtime::get();
      Device& d = rt.device(plan.device);
      d.defaultStream()->accountHostTask(TaskKind::kMemcpy, taskName(kind), d.simTimeUs(), rt.cost().memcpyUs(count, kind),
                                         hbmBytes(count, kind));
    }
  });
}

ASCEND_SIM_API aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind, aclrtStream stream) {
  return guardApi("aclrtMemcpyAsync", [&] {
    Runtime& rt = Runtime::get();
    std::shared_ptr<Stream> s = rt.stream(stream);
    CopyPlan plan = planCopy(dst, destMax, src, count, kind);
    if (kind != ACL_MEMCPY_DEVICE_TO_DEVICE)  // Note [Model capture]: the host bytes would be the capture's
      refuseWhileStreamCaptures(*s, "aclrtMemcpyAsync to or from host memory");
    const double us = rt.cost().memcpyUs(count, kind);
    void* to = plan.dst.host;
    const void* from = plan.src.host;
    Task task{TaskKind::kMemcpy, taskName(kind), [to, from, count, us](Stream&) {
                if (count) std::memmove(to, from, count);
                return us;
              }};
    task.bytes = hbmBytes(count, kind);
    s->submit(std::move(task));
  });
}

ASCEND_SIM_API aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return guardApi("aclrtMemset", [&] {
    if (count > maxCount)
      throwAcl(ACL_ERROR_INVALID_PARAM, "count " + std::to_string(count) + " bytes exceeds maxCount " +
                                            std::to_string(maxCount) + " bytes");
    if (count == 0) return;
    Runtime& rt = Runtime::get();
    DeviceRange r = rt.resolve(devPtr, count);
    refuseWhileDeviceCaptures(r.device, "aclrtMemset");
    Device& d = rt.device(r.device);
    d.waitIdle();
    std::memset(r.host, value, count);
    d.defaultStream()->accountHostTask(TaskKind::kMemset, "Memset", d.simTimeUs(), rt.cost().memsetUs(count),
                                       static_cast<double>(count));
  });
}

ASCEND_SIM_API aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                                         aclrtStream stream) {
  return guardApi("aclrtMemsetAsync", [&] {
    if (count > maxCount)
      throwAcl(ACL_ERROR_INVALID_PARAM, "count " + std::to_string(count) + " bytes exceeds maxCount " +
                                            std::to_string(maxCount) + " bytes");
    Runtime& rt = Runtime::get();
    std::shared_ptr<Stream> s = rt.stream(stream);
    void* host = count ? rt.resolve(devPtr, count).host : nullptr;
    const double us = rt.cost().memsetUs(count);
    Task task{TaskKind::kMemset, "Memset", [host, value, count, us](Stream&) {
                if (count) std::memset(host, value, count);
                return us;
              }};
    task.bytes = static_cast<double>(count);
    s->submit(std::move(task));
  });
}

ASCEND_SIM_API aclError aclrtPointerGetDevice(const void* devPtr, int32_t* deviceId) {
  return guardApi("aclrtPointerGetDevice", [&] {
    if (!deviceId) throwAcl(ACL_ERROR_INVALID_PARAM, "deviceId must not be null");
    *deviceId = Runtime::get().resolve(devPtr, 1).device;  // the byte at devPtr must be live
  });
}

}  // extern "C"
