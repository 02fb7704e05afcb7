// View ops only touch metadata, so ATen's device-independent implementations
// are reused; the NPU still needs them registered on PrivateUse1.
#include <ATen/NativeFunctions.h>

#include "PrivateUse1NativeFunctions.h"

namespace at_npu {
namespace native {

at::Tensor NPUNativeFunctions::view(const at::Tensor& self, at::IntArrayRef size) {
  return at::native::view(self, size);
}

at::Tensor NPUNativeFunctions::as_strided(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride,
                                          c10::optional<int64_t> storage_offset) {
  return at::native::as_strided_tensorimpl(self, size, stride, storage_offset);
}

at::Tensor NPUNativeFunctions::_reshape_alias(const at::Tensor& self, at::IntArrayRef size,
                                              at::IntArrayRef stride) {
  return at::native::_reshape_alias(self, size, stride);
}

// Whether self views exactly what tensor views (storage, offset, sizes, strides): metadata only.
bool NPUNativeFunctions::is_set_to(const at::Tensor& self, const at::Tensor& tensor) {
  return at::native::is_set_to(self, tensor);
}

}  // namespace native
}  // namespace at_npu
