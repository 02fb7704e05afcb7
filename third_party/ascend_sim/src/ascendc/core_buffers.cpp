#include "ascendc/core_buffers.h"

#include <algorithm>
#include <string>

namespace ascend_sim {

// Note [AI Core buffer sizes]
// Ascend910A (DaVinci Max core): UB 256 KiB, L1 1 MiB, L0A 64 KiB, L0B 64 KiB, L0C 256 KiB, from
// Liao et al., "Ascend: a Scalable and Unified Architecture for Ubiquitous Deep Neural Network
// Computing", HPCA 2021 (the DaVinci Max configuration).
// Ascend910B2 (Atlas A2 core): UB 192 KiB, L1 512 KiB, L0A 64 KiB, L0B 64 KiB, L0C 128 KiB, from
// the architecture constants of CANN's open-source operator templates (catlass, "AtlasA2").
aclsimCoreSpec coreSpecOf(const ChipConfig& chip) {
  constexpr uint64_t KiB = 1024;
  aclsimCoreSpec s{};
  s.soc_name = chip.soc_name;
  const bool a2 = std::string(chip.soc_name).rfind("Ascend910B", 0) == 0;
  s.ub_bytes = (a2 ? 192 : 256) * KiB;
  s.l1_bytes = (a2 ? 512 : 1024) * KiB;
  s.l0a_bytes = 64 * KiB;
  s.l0b_bytes = 64 * KiB;
  s.l0c_bytes = (a2 ? 128 : 256) * KiB;
  s.clock_hz = chip.clock_hz;
  // Each core's transfer engines draw at most their share of the HBM bandwidth (assumed), so a
  // kernel reaches the HBM's peak only with every core busy, as the built-in kernels are.
  s.gm_bytes_per_s = chip.hbm_bytes_per_s / std::max(1, chip.vector_cores);
  s.vector_bytes_per_repeat = chip.vector_bytes_per_repeat;
  s.vector_cycles_per_repeat = chip.vector_cycles_per_repeat;
  s.cube_macs_per_cycle = chip.cube_macs_per_cycle;
  return s;
}

}  // namespace ascend_sim
