// Binary (and ternary) pointwise math: remainder/fmod, atan2, hypot,
// logaddexp(2), xlogy/xlog1py, copysign, fmax/fmin, nextafter, heaviside,
// igamma(c), gcd/lcm, the bitwise and shift ops, lerp, clamp with tensor
// bounds, logical_or/xor, floor_divide and rsub. Structured out= kernels
// where PyTorch's group is structured (Note [Structured NPU kernels]), in the
// common dtype (Note [Compute dtype of structured pointwise kernels]).
#include <ATen/native/BinaryOps.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/PointwiseMath.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;
using torch_npu::pointwiseInto;

// op(self, other) in the common dtype (`to_float`: integers promote to float).
at::Tensor& binary(const char* op, const at::Tensor& self, const at::Tensor& other, at::Tensor& out,
                   bool to_float) {
  const auto dtype = torch_npu::commonDtype({self, other}, to_float);
  return pointwiseInto(op, {self, other}, dtype, dtype, out);
}

// op(self, other) for integer (and, with allow_bool, bool) operands only.
at::Tensor& integerBinary(const char* name, const char* op, const at::Tensor& self, const at::Tensor& other,
                          at::Tensor& out, bool allow_bool) {
  const auto dtype = torch_npu::commonDtype({self, other}, false);
  TORCH_CHECK(at::isIntegralType(dtype, allow_bool), name, " is only supported for integer",
              allow_bool ? " and boolean" : "", " tensors, got ", dtype);
  return pointwiseInto(op, {self, other}, dtype, dtype, out);
}

}  // namespace

// ---- float ops (integers promote to float) and same-dtype ops ---------------------------------
at::Tensor& NPUNativeFunctions::remainder_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("FloorMod", self, other, out, /*to_float=*/false);
}
at::Tensor& NPUNativeFunctions::fmod_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Mod", self, other, out, /*to_float=*/false);
}
at::Tensor& NPUNativeFunctions::atan2_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Atan2", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::hypot_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Hypot", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::logaddexp_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("LogAddExp", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::logaddexp2_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("LogAddExp2", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::xlogy_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Xlogy", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_xlog1py_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Xlog1py", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::copysign_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Copysign", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::igamma_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Igamma", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::igammac_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Igammac", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::fmax_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Fmax", self, other, out, /*to_float=*/false);
}
at::Tensor& NPUNativeFunctions::fmin_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Fmin", self, other, out, /*to_float=*/false);
}
at::Tensor& NPUNativeFunctions::heaviside_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Heaviside", self, other, out, /*to_float=*/false);
}

// ---- special_zeta and the orthogonal polynomials (x, n: the degree is truncated) ---------------
at::Tensor& NPUNativeFunctions::special_zeta_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("Zeta", self, other, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_chebyshev_polynomial_t_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ChebyshevPolynomialT", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_chebyshev_polynomial_u_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ChebyshevPolynomialU", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_chebyshev_polynomial_v_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ChebyshevPolynomialV", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_chebyshev_polynomial_w_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ChebyshevPolynomialW", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_shifted_chebyshev_polynomial_t_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ShiftedChebyshevPolynomialT", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_shifted_chebyshev_polynomial_u_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ShiftedChebyshevPolynomialU", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_shifted_chebyshev_polynomial_v_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ShiftedChebyshevPolynomialV", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_shifted_chebyshev_polynomial_w_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("ShiftedChebyshevPolynomialW", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_hermite_polynomial_h_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("HermitePolynomialH", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_hermite_polynomial_he_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("HermitePolynomialHe", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_laguerre_polynomial_l_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("LaguerrePolynomialL", x, n, out, /*to_float=*/true);
}
at::Tensor& NPUNativeFunctions::special_legendre_polynomial_p_out(const at::Tensor& x, const at::Tensor& n, at::Tensor& out) {
  return binary("LegendrePolynomialP", x, n, out, /*to_float=*/true);
}

at::Tensor& NPUNativeFunctions::nextafter_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  const auto dtype = torch_npu::commonDtype({self, other}, false);
  TORCH_CHECK(dtype == at::kFloat, "nextafter on the NPU supports float32 tensors only, got ", dtype);
  return pointwiseInto("NextAfter", {self, other}, dtype, dtype, out);
}

// ---- integer ops -------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::gcd_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return integerBinary("gcd", "Gcd", self, other, out, /*allow_bool=*/false);
}
at::Tensor& NPUNativeFunctions::lcm_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return integerBinary("lcm", "Lcm", self, other, out, /*allow_bool=*/false);
}
at::Tensor& NPUNativeFunctions::bitwise_and_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return integerBinary("bitwise_and", "BitwiseAnd", self, other, out, /*allow_bool=*/true);
}
at::Tensor& NPUNativeFunctions::bitwise_or_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return integerBinary("bitwise_or", "BitwiseOr", self, other, out, /*allow_bool=*/true);
}
at::Tensor& NPUNativeFunctions::bitwise_xor_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return integerBinary("bitwise_xor", "BitwiseXor", self, other, out, /*allow_bool=*/true);
}
at::Tensor& NPUNativeFunctions::bitwise_left_shift_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return integerBinary("bitwise_left_shift", "LeftShift", self, other, out, /*allow_bool=*/false);
}
at::Tensor& NPUNativeFunctions::bitwise_right_shift_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return integerBinary("bitwise_right_shift", "RightShift", self, other, out, /*allow_bool=*/false);
}

// x << y, x >> y, x <<= y, x >>= y: Python's operators, not structured upstream.
at::Tensor NPUNativeFunctions::__lshift__(const at::Tensor& self, const at::Tensor& other) {
  return at::bitwise_left_shift(self, other);
}
at::Tensor NPUNativeFunctions::__lshift__(const at::Tensor& self, const at::Scalar& other) {
  return at::bitwise_left_shift(self, at::native::wrapped_scalar_tensor(other));
}
at::Tensor NPUNativeFunctions::__rshift__(const at::Tensor& self, const at::Tensor& other) {
  return at::bitwise_right_shift(self, other);
}
at::Tensor NPUNativeFunctions::__rshift__(const at::Tensor& self, const at::Scalar& other) {
  return at::bitwise_right_shift(self, at::native::wrapped_scalar_tensor(other));
}

at::Tensor& NPUNativeFunctions::__ilshift__(at::Tensor& self, const at::Tensor& other) {
  return self.bitwise_left_shift_(other);
}
at::Tensor& NPUNativeFunctions::__ilshift__(at::Tensor& self, const at::Scalar& other) {
  return self.bitwise_left_shift_(at::native::wrapped_scalar_tensor(other));
}
at::Tensor& NPUNativeFunctions::__irshift__(at::Tensor& self, const at::Tensor& other) {
  return self.bitwise_right_shift_(other);
}
at::Tensor& NPUNativeFunctions::__irshift__(at::Tensor& self, const at::Scalar& other) {
  return self.bitwise_right_shift_(at::native::wrapped_scalar_tensor(other));
}

// remainder(Scalar, Tensor): the scalar wrapped as a 0-d tensor.
at::Tensor NPUNativeFunctions::remainder(const at::Scalar& self, const at::Tensor& other) {
  return at::remainder(at::native::wrapped_scalar_tensor(self), other);
}

// ---- lerp: start + weight * (end - start), two-sided for accuracy ---------------------------
at::Tensor& NPUNativeFunctions::lerp_out(const at::Tensor& self, const at::Tensor& end, const at::Scalar& weight,
                                         at::Tensor& out) {
  const auto dtype = self.scalar_type();
  return pointwiseInto("Lerp", {self, end, at::native::wrapped_scalar_tensor(weight)}, dtype, dtype, out);
}
at::Tensor& NPUNativeFunctions::lerp_out(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight,
                                         at::Tensor& out) {
  const auto dtype = self.scalar_type();
  return pointwiseInto("Lerp", {self, end, weight}, dtype, dtype, out);
}

// ---- clamp with tensor bounds: ClipByValue for both, Maximum/Minimum for one ----------------
at::Tensor& NPUNativeFunctions::clamp_out(const at::Tensor& self, const c10::optional<at::Tensor>& min,
                                          const c10::optional<at::Tensor>& max, at::Tensor& out) {
  const bool has_min = min.has_value() && min->defined(), has_max = max.has_value() && max->defined();
  if (has_min && has_max) {
    const auto dtype = torch_npu::commonDtype({self, *min, *max}, false);
    return pointwiseInto("ClipByValue", {self, *min, *max}, dtype, dtype, out);
  }
  return has_min ? binary("Maximum", self, *min, out, false) : binary("Minimum", self, *max, out, false);
}
at::Tensor& NPUNativeFunctions::clamp_min_out(const at::Tensor& self, const at::Tensor& min, at::Tensor& out) {
  return binary("Maximum", self, min, out, false);
}
at::Tensor& NPUNativeFunctions::clamp_max_out(const at::Tensor& self, const at::Tensor& max, at::Tensor& out) {
  return binary("Minimum", self, max, out, false);
}

// ---- logical_or / logical_xor: on the operands as bools -----------------------------------
at::Tensor& NPUNativeFunctions::logical_or_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return pointwiseInto("LogicalOr", {self, other}, at::kBool, at::kBool, out);
}
at::Tensor& NPUNativeFunctions::logical_xor_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return pointwiseInto("NotEqual", {self, other}, at::kBool, at::kBool, out);
}

// ---- floor_divide (floor rounding since PyTorch 1.13) ----------------------------------------
at::Tensor& NPUNativeFunctions::floor_divide_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return binary("FloorDiv", self, other, out, false);
}
at::Tensor NPUNativeFunctions::floor_divide(const at::Tensor& self, const at::Tensor& other) {
  at::Tensor out = torch_npu::pointwiseResult({self, other}, torch_npu::commonDtype({self, other}, false));
  return floor_divide_out(self, other, out);
}
at::Tensor& NPUNativeFunctions::floor_divide_(at::Tensor& self, const at::Tensor& other) {
  torch_npu::checkInplaceShape(self, other);
  return floor_divide_out(self, other, self);
}

// ---- rsub: other - alpha * self -------------------------------------------------------------
at::Tensor NPUNativeFunctions::rsub(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return at::sub(other, self, alpha);
}

}  // namespace native
}  // namespace at_npu
