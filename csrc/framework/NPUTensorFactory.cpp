// Note [NPU tensor creation]
// All NPU tensors are created here: an NPUStorageImpl carrying the storage
// descriptor (see Note [NPU storage descriptor]) over memory from the caching
// allocator of the target device, wrapped in a TensorImpl on PrivateUse1.
// The TensorImpl always describes the logical tensor (contiguous in the base
// layout); for a private format only the storage differs.
#include "csrc/framework/NPUTensorFactory.h"

#include <ATen/EmptyTensor.h>
#include <c10/util/accumulate.h>

#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"

namespace torch_npu {

at::Tensor makeNpuTensor(at::IntArrayRef sizes, c10::optional<at::IntArrayRef> strides, c10::ScalarType dtype,
                         c10::DeviceIndex device, c10::optional<aclFormat> format) {
  at::detail::check_size_nonnegative(sizes);
  const caffe2::TypeMeta meta = c10::scalarTypeToTypeMeta(dtype);
  const aclFormat npu_format = effectiveFormat(format.value_or(defaultBaseFormat(sizes.size())), sizes);
  TORCH_INTERNAL_ASSERT(isBaseFormat(npu_format) || !strides.has_value(),
                        "private-format tensors are always contiguous");
  const std::vector<int64_t> storage_sizes = storageSizes(npu_format, dtype, sizes);
  size_t nbytes = 0;
  if (strides) {
    nbytes = at::detail::computeStorageNbytes(sizes, *strides, meta.itemsize());
  } else {
    nbytes = static_cast<size_t>(c10::multiply_integers(storage_sizes)) * meta.itemsize();
  }
  DeviceSwitch guard(device);
  c10::Allocator* allocator = allocator::get();
  auto storage = c10::make_intrusive<NPUStorageImpl>(c10::StorageImpl::use_byte_size_t(), nbytes,
                                                     allocator->allocate(nbytes), allocator, true);
  storage->desc.base_sizes.assign(sizes.begin(), sizes.end());
  storage->desc.storage_sizes.assign(storage_sizes.begin(), storage_sizes.end());
  storage->desc.origin_format = isBaseFormat(npu_format) ? npu_format : baseFormatOf(npu_format);
  storage->desc.npu_format = npu_format;
  storage->desc.data_type = meta;
  // AutocastXPU hosts the NPU autocast (Note [NPU autocast] in csrc/aten/AutocastNPU.cpp).
  auto tensor = at::detail::make_tensor<c10::TensorImpl>(
      c10::Storage(std::move(storage)),
      c10::DispatchKeySet({c10::DispatchKey::PrivateUse1, c10::DispatchKey::AutocastXPU}), meta);
  if (strides) {
    tensor.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, *strides);
  } else if (!(sizes.size() == 1 && sizes[0] == 0)) {
    tensor.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  }
  return tensor;
}

}  // namespace torch_npu
