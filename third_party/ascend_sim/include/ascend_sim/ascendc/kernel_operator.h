// Ascend C's kernel API on the simulated NPU (docs/ascend_c.md): what <kernel_operator.h> declares
// for an Ascend C kernel, implemented on the host so that the kernel runs, is checked and is timed by
// the simulator. Kernels include <kernel_operator.h> and use namespace AscendC, as on the chip.
#pragma once

#include "ascend_sim/ascendc/block.h"
#include "ascend_sim/ascendc/cube.h"
#include "ascend_sim/ascendc/data_copy.h"
#include "ascend_sim/ascendc/launch.h"
#include "ascend_sim/ascendc/pipe.h"
#include "ascend_sim/ascendc/tensor.h"
#include "ascend_sim/ascendc/vector.h"
