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
#include "kernel/op_utils.h"

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

// Vector-unit cost of an index op split over `blocks` simulated cores.
KernelCost indexCost(const OpCall& call, int64_t blocks);

// An index tensor of the data's rank (GatherElements, ScatterElements) seen
// as [outer, dim, inner] around `axis`, with the offsets of its outer and
// inner positions in the data tensor and in the updates.
struct ElemGeom {
  int64_t axis = 0;
  int64_t outer = 1, dim = 1, inner = 1;        // of the index tensor around axis
  std::vector<int64_t> data_outer, data_inner;  // offsets in the data tensor
  std::vector<int64_t> upd_outer, upd_inner;    // offsets in updates (scatter)
  int64_t data_axis_stride = 1, upd_axis_stride = 1, data_dim = 1;
};

// Index shape must have data's rank and idx.size(d) <= t.size(d) (d != axis
// for the data; every d for the updates when all_dims).
void checkIndexShape(const OpCall& call, const TensorArg& idx, const std::string& iname, const TensorArg& t,
                     const std::string& tname, int64_t axis, bool all_dims);

// The geometry of index shape `ishape` over data `dshape` (and updates
// `ushape` if given) around the axis in attribute `attr`.
ElemGeom elemGeom(const OpCall& call, const Shape& ishape, const Shape& dshape, const Shape* ushape,
                  const char* attr);

}  // namespace ascend_sim
