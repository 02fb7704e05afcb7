// TopKV2 (OPS.md "Indexing, concatenation, sorting, losses"): the k largest
// (attr `largest`, default true) or smallest elements of x along attr `dim`
// (default -1), values in x's dtype and their positions along dim (int64, or
// int32). Attr `k` (int, 0 <= k <= size of dim).
//
// Order: Note [Sort order] (sort_util.h) — descending for largest=true,
// ascending otherwise, NaN the largest value, ties by ascending index
// (PyTorch's behaviour). `sorted` = false is accepted and returns the same
// (sorted) order, which is one valid answer for an unspecified order. Each
// [outer, inner] line is independent; lines are split over simulated vector
// cores in contiguous ranges.
#include <algorithm>
#include <string>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/sort/sort_util.h"

namespace ascend_sim {
namespace {

void validateTopK(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kNumericTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output values");
  checkDtype(call, call.outputs[1], "output indices", kIndexTypes);
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "dim", -1), "dim");
  const int64_t k = attrInt(call, "k");
  if (k < 0 || k > s.dim)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'k' is " + std::to_string(k) + " but must be in [0, " + std::to_string(s.dim) +
             "] (size of dim " + std::to_string(s.axis) + " of x shape " + shapeToString(x.shape) + ")");
  Shape want = x.shape;
  if (!want.empty()) want[static_cast<size_t>(s.axis)] = k;
  checkShapeEq(call, call.outputs[0], "output values", want, "x shape with dim size k");
  checkShapeEq(call, call.outputs[1], "output indices", want, "x shape with dim size k");
  attrBool(call, "largest", true);
  attrBool(call, "sorted", true);
}

template <typename T, typename Load, typename Store>
void runTopK(const OpCall& call, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "dim", -1), "dim");
  const int64_t k = attrInt(call, "k");
  if (k == 0) return;
  const SortOrder<T> before{attrBool(call, "largest", true)};
  forEachLine<T>(call, s, [&](int64_t o, int64_t i, LineScratch<T>& scratch) {
    loadLine(x, s, o, i, load, scratch);
    std::vector<ValueIndex<T>>& items = scratch.items;
    std::partial_sort(items.begin(), items.begin() + k, items.end(), before);
    // Output element (o, j, i) of the [outer, k, inner] result: strided by inner.
    for (int64_t j = 0; j < k; ++j) {
      const int64_t off = (o * k + j) * s.inner + i;
      store(call.outputs[0].dtype, call.outputs[0].data, off, 1, &items[static_cast<size_t>(j)].first);
      storeInt(call.outputs[1].dtype, call.outputs[1].data, off, 1, &items[static_cast<size_t>(j)].second);
    }
  });
}

void computeTopK(const OpCall& call) {
  if (isFloatDtype(call.inputs[0].dtype))
    runTopK<float>(call, &loadFloat, &storeFloat);
  else
    runTopK<int64_t>(call, &loadInt, &storeInt);
}

KernelCost costTopK(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  return sortCost(call, x, splitAtAxis(call, x.shape, attrInt(call, "dim", -1), "dim"));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"TopKV2", &validateTopK, &computeTopK, &costTopK});

}  // namespace
}  // namespace ascend_sim
