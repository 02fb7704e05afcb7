// Conversions between torch's c10d vocabulary and the simulator's HCCL API,
// and the error check every HCCL call goes through.
//
// Note [HCCL dtypes]
// The device reduces int8, int32, float16, bfloat16 and float32 only (CANN's
// HCCL; third_party/ascend_sim/HCCL.md). Other dtypes raise for reductions, naming the allowed
// ones, with one documented conversion: bool reduces as int8 with SUM acting as
// logical or (MAX) and PRODUCT as logical and (MIN), as torch's NCCL backend
// does. Collectives that only move data (broadcast, all_gather, all_to_all,
// scatter, gather, send/recv) take every dtype; bool moves as uint8.
#pragma once

#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include "ascend_sim/hccl.h"

namespace torch_npu {
namespace distributed {

// Note [Staging collective buffers] (ProcessGroupHCCLOps.cpp): HCCL moves flat element ranges, so a
// tensor it reads must be contiguous and in its base format.
bool usableInPlaceByHccl(const at::Tensor& t);
// t, or a contiguous base-format copy with its values.
at::Tensor readableByHccl(const at::Tensor& t);
// The address HCCL takes for t (null for an empty tensor).
inline void* hcclBufferPtr(const at::Tensor& t) { return t.numel() > 0 ? t.data_ptr() : nullptr; }

// Raises "HCCL <what> failed with timeout (HcclResult 9): <simulator message>".
void checkHccl(HcclResult result, const std::string& what);

// The HCCL type that moves t's elements bit for bit (any dtype).
HcclDataType movementDataType(c10::ScalarType dtype);

// A reduction as the device runs it.
struct HcclReduction {
  HcclDataType dtype;
  HcclReduceOp op;
  bool average = false;  // ReduceOp.AVG: SUM, then divide by the group size
};
// Raises for dtypes / ops the device cannot reduce (see Note [HCCL dtypes]);
// `collective` names the caller in the message ("all_reduce").
HcclReduction reductionFor(c10::ScalarType dtype, const c10d::ReduceOp& op, const char* collective);

}  // namespace distributed
}  // namespace torch_npu
