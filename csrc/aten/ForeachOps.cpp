// _foreach_* ops (optimizers with foreach=True). ATen's "slow" reference
// loops apply the per-tensor op to each element of the list, which dispatches
// back to the NPU kernels — the NPU has no fused multi-tensor kernels yet.
#include <ATen/NativeFunctions.h>

#include "PrivateUse1NativeFunctions.h"

namespace at_npu {
namespace native {

::std::vector<at::Tensor> NPUNativeFunctions::_foreach_add(at::TensorList self, at::TensorList other,
                                                           const at::Scalar& alpha) {
  return at::native::foreach_tensor_add_list_kernel_slow(self, other, alpha);
}
void NPUNativeFunctions::_foreach_add_(at::TensorList self, at::TensorList other, const at::Scalar& alpha) {
  at::native::foreach_tensor_add_list_kernel_slow_(self, other, alpha);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_add(at::TensorList self, const at::Scalar& scalar) {
  return at::native::foreach_tensor_add_scalar_kernel_slow(self, scalar);
}
void NPUNativeFunctions::_foreach_add_(at::TensorList self, const at::Scalar& scalar) {
  at::native::foreach_tensor_add_scalar_kernel_slow_(self, scalar);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_mul(at::TensorList self, const at::Scalar& scalar) {
  return at::native::foreach_tensor_mul_scalar_kernel_slow(self, scalar);
}
void NPUNativeFunctions::_foreach_mul_(at::TensorList self, const at::Scalar& scalar) {
  at::native::foreach_tensor_mul_scalar_kernel_slow_(self, scalar);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_mul(at::TensorList self, at::TensorList other) {
  return at::native::foreach_tensor_mul_list_kernel_slow(self, other);
}
void NPUNativeFunctions::_foreach_mul_(at::TensorList self, at::TensorList other) {
  at::native::foreach_tensor_mul_list_kernel_slow_(self, other);
}
void NPUNativeFunctions::_foreach_zero_(at::TensorList self) { at::native::foreach_tensor_zero_slow_(self); }

}  // namespace native
}  // namespace at_npu
