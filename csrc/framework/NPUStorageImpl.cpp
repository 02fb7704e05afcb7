#include "csrc/framework/NPUStorageImpl.h"

#include <ATen/Tensor.h>

namespace torch_npu {

NPUStorageImpl::NPUStorageImpl(use_byte_size_t, size_t size_bytes, c10::DataPtr data_ptr,
                               c10::Allocator* allocator, bool resizable)
    : c10::StorageImpl(use_byte_size_t(), size_bytes, std::move(data_ptr), allocator, resizable) {}

const NPUStorageDesc* storageDesc(const at::Tensor& t) {
  auto* impl = dynamic_cast<NPUStorageImpl*>(t.storage().unsafeGetStorageImpl());
  return impl ? &impl->desc : nullptr;
}

}  // namespace torch_npu
