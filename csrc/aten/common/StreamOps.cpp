// Tensor.record_stream(stream): see Note [Caching allocator policy].
#include "PrivateUse1NativeFunctions.h"
#include "csrc/core/NPUCachingAllocator.h"

namespace at_npu {
namespace native {

void NPUNativeFunctions::record_stream(at::Tensor& self, at::Stream s) {
  TORCH_CHECK(s.device_type() == c10::DeviceType::PrivateUse1, "record_stream: expected an npu stream, got one of ",
              s.device());
  torch_npu::allocator::recordStream(self.storage().data_ptr(), torch_npu::NPUStream(s));
}

}  // namespace native
}  // namespace at_npu
