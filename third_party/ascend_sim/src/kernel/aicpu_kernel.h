// Helpers of the kernels that run on the AI CPU (the ARM cores next to the
// AI Core), as CANN runs its data-dependent ops (Bincount, Unique*,
// SearchSorted, Histogram): scattered or data-sized work the Vector unit
// handles poorly.
#pragma once

#include "kernel/op_utils.h"

namespace ascend_sim {

// AI CPU cost: every input read and every output written once, at the AI
// CPU's rate (CostModel::aiCpuUs: launch + mte_bytes / kAiCpuBytesPerS).
inline KernelCost aiCpuCost(const OpCall& call) {
  KernelCost c;
  c.core = CoreType::kAiCpu;
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  c.flops = call.inputs.empty() ? 0 : static_cast<double>(call.inputs[0].numel());
  return c;
}

// A device fault of an AI CPU kernel (reported at the next synchronize).
[[noreturn]] inline void aiCpuFault(const OpCall& call, const std::string& msg) {
  throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, call.op_type + ": " + msg);
}

}  // namespace ascend_sim
