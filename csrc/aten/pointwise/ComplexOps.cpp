// complex64 on the NPU: the views between complex and real (view_as_real, view_as_complex, and so
// real / imag), building complex tensors (complex, polar), conj_physical, and the complex forms of
// abs, angle and sgn.
//
// Note [complex64 on the NPU]
// complex64 is an NPU dtype (ACL_COMPLEX64, two float32: real then imaginary); complex128 is not
// (float64 is storage-only). The views only reinterpret the storage (metadata, as on the CPU). The
// arithmetic runs on the simulator's complex Vector kernels, which the ordinary ops reach through
// their usual OpCommand (Add, Sub, Mul, RealDiv, Neg, Cast take complex64 operands); the ops whose
// complex form is another CANN op are routed here: |z| is ComplexAbs (a float32 result), arg(z) is
// Angle, sgn(z) = z / |z| is Sign, conj is Conj, and complex(re, im) is Complex.
#include <ATen/ATen.h>
#include <ATen/NativeFunctions.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ComplexOps.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace torch_npu {

at::Tensor& complexUnaryInto(const char* acl_op, const at::Tensor& self, at::ScalarType out_dtype, at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() == at::kComplexFloat, acl_op, ": the NPU's complex dtype is complex64, got ",
              self.scalar_type());
  const at::Tensor input = self.resolve_conj().resolve_neg().contiguous();
  return runInto(acl_op, out, self.sizes(), out_dtype, [&](OpCommand& cmd) { cmd.Input(input); });
}

}  // namespace torch_npu

namespace at_npu {
namespace native {

at::Tensor NPUNativeFunctions::view_as_real(const at::Tensor& self) { return at::native::view_as_real(self); }

at::Tensor NPUNativeFunctions::view_as_complex(const at::Tensor& self) { return at::native::view_as_complex(self); }

at::Tensor& NPUNativeFunctions::complex_out(const at::Tensor& real, const at::Tensor& imag, at::Tensor& out) {
  TORCH_CHECK(real.scalar_type() == imag.scalar_type(), "complex: expected real and imag of one dtype, got ",
              real.scalar_type(), " and ", imag.scalar_type());
  TORCH_CHECK(real.scalar_type() == at::kFloat, "complex: the NPU builds complex64 from float32 parts, got ",
              real.scalar_type());
  const auto sizes = at::infer_size(real.sizes(), imag.sizes());
  const at::Tensor re = real.contiguous(), im = imag.contiguous();
  return torch_npu::runInto("Complex", out, sizes, at::kComplexFloat,
                            [&](torch_npu::OpCommand& cmd) { cmd.Input(re).Input(im); });
}

at::Tensor& NPUNativeFunctions::polar_out(const at::Tensor& abs, const at::Tensor& angle, at::Tensor& out) {
  return complex_out(abs * angle.cos(), abs * angle.sin(), out);
}

at::Tensor& NPUNativeFunctions::conj_physical_out(const at::Tensor& self, at::Tensor& out) {
  if (!self.is_complex()) return out.copy_(self);  // the conjugate of a real tensor is itself
  return torch_npu::complexUnaryInto("Conj", self, at::kComplexFloat, out);
}

// conj_physical_ is composite upstream but calls the CPU/CUDA stub directly.
at::Tensor& NPUNativeFunctions::conj_physical_(at::Tensor& self) {
  if (!self.is_complex()) return self;
  return torch_npu::complexUnaryInto("Conj", self, at::kComplexFloat, self);
}

}  // namespace native
}  // namespace at_npu
