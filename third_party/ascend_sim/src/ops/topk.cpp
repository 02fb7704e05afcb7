// TopKV2 (OPS.md "Indexing, concatenation, sorting, losses"): the k largest
// (attr `largest`, default true) or smallest elements of x along attr `dim`
// (default -1), values in x's dtype and their positions along dim (int64, or
// int32). Attr `k` (int, 0 <= k <= size of dim).
//
// Order (a strict total order, so the result is unique and deterministic):
// largest=true sorts descending with NaN above +inf; largest=false sorts
// ascending with NaN above +inf (so NaN comes last). Equal values (including
// -0 == +0, and NaN == NaN) keep ascending index order, i.e. among ties the
// lower index comes first — PyTorch's behaviour. `sorted` = false is
// accepted and returns the same (sorted) order, which is one valid answer
// for an unspecified order. Floats compare in fp32 (exact for fp16/bf16),
// integers in int64. Each [outer, inner] line is independent; lines are split
// over simulated vector cores in contiguous ranges.
#include <algorithm>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "ops/op_utils.h"

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

int64_t blocksOf(const OpCall& call, int64_t lines) {
  return std::max<int64_t>(1, std::min<int64_t>(lines, std::max(call.ctx.vector_cores, 1)));
}

template <typename T>
bool isNan(T v) {
  return v != v;
}

template <typename T, typename Load, typename Store>
void runTopK(const OpCall& call, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "dim", -1), "dim");
  const int64_t k = attrInt(call, "k");
  const bool largest = attrBool(call, "largest", true);
  const int64_t lines = s.outer * s.inner;
  if (lines == 0 || k == 0) return;
  // a before b? (ties -> lower index)
  auto before = [largest](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
    const bool an = isNan(a.first), bn = isNan(b.first);
    if (an || bn) {
      if (an && bn) return a.second < b.second;
      return largest ? an : bn;  // NaN is the largest value
    }
    if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  };
  const int64_t blocks = blocksOf(call, lines);
  parallelFor(blocks, [&](int64_t b) {
    const int64_t lo = b * lines / blocks, hi = (b + 1) * lines / blocks;
    std::vector<T> col(static_cast<size_t>(s.dim)), vals(static_cast<size_t>(k));
    std::vector<std::pair<T, int64_t>> items(static_cast<size_t>(s.dim));
    std::vector<int64_t> idx(static_cast<size_t>(k));
    for (int64_t l = lo; l < hi; ++l) {
      const int64_t o = l / s.inner, i = l % s.inner;
      load(x.dtype, x.data, o * s.dim * s.inner + i, s.inner, s.dim, col.data());
      for (int64_t d = 0; d < s.dim; ++d) items[static_cast<size_t>(d)] = {col[static_cast<size_t>(d)], d};
      std::partial_sort(items.begin(), items.begin() + k, items.end(), before);
      // Output element (o, j, i) of the [outer, k, inner] result: strided by inner.
      for (int64_t j = 0; j < k; ++j) {
        vals[static_cast<size_t>(j)] = items[static_cast<size_t>(j)].first;
        idx[static_cast<size_t>(j)] = items[static_cast<size_t>(j)].second;
      }
      for (int64_t j = 0; j < k; ++j) {
        const int64_t off = (o * k + j) * s.inner + i;
        store(call.outputs[0].dtype, call.outputs[0].data, off, 1, &vals[static_cast<size_t>(j)]);
        storeInt(call.outputs[1].dtype, call.outputs[1].data, off, 1, &idx[static_cast<size_t>(j)]);
      }
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
  KernelCost c = vectorCost(call);
  const TensorArg& x = call.inputs[0];
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "dim", -1), "dim");
  // A sort network touches every element about log2(dim) times.
  double passes = 1;
  for (int64_t d = 1; d < s.dim; d *= 2) passes += 1;
  const double extra = (passes - 1) * vectorUnit().repeats(x.numel(), x.dtype);
  c.vector_repeats += extra;
  c.vector_bytes += extra * static_cast<double>(vectorUnit().bytes_per_repeat);
  c.flops = passes * static_cast<double>(x.numel());
  c.block_dim = static_cast<uint32_t>(blocksOf(call, s.outer * s.inner));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"TopKV2", &validateTopK, &computeTopK, &costTopK});

}  // namespace
}  // namespace ascend_sim
