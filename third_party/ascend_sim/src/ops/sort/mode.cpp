// Mode (OPS.md "Reductions, scans, sorting, statistics"): the most frequent
// value of each line of x along attr `dim` and a position where it occurs.
//
// Note [Mode ties]
// Each line is sorted (Note [Sort order]: ascending, NaN last, equal values
// by index) and split into runs of equal values; NaN equals nothing, so every
// NaN is a run of one. The longest run wins, the first (smallest value) among
// equally long runs; the index is the last position of the winning value
// along dim. This is what PyTorch's CPU kernel returns whenever its
// (unstable) sort keeps equal values in index order, which it does for lines
// of up to 16 elements. Runs on the Vector unit like Sort.
#include <algorithm>
#include <string>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/sort/sort_util.h"

namespace ascend_sim {
namespace {

AxisSplit splitOf(const OpCall& call) { return splitAtAxis(call, call.inputs[0].shape, attrInt(call, "dim"), "dim"); }

void validateMode(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kAllTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output values");
  checkDtype(call, call.outputs[1], "output indices", kIndexTypes);
  const AxisSplit s = splitOf(call);
  Shape want;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (static_cast<int64_t>(d) != s.axis) want.push_back(x.shape[d]);
    else if (attrBool(call, "keepdim", false)) want.push_back(1);
  }
  checkShapeEq(call, call.outputs[0], "output values", want, "the reduced shape");
  checkShapeEq(call, call.outputs[1], "output indices", want, "the reduced shape");
  if (s.dim == 0 && s.outer * s.inner > 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "cannot take the mode of dimension " + std::to_string(s.axis) + " of size 0 (x shape " +
             shapeToString(x.shape) + ")");
}

template <typename T, typename Load, typename Store>
void runMode(const OpCall& call, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const AxisSplit s = splitOf(call);
  const SortOrder<T> before{false};
  forEachLine<T>(call, s, [&](int64_t o, int64_t i, LineScratch<T>& scratch) {
    loadLine(x, s, o, i, load, scratch);
    std::vector<ValueIndex<T>>& items = scratch.items;
    std::sort(items.begin(), items.end(), before);
    size_t best_end = 0, best_len = 0;
    for (size_t start = 0; start < items.size();) {
      size_t end = start + 1;
      while (end < items.size() && items[end].first == items[start].first) ++end;
      if (end - start > best_len) {
        best_len = end - start;
        best_end = end;
      }
      start = end;
    }
    const ValueIndex<T>& winner = items[best_end - 1];
    const int64_t off = o * s.inner + i;
    store(call.outputs[0].dtype, call.outputs[0].data, off, 1, &winner.first);
    storeInt(call.outputs[1].dtype, call.outputs[1].data, off, 1, &winner.second);
  });
}

void computeMode(const OpCall& call) {
  if (call.outputs[0].numel() == 0) return;
  if (isFloatDtype(call.inputs[0].dtype))
    runMode<float>(call, &loadFloat, &storeFloat);
  else
    runMode<int64_t>(call, &loadInt, &storeInt);
}

KernelCost costMode(const OpCall& call) { return sortCost(call, call.inputs[0], splitOf(call)); }

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Mode", &validateMode, &computeMode, &costMode});

}  // namespace
}  // namespace ascend_sim
