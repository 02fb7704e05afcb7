// The on-chip buffers of one AI Core per chip preset, for Ascend C kernels (docs/ascend_c.md).
#pragma once

#include "ascend_sim/aclsim_kernel.h"
#include "chip/chip_config.h"

namespace ascend_sim {

// Buffer capacities and per-core rates of `chip`'s AI Core.
aclsimCoreSpec coreSpecOf(const ChipConfig& chip);

}  // namespace ascend_sim
