// Note [NPU storage descriptor]
// Every NPU storage carries a descriptor, as in Ascend's torch_npu: the
// logical (base) sizes and format the tensor was created with, and the
// storage (device) sizes and format actually laid out in memory. Views and
// autograd only ever see the logical tensor; ops read the descriptor to build
// the simulator's tensor descriptors. Until private formats are produced
// (NC1HWC0, FRACTAL_Z, ...) storage format == base format (ND/NCHW) and the
// storage sizes are the flat element count.
#pragma once

#include <c10/core/StorageImpl.h>
#include <c10/util/SmallVector.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

struct NPUStorageDesc {
  c10::SmallVector<int64_t, 5> base_sizes;     // logical sizes at creation
  c10::SmallVector<int64_t, 5> storage_sizes;  // sizes of the device layout
  aclFormat origin_format = ACL_FORMAT_ND;     // base format (ND, NCHW, NCDHW)
  aclFormat npu_format = ACL_FORMAT_ND;        // storage format
  caffe2::TypeMeta data_type;
};

class NPUStorageImpl final : public c10::StorageImpl {
 public:
  NPUStorageImpl(use_byte_size_t, size_t size_bytes, c10::DataPtr data_ptr, c10::Allocator* allocator,
                 bool resizable);
  NPUStorageDesc desc;
};

// The descriptor of an NPU tensor's storage, or nullptr for storages created
// elsewhere (e.g. by torch.load through a plain StorageImpl).
const NPUStorageDesc* storageDesc(const at::Tensor& t);

}  // namespace torch_npu
