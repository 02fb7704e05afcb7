// The elementwise reduction the reducing collectives apply at every step:
// dst[i] = dst[i] (op) src[i].
//
// Note [Collective reduction numerics]
// INT8 / INT32 wrap to their width (two's complement), so SUM and PROD give
// the same bits in any order. FP32 computes in fp32. FP16 loads both operands
// into fp32, reduces, and rounds once (RNE) back to fp16 per step — a ring or
// tree step is one rounding, as on the device's Vector unit. MAX / MIN
// propagate NaN. On a saturation-mode chip (910A, docs/simulated_device.md) an fp16
// result that is inf or NaN becomes ±65504 / 0 and the call reports an
// overflow, which the collective task turns into the device's sticky
// overflow flag; IEEE chips keep the values.
#pragma once

#include <cstddef>

#include "ascend_sim/acl.h"  // ASCEND_SIM_API
#include "ascend_sim/hccl.h"

namespace ascend_sim {
namespace hccl {

// Reduces n elements of dt in place into dst. dt must be reducible
// (isReducibleDtype) and op valid. Returns true if an fp16 result overflowed
// (only reported when fp16_saturate).
ASCEND_SIM_API bool reduceInto(void* dst, const void* src, size_t n, HcclDataType dt, HcclReduceOp op, bool fp16_saturate);

}  // namespace hccl
}  // namespace ascend_sim
