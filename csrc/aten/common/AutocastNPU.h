// torch.npu.amp.autocast's kernels (Note [NPU autocast] in AutocastNPU.cpp).
#pragma once

#include <c10/core/ScalarType.h>

namespace at_npu {
namespace native {

// Drops the cached low-precision copies of parameters (at the exit of the
// outermost autocast region).
void clearAutocastCache();

// The low-precision dtype of the NPU autocast (fp16 or bf16), process-wide.
c10::ScalarType npuAutocastDtype();
void setNpuAutocastDtype(c10::ScalarType dtype);

}  // namespace native
}  // namespace at_npu
