// Tensor creation and storage management on the NPU: empty, empty_strided,
// empty_like, resize_, set_ (a storage or another tensor's), and reading a scalar back (.item()).
#include <ATen/EmptyTensor.h>
#include <ATen/NamedTensorUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty_like_native.h>
#include <c10/core/CPUAllocator.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"
#include "csrc/framework/NPUTensorFactory.h"
#include "csrc/framework/StorageResize.h"

namespace at_npu {
namespace native {

at::Tensor NPUNativeFunctions::empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                                     c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                                     c10::optional<bool> pin_memory,
                                     c10::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!pin_memory.value_or(false), "Only dense CPU tensors can be pinned");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided, "NPU tensors must be strided, got layout ",
              *layout);
  auto tensor = torch_npu::makeNpuTensor(size, c10::nullopt, c10::dtype_or_default(dtype), torch_npu::targetDeviceIndex(device));
  const auto mf = memory_format.value_or(at::MemoryFormat::Contiguous);
  if (mf != at::MemoryFormat::Contiguous) tensor.unsafeGetTensorImpl()->empty_tensor_restride(mf);
  return tensor;
}

// Named factories (torch.zeros(..., names=(...), device="npu")): PyTorch's
// empty.names admits only CPU, CUDA and XPU; names are device-independent
// metadata, so the NPU tensor gets them as a CPU one would.
at::Tensor NPUNativeFunctions::empty(at::IntArrayRef size, c10::optional<at::DimnameList> names,
                                     c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                                     c10::optional<at::Device> device, c10::optional<bool> pin_memory,
                                     c10::optional<at::MemoryFormat> memory_format) {
  at::Tensor tensor = empty(size, dtype, layout, device, pin_memory, memory_format);
  if (names.has_value()) at::internal_set_names_inplace(tensor, *names);
  return tensor;
}

at::Tensor NPUNativeFunctions::empty_strided(at::IntArrayRef size, at::IntArrayRef stride,
                                             c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> /*layout*/,
                                             c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  TORCH_CHECK(!pin_memory.value_or(false), "Only dense CPU tensors can be pinned");
  TORCH_CHECK(size.size() == stride.size(), "empty_strided: ", size.size(), " sizes but ", stride.size(),
              " strides");
  return torch_npu::makeNpuTensor(size, stride, c10::dtype_or_default(dtype), torch_npu::targetDeviceIndex(device));
}

// empty_like (and so zeros_like, ones_like, full_like, randn_like, ...) keeps
// the private storage format of a whole-storage source, as Ascend's torch_npu
// does (see copyKeepsPrivateFormat); anything else is PyTorch's empty_like.
at::Tensor NPUNativeFunctions::empty_like(const at::Tensor& self, c10::optional<at::ScalarType> dtype,
                                          c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                                          c10::optional<bool> pin_memory,
                                          c10::optional<at::MemoryFormat> memory_format) {
  const bool same_place = (!device.has_value() || *device == self.device()) &&
                          layout.value_or(at::kStrided) == at::kStrided && !pin_memory.value_or(false);
  if (same_place && !self.has_names() && torch_npu::copyKeepsPrivateFormat(self, memory_format)) {
    return torch_npu::makeNpuTensor(self.sizes(), c10::nullopt, dtype.value_or(self.scalar_type()),
                                    self.device().index(), torch_npu::npuFormatOf(self));
  }
  return at::native::empty_like(self, dtype, layout, device, pin_memory, memory_format);
}

const at::Tensor& NPUNativeFunctions::resize_(const at::Tensor& self, at::IntArrayRef size,
                                              c10::optional<at::MemoryFormat> memory_format) {
  at::detail::check_size_nonnegative(size);
  if (torch_npu::hasPrivateFormat(self)) {
    // A resized tensor is plain memory again: leave the private format first.
    at::Tensor base = torch_npu::formatCast(self, torch_npu::defaultBaseFormat(self.dim()));
    self.unsafeGetTensorImpl()->set_storage_keep_dtype(base.storage());
  }
  auto* impl = self.unsafeGetTensorImpl();
  const size_t itemsize = self.dtype().itemsize();
  const size_t needed = (impl->storage_offset() + c10::multiply_integers(size)) * itemsize;
  c10::StorageImpl* storage = impl->storage().unsafeGetStorageImpl();
  if (needed > storage->nbytes()) {
    torch_npu::resizeStorageBytes(storage, needed);
  }
  impl->set_sizes_contiguous(size);
  if (memory_format.has_value() && *memory_format != at::MemoryFormat::Preserve) {
    impl->empty_tensor_restride(*memory_format);
  }
  return self;
}

at::Tensor& NPUNativeFunctions::set_(at::Tensor& self, at::Storage source, int64_t storage_offset,
                                     at::IntArrayRef size, at::IntArrayRef stride) {
  TORCH_CHECK(source.device().type() == c10::DeviceType::PrivateUse1,
              "set_: cannot make an npu tensor view a storage on ", source.device());
  at::native::checkSetStorage(self, source, storage_offset, size, stride);
  self.unsafeGetTensorImpl()->set_storage_offset(storage_offset);
  if (stride.data() == nullptr) {
    self.unsafeGetTensorImpl()->set_sizes_contiguous(size);
  } else {
    self.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride);
  }
  return self;
}

at::Tensor& NPUNativeFunctions::set_(at::Tensor& self, at::Storage source) {
  const int64_t numel = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_(self, source, 0, {numel}, {});
}

at::Tensor& NPUNativeFunctions::set_(at::Tensor& self, const at::Tensor& source) {
  TORCH_CHECK(self.dtype() == source.dtype(), "set_: expected a source of dtype ", self.dtype(), ", got ",
              source.dtype());
  if (self.is_same(source)) return self;
  return set_(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Scalar NPUNativeFunctions::_local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  return self.cpu().item();
}

}  // namespace native
}  // namespace at_npu
