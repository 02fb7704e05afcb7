// <kernel_operator.h>, the header every Ascend C kernel includes, on the simulated NPU.
#pragma once

#include "ascend_sim/ascendc/kernel_operator.h"
