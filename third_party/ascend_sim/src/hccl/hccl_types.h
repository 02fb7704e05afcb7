// HcclDataType / HcclReduceOp facts: element sizes, names for messages, and
// which types the reducing collectives accept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ascend_sim/hccl.h"

namespace ascend_sim {
namespace hccl {

enum class CollectiveKind : uint32_t {
  kAllReduce = 1,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAlltoAllV,
  kSend,
  kRecv,
  kBarrier,
  kBatchSendRecv,  // HcclBatchSendRecv: several sends/receives as one task
};
// "HcclAllReduce", ... (also the task name); "HcclCollective(42)" outside the enum.
std::string collectiveName(CollectiveKind k);
bool isReducing(CollectiveKind k);

// Bytes per element; 0 for a value outside the enum.
size_t hcclDtypeSize(HcclDataType dt);
// "FP32", "INT8", ...; "dtype(42)" for a value outside the enum.
std::string hcclDtypeName(HcclDataType dt);
// "SUM", "PROD", "MAX", "MIN"; "op(7)" outside the enum.
std::string hcclOpName(HcclReduceOp op);
bool isValidOp(HcclReduceOp op);
// AllReduce / Reduce / ReduceScatter accept INT8, INT32, FP16, BFP16 and FP32 only.
bool isReducibleDtype(HcclDataType dt);
constexpr const char* kReducibleDtypes = "INT8, INT32, FP16, BFP16, FP32";

}  // namespace hccl
}  // namespace ascend_sim
