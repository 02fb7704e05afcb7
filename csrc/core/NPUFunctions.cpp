#include "csrc/core/NPUFunctions.h"

#include "csrc/core/NPUException.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {
namespace {
thread_local c10::DeviceIndex tls_current_device = 0;
thread_local c10::DeviceIndex tls_acl_device = -1;  // what aclrtSetDevice last saw on this thread

void bindAclDevice(c10::DeviceIndex device) {
  if (tls_acl_device != device) {
    NPU_CHECK_ACL(aclrtSetDevice(device));
    tls_acl_device = device;
  }
}
}  // namespace

c10::DeviceIndex device_count() noexcept {
  static const c10::DeviceIndex count = [] {
    uint32_t n = 0;
    if (aclrtGetDeviceCount(&n) != ACL_SUCCESS) return c10::DeviceIndex(0);
    return static_cast<c10::DeviceIndex>(n);
  }();
  return count;
}

void check_device_index(c10::DeviceIndex device) {
  const auto n = device_count();
  TORCH_CHECK(device >= 0 && device < n, "Invalid NPU device index ", static_cast<int>(device),
              ": there are ", static_cast<int>(n), " NPU devices (valid indices 0..", n - 1,
              "); set ASCEND_SIM_DEVICE_COUNT or ASCEND_RT_VISIBLE_DEVICES to change them");
}

c10::DeviceIndex current_device() {
  bindAclDevice(tls_current_device);
  return tls_current_device;
}

void set_device(c10::DeviceIndex device) {
  check_device_index(device);
  bindAclDevice(device);
  tls_current_device = device;
}

void synchronize(c10::DeviceIndex device) {
  check_device_index(device);
  TaskQueue::forDevice(device).drain();
  DeviceSwitch guard(device);
  NPU_CHECK_ACL(aclrtSynchronizeDevice());
}

DeviceSwitch::DeviceSwitch(c10::DeviceIndex device) : previous_(tls_current_device) {
  if (device != previous_) set_device(device);
}

DeviceSwitch::~DeviceSwitch() {
  if (tls_current_device != previous_) {
    if (aclrtSetDevice(previous_) == ACL_SUCCESS) {
      tls_acl_device = previous_;
      tls_current_device = previous_;
    }
  }
}

}  // namespace torch_npu
