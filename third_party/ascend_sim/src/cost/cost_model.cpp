#include "cost/cost_model.h"

#include <algorithm>
#include <cmath>

namespace ascend_sim {

namespace {
constexpr double kUsPerS = 1e6;  // microseconds per second
}

double CostModel::cubeUs(const KernelCost& c) const {
  if (c.cube_macs <= 0 && c.cube_int8_macs <= 0) return 0;
  const double cores = c.block_dim > 0 ? std::min<double>(c.block_dim, chip_.cube_cores) : chip_.cube_cores;
  const double macs_per_s = chip_.cube_macs_per_cycle * cores * kCubeEfficiency * chip_.clock_hz;
  return (std::max(0.0, c.cube_macs) + std::max(0.0, c.cube_int8_macs) / chip_.cube_int8_speedup) / macs_per_s *
         kUsPerS;
}

double CostModel::vectorUs(const KernelCost& c) const {
  const double repeats =
      c.vector_repeats > 0 ? c.vector_repeats : std::ceil(std::max(0.0, c.vector_bytes) / chip_.vector_bytes_per_repeat);
  if (repeats <= 0) return 0;
  const double cores = c.block_dim > 0 ? std::min<double>(c.block_dim, chip_.vector_cores) : chip_.vector_cores;
  return repeats * chip_.vector_cycles_per_repeat / (cores * chip_.clock_hz) * kUsPerS;
}

double CostModel::mteUs(const KernelCost& c) const {
  if (c.mte_bytes <= 0) return 0;
  return c.mte_bytes / chip_.hbm_bytes_per_s * kUsPerS;
}

double CostModel::opUs(const KernelCost& c) const {
  if (c.core == CoreType::kAiCpu) return aiCpuUs(c);
  if (c.serial_steps > 0)  // Cube and Vector wait on each other step by step
    return kLaunchUs + std::max(cubeUs(c) + vectorUs(c) + c.serial_steps * kStepBarrierUs, mteUs(c));
  return kLaunchUs + std::max({cubeUs(c), vectorUs(c), mteUs(c)});
}

double CostModel::aiCpuUs(const KernelCost& c) const {
  const double seconds = std::max(c.mte_bytes / kAiCpuBytesPerS, c.flops / kAiCpuFlopsPerS);
  return kAiCpuLaunchUs + seconds * kUsPerS;
}

double CostModel::memcpyUs(size_t bytes, aclrtMemcpyKind kind) const {
  const double b = static_cast<double>(bytes);
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_DEVICE_TO_HOST:
      return kDmaSetupUs + b / chip_.pcie_bytes_per_s * kUsPerS;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      return kDmaSetupUs + 2 * b / chip_.hbm_bytes_per_s * kUsPerS;  // read + write HBM
    case ACL_MEMCPY_HOST_TO_HOST:
    default:
      return 0;
  }
}

double CostModel::memsetUs(size_t bytes) const {
  return kDmaSetupUs + static_cast<double>(bytes) / chip_.hbm_bytes_per_s * kUsPerS;
}

}  // namespace ascend_sim
