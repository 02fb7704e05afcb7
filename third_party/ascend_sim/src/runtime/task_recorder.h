// Per-device record of executed tasks (op type, stream, simulated start and
// duration; for ops also shapes, core type, unit ratios, bytes, FLOPs and
// block dim from the compiled plan), the raw material for profiling and the
// aclsim*TaskRecord* C API. Off unless ASCEND_SIM_PROFILE=1 (or
// aclsimSetProfiling), and bounded to kMaxRecords entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "ascend_sim/acl_sim.h"

namespace ascend_sim {

// kModel: the replay of a captured model (Note [Model capture]), recorded around its kept tasks.
enum class TaskKind { kOp, kMemcpy, kMemset, kEventRecord, kEventWait, kCallback, kCollective, kModel };

// Profiling fields of an op task that are fixed by its plan (shared by every
// launch of the same compiled plan, see runtime/compile_cache.h).
struct TaskDetail {
  std::string shapes;                        // "[2,3]:FLOAT16:ND;[...]->[...]"
  aclsimCoreType core = ACL_CORE_AI_CORE;    // engine that ran it
  double cube_ratio = 0, vector_ratio = 0, mte_ratio = 0;  // unit time / max unit time
  double bytes = 0;                          // HBM bytes read + written
  double flops = 0;
  uint32_t block_dim = 0;                    // simulated cores used
};

// Note [Host tags]: the host context a task was submitted in, for a
// profiler's host-to-device correlation. aclsimSetTaskTag sets it for the
// calling thread; every task that thread submits (ops, copies, events)
// carries it into its record. A task queue thread sets the tag of the host
// thread that enqueued each task before it submits the task.
struct HostTag {
  uint64_t thread_id = 0;  // the host thread's id in the profiler's numbering (0: none)
  double launch_us = 0;    // host wall clock at the launch [us since the Unix epoch]
  uint64_t launch_id = 0;  // the host's id of the launch (0: none)
  // The host's scope of the launch (a module path such as "MLP.fc2", set by
  // aclsimSetTaskScope; null: none): what op dumps call an op's layer.
  std::shared_ptr<const std::string> scope;
};
// The calling thread's current tag.
ASCEND_SIM_API HostTag& currentHostTag();

struct TaskRecord {
  TaskKind kind;
  std::string name;   // op type, "MemcpyH2D", "Memset", ...
  int stream_id;      // 0 = default stream
  double start_us;    // simulated start [us]
  double duration_us; // simulated duration [us]
  std::shared_ptr<const TaskDetail> detail = nullptr;  // ops: plan fields; else null
  double bytes = 0;   // copies / memsets: HBM bytes moved (ops: see detail)
  HostTag host = {};  // Note [Host tags]
};

// The public record (acl.h aclsimTaskRecord) of r.
ASCEND_SIM_API aclsimTaskRecord toAclsimRecord(const TaskRecord& r);

class TaskRecorder {
 public:
  static constexpr size_t kMaxRecords = 1 << 20;  // older runs keep the first 1 Mi tasks

  void setEnabled(bool on);
  bool enabled() const;
  void add(TaskRecord r);
  std::vector<TaskRecord> snapshot() const;
  size_t size() const;
  // Records [first, first + max) (clamped), converted to the public form.
  std::vector<aclsimTaskRecord> exportRange(size_t first, size_t max) const;
  size_t dropped() const;
  void clear();

 private:
  mutable std::mutex mu_;
  bool enabled_ = false;
  std::vector<TaskRecord> records_;
  size_t dropped_ = 0;
};

// Test / profiler access: the records of logical device `device` (copied).
ASCEND_SIM_API std::vector<TaskRecord> deviceTaskRecords(int32_t device);
ASCEND_SIM_API void setDeviceProfiling(int32_t device, bool enabled);

}  // namespace ascend_sim
