// Sort (OPS.md "Reductions, scans, sorting, statistics"): x sorted along attr
// `axis` (default -1), ascending or (attr `descending`) descending, with the
// positions the values came from. The order is Note [Sort order]
// (sort_util.h): stable, NaN the largest value. Attr `stable` is accepted
// and changes nothing (the stable order is one valid unstable order). Runs
// on the AI Core's Vector unit, as CANN's Sort does; lines are independent
// and split over simulated cores. SortV2 (torch_npu's npu_sort_v2) is the
// same sort without the indices output, along the last axis only, as CANN
// documents it.
#include <algorithm>
#include <string>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/sort/sort_util.h"

namespace ascend_sim {
namespace {

AxisSplit splitOf(const OpCall& call) {
  return splitAtAxis(call, call.inputs[0].shape, attrInt(call, "axis", -1), "axis");
}

void validateSort(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kAllTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x's shape");
  checkDtype(call, call.outputs[1], "output indices", kIndexTypes);
  checkShapeEq(call, call.outputs[1], "output indices", x.shape, "x's shape");
  splitOf(call);
  attrBool(call, "descending", false);
  attrBool(call, "stable", false);
}

void validateSortV2(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x's shape");
  const AxisSplit s = splitOf(call);
  if (s.inner != 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr axis must be the last axis (-1), got " + std::to_string(attrInt(call, "axis", -1)) + " for x of shape " +
             shapeToString(x.shape));
  attrBool(call, "descending", false);
}

template <typename T, typename Load, typename Store>
void runSort(const OpCall& call, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const bool with_indices = call.outputs.size() > 1;
  const TensorArg& idx = call.outputs[with_indices ? 1 : 0];
  const AxisSplit s = splitOf(call);
  const SortOrder<T> before{attrBool(call, "descending", false)};
  forEachLine<T>(call, s, [&](int64_t o, int64_t i, LineScratch<T>& scratch) {
    loadLine(x, s, o, i, load, scratch);
    std::vector<ValueIndex<T>>& items = scratch.items;
    std::sort(items.begin(), items.end(), before);
    for (int64_t d = 0; d < s.dim; ++d) {
      const int64_t off = (o * s.dim + d) * s.inner + i;
      store(y.dtype, y.data, off, 1, &items[static_cast<size_t>(d)].first);
      if (with_indices) storeInt(idx.dtype, idx.data, off, 1, &items[static_cast<size_t>(d)].second);
    }
  });
}

void computeSort(const OpCall& call) {
  if (call.inputs[0].numel() == 0) return;
  if (isFloatDtype(call.inputs[0].dtype))
    runSort<float>(call, &loadFloat, &storeFloat);
  else
    runSort<int64_t>(call, &loadInt, &storeInt);
}

KernelCost costSort(const OpCall& call) { return sortCost(call, call.inputs[0], splitOf(call)); }

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Sort", &validateSort, &computeSort, &costSort});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SortV2", &validateSortV2, &computeSort, &costSort});

}  // namespace
}  // namespace ascend_sim
