// _foreach_* ops (optimizers with foreach=True: SGD, Adam, AdamW). ATen's
// "slow" reference loops apply the per-tensor op to each list element, which
// dispatches back to the NPU kernels; the NPU has no fused multi-tensor
// kernels yet. (Written from the CPU kernel names in native_functions.yaml.)
#include <ATen/NativeFunctions.h>

#include "PrivateUse1NativeFunctions.h"

namespace at_npu {
namespace native {

::std::vector<at::Tensor> NPUNativeFunctions::_foreach_add(at::TensorList self, const at::Scalar & scalar) {
  return at::native::foreach_tensor_add_scalar_kernel_slow(self, scalar);
}
void NPUNativeFunctions::_foreach_add_(at::TensorList self, const at::Scalar & scalar) {
  at::native::foreach_tensor_add_scalar_kernel_slow_(self, scalar);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_sub(at::TensorList self, const at::Scalar & scalar) {
  return at::native::foreach_tensor_sub_scalar_kernel_slow(self, scalar);
}
void NPUNativeFunctions::_foreach_sub_(at::TensorList self, const at::Scalar & scalar) {
  at::native::foreach_tensor_sub_scalar_kernel_slow_(self, scalar);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_mul(at::TensorList self, const at::Scalar & scalar) {
  return at::native::foreach_tensor_mul_scalar_kernel_slow(self, scalar);
}
void NPUNativeFunctions::_foreach_mul_(at::TensorList self, const at::Scalar & scalar) {
  at::native::foreach_tensor_mul_scalar_kernel_slow_(self, scalar);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_div(at::TensorList self, const at::Scalar & scalar) {
  return at::native::foreach_tensor_div_scalar_kernel_slow(self, scalar);
}
void NPUNativeFunctions::_foreach_div_(at::TensorList self, const at::Scalar & scalar) {
  at::native::foreach_tensor_div_scalar_kernel_slow_(self, scalar);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_add(at::TensorList self, at::TensorList other, const at::Scalar & alpha) {
  return at::native::foreach_tensor_add_list_kernel_slow(self, other, alpha);
}
void NPUNativeFunctions::_foreach_add_(at::TensorList self, at::TensorList other, const at::Scalar & alpha) {
  at::native::foreach_tensor_add_list_kernel_slow_(self, other, alpha);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_sub(at::TensorList self, at::TensorList other, const at::Scalar & alpha) {
  return at::native::foreach_tensor_sub_list_kernel_slow(self, other, alpha);
}
void NPUNativeFunctions::_foreach_sub_(at::TensorList self, at::TensorList other, const at::Scalar & alpha) {
  at::native::foreach_tensor_sub_list_kernel_slow_(self, other, alpha);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_mul(at::TensorList self, at::TensorList other) {
  return at::native::foreach_tensor_mul_list_kernel_slow(self, other);
}
void NPUNativeFunctions::_foreach_mul_(at::TensorList self, at::TensorList other) {
  at::native::foreach_tensor_mul_list_kernel_slow_(self, other);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_div(at::TensorList self, at::TensorList other) {
  return at::native::foreach_tensor_div_list_kernel_slow(self, other);
}
void NPUNativeFunctions::_foreach_div_(at::TensorList self, at::TensorList other) {
  at::native::foreach_tensor_div_list_kernel_slow_(self, other);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_add(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  return at::native::foreach_tensor_add_scalarlist_kernel_slow(self, scalars);
}
void NPUNativeFunctions::_foreach_add_(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  at::native::foreach_tensor_add_scalarlist_kernel_slow_(self, scalars);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_sub(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  return at::native::foreach_tensor_sub_scalarlist_kernel_slow(self, scalars);
}
void NPUNativeFunctions::_foreach_sub_(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  at::native::foreach_tensor_sub_scalarlist_kernel_slow_(self, scalars);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_div(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  return at::native::foreach_tensor_div_scalarlist_kernel_slow(self, scalars);
}
void NPUNativeFunctions::_foreach_div_(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  at::native::foreach_tensor_div_scalarlist_kernel_slow_(self, scalars);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_mul(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  return at::native::foreach_tensor_mul_scalarlist_kernel_slow(self, scalars);
}
void NPUNativeFunctions::_foreach_mul_(at::TensorList self, at::ArrayRef<at::Scalar> scalars) {
  at::native::foreach_tensor_mul_scalarlist_kernel_slow_(self, scalars);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_exp(at::TensorList self) {
  return at::native::foreach_tensor_exp_slow(self);
}
void NPUNativeFunctions::_foreach_zero_(at::TensorList self) {
  at::native::foreach_tensor_zero_slow_(self);
}
void NPUNativeFunctions::_foreach_exp_(at::TensorList self) {
  at::native::foreach_tensor_exp_slow_(self);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_sqrt(at::TensorList self) {
  return at::native::foreach_tensor_sqrt_slow(self);
}
void NPUNativeFunctions::_foreach_sqrt_(at::TensorList self) {
  at::native::foreach_tensor_sqrt_slow_(self);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_abs(at::TensorList self) {
  return at::native::foreach_tensor_abs_slow(self);
}
void NPUNativeFunctions::_foreach_abs_(at::TensorList self) {
  at::native::foreach_tensor_abs_slow_(self);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_neg(at::TensorList self) {
  return at::native::foreach_tensor_neg_slow(self);
}
void NPUNativeFunctions::_foreach_neg_(at::TensorList self) {
  at::native::foreach_tensor_neg_slow_(self);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_reciprocal(at::TensorList self) {
  return at::native::foreach_tensor_reciprocal_slow(self);
}
void NPUNativeFunctions::_foreach_reciprocal_(at::TensorList self) {
  at::native::foreach_tensor_reciprocal_slow_(self);
}
void NPUNativeFunctions::_foreach_addcdiv_(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, const at::Scalar & value) {
  at::native::foreach_tensor_addcdiv_scalar_slow_(self, tensor1, tensor2, value);
}
void NPUNativeFunctions::_foreach_addcmul_(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, const at::Scalar & value) {
  at::native::foreach_tensor_addcmul_scalar_slow_(self, tensor1, tensor2, value);
}
void NPUNativeFunctions::_foreach_addcdiv_(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, at::ArrayRef<at::Scalar> scalars) {
  at::native::foreach_tensor_addcdiv_scalarlist_slow_(self, tensor1, tensor2, scalars);
}
void NPUNativeFunctions::_foreach_addcmul_(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, at::ArrayRef<at::Scalar> scalars) {
  at::native::foreach_tensor_addcmul_scalarlist_slow_(self, tensor1, tensor2, scalars);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_addcdiv(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, const at::Scalar & value) {
  return at::native::foreach_tensor_addcdiv_scalar_slow(self, tensor1, tensor2, value);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_addcmul(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, const at::Scalar & value) {
  return at::native::foreach_tensor_addcmul_scalar_slow(self, tensor1, tensor2, value);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_addcdiv(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, at::ArrayRef<at::Scalar> scalars) {
  return at::native::foreach_tensor_addcdiv_scalarlist_slow(self, tensor1, tensor2, scalars);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_addcmul(at::TensorList self, at::TensorList tensor1, at::TensorList tensor2, at::ArrayRef<at::Scalar> scalars) {
  return at::native::foreach_tensor_addcmul_scalarlist_slow(self, tensor1, tensor2, scalars);
}
::std::vector<at::Tensor> NPUNativeFunctions::_foreach_maximum(at::TensorList self, at::TensorList other) {
  return at::native::foreach_tensor_maximum_slow(self, other);
}
void NPUNativeFunctions::_foreach_maximum_(at::TensorList self, at::TensorList other) {
  at::native::foreach_tensor_maximum_slow_(self, other);
}

}  // namespace native
}  // namespace at_npu
