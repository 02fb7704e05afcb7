#include "csrc/core/OpDump.h"

#include "ascend_sim/acl.h"
#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"

namespace torch_npu {
namespace {

std::shared_ptr<const std::string>& threadScope() {
  static thread_local std::shared_ptr<const std::string> scope;
  return scope;
}

}  // namespace

void initDump() { NPU_CHECK_ACL(aclmdlInitDump()); }

void setDump(const std::string& config_path) {
  // The dump applies to ops launched from now on: the device first runs what was queued before
  // (the simulator dumps an op when it executes, so a queued fill_ would otherwise be dumped).
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) synchronize(d);
  NPU_CHECK_ACL(aclmdlSetDump(config_path.c_str()));
}

void finalizeDump() {
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) synchronize(d);  // every dumped op has run
  NPU_CHECK_ACL(aclmdlFinalizeDump());
}

void setLaunchScope(const std::string& scope) {
  auto& current = threadScope();
  if (scope.empty())
    current.reset();
  else if (!current || *current != scope)
    current = std::make_shared<const std::string>(scope);
}

std::shared_ptr<const std::string> currentLaunchScope() { return threadScope(); }

}  // namespace torch_npu
