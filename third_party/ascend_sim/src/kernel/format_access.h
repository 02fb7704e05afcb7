// Reading and writing tensors in any registered format by logical index —
// what a kernel needs to accept a private-format operand (e.g. a Cube kernel
// reading a FRACTAL_NZ matrix) without knowing the layout.
//
// Note [StorageMap]
// Every layout of format_registry.h is separable (see Note [Logical,
// canonical and storage shapes]), so a tensor's layout is fully described by
// one small table per logical dim: dim_offsets[d][i] is the storage offset
// contributed by index i along logical dim d, and
//     storage offset of logical index (i0, ..., ik) = sum_d dim_offsets[d][i_d].
// Tables hold sum(logical dims) entries, so building one is cheap, and a walk
// over the logical elements costs one add per element (forEachLogicalRow).
//
// Typical use in a kernel:
//     StorageMap a = storageMapOf(call, call.inputs[0], "input x1");   // in validate: checks the shape
//     std::vector<float> x(numelOf(a.logical));
//     loadLogicalFloat(call.inputs[0], a, x.data());                   // in compute: row-major logical fp32
// or random access: a.offset(idx) is the element offset of logical idx in
// TensorArg::data (element units of the tensor's dtype).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/format_registry.h"
#include "kernel/kernel.h"

namespace ascend_sim {

struct StorageMap {
  aclFormat format = ACL_FORMAT_ND;
  aclDataType dtype = ACL_DT_UNDEFINED;
  Shape logical;                               // logical shape (base order)
  Shape storage;                               // storage shape the format gives it
  std::vector<std::vector<int64_t>> dim_offsets;  // [d][i], see the Note

  int64_t offset(const int64_t* idx) const {
    int64_t off = 0;
    for (size_t d = 0; d < dim_offsets.size(); ++d) off += dim_offsets[d][static_cast<size_t>(idx[d])];
    return off;
  }
  int64_t logicalNumel() const { return numelOf(logical); }
  int64_t storageNumel() const { return numelOf(storage); }
  // True if some storage elements hold no logical element (C0 / fractal padding).
  bool hasPads() const { return storageNumel() != logicalNumel(); }
};

// Map of format f for the given logical shape; false + *err as formatStorageShape.
ASCEND_SIM_API bool makeStorageMap(aclFormat f, aclDataType dt, const Shape& logical, StorageMap* out,
                                   std::string* err);
// Map of a kernel operand: logical shape from (origin_format, origin_shape),
// layout from t.format. Throws KernelError(ACL_ERROR_OP_INPUT_NOT_MATCH)
// "<op>: <who> ..." if the format is unknown, cannot hold the rank, or t.shape
// is not the storage shape of the format for that origin shape.
ASCEND_SIM_API StorageMap storageMapOf(const OpCall& call, const TensorArg& t, const std::string& who);

// Walks the logical elements of `logical` in row-major order, one row (last
// dim) at a time, for several maps of that logical shape at once:
//   fn(int64_t first, const int64_t* base, int64_t len, const int64_t* const* inner)
// logical element first + i (0 <= i < len) lives at base[k] + inner[k][i] in
// map k. A 0-d shape is one row of one element. Nothing is called for 0 elements.
template <typename Fn>
void forEachLogicalRow(const Shape& logical, const std::vector<const StorageMap*>& maps, Fn&& fn) {
  static const int64_t kZero = 0;
  const size_t nm = maps.size(), r = logical.size();
  for (int64_t d : logical)
    if (d == 0) return;
  std::vector<int64_t> base(nm, 0);
  std::vector<const int64_t*> inner(nm, &kZero);
  if (r == 0) {
    fn(int64_t{0}, base.data(), int64_t{1}, inner.data());
    return;
  }
  for (size_t k = 0; k < nm; ++k) inner[k] = maps[k]->dim_offsets[r - 1].data();
  const int64_t len = logical[r - 1];
  std::vector<int64_t> idx(r, 0);
  int64_t first = 0;
  while (true) {
    fn(first, base.data(), len, inner.data());
    first += len;
    size_t d = r - 1;  // odometer over dims 0..r-2
    for (;;) {
      if (d == 0) return;
      --d;
      const size_t i = static_cast<size_t>(idx[d]);
      if (idx[d] + 1 < logical[d]) {
        for (size_t k = 0; k < nm; ++k) base[k] += maps[k]->dim_offsets[d][i + 1] - maps[k]->dim_offsets[d][i];
        ++idx[d];
        break;
      }
      for (size_t k = 0; k < nm; ++k) base[k] -= maps[k]->dim_offsets[d][i] - maps[k]->dim_offsets[d][0];
      idx[d] = 0;
    }
  }
}

// All logical elements of t (laid out as `m`, from storageMapOf) in row-major
// logical order, converted like loadFloat / loadInt. dst has m.logicalNumel() entries.
ASCEND_SIM_API void loadLogicalFloat(const TensorArg& t, const StorageMap& m, float* dst);
ASCEND_SIM_API void loadLogicalInt(const TensorArg& t, const StorageMap& m, int64_t* dst);
// Writes row-major logical values into t's storage (converted like
// storeFloat / storeInt); pads are set to zero.
ASCEND_SIM_API void storeLogicalFloat(const TensorArg& t, const StorageMap& m, const float* src);
ASCEND_SIM_API void storeLogicalInt(const TensorArg& t, const StorageMap& m, const int64_t* src);

// Bit copies between t's storage (laid out as `m`) and a packed row-major
// buffer of its logical elements (m.logicalNumel() elements of t's dtype).
// scatterLogical sets the pads of t to zero.
ASCEND_SIM_API void gatherLogical(const TensorArg& t, const StorageMap& m, void* dst);
ASCEND_SIM_API void scatterLogical(const TensorArg& t, const StorageMap& m, const void* src);

// One byte per storage element of `m`: 1 where a logical element lives, 0 on pads.
ASCEND_SIM_API std::vector<uint8_t> logicalMask(const StorageMap& m);

// Sets every pad element of t's storage (laid out as `m`, whose storage shape
// is t.shape) to zero, leaving the logical elements untouched; what a kernel
// that computed over the whole storage (pads included) does afterwards so its
// output looks like TransData's. O(storage): one byte per storage element
// marks the logical positions, then one branch-free pass clears the rest.
// No-op for layouts without pads or null data.
ASCEND_SIM_API void zeroPads(const TensorArg& t, const StorageMap& m);

// Whether t is an fp32 or fp16 NC1HWC0 tensor with C0 = 16 holding logical [n, c, h, w], i.e.
// storage [n][ceil(c/16)][h][w][16]: the layout the kernels' C0-lane fast paths read directly
// (Note [Conv results straight into NC1HWC0], [Conv operands from private formats], [Batch norm
// on C0 lanes]).
ASCEND_SIM_API bool isNc1hwc0Of16(const TensorArg& t, int64_t n, int64_t c, int64_t h, int64_t w);
// Whether t is an fp32 / fp16 NDC1HWC0 tensor [N, C, D, H, W] with C0 = 16 whose N * D = nd
// blocks (n, d) of [C1][H][W][16] are the samples of an NC1HWC0 [nd, c, h, w]: the same bytes.
ASCEND_SIM_API bool isNdc1hwc0Of16(const TensorArg& t, int64_t nd, int64_t c, int64_t h, int64_t w);

// One C1 block of an fp32 NC1HWC0 tensor, `count` positions of 16 channels
// (block[p * 16 + c]), to or from its first `channels` (<= 16) channel planes
// (planes[c * plane_stride + p]), by 16x16 register transposes (Note [NC1HWC0
// rows by transposes]); towards the block, padding channels are written as
// zeros. Returns false, moving nothing, when the host has neither AVX2 nor AVX-512.
ASCEND_SIM_API bool nc1hwc0BlockPlanes(float* block, int64_t count, int64_t channels, float* planes,
                                       int64_t plane_stride, bool to_planes);

}  // namespace ascend_sim
