// Format rules of the plugin (which formats exist, their base format, the
// storage shape of a format). The layouts themselves live in the simulator
// (sim::formatStorageShape); see docs/formats.md.
#pragma once

#include <string>
#include <vector>

#include <ATen/Tensor.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

// ND, NCHW and NCDHW are plain row-major layouts ("base formats").
bool isBaseFormat(aclFormat format);
// The base format a private format is derived from (NCHW for NC1HWC0, ...).
aclFormat baseFormatOf(aclFormat format);
// The base format of a new tensor of this rank (NCHW for 4-D, NCDHW for 5-D, else ND).
aclFormat defaultBaseFormat(size_t rank);
std::string formatName(aclFormat format);
// Checks a user-supplied format id; raises listing the valid ones.
aclFormat checkFormatId(int64_t acl_format);
// The format a tensor of `sizes` actually gets when `requested` is asked for,
// following torch_npu: FRACTAL_NZ on rank < 2 falls back to ND, 4-D formats
// need rank <= 4, 5-D formats rank 5.
aclFormat effectiveFormat(aclFormat requested, at::IntArrayRef sizes);
// Storage (device) sizes of a tensor of logical `sizes` in `format`.
std::vector<int64_t> storageSizes(aclFormat format, c10::ScalarType dtype, at::IntArrayRef sizes);

// torch.npu.config.allow_internal_format: when true (the default), ops may
// produce private formats (an elementwise output follows the format of its
// first tensor input, as CANN's format inference does); when false every new
// tensor is created in its base format.
bool allowInternalFormat();
void setAllowInternalFormat(bool allow);

// The storage format of an NPU tensor (ND for storages without a descriptor).
aclFormat npuFormatOf(const at::Tensor& t);
// True if t's storage is in a private (non-base) format.
bool hasPrivateFormat(const at::Tensor& t);

}  // namespace torch_npu
