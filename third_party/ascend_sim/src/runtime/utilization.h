// Note [Device utilization]
// aclrtGetDeviceUtilizationRate reports, like NVML for a GPU, the share of
// host wall time in which the device was executing work — here, the time
// the device's stream workers spent running tasks (the simulator executes a
// kernel on the host exactly while the simulated device "runs" it). The
// window is the wall time since the previous query of the same device (the
// first query covers the time since the device was opened). Busy time is
// split by unit with the task's plan: an AI Core op adds its wall time times
// its Cube and Vector ratios (unit time / slowest unit, so the bound unit
// counts fully) and times its MTE ratio to memory; AI CPU ops add to the AI
// CPU; copies and memsets add to memory. Streams run concurrently, so each
// share is capped at 100 %.
#pragma once

#include <chrono>
#include <mutex>

#include "ascend_sim/acl.h"
#include "runtime/task_recorder.h"

namespace ascend_sim {

class ASCEND_SIM_API UtilizationMeter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit UtilizationMeter(Clock::time_point window_start = Clock::now());
  // Accounts a task that ran for `wall_seconds` on a stream worker.
  void addTask(TaskKind kind, const TaskDetail* detail, double wall_seconds);
  // Percentages over the window since the previous call; starts a new window.
  aclrtUtilizationInfo takeWindow() { return takeWindowAt(Clock::now()); }
  aclrtUtilizationInfo takeWindowAt(Clock::time_point now);

 private:
  std::mutex mu_;
  Clock::time_point window_start_;
  double cube_ = 0, vector_ = 0, aicpu_ = 0, memory_ = 0;  // busy seconds in the window
};

}  // namespace ascend_sim
