// The element order and line walking shared by the sorting kernels (TopKV2,
// Sort, Mode).
//
// Note [Sort order]
// Lines are sorted by a strict total order on (value, index) pairs, so the
// result is unique and deterministic: ascending puts smaller values first and
// NaN after +inf; descending puts larger values first and NaN before +inf
// (NaN is the largest value either way, as in PyTorch). Equal values
// (including -0 == +0 and NaN == NaN) keep ascending index order, i.e. every
// sort is stable. Floats compare in fp32 (exact for fp16/bf16), integers in
// int64.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "kernel/op_utils.h"

namespace ascend_sim {

template <typename T>
using ValueIndex = std::pair<T, int64_t>;

// Note [Sort order]: does a come before b?
template <typename T>
struct SortOrder {
  bool descending;
  bool operator()(const ValueIndex<T>& a, const ValueIndex<T>& b) const {
    const bool an = a.first != a.first, bn = b.first != b.first;
    if (an || bn) {
      if (an && bn) return a.second < b.second;
      return descending ? an : bn;
    }
    if (a.first != b.first) return descending ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  }
};

// Simulated vector cores `lines` independent lines are split over.
inline int64_t lineBlocks(const OpCall& call, int64_t lines) {
  return std::max<int64_t>(1, std::min<int64_t>(lines, std::max(call.ctx.vector_cores, 1)));
}

// Per-core buffers of one line.
template <typename T>
struct LineScratch {
  std::vector<T> col;
  std::vector<ValueIndex<T>> items;
};

// Calls line(o, i, scratch) for every line (outer index o, inner index i) of
// x seen as [outer, dim, inner]; lines are split over simulated cores in
// contiguous ranges (one LineScratch<T> per core), and `line` must only write
// that line's outputs.
template <typename T, typename Fn>
void forEachLine(const OpCall& call, const AxisSplit& s, Fn line) {
  const int64_t lines = s.outer * s.inner;
  if (lines == 0) return;
  const int64_t blocks = lineBlocks(call, lines);
  parallelFor(blocks, [&](int64_t b) {
    LineScratch<T> scratch;
    for (int64_t l = b * lines / blocks; l < (b + 1) * lines / blocks; ++l) line(l / s.inner, l % s.inner, scratch);
  });
}

// Loads line (o, i) of x into scratch.items as (value, position along dim) pairs.
template <typename T, typename Load>
void loadLine(const TensorArg& x, const AxisSplit& s, int64_t o, int64_t i, Load load, LineScratch<T>& scratch) {
  scratch.col.resize(static_cast<size_t>(s.dim));
  scratch.items.resize(static_cast<size_t>(s.dim));
  load(x.dtype, x.data, o * s.dim * s.inner + i, s.inner, s.dim, scratch.col.data());
  for (int64_t d = 0; d < s.dim; ++d) scratch.items[static_cast<size_t>(d)] = {scratch.col[static_cast<size_t>(d)], d};
}

// Cost of sorting x along the split: a sort network touches every element
// about log2(dim) times on the Vector unit.
inline KernelCost sortCost(const OpCall& call, const TensorArg& x, const AxisSplit& s) {
  KernelCost c = vectorCost(call);
  double passes = 1;
  for (int64_t d = 1; d < s.dim; d *= 2) passes += 1;
  const double extra = (passes - 1) * vectorUnit().repeats(x.numel(), x.dtype);
  c.vector_repeats += extra;
  c.vector_bytes += extra * static_cast<double>(vectorUnit().bytes_per_repeat);
  c.flops = passes * static_cast<double>(x.numel());
  c.block_dim = static_cast<uint32_t>(lineBlocks(call, s.outer * s.inner));
  return c;
}

}  // namespace ascend_sim
