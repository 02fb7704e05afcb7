#include "csrc/core/ExpandableSegment.h"

#include <string>

#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"

namespace torch_npu {
namespace allocator {

namespace {
aclrtPhysicalMemProp hbmOf(c10::DeviceIndex device) {
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.memAttr = ACL_HBM_MEM_HUGE;
  prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = static_cast<uint32_t>(device);
  return prop;
}
}  // namespace

ExpandableSegment::ExpandableSegment(c10::DeviceIndex device, c10::StreamId stream, size_t bytes)
    : device_(device), stream_(stream) {
  DeviceSwitch guard(device_);
  aclrtPhysicalMemProp prop = hbmOf(device_);
  NPU_CHECK_ACL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity_));
  size_ = (bytes + granularity_ - 1) / granularity_ * granularity_;
  void* base = nullptr;
  NPU_CHECK_ACL(aclrtReserveMemAddress(&base, size_, 0, nullptr, 0));
  base_ = static_cast<char*>(base);
  handles_.assign(size_ / granularity_, nullptr);
}

ExpandableSegment::~ExpandableSegment() {
  DeviceSwitch guard(device_);
  for (size_t i = 0; i < handles_.size(); ++i) {
    if (handles_[i] == nullptr) continue;
    (void)aclrtUnmapMem(base_ + i * granularity_);
    (void)aclrtFreePhysical(handles_[i]);
  }
  (void)aclrtReleaseMemAddress(base_);
}

aclError ExpandableSegment::map(size_t offset, size_t bytes, std::string* error) {
  DeviceSwitch guard(device_);
  const aclrtPhysicalMemProp prop = hbmOf(device_);
  for (size_t done = 0; done < bytes; done += granularity_) {
    const size_t i = (offset + done) / granularity_;
    aclrtDrvMemHandle handle = nullptr;
    aclError status = aclrtMallocPhysical(&handle, granularity_, &prop, 0);
    if (status == ACL_SUCCESS) {
      status = aclrtMapMem(base_ + offset + done, granularity_, 0, handle, 0);
      if (status != ACL_SUCCESS) (void)aclrtFreePhysical(handle);
    }
    if (status != ACL_SUCCESS) {
      *error = aclGetRecentErrMsg();
      for (size_t undo = 0; undo < done; undo += granularity_) {  // all or nothing; the first error is the one told
        aclrtDrvMemHandle& mapped = handles_[(offset + undo) / granularity_];
        (void)aclrtUnmapMem(base_ + offset + undo);
        (void)aclrtFreePhysical(mapped);
        mapped = nullptr;
        mapped_bytes_ -= granularity_;
      }
      return status;
    }
    handles_[i] = handle;
    mapped_bytes_ += granularity_;
  }
  return ACL_SUCCESS;
}

void ExpandableSegment::unmap(size_t offset, size_t bytes) {
  DeviceSwitch guard(device_);
  for (size_t done = 0; done < bytes; done += granularity_) {
    aclrtDrvMemHandle& handle = handles_[(offset + done) / granularity_];
    TORCH_INTERNAL_ASSERT(handle != nullptr, "expandable segment: unmapping a granule that is not mapped");
    NPU_CHECK_ACL(aclrtUnmapMem(base_ + offset + done));
    NPU_CHECK_ACL(aclrtFreePhysical(handle));
    handle = nullptr;
    mapped_bytes_ -= granularity_;
  }
}

}  // namespace allocator
}  // namespace torch_npu
