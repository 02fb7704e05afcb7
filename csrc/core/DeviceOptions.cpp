#include "csrc/core/DeviceOptions.h"

#include <utility>

#include <c10/util/Exception.h>

#include "ascend_sim/acl.h"
#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {
namespace {

aclCompileOpt compileOption(const std::string& name) {
  static const std::pair<const char*, aclCompileOpt> kOptions[] = {
      {"ACL_PRECISION_MODE", ACL_PRECISION_MODE},
      {"ACL_OP_JIT_COMPILE", ACL_OP_JIT_COMPILE},
      {"ACL_OP_SELECT_IMPL_MODE", ACL_OP_SELECT_IMPL_MODE},
      {"ACL_OPTYPELIST_FOR_IMPLMODE", ACL_OPTYPELIST_FOR_IMPLMODE},
      {"ACL_OP_COMPILER_CACHE_MODE", ACL_OP_COMPILER_CACHE_MODE},
      {"ACL_OP_COMPILER_CACHE_DIR", ACL_OP_COMPILER_CACHE_DIR},
  };
  std::string names;
  for (const auto& [known, opt] : kOptions) {
    if (name == known) return opt;
    names += std::string(names.empty() ? "" : ", ") + known;
  }
  TORCH_CHECK(false, "unknown NPU option '", name, "'; supported: ", names);
}

}  // namespace

std::string getCompileOption(const std::string& name) {
  char value[4096] = {0};
  NPU_CHECK_ACL(aclGetCompileopt(compileOption(name), value, sizeof(value)));
  return value;
}

void setCompileOption(const std::string& name, const std::string& value) {
  const aclCompileOpt opt = compileOption(name);
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) TaskQueue::forDevice(d).drain();
  NPU_CHECK_ACL(aclSetCompileopt(opt, value.c_str()));
}

void setOpExecuteTimeoutMs(uint32_t ms) { NPU_CHECK_ACL(aclrtSetOpExecuteTimeOutWithMs(ms)); }

bool readOverflowFlag(c10::DeviceIndex device) {
  DeviceSwitch guard(device);
  const NPUStream stream = getCurrentNPUStream(device);
  TaskQueue::forDevice(device).drain();
  uint32_t status = 0;
  NPU_CHECK_ACL(aclrtGetOverflowStatus(&status, sizeof(status), stream.handle()));
  NPU_CHECK_ACL(aclrtSynchronizeStream(stream.handle()));
  return status != 0;
}

void clearOverflowFlag(c10::DeviceIndex device) {
  DeviceSwitch guard(device);
  const NPUStream stream = getCurrentNPUStream(device);
  TaskQueue::forDevice(device).drain();
  NPU_CHECK_ACL(aclrtResetOverflowStatus(stream.handle()));
}

int64_t deviceCapability(c10::DeviceIndex device, int64_t which) {
  int64_t value = 0;
  NPU_CHECK_ACL(aclGetDeviceCapability(static_cast<uint32_t>(device), static_cast<aclDeviceInfo>(which), &value));
  return value;
}

std::string socName() { return aclrtGetSocName(); }

}  // namespace torch_npu
