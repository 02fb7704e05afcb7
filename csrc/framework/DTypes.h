// Mapping between PyTorch scalar types and the simulator's aclDataType.
#pragma once

#include <c10/core/ScalarType.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

// Raises a clear error for dtypes the NPU cannot hold (complex, quantized).
aclDataType toAclDataType(c10::ScalarType type);

}  // namespace torch_npu
