// Creation of NPU tensors. See Note [NPU tensor creation].
#pragma once

#include <ATen/Tensor.h>
#include <c10/util/Optional.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

// An uninitialised NPU tensor of logical `sizes` (and `strides`, for base
// formats) on `device`, whose storage is laid out in `format`: ND/NCHW/NCDHW
// (base formats) or a private format (storage sizes from the simulator).
at::Tensor makeNpuTensor(at::IntArrayRef sizes, c10::optional<at::IntArrayRef> strides, c10::ScalarType dtype,
                         c10::DeviceIndex device, c10::optional<aclFormat> format = c10::nullopt);

// A tensor like `like` (sizes, dtype, storage format and descriptor) whose
// storage is the slice of `flat`'s storage starting `element_offset` elements
// into it: the storage of a parameter combined with others of its format
// (Note [Combined private formats] in torch_npu/optim/combined.py).
at::Tensor aliasStorageLike(const at::Tensor& flat, int64_t element_offset, const at::Tensor& like);
// Elements of t's whole storage in its storage format (pads included).
int64_t storageNumel(const at::Tensor& t);

}  // namespace torch_npu
