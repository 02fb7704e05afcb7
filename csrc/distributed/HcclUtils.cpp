#include "csrc/distributed/HcclUtils.h"

#include <c10/util/Exception.h>

#include "ascend_sim/acl.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"

namespace torch_npu {
namespace distributed {

void checkHccl(HcclResult result, const std::string& what) {
  TORCH_CHECK(result == HCCL_SUCCESS, "HCCL ", what, " failed with ", HcclGetErrorString(result), " (HcclResult ",
              static_cast<int>(result), "): ", aclGetRecentErrMsg());
}

bool usableInPlaceByHccl(const at::Tensor& t) { return t.is_contiguous() && !hasPrivateFormat(t); }

at::Tensor readableByHccl(const at::Tensor& t) { return usableInPlaceByHccl(t) ? t : materializeBase(t).contiguous(); }

HcclDataType movementDataType(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kChar: return HCCL_DATA_TYPE_INT8;
    case c10::kByte:
    case c10::kBool: return HCCL_DATA_TYPE_UINT8;
    case c10::kShort: return HCCL_DATA_TYPE_INT16;
    case c10::kInt: return HCCL_DATA_TYPE_INT32;
    case c10::kLong: return HCCL_DATA_TYPE_INT64;
    case c10::kHalf: return HCCL_DATA_TYPE_FP16;
    case c10::kBFloat16: return HCCL_DATA_TYPE_BFP16;
    case c10::kFloat: return HCCL_DATA_TYPE_FP32;
    case c10::kDouble: return HCCL_DATA_TYPE_FP64;
    default:
      TORCH_CHECK(false, "ProcessGroupHCCL cannot move tensors of dtype ", c10::toString(dtype),
                  " (supported: bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)");
  }
}

namespace {

HcclReduceOp reduceOpFor(const c10d::ReduceOp& op, const char* collective) {
  switch (op.op_) {
    case c10d::ReduceOp::SUM:
    case c10d::ReduceOp::AVG: return HCCL_REDUCE_SUM;
    case c10d::ReduceOp::PRODUCT: return HCCL_REDUCE_PROD;
    case c10d::ReduceOp::MIN: return HCCL_REDUCE_MIN;
    case c10d::ReduceOp::MAX: return HCCL_REDUCE_MAX;
    default:
      TORCH_CHECK(false, "ProcessGroupHCCL ", collective,
                  ": reduce op not supported by HCCL (supported: SUM, AVG, PRODUCT, MIN, MAX; "
                  "bitwise ops and PREMUL_SUM are not)");
  }
}

}  // namespace

HcclReduction reductionFor(c10::ScalarType dtype, const c10d::ReduceOp& op, const char* collective) {
  HcclReduction r{HCCL_DATA_TYPE_FP32, reduceOpFor(op, collective), op.op_ == c10d::ReduceOp::AVG};
  switch (dtype) {
    case c10::kChar: r.dtype = HCCL_DATA_TYPE_INT8; break;
    case c10::kInt: r.dtype = HCCL_DATA_TYPE_INT32; break;
    case c10::kHalf: r.dtype = HCCL_DATA_TYPE_FP16; break;
    case c10::kBFloat16: r.dtype = HCCL_DATA_TYPE_BFP16; break;
    case c10::kFloat: r.dtype = HCCL_DATA_TYPE_FP32; break;
    case c10::kBool:
      TORCH_CHECK(!r.average, "ProcessGroupHCCL ", collective, ": ReduceOp.AVG is not defined for bool tensors");
      r.dtype = HCCL_DATA_TYPE_INT8;
      if (r.op == HCCL_REDUCE_SUM) r.op = HCCL_REDUCE_MAX;   // logical or
      if (r.op == HCCL_REDUCE_PROD) r.op = HCCL_REDUCE_MIN;  // logical and
      break;
    default:
      TORCH_CHECK(false, "ProcessGroupHCCL ", collective, ": HCCL cannot reduce ", c10::toString(dtype),
                  " tensors; the NPU reduces int8, int32, float16, bfloat16 and float32 (and bool as int8). "
                  "Cast the tensor first, e.g. t.float() or t.int()");
  }
  TORCH_CHECK(!r.average || dtype == c10::kHalf || dtype == c10::kBFloat16 || dtype == c10::kFloat, "ProcessGroupHCCL ",
              collective, ": ReduceOp.AVG needs a floating-point tensor, got ", c10::toString(dtype));
  return r;
}

}  // namespace distributed
}  // namespace torch_npu
