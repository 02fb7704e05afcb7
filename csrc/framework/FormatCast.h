// Note [Private formats and ordinary ops]
// A tensor whose storage is in a private format (NC1HWC0, FRACTAL_Z,
// FRACTAL_NZ, ...) keeps its logical sizes/strides; only the storage layout
// differs. Ops that do not understand the format never see it:
//  - reading: materializeBase() TransDatas the whole storage to its base
//    format and applies the tensor's view to that copy;
//  - writing: writeThroughPrivate() computes into a base-format tensor and
//    TransDatas it back (merging with the untouched part for partial views).
// OpCommand and the copy kernels do this automatically, so printing, .cpu()
// and every op see the logical tensor.
#pragma once

#include <ATen/Tensor.h>

#include "ascend_sim/acl.h"
#include "csrc/core/AclOpLaunch.h"

namespace torch_npu {

// True if t is exactly its storage's logical tensor (offset 0, contiguous,
// the storage's base sizes).
bool coversWholeStorage(const at::Tensor& t);
// The descriptor of t's whole storage (format, storage and origin shapes).
AclTensorParam wholeStorageParam(const at::Tensor& t);
// Describes into `p` the contiguous tensor `t` stored in the base format `base_format`: storage
// and origin shape are t's sizes (all base formats are row-major).
void describeBase(const at::Tensor& t, aclFormat base_format, AclTensorParam& p);

// `t` itself if its storage is in a base format, else an equal tensor backed
// by a base-format copy of its storage (same view).
at::Tensor materializeBase(const at::Tensor& t);
// Writes `values` (same sizes and dtype as dst) into the private-format dst.
void writeThroughPrivate(const at::Tensor& dst, const at::Tensor& values);
// A new tensor with t's values whose storage is in `format` (already
// adjusted by effectiveFormat).
at::Tensor formatCast(const at::Tensor& t, aclFormat format);
// Re-lays out t's whole storage in `format` in place: the StorageImpl gets
// new memory and descriptor, so every tensor sharing it (views, .data,
// parameters) sees the new format and unchanged values.
void castStorageInPlace(const at::Tensor& t, aclFormat format);

}  // namespace torch_npu
