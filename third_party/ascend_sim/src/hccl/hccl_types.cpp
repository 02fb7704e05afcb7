#include "hccl/hccl_types.h"

namespace ascend_sim {
namespace hccl {

std::string collectiveName(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce: return "HcclAllReduce";
    case CollectiveKind::kBroadcast: return "HcclBroadcast";
    case CollectiveKind::kReduce: return "HcclReduce";
    case CollectiveKind::kAllGather: return "HcclAllGather";
    case CollectiveKind::kReduceScatter: return "HcclReduceScatter";
    case CollectiveKind::kAlltoAllV: return "HcclAlltoAllV";
    case CollectiveKind::kSend: return "HcclSend";
    case CollectiveKind::kRecv: return "HcclRecv";
    case CollectiveKind::kBarrier: return "HcclBarrier";
    case CollectiveKind::kBatchSendRecv: return "HcclBatchSendRecv";
  }
  return "HcclCollective(" + std::to_string(static_cast<uint32_t>(k)) + ")";
}

bool isReducing(CollectiveKind k) {
  return k == CollectiveKind::kAllReduce || k == CollectiveKind::kReduce || k == CollectiveKind::kReduceScatter;
}

size_t hcclDtypeSize(HcclDataType dt) {
  switch (dt) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64: return 8;
  }
  return 0;
}

std::string hcclDtypeName(HcclDataType dt) {
  switch (dt) {
    case HCCL_DATA_TYPE_INT8: return "INT8";
    case HCCL_DATA_TYPE_INT16: return "INT16";
    case HCCL_DATA_TYPE_INT32: return "INT32";
    case HCCL_DATA_TYPE_FP16: return "FP16";
    case HCCL_DATA_TYPE_FP32: return "FP32";
    case HCCL_DATA_TYPE_INT64: return "INT64";
    case HCCL_DATA_TYPE_UINT64: return "UINT64";
    case HCCL_DATA_TYPE_UINT8: return "UINT8";
    case HCCL_DATA_TYPE_UINT16: return "UINT16";
    case HCCL_DATA_TYPE_UINT32: return "UINT32";
    case HCCL_DATA_TYPE_FP64: return "FP64";
    case HCCL_DATA_TYPE_BFP16: return "BFP16";
  }
  return "dtype(" + std::to_string(static_cast<int>(dt)) + ")";
}

std::string hcclOpName(HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return "SUM";
    case HCCL_REDUCE_PROD: return "PROD";
    case HCCL_REDUCE_MAX: return "MAX";
    case HCCL_REDUCE_MIN: return "MIN";
  }
  return "op(" + std::to_string(static_cast<int>(op)) + ")";
}

bool isValidOp(HcclReduceOp op) { return op >= HCCL_REDUCE_SUM && op <= HCCL_REDUCE_MIN; }

bool isReducibleDtype(HcclDataType dt) {
  return dt == HCCL_DATA_TYPE_INT8 || dt == HCCL_DATA_TYPE_INT32 || dt == HCCL_DATA_TYPE_FP16 ||
         dt == HCCL_DATA_TYPE_BFP16 || dt == HCCL_DATA_TYPE_FP32;
}

}  // namespace hccl
}  // namespace ascend_sim
