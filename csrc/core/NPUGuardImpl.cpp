#include "csrc/core/NPUGuardImpl.h"

#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUEvent.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUStream.h"

namespace torch_npu {

c10::Device NPUGuardImpl::exchangeDevice(c10::Device d) const {
  TORCH_INTERNAL_ASSERT(d.type() == static_type);
  const c10::Device old = getDevice();
  if (old.index() != d.index()) set_device(d.index());
  return old;
}

c10::Device NPUGuardImpl::getDevice() const { return c10::Device(static_type, current_device()); }

void NPUGuardImpl::setDevice(c10::Device d) const {
  TORCH_INTERNAL_ASSERT(d.type() == static_type);
  set_device(d.index());
}

void NPUGuardImpl::uncheckedSetDevice(c10::Device d) const noexcept {
  try {
    set_device(d.index());
  } catch (const std::exception& e) {
    TORCH_WARN("NPU: cannot restore device ", d, ": ", e.what());
  }
}

c10::Stream NPUGuardImpl::getStream(c10::Device d) const noexcept {
  return getCurrentNPUStream(d.index()).unwrap();
}

c10::Stream NPUGuardImpl::getDefaultStream(c10::Device d) const {
  return getDefaultNPUStream(d.index()).unwrap();
}

c10::Stream NPUGuardImpl::getStreamFromGlobalPool(c10::Device d, bool) const {
  return getStreamFromPool(d.index()).unwrap();
}

c10::Stream NPUGuardImpl::exchangeStream(c10::Stream s) const noexcept {
  NPUStream stream(s);
  const NPUStream old = getCurrentNPUStream(s.device_index());
  setCurrentNPUStream(stream);
  return old.unwrap();
}

c10::DeviceIndex NPUGuardImpl::deviceCount() const noexcept { return device_count(); }

void NPUGuardImpl::record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
                          const c10::EventFlag) const {
  TORCH_CHECK(device_index == -1 || device_index == stream.device_index(),
              "Event device index ", static_cast<int>(device_index),
              " does not match recording stream's device index ",
              static_cast<int>(stream.device_index()), ".");
  if (*event == nullptr) *event = new NPUEvent();
  static_cast<NPUEvent*>(*event)->record(NPUStream(stream));
}

void NPUGuardImpl::block(void* event, const c10::Stream& stream) const {
  if (event == nullptr) return;
  static_cast<NPUEvent*>(event)->block(NPUStream(stream));
}

bool NPUGuardImpl::queryEvent(void* event) const {
  return event == nullptr || static_cast<NPUEvent*>(event)->query();
}

void NPUGuardImpl::destroyEvent(void* event, const c10::DeviceIndex) const noexcept {
  delete static_cast<NPUEvent*>(event);
}

bool NPUGuardImpl::queryStream(const c10::Stream& stream) const { return NPUStream(stream).query(); }

void NPUGuardImpl::synchronizeStream(const c10::Stream& stream) const {
  NPUStream(stream).synchronize();
}

void NPUGuardImpl::recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const {
  allocator::recordStream(data_ptr, NPUStream(stream));
}

C10_REGISTER_GUARD_IMPL(PrivateUse1, NPUGuardImpl);

}  // namespace torch_npu
