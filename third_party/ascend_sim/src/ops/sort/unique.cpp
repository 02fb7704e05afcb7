// UniqueWithCountsAndSorting and UniqueConsecutive (OPS.md "Reductions,
// scans, sorting, statistics"), on the AI CPU as CANN runs them.
//
// Note [Unique outputs]
// The number of unique elements is known only once the work is done, so,
// unlike MaskedSelect (Note [Ops whose output size depends on the data]),
// the caller does not count first: y and counts are sized for the worst
// case (every element unique), the kernel writes the real number into the
// extra output `num` ([1], int64) and zeroes the unused tail, and the caller
// reads `num` back and narrows y and counts. This is how CANN's dynamic-shape
// Unique ops report their size.
//
// The units compared are slices: with attr `axis` the slices x[..., d, ...]
// along that axis (y keeps x's other dims), without it the single elements of
// x flattened. UniqueConsecutive groups runs of equal adjacent slices;
// UniqueWithCountsAndSorting first sorts the slices (lexicographically over
// their elements in row-major order, each compared per Note [Sort order], ties
// by position), so y is sorted whatever attr `sorted` says. Two slices are
// equal when all their elements are == (so NaN is never equal to anything:
// every NaN is its own unique element, sorted last). inverse maps each slice
// of x to its group; counts gives each group's size.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "kernel/op_utils.h"
#include "ops/sort/sort_util.h"

namespace ascend_sim {
namespace {

bool sorts(const OpCall& call) { return call.op_type == "UniqueWithCountsAndSorting"; }

// x as [outer, dim, inner] around attr `axis`, or [1, numel, 1] without it.
AxisSplit slicesOf(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  if (!call.attrs.has("axis")) return AxisSplit{1, x.numel(), 1, 0};
  if (x.shape.empty()) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'axis' needs an input with at least 1 dim");
  return splitAtAxis(call, x.shape, attrInt(call, "axis"), "axis");
}

void validateUnique(const OpCall& call) {
  checkArity(call, 1, 1, 4);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kAllTypes);
  const AxisSplit s = slicesOf(call);
  const bool by_axis = call.attrs.has("axis");
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", by_axis ? x.shape : Shape{s.dim},
               by_axis ? "x's shape" : "[x's element count]");
  const char* names[] = {"output inverse", "output counts", "output num"};
  const Shape shapes[] = {by_axis ? Shape{s.dim} : x.shape, Shape{s.dim}, Shape{1}};
  for (int k = 0; k < 3; ++k) {
    checkDtype(call, call.outputs[k + 1], names[k], dtBit(ACL_INT64));
    checkShapeEq(call, call.outputs[k + 1], names[k], shapes[k], k == 0 && !by_axis ? "x's shape" : "the slice count");
  }
  attrBool(call, "sorted", true);
  attrBool(call, "return_inverse", false);
  attrBool(call, "return_counts", false);
}

template <typename T, typename Load, typename Store>
void runUnique(const OpCall& call, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const AxisSplit s = slicesOf(call);
  std::vector<T> data(static_cast<size_t>(x.numel()));
  load(x.dtype, x.data, 0, 1, x.numel(), data.data());
  // Element k (row-major over outer, inner) of slice d.
  auto at = [&](int64_t d, int64_t k) { return data[static_cast<size_t>(((k / s.inner) * s.dim + d) * s.inner + k % s.inner)]; };
  const int64_t len = s.outer * s.inner;
  std::vector<int64_t> order(static_cast<size_t>(s.dim));
  std::iota(order.begin(), order.end(), 0);
  if (sorts(call)) {
    const SortOrder<T> before{false};
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < len; ++k) {
        const ValueIndex<T> ea{at(a, k), 0}, eb{at(b, k), 0};
        if (before(ea, eb)) return true;
        if (before(eb, ea)) return false;
      }
      return false;
    });
  }
  auto equal = [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < len; ++k)
      if (!(at(a, k) == at(b, k))) return false;
    return true;
  };
  std::vector<int64_t> inverse(static_cast<size_t>(s.dim)), counts(static_cast<size_t>(s.dim), 0);
  std::vector<T> out(data.size(), T(0));
  int64_t groups = 0;
  for (int64_t r = 0; r < s.dim; ++r) {
    const int64_t d = order[r];
    if (r == 0 || !equal(order[r - 1], d)) {  // a new group, represented by slice d
      for (int64_t k = 0; k < len; ++k)
        out[static_cast<size_t>(((k / s.inner) * s.dim + groups) * s.inner + k % s.inner)] = at(d, k);
      ++groups;
    }
    inverse[d] = groups - 1;
    ++counts[groups - 1];
  }
  store(y.dtype, y.data, 0, static_cast<int64_t>(out.size()), out.data());
  storeInt(ACL_INT64, call.outputs[1].data, 0, s.dim, inverse.data());
  storeInt(ACL_INT64, call.outputs[2].data, 0, s.dim, counts.data());
  storeInt(ACL_INT64, call.outputs[3].data, 0, 1, &groups);
}

void computeUnique(const OpCall& call) {
  if (isFloatDtype(call.inputs[0].dtype))
    runUnique<float>(call, &loadFloat, &storeFloat);
  else
    runUnique<int64_t>(call, &loadInt, &storeInt);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"UniqueWithCountsAndSorting", &validateUnique, &computeUnique, &aiCpuCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"UniqueConsecutive", &validateUnique, &computeUnique, &aiCpuCost});

}  // namespace
}  // namespace ascend_sim
