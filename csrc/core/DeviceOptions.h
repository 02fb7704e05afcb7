// The device's process-wide settings and its sticky overflow flag, as
// torch.npu.set_option / get_option, torch.npu.set_op_execute_timeout,
// npu_get_float_status and the AMP loss scaler use them.
#pragma once

#include <cstdint>
#include <string>

#include <c10/core/Device.h>

namespace torch_npu {

// AscendCL compile options by name ("ACL_PRECISION_MODE", ...): an unknown name
// raises, listing the supported ones. Setting hands the ops already queued to
// the device first, since they were launched under the old value.
std::string getCompileOption(const std::string& name);
void setCompileOption(const std::string& name, const std::string& value);

// The op execute timeout (aclrtSetOpExecuteTimeOutWithMs).
void setOpExecuteTimeoutMs(uint32_t ms);

// The device's sticky fp16 overflow flag (saturation mode), read after the
// current stream's earlier work, and its reset.
bool readOverflowFlag(c10::DeviceIndex device);
void clearOverflowFlag(c10::DeviceIndex device);

// aclGetDeviceCapability (`which` is an aclDeviceInfo value) and the chip's name.
int64_t deviceCapability(c10::DeviceIndex device, int64_t which);
std::string socName();

}  // namespace torch_npu
