// Layout ops of the dense family: Tensor.unfold (a view: metadata only,
// ATen's device-independent implementation).
#include <ATen/NativeFunctions.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/NPUTensorUtils.h"

namespace at_npu {
namespace native {

at::Tensor NPUNativeFunctions::unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return at::native::unfold(self, dimension, size, step);
}

}  // namespace native
}  // namespace at_npu
