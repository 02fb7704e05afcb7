// Unary elementwise ops. Floating ops (exp, log, ...) promote integer inputs
// to the default float dtype, as PyTorch does; neg/sign/abs keep the dtype.
// Most are structured kernels (Note [Structured NPU kernels]): the out=
// kernel here also serves the functional and in-place forms.
#include <ATen/ScalarOps.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ComplexOps.h"
#include "csrc/aten/pointwise/ElementwiseOps.h"

namespace at_npu {
namespace native {

using torch_npu::floatOpType;
using torch_npu::unaryNew;
using torch_npu::unaryOut;

at::Tensor& NPUNativeFunctions::exp_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Exp", self, floatOpType(self), floatOpType(self), out);
}

at::Tensor& NPUNativeFunctions::log_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Log", self, floatOpType(self), floatOpType(self), out);
}

at::Tensor& NPUNativeFunctions::sqrt_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Sqrt", self, floatOpType(self), floatOpType(self), out);
}

at::Tensor& NPUNativeFunctions::rsqrt_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Rsqrt", self, floatOpType(self), floatOpType(self), out);
}

at::Tensor& NPUNativeFunctions::sigmoid_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Sigmoid", self, floatOpType(self), floatOpType(self), out);
}

at::Tensor& NPUNativeFunctions::tanh_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Tanh", self, floatOpType(self), floatOpType(self), out);
}

at::Tensor& NPUNativeFunctions::reciprocal_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Reciprocal", self, floatOpType(self), floatOpType(self), out);
}

at::Tensor& NPUNativeFunctions::neg_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Neg", self, self.scalar_type(), self.scalar_type(), out);
}

at::Tensor& NPUNativeFunctions::sign_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("Sign", self, self.scalar_type(), self.scalar_type(), out);
}

// sgn is sign for real dtypes (autograd of abs uses it), z / |z| for complex ones.
at::Tensor& NPUNativeFunctions::sgn_out(const at::Tensor& self, at::Tensor& out) {
  if (self.is_complex()) return torch_npu::complexUnaryInto("Sign", self, at::kComplexFloat, out);
  return sign_out(self, out);
}

at::Tensor& NPUNativeFunctions::abs_out(const at::Tensor& self, at::Tensor& out) {
  if (self.is_complex()) return torch_npu::complexUnaryInto("ComplexAbs", self, at::kFloat, out);
  return unaryOut("Abs", self, self.scalar_type(), self.scalar_type(), out);
}

// abs is not structured in PyTorch 1.13: its composite would hand abs_out a
// fresh ND tensor, so a private-format input would go through TransData. The
// functional and in-place forms keep the input's format, as the other
// elementwise ops do.
at::Tensor NPUNativeFunctions::abs(const at::Tensor& self) {
  if (self.is_complex()) {
    at::Tensor out = at::empty({0}, self.options().dtype(at::kFloat));
    return torch_npu::complexUnaryInto("ComplexAbs", self, at::kFloat, out);
  }
  return unaryNew("Abs", self, self.scalar_type(), self.scalar_type());
}
at::Tensor& NPUNativeFunctions::abs_(at::Tensor& self) {
  TORCH_CHECK(!self.is_complex(), "In-place abs is not supported for complex tensors.");
  return unaryOut("Abs", self, self.scalar_type(), self.scalar_type(), self);
}

at::Tensor NPUNativeFunctions::relu(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  return unaryNew("Relu", self, self.scalar_type(), self.scalar_type());
}
at::Tensor& NPUNativeFunctions::relu_(at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  return unaryOut("Relu", self, self.scalar_type(), self.scalar_type(), self);
}

// ~x: LogicalNot for bool, -x - 1 (two's complement) for integers.
at::Tensor& NPUNativeFunctions::bitwise_not_out(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(at::isIntegralType(self.scalar_type(), /*includeBool=*/true),
              "bitwise_not is only supported for integer and boolean tensors, got ", self.scalar_type());
  if (self.scalar_type() == at::kBool) return unaryOut("LogicalNot", self, at::kBool, at::kBool, out);
  at::Tensor negated = unaryNew("Neg", self, self.scalar_type(), self.scalar_type());
  return torch_npu::binaryOut("Sub", negated, at::native::wrapped_scalar_tensor(1), self.scalar_type(),
                              self.scalar_type(), out);
}

at::Tensor& NPUNativeFunctions::logical_not_out(const at::Tensor& self, at::Tensor& out) {
  return unaryOut("LogicalNot", self, at::kBool, at::kBool, out);
}

}  // namespace native
}  // namespace at_npu
