// Device management: count, current device (per host thread), synchronize.
#pragma once

#include <c10/core/Device.h>

namespace torch_npu {

// Number of visible simulated devices (ASCEND_SIM_DEVICE_COUNT, ASCEND_RT_VISIBLE_DEVICES).
c10::DeviceIndex device_count() noexcept;
// The calling thread's current device (default 0).
c10::DeviceIndex current_device();
// Makes `device` current on the calling thread; raises if out of range.
void set_device(c10::DeviceIndex device);
// Raises "Invalid NPU device index 9: there are 8 NPU devices (valid indices 0..7)".
void check_device_index(c10::DeviceIndex device);
// Waits for all work queued on `device` (task queue and device streams) and
// raises the first error of a failed task.
void synchronize(c10::DeviceIndex device);
// The device's simulated clock in microseconds, once the work queued so far
// has been handed to the device (torch.npu.simulated_time_us).
double simulatedTimeUs(c10::DeviceIndex device);

// Percent of the wall time since the previous query in which the device
// executed work, per unit (aclrtGetDeviceUtilizationRate; Note [Device
// utilization] in the simulator).
struct UtilizationRates {
  int cube = 0, vector = 0, aicpu = 0, memory = 0;
};
UtilizationRates utilizationRates(c10::DeviceIndex device);

// Switches the current device for a scope (noexcept restore).
class DeviceSwitch {
 public:
  explicit DeviceSwitch(c10::DeviceIndex device);
  ~DeviceSwitch();
  DeviceSwitch(const DeviceSwitch&) = delete;
  DeviceSwitch& operator=(const DeviceSwitch&) = delete;

 private:
  c10::DeviceIndex previous_;
};

}  // namespace torch_npu
