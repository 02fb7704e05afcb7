// Injected device faults, for testing how a program and the layers above
// the simulator survive them (aclsimInjectFault, ASCEND_SIM_FAULTS).
//
// Note [Fault injection]
// A spec is rules separated by ';':
//   task:<name>[:<n>]  the n-th task named <name> (default: the next one) to
//                      start executing after the rule was set fails on the
//                      device, as a kernel fault does: its stream gets the
//                      fault "injected fault: ..." and the next synchronize
//                      reports it. <name> is what the profiling records call
//                      the task: an op type (MatMul), MemcpyH2D, MemcpyD2H,
//                      MemcpyD2D, HcclAllReduce, ... A faulted copy copies
//                      nothing. The rule then expires.
//   malloc[:<n>]       from the n-th aclrtMalloc on (default: the next), every
//                      aclrtMalloc fails with ACL_ERROR_RT_MEMORY_ALLOCATION,
//                      as when HBM is exhausted, until the faults are cleared.
// A fault never leaves the device unusable: the faulted stream reports once
// and runs later tasks normally; memory allocated before stays valid.
// aclsimClearFaults() removes every rule.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ascend_sim {

class FaultInjector {
 public:
  static FaultInjector& get();

  // Adds the rules of `spec` (Note [Fault injection]); throws AclError
  // (ACL_ERROR_INVALID_PARAM) naming what is wrong, adding nothing then.
  void add(const std::string& spec);
  void clear();

  // The fault message if the task about to execute must fail.
  std::optional<std::string> onTask(const std::string& name);
  // True if this aclrtMalloc must fail.
  bool onMalloc();

 private:
  struct TaskRule {
    std::string name;
    uint64_t countdown;  // matching tasks still to pass before the one that fails
  };
  std::mutex mu_;
  std::vector<TaskRule> task_rules_;
  bool malloc_rule_ = false;
  uint64_t malloc_countdown_ = 0;
  std::atomic<bool> any_{false};  // no rule at all: every task and malloc skips the lock
};

}  // namespace ascend_sim
