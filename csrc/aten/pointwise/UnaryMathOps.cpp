// Unary pointwise math: rounding, exponentials/logarithms, trigonometric and
// hyperbolic functions, special functions, float classification, nan_to_num
// and logit. Most are structured out= kernels (Note [Structured NPU
// kernels]); each runs one Vector op of OPS.md "Pointwise math and
// activations" in the common dtype (Note [Compute dtype of structured
// pointwise kernels]).
#include <limits>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ComplexOps.h"
#include "csrc/aten/pointwise/PointwiseMath.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::AttrSetter;
using torch_npu::OpCommand;

// Ops that keep the dtype (integers included): floor, ceil, trunc, round.
at::Tensor& sameDtypeUnary(const char* op, const at::Tensor& self, at::Tensor& out, const AttrSetter& attrs = nullptr) {
  const auto dtype = self.scalar_type();
  return torch_npu::pointwiseInto(op, {self}, dtype, dtype, out, attrs);
}

// Float ops: integer inputs promote to the default float dtype.
at::Tensor& floatUnary(const char* op, const at::Tensor& self, at::Tensor& out, const AttrSetter& attrs = nullptr) {
  const auto dtype = torch_npu::commonDtype({self}, /*to_float=*/true);
  return torch_npu::pointwiseInto(op, {self}, dtype, dtype, out, attrs);
}

// Bool-valued ops (signbit, isposinf, isneginf) read self in its own dtype.
at::Tensor& boolUnary(const char* op, const at::Tensor& self, at::Tensor& out) {
  return torch_npu::pointwiseInto(op, {self}, self.scalar_type(), at::kBool, out);
}

AttrSetter baseAttr(float base) {
  return [base](OpCommand& cmd) { cmd.Attr("base", base); };
}

}  // namespace

// ---- float ops (integers promote to float): the aten out= kernel and its Vector op ------------
at::Tensor& NPUNativeFunctions::erf_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Erf", self, out);
}
at::Tensor& NPUNativeFunctions::erfc_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Erfc", self, out);
}
at::Tensor& NPUNativeFunctions::erfinv_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Erfinv", self, out);
}
at::Tensor& NPUNativeFunctions::expm1_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Expm1", self, out);
}
at::Tensor& NPUNativeFunctions::log1p_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Log1p", self, out);
}
at::Tensor& NPUNativeFunctions::log2_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Log", self, out, baseAttr(2));
}
at::Tensor& NPUNativeFunctions::log10_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Log", self, out, baseAttr(10));
}
at::Tensor& NPUNativeFunctions::exp2_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Exp", self, out, baseAttr(2));
}
at::Tensor& NPUNativeFunctions::sin_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Sin", self, out);
}
at::Tensor& NPUNativeFunctions::cos_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Cos", self, out);
}
at::Tensor& NPUNativeFunctions::tan_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Tan", self, out);
}
at::Tensor& NPUNativeFunctions::asin_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Asin", self, out);
}
at::Tensor& NPUNativeFunctions::acos_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Acos", self, out);
}
at::Tensor& NPUNativeFunctions::atan_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Atan", self, out);
}
at::Tensor& NPUNativeFunctions::sinh_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Sinh", self, out);
}
at::Tensor& NPUNativeFunctions::cosh_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Cosh", self, out);
}
at::Tensor& NPUNativeFunctions::asinh_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Asinh", self, out);
}
at::Tensor& NPUNativeFunctions::acosh_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Acosh", self, out);
}
at::Tensor& NPUNativeFunctions::atanh_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Atanh", self, out);
}
at::Tensor& NPUNativeFunctions::sinc_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Sinc", self, out);
}
at::Tensor& NPUNativeFunctions::lgamma_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Lgamma", self, out);
}
at::Tensor& NPUNativeFunctions::digamma_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Digamma", self, out);
}
at::Tensor& NPUNativeFunctions::i0_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselI0", self, out);
}
at::Tensor& NPUNativeFunctions::special_i0e_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselI0e", self, out);
}
at::Tensor& NPUNativeFunctions::special_i1_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselI1", self, out);
}
at::Tensor& NPUNativeFunctions::special_i1e_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselI1e", self, out);
}
at::Tensor& NPUNativeFunctions::special_ndtri_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Ndtri", self, out);
}
at::Tensor& NPUNativeFunctions::special_log_ndtr_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("LogNdtr", self, out);
}
at::Tensor& NPUNativeFunctions::special_erfcx_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Erfcx", self, out);
}
at::Tensor& NPUNativeFunctions::special_entr_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("Entr", self, out);
}

at::Tensor& NPUNativeFunctions::special_bessel_j0_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselJ0", self, out);
}
at::Tensor& NPUNativeFunctions::special_bessel_j1_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselJ1", self, out);
}
at::Tensor& NPUNativeFunctions::special_bessel_y0_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselY0", self, out);
}
at::Tensor& NPUNativeFunctions::special_bessel_y1_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselY1", self, out);
}
at::Tensor& NPUNativeFunctions::special_modified_bessel_i0_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselI0", self, out);
}
at::Tensor& NPUNativeFunctions::special_modified_bessel_i1_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselI1", self, out);
}
at::Tensor& NPUNativeFunctions::special_modified_bessel_k0_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselK0", self, out);
}
at::Tensor& NPUNativeFunctions::special_modified_bessel_k1_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselK1", self, out);
}
at::Tensor& NPUNativeFunctions::special_scaled_modified_bessel_k0_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselK0e", self, out);
}
at::Tensor& NPUNativeFunctions::special_scaled_modified_bessel_k1_out(const at::Tensor& self, at::Tensor& out) {
  return floatUnary("BesselK1e", self, out);
}
at::Tensor& NPUNativeFunctions::special_spherical_bessel_j0_out(const at::Tensor& x, at::Tensor& out) {
  return floatUnary("SphericalBesselJ0", x, out);
}
at::Tensor& NPUNativeFunctions::special_airy_ai_out(const at::Tensor& x, at::Tensor& out) {
  return floatUnary("AiryAi", x, out);
}

// ---- rounding (integers are returned unchanged, as on the CPU) ---------------------------
at::Tensor& NPUNativeFunctions::floor_out(const at::Tensor& self, at::Tensor& out) {
  return sameDtypeUnary("Floor", self, out);
}
at::Tensor& NPUNativeFunctions::ceil_out(const at::Tensor& self, at::Tensor& out) {
  return sameDtypeUnary("Ceil", self, out);
}
at::Tensor& NPUNativeFunctions::trunc_out(const at::Tensor& self, at::Tensor& out) {
  return sameDtypeUnary("Trunc", self, out);
}
at::Tensor& NPUNativeFunctions::round_out(const at::Tensor& self, at::Tensor& out) {
  return sameDtypeUnary("Round", self, out);
}
at::Tensor& NPUNativeFunctions::round_out(const at::Tensor& self, int64_t decimals, at::Tensor& out) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "round with decimals is not implemented for ",
              self.scalar_type(), " tensors");
  return sameDtypeUnary("Round", self, out, [decimals](OpCommand& cmd) { cmd.Attr("decimals", decimals); });
}
// frac(x) = x - trunc(x)
at::Tensor& NPUNativeFunctions::frac_out(const at::Tensor& self, at::Tensor& out) {
  torch_npu::checkFloatingInput("frac", self);
  const auto dtype = self.scalar_type();
  at::Tensor whole = torch_npu::pointwiseResult({self}, dtype);
  torch_npu::pointwiseInto("Trunc", {self}, dtype, dtype, whole);
  return torch_npu::pointwiseInto("Sub", {self, whole}, dtype, dtype, out);
}

at::Tensor& NPUNativeFunctions::polygamma_out(int64_t n, const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  return floatUnary("Polygamma", self, out, [n](OpCommand& cmd) { cmd.Attr("n", n); });
}

// angle of a real tensor: pi below 0, else 0 (integers promote to float); of a complex one,
// atan2(imag, real) as a float32 tensor. Not structured upstream.
at::Tensor& NPUNativeFunctions::angle_out(const at::Tensor& self, at::Tensor& out) {
  if (self.is_complex()) return torch_npu::complexUnaryInto("Angle", self, at::kFloat, out);
  return floatUnary("Angle", self, out);
}
at::Tensor NPUNativeFunctions::angle(const at::Tensor& self) {
  if (self.is_complex()) {
    at::Tensor out = at::empty({0}, self.options().dtype(at::kFloat));
    return angle_out(self, out);
  }
  at::Tensor out = torch_npu::pointwiseResult({self}, torch_npu::commonDtype({self}, true));
  return angle_out(self, out);
}

// frexp: mantissa (self's dtype) and int32 exponent, one Frexp op; not structured upstream.
::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::frexp_out(const at::Tensor& self, at::Tensor& mantissa,
                                                                     at::Tensor& exponent) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "torch.frexp() only supports floating-point dtypes");
  TORCH_CHECK(mantissa.scalar_type() == self.scalar_type(), "torch.frexp() expects mantissa to have dtype ",
              self.scalar_type(), " but got ", mantissa.scalar_type());
  TORCH_CHECK(exponent.scalar_type() == at::kInt, "torch.frexp() expects exponent to have int dtype but got ",
              exponent.scalar_type());
  at::Tensor m = torch_npu::prepareOut("Frexp", mantissa, self.sizes(), self.scalar_type());
  at::Tensor e = torch_npu::prepareOut("Frexp", exponent, self.sizes(), at::kInt);
  OpCommand cmd("Frexp");
  cmd.Input(self.contiguous()).Output(m).Output(e).Run();
  torch_npu::finishOut(mantissa, m);
  torch_npu::finishOut(exponent, e);
  return {mantissa, exponent};
}

// ---- float classification ------------------------------------------------------------
at::Tensor& NPUNativeFunctions::signbit_out(const at::Tensor& self, at::Tensor& out) {
  return boolUnary("SignBit", self, out);
}
at::Tensor& NPUNativeFunctions::isposinf_out(const at::Tensor& self, at::Tensor& out) {
  return boolUnary("IsPosInf", self, out);
}
at::Tensor& NPUNativeFunctions::isneginf_out(const at::Tensor& self, at::Tensor& out) {
  return boolUnary("IsNegInf", self, out);
}

// ---- nan_to_num: torch's defaults are the dtype's largest / lowest finite values -----------
at::Tensor& NPUNativeFunctions::nan_to_num_out(const at::Tensor& self, c10::optional<double> nan,
                                                c10::optional<double> posinf, c10::optional<double> neginf,
                                                at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "nan_to_num: dtype of out: ", out.scalar_type(),
              " should be same as input: ", self.scalar_type());
  float big = std::numeric_limits<float>::max();
  if (self.scalar_type() == at::kHalf) big = static_cast<float>(std::numeric_limits<c10::Half>::max());
  if (self.scalar_type() == at::kBFloat16) big = static_cast<float>(std::numeric_limits<c10::BFloat16>::max());
  const float n = static_cast<float>(nan.value_or(0.0));
  const float p = posinf.has_value() ? static_cast<float>(*posinf) : big;
  const float m = neginf.has_value() ? static_cast<float>(*neginf) : -big;
  return sameDtypeUnary("NanToNum", self, out, [n, p, m](OpCommand& cmd) {
    cmd.Attr("nan", n).Attr("posinf", p).Attr("neginf", m);
  });
}

// ---- logit (not structured upstream) ------------------------------------------------------
namespace {
AttrSetter epsAttr(c10::optional<double> eps) {
  const float e = eps.has_value() ? static_cast<float>(*eps) : -1.0f;
  return [e](OpCommand& cmd) { cmd.Attr("eps", e); };
}
}  // namespace

at::Tensor& NPUNativeFunctions::logit_out(const at::Tensor& self, c10::optional<double> eps, at::Tensor& out) {
  return floatUnary("Logit", self, out, epsAttr(eps));
}
at::Tensor NPUNativeFunctions::logit(const at::Tensor& self, c10::optional<double> eps) {
  at::Tensor out = torch_npu::pointwiseResult({self}, torch_npu::commonDtype({self}, true));
  return logit_out(self, eps, out);
}
at::Tensor& NPUNativeFunctions::logit_(at::Tensor& self, c10::optional<double> eps) {
  return logit_out(self, eps, self);
}
at::Tensor& NPUNativeFunctions::logit_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                    c10::optional<double> eps, at::Tensor& grad_input) {
  const auto dtype = torch_npu::commonDtype({grad_output, self}, false);
  return torch_npu::pointwiseInto("LogitGrad", {grad_output, self}, dtype, dtype, grad_input, epsAttr(eps));
}

}  // namespace native
}  // namespace at_npu
