// MaskedFillRange (OPS.md "Indexing, gathering, scattering"), on the Vector
// unit: torch_npu's npu_masked_fill_range, which fills index ranges along one
// axis (e.g. masking spans of token positions).
//
// Note [MaskedFillRange]
// Inputs x (1-D [D], 2-D [N, D] or 3-D [N, C, D]; float32, float16, int32 or
// int8), start and end (int32 [num, R]) and value ([num], x's dtype); attr
// axis (default -1). The output is x with, for every i < num, j < R and
// k in [start[i][j], end[i][j]), value[i] written at
//   1-D: y[k]
//   2-D: axis 0: y[k, :]; axis 1: y[j, k]
//   3-D: axis 0: y[k, :, :]; axis 1: y[:, k, :]; axis 2: y[j, :, k]
// so in the forms that index by j, R must not exceed N. A range reaching
// outside [0, size of the axis] is a device fault (the data is not known when
// the op is validated); an empty range (start >= end) writes nothing.
#include <cstring>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

int64_t axisOf(const OpCall& call) {
  return normalizeAxis(call, attrInt(call, "axis", -1), call.inputs[0].shape.size(), "axis");
}

// Whether the fill of range row j is confined to slice j of the first dimension.
bool indexesByRow(int64_t rank, int64_t axis) { return rank > 1 && axis == rank - 1; }

void validateMaskedFillRange(const OpCall& call) {
  checkArity(call, 4, 4, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", dtBit(ACL_FLOAT) | dtBit(ACL_FLOAT16) | dtBit(ACL_INT32) | dtBit(ACL_INT8));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank < 1 || rank > 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x must be 1-D, 2-D or 3-D, got shape " + shapeToString(x.shape));
  const int64_t axis = axisOf(call);
  const TensorArg &start = call.inputs[1], &end = call.inputs[2], &value = call.inputs[3];
  checkDtype(call, start, "input start", dtBit(ACL_INT32));
  if (start.shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input start must be [num, R], got shape " + shapeToString(start.shape));
  checkDtype(call, end, "input end", dtBit(ACL_INT32));
  checkShapeEq(call, end, "input end", start.shape, "start's shape");
  checkSameDtype(call, x, "x", value, "input value");
  checkShapeEq(call, value, "input value", {start.shape[0]}, "[num] (one value per range row)");
  if (indexesByRow(rank, axis) && start.shape[1] > x.shape[0])
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "start and end hold " + std::to_string(start.shape[1]) + " ranges per row, more than x's first dimension " +
             std::to_string(x.shape[0]));
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x's shape");
}

void computeMaskedFillRange(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const size_t es = dtypeSize(x.dtype);
  auto* out = static_cast<char*>(y.data);
  if (y.data != x.data && x.numel() > 0) std::memcpy(out, x.data, static_cast<size_t>(x.numel()) * es);
  const int64_t rank = static_cast<int64_t>(x.shape.size()), axis = axisOf(call);
  const int64_t num = call.inputs[1].shape[0], ranges = call.inputs[1].shape[1];
  std::vector<int64_t> start(static_cast<size_t>(num * ranges)), end(start.size());
  if (!start.empty()) {
    loadInt(ACL_INT32, call.inputs[1].data, 0, 1, num * ranges, start.data());
    loadInt(ACL_INT32, call.inputs[2].data, 0, 1, num * ranges, end.data());
  }
  // y viewed as [outer, size, inner] around the axis; row j restricts outer to j.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) (d < axis ? outer : inner) *= x.shape[d];
  const int64_t size = x.shape[axis];
  const bool by_row = indexesByRow(rank, axis);
  const int64_t row_stride = by_row && rank == 3 ? x.shape[1] : 1;  // outer blocks per first-dim slice
  const auto* value = static_cast<const char*>(call.inputs[3].data);
  for (int64_t i = 0; i < num; ++i)
    for (int64_t j = 0; j < ranges; ++j) {
      const int64_t s = start[i * ranges + j], e = end[i * ranges + j];
      if (s >= e) continue;
      if (s < 0 || e > size)
        throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, call.op_type + ": range [" + std::to_string(s) + ", " +
                                                             std::to_string(e) + ") of start/end[" + std::to_string(i) +
                                                             "][" + std::to_string(j) + "] lies outside [0, " +
                                                             std::to_string(size) + "]");
      const int64_t o_begin = by_row ? j * row_stride : 0, o_end = by_row ? o_begin + row_stride : outer;
      for (int64_t o = o_begin; o < o_end; ++o)
        for (int64_t k = s; k < e; ++k)
          for (int64_t in = 0; in < inner; ++in)
            std::memcpy(out + ((o * size + k) * inner + in) * es, value + i * es, es);
    }
}

KernelCost costMaskedFillRange(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = static_cast<double>(call.outputs[0].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MaskedFillRange", &validateMaskedFillRange, &computeMaskedFillRange,
                                     &costMaskedFillRange});

}  // namespace
}  // namespace ascend_sim
