// ReduceSum/Mean/Max/Min/Prod/All/Any (OPS.md "Reductions") and ReduceNansum
// (OPS.md "Reductions, scans, sorting, statistics").
//
// The input is walked as Note [Reduction layout] (reduce_plan.h) describes.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_plan.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

struct ReduceSpec {
  const char* op;
  DtypeMask dtypes;
  ReduceKind kind;
  bool mean;
  bool nan_as_zero = false;  // ReduceNansum: NaN elements count as 0
};

const ReduceSpec kSpecs[] = {
    {"ReduceSum", kAllTypes, ReduceKind::kSum, false},
    {"ReduceMean", kFloatTypes, ReduceKind::kSum, true},
    {"ReduceMax", kAllTypes, ReduceKind::kMax, false},
    {"ReduceMin", kAllTypes, ReduceKind::kMin, false},
    {"ReduceProd", kAllTypes, ReduceKind::kProd, false},
    {"ReduceAll", kBoolType, ReduceKind::kMin, false},
    {"ReduceAny", kBoolType, ReduceKind::kMax, false},
    {"ReduceNansum", kAllTypes, ReduceKind::kSum, false, true},
};

const ReduceSpec& specOf(const OpCall& call) {
  for (const ReduceSpec& s : kSpecs)
    if (call.op_type == s.op) return s;
  fail(call, ACL_ERROR_OP_NOT_FOUND, "not a reduction");
}

void validateReduce(const OpCall& call) {
  const ReduceSpec& s = specOf(call);
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", s.dtypes);
  checkSameDtype(call, x, "x", y, "output y");
  const std::vector<bool> mask = reducedAxesMask(call, "axes");
  checkShapeEq(call, y, "output y", reducedShape(x.shape, mask, attrBool(call, "keep_dims", false)),
               "the reduced shape");
  if ((s.kind == ReduceKind::kMax || s.kind == ReduceKind::kMin) && x.dtype != ACL_BOOL &&
      y.numel() > 0) {
    int64_t rows = 1;
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) rows *= x.shape[d];
    if (rows == 0)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "cannot reduce over zero elements (input shape " + shapeToString(x.shape) + ")");
  }
}

void computeReduce(const OpCall& call) {
  const ReduceSpec& s = specOf(call);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const ReducePlan p = makeReducePlan(x.shape, reducedAxesMask(call, "axes"));
  if (y.numel() == 0) return;
  if (isFloatDtype(x.dtype)) {
    const int64_t block = reduceBlockElems(x.dtype);
    runReducePlan<float>(
        x, p, &loadFloat,
        [&](float* buf, int64_t rows, int64_t cols, float* out) {
          if (s.nan_as_zero)
            for (int64_t i = 0; i < rows * cols; ++i) buf[i] = buf[i] != buf[i] ? 0.0f : buf[i];
          reduceColumnsFloat(buf, rows, cols, block, s.kind, out);
          if (s.mean)
            for (int64_t c = 0; c < cols; ++c) out[c] = out[c] / static_cast<float>(rows);
        },
        [&](int64_t off, int64_t n, const float* v) { storeFloat(y.dtype, y.data, off, n, v); });
  } else {
    runReducePlan<int64_t>(
        x, p, &loadInt,
        [&](int64_t* buf, int64_t rows, int64_t cols, int64_t* out) {
          reduceColumnsInt(buf, rows, cols, s.kind, out);
          if (x.dtype == ACL_BOOL && rows == 0 && s.kind == ReduceKind::kMin)
            for (int64_t c = 0; c < cols; ++c) out[c] = 1;  // all() of nothing
          if (x.dtype == ACL_BOOL && rows == 0 && s.kind == ReduceKind::kMax)
            for (int64_t c = 0; c < cols; ++c) out[c] = 0;  // any() of nothing
        },
        [&](int64_t off, int64_t n, const int64_t* v) { storeInt(y.dtype, y.data, off, n, v); });
  }
}

const bool kRegistered = [] {
  for (const ReduceSpec& s : kSpecs) registerKernel(KernelDef{s.op, &validateReduce, &computeReduce, &vectorCost});
  return true;
}();

}  // namespace
}  // namespace ascend_sim
