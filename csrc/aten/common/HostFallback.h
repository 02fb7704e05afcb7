// The opt-in CPU fallback for aten operators without an NPU kernel
// (TORCH_NPU_CPU_FALLBACK=1; Note [No silent CPU fallback] in
// BackendFallbacks.cpp) and its records, which torch.npu.op_records lists
// next to the device's tasks.
#pragma once

#include <c10/core/Device.h>

#include <string>
#include <vector>

namespace torch_npu {

struct HostFallbackRecord {
  std::string op;      // "aten::segment_reduce"
  std::string shapes;  // the NPU tensor arguments, "float32[4]; int64[2]"
  double start_us;     // the device's simulated time when it ran
};

std::vector<HostFallbackRecord> hostFallbackRecords(c10::DeviceIndex device);
void clearHostFallbackRecords(c10::DeviceIndex device);

}  // namespace torch_npu
