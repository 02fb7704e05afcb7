// Comparisons: both operands promoted to their common dtype, bool result.
// eq/ne/lt/le/gt/ge are structured kernels (Note [Structured NPU kernels]):
// these out= kernels also serve the functional and in-place forms, whose
// outputs PyTorch's meta functions size (bool, or self's dtype in place).
#include <ATen/ScalarOps.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ElementwiseOps.h"

namespace at_npu {
namespace native {
namespace {

at::Tensor& compareOut(const char* op, const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return torch_npu::binaryOut(op, self, other, torch_npu::commonType(self, other), at::kBool, out);
}

}  // namespace

at::Tensor& NPUNativeFunctions::eq_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return compareOut("Equal", self, other, out);
}
at::Tensor& NPUNativeFunctions::eq_out(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return compareOut("Equal", self, at::native::wrapped_scalar_tensor(other), out);
}

at::Tensor& NPUNativeFunctions::ne_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return compareOut("NotEqual", self, other, out);
}
at::Tensor& NPUNativeFunctions::ne_out(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return compareOut("NotEqual", self, at::native::wrapped_scalar_tensor(other), out);
}

at::Tensor& NPUNativeFunctions::lt_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return compareOut("Less", self, other, out);
}
at::Tensor& NPUNativeFunctions::lt_out(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return compareOut("Less", self, at::native::wrapped_scalar_tensor(other), out);
}

at::Tensor& NPUNativeFunctions::le_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return compareOut("LessEqual", self, other, out);
}
at::Tensor& NPUNativeFunctions::le_out(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return compareOut("LessEqual", self, at::native::wrapped_scalar_tensor(other), out);
}

at::Tensor& NPUNativeFunctions::gt_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return compareOut("Greater", self, other, out);
}
at::Tensor& NPUNativeFunctions::gt_out(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return compareOut("Greater", self, at::native::wrapped_scalar_tensor(other), out);
}

at::Tensor& NPUNativeFunctions::ge_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return compareOut("GreaterEqual", self, other, out);
}
at::Tensor& NPUNativeFunctions::ge_out(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return compareOut("GreaterEqual", self, at::native::wrapped_scalar_tensor(other), out);
}

// isnan(x) is x != x; logical_and compares both operands as bools.
at::Tensor NPUNativeFunctions::isnan(const at::Tensor& self) {
  return torch_npu::binaryNew("NotEqual", self, self, self.scalar_type(), at::kBool);
}
at::Tensor& NPUNativeFunctions::logical_and_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return torch_npu::binaryOut("LogicalAnd", self, other, at::kBool, at::kBool, out);
}

}  // namespace native
}  // namespace at_npu
