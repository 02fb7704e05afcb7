#include "csrc/framework/NPUStorageImpl.h"

#include <typeinfo>

#include <ATen/Tensor.h>

namespace torch_npu {

NPUStorageImpl::NPUStorageImpl(use_byte_size_t, size_t size_bytes, c10::DataPtr data_ptr,
                               c10::Allocator* allocator, bool resizable)
    : c10::StorageImpl(use_byte_size_t(), size_bytes, std::move(data_ptr), allocator, resizable) {}

// On the path of every op operand: no Storage copy (a pair of atomic reference count updates) and
// an exact type comparison instead of a dynamic_cast (NPUStorageImpl is final).
const NPUStorageDesc* storageDesc(const at::Tensor& t) {
  c10::StorageImpl* impl = t.unsafeGetTensorImpl()->unsafe_storage().unsafeGetStorageImpl();
  if (impl == nullptr || typeid(*impl) != typeid(NPUStorageImpl)) return nullptr;
  return &static_cast<NPUStorageImpl*>(impl)->desc;
}

}  // namespace torch_npu
