// Quantisation on the Vector unit (OPS.md "Quantised matrix products"):
// Quantize / AscendQuantV2 (torch_npu's npu_quantize, div_mode True / False)
// and TransQuantParamV2 (npu_trans_quant_param).
//
// Note [Quantize]
// x float [...], scales [1] or [x.shape[axis]] (fp32 or x's dtype), optional
// zero_points (scales' shape); attrs `axis` (default 1; negative counts from
// the end) and `dtype` (int8, uint8 or int32, y's):
//   Quantize:      y = clamp(nearbyint(x / scale + zero_point))   (div_mode)
//   AscendQuantV2: y = clamp(nearbyint(x * scale + offset))
// in fp32, to the range of y's dtype (round half to even). TransQuantParamV2:
// scale fp32 [t] or [1, t] (and optional offset of t or 1 values) -> the int64
// quant params of Note [Quant params], one per element of the longer.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/linalg/quant_param.h"

namespace ascend_sim {
namespace {

constexpr DtypeMask kQuantOut = dtBit(ACL_INT8) | dtBit(ACL_UINT8) | dtBit(ACL_INT32);

struct QuantizeDims {
  AxisSplit split;
  bool per_channel = false;
};

QuantizeDims quantizeDimsOf(const OpCall& call) {
  checkArity(call, 2, 3, 1);
  const TensorArg &x = call.inputs[0], &s = call.inputs[1], &y = call.outputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  checkDtype(call, s, "input scales", kFloatTypes);
  checkDtype(call, y, "output y", kQuantOut);
  if (y.dtype != call.attrs.get<aclDataType>("dtype", y.dtype))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr dtype differs from output y's " + std::string(dtypeName(y.dtype)));
  checkShapeEq(call, y, "output y", x.shape, "x's shape");
  QuantizeDims d;
  if (x.shape.empty()) {
    d.split = AxisSplit{1, 1, 1, 0};
  } else {
    d.split = splitAtAxis(call, x.shape, attrInt(call, "axis", 1), "axis");
  }
  d.per_channel = s.numel() != 1;
  if (d.per_channel && (s.shape.size() != 1 || s.numel() != d.split.dim))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input scales must be [1] or [" + std::to_string(d.split.dim) + "] (x's size along axis), got " +
             shapeToString(s.shape));
  if (call.inputs.size() == 3) {
    checkDtype(call, call.inputs[2], "input zero_points", kFloatTypes | kIntTypes);
    checkShapeEq(call, call.inputs[2], "input zero_points", s.shape, "scales' shape");
  }
  return d;
}

template <bool kDivide>
void computeQuantize(const OpCall& call) {
  const QuantizeDims d = quantizeDimsOf(call);
  const TensorArg &x = call.inputs[0], &s = call.inputs[1], &y = call.outputs[0];
  std::vector<float> scale(static_cast<size_t>(s.numel())), zero(scale.size(), 0.0f);
  loadFloat(s.dtype, s.data, 0, 1, s.numel(), scale.data());
  if (call.inputs.size() == 3) loadFloat(call.inputs[2].dtype, call.inputs[2].data, 0, 1, s.numel(), zero.data());
  const double lo = y.dtype == ACL_INT8 ? -128 : (y.dtype == ACL_UINT8 ? 0 : -2147483648.0);
  const double hi = y.dtype == ACL_INT8 ? 127 : (y.dtype == ACL_UINT8 ? 255 : 2147483647.0);
  const int64_t inner = d.split.inner, dim = d.split.dim;
  std::vector<float> row(static_cast<size_t>(inner));
  std::vector<int64_t> out(static_cast<size_t>(inner));
  for (int64_t o = 0; o < d.split.outer; ++o)
    for (int64_t c = 0; c < dim; ++c) {
      const int64_t at = (o * dim + c) * inner;
      const size_t p = d.per_channel ? static_cast<size_t>(c) : 0;
      loadFloat(x.dtype, x.data, at, 1, inner, row.data());
      for (int64_t i = 0; i < inner; ++i) {
        const float v = kDivide ? row[i] / scale[p] + zero[p] : row[i] * scale[p] + zero[p];
        out[i] = std::isnan(v) ? 0 : static_cast<int64_t>(std::clamp<double>(std::nearbyint(v), lo, hi));
      }
      storeInt(y.dtype, y.data, at, inner, out.data());
    }
}

void validateQuantize(const OpCall& call) { quantizeDimsOf(call); }

KernelCost costQuantize(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 2.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

// inputs: scale [, offset]; output: int64, the longer one's shape.
void validateTransQuantParam(const OpCall& call) {
  checkArity(call, 1, 2, 1);
  const TensorArg &s = call.inputs[0], &y = call.outputs[0];
  checkDtype(call, s, "input scale", dtBit(ACL_FLOAT));
  checkDtype(call, y, "output y", dtBit(ACL_INT64));
  int64_t n = s.numel();
  if (call.inputs.size() == 2) {
    const TensorArg& o = call.inputs[1];
    checkDtype(call, o, "input offset", dtBit(ACL_FLOAT));
    if (o.numel() != n && o.numel() != 1 && n != 1)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "scale of " + std::to_string(n) + " values and offset of " + std::to_string(o.numel()) +
               " do not pair (equal counts, or one of them 1)");
    n = std::max(n, o.numel());
  }
  if (y.numel() != n)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "output y has " + std::to_string(y.numel()) + " values for " + std::to_string(n) + " params");
}

void computeTransQuantParam(const OpCall& call) {
  const TensorArg &s = call.inputs[0], &y = call.outputs[0];
  const TensorArg* o = call.inputs.size() == 2 ? &call.inputs[1] : nullptr;
  std::vector<float> scale(static_cast<size_t>(s.numel())), offset(o ? static_cast<size_t>(o->numel()) : 0);
  loadFloat(ACL_FLOAT, s.data, 0, 1, s.numel(), scale.data());
  if (o) loadFloat(ACL_FLOAT, o->data, 0, 1, o->numel(), offset.data());
  for (int64_t i = 0; i < y.numel(); ++i) {
    const float sc = scale[scale.size() == 1 ? 0 : i];
    const uint64_t packed = encodeQuantParam(sc, o ? &offset[offset.size() == 1 ? 0 : i] : nullptr);
    std::memcpy(static_cast<uint8_t*>(y.data) + i * 8, &packed, 8);
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Quantize", &validateQuantize, &computeQuantize<true>, &costQuantize});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AscendQuantV2", &validateQuantize, &computeQuantize<false>, &costQuantize});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"TransQuantParamV2", &validateTransQuantParam, &computeTransQuantParam,
                                     &vectorCost});

}  // namespace
}  // namespace ascend_sim
