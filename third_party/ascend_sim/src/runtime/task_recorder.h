// Per-device record of executed tasks (op type, stream, simulated start and
// duration), the raw material for profiling. Off unless ASCEND_SIM_PROFILE=1
// (or enabled by the runtime), and bounded to kMaxRecords entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"

namespace ascend_sim {

enum class TaskKind { kOp, kMemcpy, kMemset, kEventRecord, kEventWait, kCallback };

struct TaskRecord {
  TaskKind kind;
  std::string name;   // op type, "MemcpyH2D", "Memset", ...
  int stream_id;      // 0 = default stream
  double start_us;    // simulated start [us]
  double duration_us; // simulated duration [us]
};

class TaskRecorder {
 public:
  static constexpr size_t kMaxRecords = 1 << 20;  // older runs keep the first 1 Mi tasks

  void setEnabled(bool on);
  bool enabled() const;
  void add(TaskRecord r);
  std::vector<TaskRecord> snapshot() const;
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
