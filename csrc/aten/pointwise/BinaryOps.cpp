// Broadcasting binary arithmetic: add, sub, mul, div, maximum, minimum, pow.
// Type promotion follows PyTorch (at::result_type, wrapped Python numbers);
// the op runs in the promoted dtype and the result is cast into `out`.
#include <ATen/ExpandUtils.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/TensorIterator.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ElementwiseOps.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::binaryNew;
using torch_npu::binaryOut;

at::ScalarType trueDivisionType(const at::Tensor& self, const at::Tensor& other) {
  const auto common = torch_npu::commonType(self, other);
  return at::isIntegralType(common, /*includeBool=*/true) ? c10::typeMetaToScalarType(at::get_default_dtype())
                                                          : common;
}

at::Tensor& addSubOut(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out,
                      bool subtract) {
  const auto common = torch_npu::commonType(self, other);
  at::native::alpha_check(common, alpha);
  if (subtract) at::native::sub_check(self, other);
  if (alpha.equal(1)) return binaryOut(subtract ? "Sub" : "Add", self, other, common, common, out);
  if (at::isFloatingType(common)) {
    const float a = subtract ? -alpha.to<float>() : alpha.to<float>();
    const auto sizes = at::infer_size(self.sizes(), other.sizes());
    return torch_npu::runInto("Axpy", out, sizes, common, [&](torch_npu::OpCommand& cmd) {
      torch_npu::addInputAs(cmd, self, common);
      torch_npu::addInputAs(cmd, other, common);
      cmd.Attr("alpha", a).FormatAgnostic();
    });
  }
  at::Tensor scaled = binaryNew("Mul", other, at::native::wrapped_scalar_tensor(alpha), common, common);
  return binaryOut(subtract ? "Sub" : "Add", self, scaled, common, common, out);
}

at::Tensor& divOut(const at::Tensor& self, const at::Tensor& other, c10::optional<c10::string_view> mode,
                   at::Tensor& out) {
  if (!mode.has_value()) {
    const auto type = trueDivisionType(self, other);
    return binaryOut("RealDiv", self, other, type, type, out);
  }
  TORCH_CHECK(*mode == "floor" || *mode == "trunc", "div expected rounding_mode to be one of None, 'trunc', or "
              "'floor' but found '", *mode, "'");
  const auto common = torch_npu::commonType(self, other);
  return binaryOut(*mode == "floor" ? "FloorDiv" : "TruncateDiv", self, other, common, common, out);
}

}  // namespace

// Structured kernels (Note [Structured NPU kernels]): PyTorch's meta functions
// (TensorIterator) have checked broadcasting and in-place shapes and sized
// `out`; each out= kernel also serves the functional and in-place forms.

// ---- add / sub ------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::add_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                                        at::Tensor& out) {
  return addSubOut(self, other, alpha, out, false);
}
at::Tensor& NPUNativeFunctions::sub_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                                        at::Tensor& out) {
  return addSubOut(self, other, alpha, out, true);
}

// ---- mul / div ----------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  const auto common = torch_npu::commonType(self, other);
  return binaryOut("Mul", self, other, common, common, out);
}
at::Tensor& NPUNativeFunctions::div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return divOut(self, other, c10::nullopt, out);
}
at::Tensor& NPUNativeFunctions::div_out(const at::Tensor& self, const at::Tensor& other,
                                        c10::optional<c10::string_view> rounding_mode, at::Tensor& out) {
  return divOut(self, other, rounding_mode, out);
}

// ---- maximum / minimum ----------------------------------------------------------------
at::Tensor& NPUNativeFunctions::maximum_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  const auto common = torch_npu::commonType(self, other);
  return binaryOut("Maximum", self, other, common, common, out);
}
at::Tensor& NPUNativeFunctions::minimum_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  const auto common = torch_npu::commonType(self, other);
  return binaryOut("Minimum", self, other, common, common, out);
}

// ---- pow ----------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::pow_out(const at::Tensor& self, const at::Tensor& exponent, at::Tensor& out) {
  const auto common = at::result_type(self, exponent);
  return binaryOut("Pow", self, exponent, common, common, out);
}
at::Tensor& NPUNativeFunctions::pow_out(const at::Tensor& self, const at::Scalar& exponent, at::Tensor& out) {
  return pow_out(self, at::native::wrapped_scalar_tensor(exponent), out);
}
at::Tensor& NPUNativeFunctions::pow_out(const at::Scalar& self, const at::Tensor& exponent, at::Tensor& out) {
  return pow_out(at::native::wrapped_scalar_tensor(self), exponent, out);
}

// _add_relu (torch.fx / JIT fusion of add + relu): Add then Relu in place.
at::Tensor NPUNativeFunctions::_add_relu(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return at::add(self, other, alpha).relu_();
}

at::Tensor& NPUNativeFunctions::_add_relu_(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return self.add_(other, alpha).relu_();
}

at::Tensor& NPUNativeFunctions::_add_relu_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                                              at::Tensor& out) {
  return at::add_out(out, self, other, alpha).relu_();
}

}  // namespace native
}  // namespace at_npu
