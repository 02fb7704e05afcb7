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

// The simulator dumps an op when it executes: this runs every op queued so far on every device.
void runQueuedWork() {
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) synchronize(d);
}

}  // namespace

void initDump() { NPU_CHECK_ACL(aclmdlInitDump()); }

void setDump(const std::string& config_path) {
  runQueuedWork();  // the dump applies to ops launched from now on, not to a fill_ still queued
  NPU_CHECK_ACL(aclmdlSetDump(config_path.c_str()));
}

void finalizeDump() {
  runQueuedWork();  // every op launched while dumping has been dumped
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
