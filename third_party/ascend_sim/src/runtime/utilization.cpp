#include "ascend_sim/acl_sim.h"
#include "runtime/utilization.h"

#include <algorithm>
#include <cmath>

namespace ascend_sim {

UtilizationMeter::UtilizationMeter(Clock::time_point window_start) : window_start_(window_start) {}

void UtilizationMeter::addTask(TaskKind kind, const TaskDetail* detail, double wall_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind == TaskKind::kMemcpy || kind == TaskKind::kMemset) {
    memory_ += wall_seconds;
    return;
  }
  if (kind != TaskKind::kOp || !detail) return;
  if (detail->core == ACL_CORE_AI_CPU) {
    aicpu_ += wall_seconds;
    return;
  }
  cube_ += wall_seconds * detail->cube_ratio;
  vector_ += wall_seconds * detail->vector_ratio;
  memory_ += wall_seconds * detail->mte_ratio;
}

aclrtUtilizationInfo UtilizationMeter::takeWindowAt(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  const double window = std::chrono::duration<double>(now - window_start_).count();
  auto percent = [&](double busy) {
    if (window <= 0) return int32_t{0};
    return static_cast<int32_t>(std::lround(std::min(100.0, 100.0 * busy / window)));
  };
  aclrtUtilizationInfo info{};
  info.cubeUtilization = percent(cube_);
  info.vectorUtilization = percent(vector_);
  info.aicpuUtilization = percent(aicpu_);
  info.memoryUtilization = percent(memory_);
  info.utilizationExtend = nullptr;
  window_start_ = now;
  cube_ = vector_ = aicpu_ = memory_ = 0;
  return info;
}

}  // namespace ascend_sim
