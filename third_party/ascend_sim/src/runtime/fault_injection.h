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
//   hang:<name>[:<n>]  the n-th task named <name> hangs on the device: its
//                      stream's worker is stuck in it (later tasks of the
//                      stream wait, a synchronize blocks) until the op
//                      execute timeout (aclrtSetOpExecuteTimeOut[WithMs];
//                      default 68 s, CANN's AI Core default on the training
//                      series) passes, when it fails with
//                      ACL_ERROR_RT_AICORE_TIMEOUT, or until
//                      aclsimClearFaults() releases it as a fault. The rule
//                      then expires.
//   malloc[:<n>]       from the n-th aclrtMalloc on (default: the next), every
//                      aclrtMalloc fails with ACL_ERROR_RT_MEMORY_ALLOCATION,
//                      as when HBM is exhausted, until the faults are cleared.
// A fault never leaves the device unusable: the faulted stream reports once
// and runs later tasks normally; memory allocated before stays valid.
// aclsimClearFaults() removes every rule.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"

namespace ascend_sim {

// What an injected rule does to a task: the fault its stream records.
struct InjectedFault {
  aclError code;
  std::string message;
};

class FaultInjector {
 public:
  static FaultInjector& get();

  // Adds the rules of `spec` (Note [Fault injection]); throws AclError
  // (ACL_ERROR_INVALID_PARAM) naming what is wrong, adding nothing then.
  void add(const std::string& spec);
  void clear();

  // The fault if the task about to execute must fail; for a hang rule this
  // blocks the calling (stream worker) thread first, as the hung task would.
  std::optional<InjectedFault> onTask(const std::string& name);
  // True if this aclrtMalloc must fail.
  bool onMalloc();

  // The op execute timeout (aclrtSetOpExecuteTimeOut): how long a hung task
  // blocks before it fails. 0 restores the default.
  void setOpExecuteTimeoutMs(uint64_t ms);
  uint64_t opExecuteTimeoutMs() const { return timeout_ms_.load(); }
  static constexpr uint64_t kDefaultOpExecuteTimeoutMs = 68000;
  // Tasks hanging right now (inside an injected hang).
  uint64_t hungTasks() const { return hung_.load(); }

 private:
  struct TaskRule {
    std::string name;
    uint64_t countdown;  // matching tasks still to pass before the one that fails
    bool hang = false;
  };
  InjectedFault hang(std::unique_lock<std::mutex>& lock, const std::string& name);
  std::mutex mu_;
  std::vector<TaskRule> task_rules_;
  bool malloc_rule_ = false;
  uint64_t malloc_countdown_ = 0;
  std::atomic<bool> any_{false};  // no rule at all: every task and malloc skips the lock
  std::atomic<uint64_t> timeout_ms_{kDefaultOpExecuteTimeoutMs};
  std::condition_variable cleared_cv_;  // wakes hung tasks
  uint64_t clear_generation_ = 0;       // bumped by clear()
  std::atomic<uint64_t> hung_{0};
};

}  // namespace ascend_sim
