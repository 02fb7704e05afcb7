// Helpers shared by the index kernels (indexing.cpp, advanced_index.cpp,
// scatter_reduce.cpp): index loading and range checks with PyTorch-like
// messages, sub-shape offset tables, and the split of row ranges over the
// simulated vector cores (Note [Simulated cores on host threads]).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "ops/op_utils.h"

namespace ascend_sim {

// "[i,j,k]": the row-major coordinates of `flat` in `shape`.
std::string positionString(int64_t flat, const Shape& shape);

// All elements of an int32 / int64 tensor as int64.
std::vector<int64_t> loadIndices(const TensorArg& t);

// Device fault (ACL_ERROR_RT_AICORE_EXCEPTION) for the first index outside
// [0, bound), naming the value, its position in the index tensor, the axis
// and the bound.
void checkIndexRange(const OpCall& call, const std::vector<int64_t>& idx, const Shape& idx_shape,
                     const std::string& idx_name, int64_t bound, int64_t axis, const std::string& tensor);

// Like checkIndexRange, but indices in [-bound, 0) count from the end (as
// PyTorch's advanced indexing): they are wrapped in place.
void wrapIndices(const OpCall& call, std::vector<int64_t>* idx, const Shape& idx_shape, const std::string& idx_name,
                 int64_t bound, int64_t axis, const std::string& tensor);

// Simulated vector cores used for `units` independent work units over
// tensors of `numel` elements: one 1024-element chunk per core at least.
int64_t blocksFor(const OpCall& call, int64_t units, int64_t numel);

// fn(lo, hi) for `blocks` contiguous ranges covering [0, n).
template <typename Fn>
void splitRange(int64_t n, int64_t blocks, Fn fn) {
  if (n <= 0) return;
  parallelFor(blocks, [&](int64_t b) { fn(b * n / blocks, (b + 1) * n / blocks); });
}

// Offsets, in a tensor with element strides `st` (indexed like `shape`), of
// the row-major positions of the sub-shape shape[d0..d1).
std::vector<int64_t> subOffsets(const Shape& shape, size_t d0, size_t d1, const Shape& st);

// Offsets of the row-major positions of the dims `dims` of a tensor with
// element strides `st` (indexed like `shape`), dims taken in the given order.
std::vector<int64_t> dimsOffsets(const Shape& shape, const std::vector<int64_t>& dims, const Shape& st);

}  // namespace ascend_sim
