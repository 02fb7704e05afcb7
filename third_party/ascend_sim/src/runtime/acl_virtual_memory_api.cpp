// C API: CANN's virtual memory management over the simulated HBM (Note [Virtual memory of the
// simulated HBM] in hbm_arena.h).
#include <string>

#include "ascend_sim/acl_sim.h"
#include "runtime/error_state.h"
#include "runtime/fault_injection.h"
#include "runtime/runtime.h"

using namespace ascend_sim;

namespace {

// The device whose reserved range or physical allocation `p` is.
Device& deviceOfVirtual(const void* p, const char* api) {
  Device* d = Runtime::get().deviceOwning(p);
  if (!d)
    throwAcl(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + ptrString(p) + " is not device memory of any device");
  return *d;
}

}  // namespace

extern "C" {

ASCEND_SIM_API aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp* prop, aclrtMemGranularityOptions option,
                                                         size_t* granularity) {
  return guardApi("aclrtMemGetAllocationGranularity", [&] {
    if (!prop || !granularity) throwAcl(ACL_ERROR_INVALID_PARAM, "prop and granularity must not be null");
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
      throwAcl(ACL_ERROR_INVALID_PARAM, "option must be ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED, got " +
                                            std::to_string(static_cast<int>(option)));
    *granularity = HbmArena::kPageBytes;
  });
}

ASCEND_SIM_API aclError aclrtReserveMemAddress(void** virPtr, size_t size, size_t alignment, void* expectPtr,
                                               uint64_t flags) {
  (void)flags;  // huge or normal pages: one granularity in the simulator
  return guardApi("aclrtReserveMemAddress", [&] {
    if (!virPtr) throwAcl(ACL_ERROR_INVALID_PARAM, "virPtr must not be null");
    if (alignment != 0) throwAcl(ACL_ERROR_INVALID_PARAM, "alignment is reserved and must be 0");
    if (expectPtr != nullptr)
      throwAcl(ACL_ERROR_INVALID_PARAM,
               "expectPtr " + ptrString(expectPtr) + ": the simulator places reservations itself (pass nullptr)");
    *virPtr = Runtime::get().currentDevice().arena().reserveRange(size);
  });
}

ASCEND_SIM_API aclError aclrtReleaseMemAddress(void* virPtr) {
  return guardApi("aclrtReleaseMemAddress",
                  [&] { deviceOfVirtual(virPtr, "aclrtReleaseMemAddress").arena().releaseRange(virPtr); });
}

ASCEND_SIM_API aclError aclrtMallocPhysical(aclrtDrvMemHandle* handle, size_t size, const aclrtPhysicalMemProp* prop,
                                            uint64_t flags) {
  (void)flags;
  return guardApi("aclrtMallocPhysical", [&] {
    if (!handle || !prop) throwAcl(ACL_ERROR_INVALID_PARAM, "handle and prop must not be null");
    if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
      throwAcl(ACL_ERROR_INVALID_PARAM,
               "prop->location.type must be ACL_MEM_LOCATION_TYPE_DEVICE (host physical "
               "memory is not simulated)");
    Device& d = Runtime::get().device(static_cast<int32_t>(prop->location.id));
    if (FaultInjector::get().onMalloc())
      throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, "injected fault: HBM exhausted, cannot allocate " +
                                                   std::to_string(size) +
                                                   " bytes (aclsimInjectFault / ASCEND_SIM_FAULTS)");
    *handle = d.arena().allocatePhysical(size);
  });
}

ASCEND_SIM_API aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
  return guardApi("aclrtFreePhysical",
                  [&] { deviceOfVirtual(handle, "aclrtFreePhysical").arena().freePhysical(handle); });
}

ASCEND_SIM_API aclError aclrtMapMem(void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                    uint64_t flags) {
  (void)flags;
  return guardApi("aclrtMapMem", [&] {
    if (offset != 0) throwAcl(ACL_ERROR_INVALID_PARAM, "offset must be 0, got " + std::to_string(offset));
    Device& range_device = deviceOfVirtual(virPtr, "aclrtMapMem");
    Device& physical_device = deviceOfVirtual(handle, "aclrtMapMem");
    if (&range_device != &physical_device)
      throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtMapMem: the range " + ptrString(virPtr) + " is on device " +
                                            std::to_string(range_device.id()) + " but the physical memory on device " +
                                            std::to_string(physical_device.id()));
    range_device.arena().map(virPtr, size, handle);
  });
}

ASCEND_SIM_API aclError aclrtUnmapMem(void* virPtr) {
  return guardApi("aclrtUnmapMem", [&] { deviceOfVirtual(virPtr, "aclrtUnmapMem").arena().unmap(virPtr); });
}

}  // extern "C"
