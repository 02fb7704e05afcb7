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
  // A base format's storage has the logical sizes: no vector to build for it.
  const bool base = isBaseFormat(npu_format);
  const std::vector<int64_t> private_sizes = base ? std::vector<int64_t>() : storageSizes(npu_format, dtype, sizes);
  const at::IntArrayRef storage_sizes = base ? sizes : at::IntArrayRef(private_sizes);
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
  storage->desc.origin_format = base ? npu_format : baseFormatOf(npu_format);
  storage->desc.npu_format = npu_format;
  storage->desc.data_type = meta;
  // AutocastXPU hosts the NPU autocast (Note [NPU autocast] in csrc/aten/common/AutocastNPU.cpp).
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

int64_t storageNumel(const at::Tensor& t) {
  const NPUStorageDesc* desc = storageDesc(t);
  TORCH_CHECK(desc != nullptr, "storageNumel: the tensor's storage has no NPU descriptor");
  return c10::multiply_integers(desc->storage_sizes);
}

at::Tensor aliasStorageLike(const at::Tensor& flat, int64_t element_offset, const at::Tensor& like) {
  const char* op = "aliasStorageLike";
  TORCH_CHECK(flat.device().type() == c10::DeviceType::PrivateUse1 && like.device() == flat.device(), op,
              ": both tensors must be on one NPU device, got ", flat.device(), " and ", like.device());
  TORCH_CHECK(flat.dim() == 1 && flat.is_contiguous() && flat.storage_offset() == 0, op,
              ": the buffer must be a whole 1-D contiguous tensor");
  TORCH_CHECK(flat.scalar_type() == like.scalar_type(), op, ": the buffer is ", flat.scalar_type(),
              " but the tensor is ", like.scalar_type());
  const NPUStorageDesc* desc = storageDesc(like);
  TORCH_CHECK(desc != nullptr && like.storage_offset() == 0 && like.is_contiguous() &&
                  c10::IntArrayRef(desc->base_sizes) == like.sizes(),
              op, ": the tensor must be its whole storage");
  const int64_t numel = c10::multiply_integers(desc->storage_sizes);
  TORCH_CHECK(element_offset >= 0 && element_offset + numel <= flat.numel(), op, ": elements [", element_offset,
              ", ", element_offset + numel, ") are outside the buffer of ", flat.numel());
  const size_t itemsize = flat.dtype().itemsize();
  const size_t nbytes = static_cast<size_t>(numel) * itemsize;
  auto storage = c10::make_intrusive<NPUStorageImpl>(
      c10::StorageImpl::use_byte_size_t(), nbytes,
      allocator::aliasDataPtr(flat.storage(), static_cast<size_t>(element_offset) * itemsize), nullptr, false);
  storage->desc = *desc;
  auto tensor = at::detail::make_tensor<c10::TensorImpl>(
      c10::Storage(std::move(storage)),
      c10::DispatchKeySet({c10::DispatchKey::PrivateUse1, c10::DispatchKey::AutocastXPU}), flat.dtype());
  tensor.unsafeGetTensorImpl()->set_sizes_contiguous(like.sizes());
  return tensor;
}

}  // namespace torch_npu
