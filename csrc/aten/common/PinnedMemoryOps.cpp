// tensor.pin_memory("npu") / tensor.is_pinned("npu"): torch dispatches
// _pin_memory and is_pinned by their device argument (BackendSelect), so a
// CPU tensor reaches these PrivateUse1 kernels when the device is the NPU.
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/core/PinnedMemory.h"

namespace at_npu {
namespace native {

bool NPUNativeFunctions::is_pinned(const at::Tensor& self, c10::optional<at::Device> /*device*/) {
  if (!self.is_cpu()) return false;  // as CUDA's: only host memory can be pinned
  return torch_npu::isPinnedHostPointer(self.storage().data());
}

at::Tensor NPUNativeFunctions::_pin_memory(const at::Tensor& self, c10::optional<at::Device> /*device*/) {
  TORCH_CHECK(self.is_cpu() && self.layout() == at::kStrided,
              "pin_memory: only dense CPU tensors can be pinned, got a tensor on ", self.device(),
              " with layout ", self.layout());
  const size_t nbytes = at::detail::computeStorageNbytes(self.sizes(), self.strides(), self.dtype().itemsize());
  c10::Storage storage(c10::Storage::use_byte_size_t(), nbytes, torch_npu::pinnedHostAllocator(), false);
  at::Tensor pinned = at::empty({0}, self.options()).set_(storage, 0, self.sizes(), self.strides());
  pinned.copy_(self);
  return pinned;
}

}  // namespace native
}  // namespace at_npu
