#include "csrc/core/NPUFunctions.h"

#include <cstdlib>
#include <string>

#include "csrc/core/NPUException.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/SimulatorExtensions.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {
namespace {
thread_local c10::DeviceIndex tls_current_device = 0;
thread_local c10::DeviceIndex tls_acl_device = -1;  // what aclrtSetDevice last saw on this thread

void bindAclDevice(c10::DeviceIndex device) {
  if (tls_acl_device != device) {
    check_device_index(device);  // also initialises the simulator, see below
    NPU_CHECK_ACL(aclrtSetDevice(device));
    tls_acl_device = device;
  }
}
}  // namespace

// Note [Simulator initialisation]
// The first device query initialises the simulator with aclInit, passing the
// CANN-style ini file named by ASCEND_SIM_CONFIG (e.g. "[soc]\nsoc_version =
// Ascend910B2") if set. A failure (bad file, bad ASCEND_RT_VISIBLE_DEVICES)
// leaves zero devices and its message is part of every device-index error.
std::string& initError() {
  static std::string message;
  return message;
}

c10::DeviceIndex device_count() noexcept {
  static const c10::DeviceIndex count = [] {
    const char* config = std::getenv("ASCEND_SIM_CONFIG");
    uint32_t n = 0;
    if (aclInit(config) != ACL_SUCCESS || aclrtGetDeviceCount(&n) != ACL_SUCCESS) {
      initError() = aclGetRecentErrMsg();
      return c10::DeviceIndex(0);
    }
    return static_cast<c10::DeviceIndex>(n);
  }();
  return count;
}

void check_device_index(c10::DeviceIndex device) {
  const auto n = device_count();
  TORCH_CHECK(n > 0, "No NPU device is available: the simulator failed to initialise: ", initError());
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

double simulatedTimeUs(c10::DeviceIndex device) {
  TaskQueue::forDevice(device).drain();
  DeviceSwitch guard(device);
  return sim::currentDeviceSimTimeUs();
}

UtilizationRates utilizationRates(c10::DeviceIndex device) {
  check_device_index(device);
  aclrtUtilizationInfo info{};
  NPU_CHECK_ACL(aclrtGetDeviceUtilizationRate(device, &info));
  return {info.cubeUtilization, info.vectorUtilization, info.aicpuUtilization, info.memoryUtilization};
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
