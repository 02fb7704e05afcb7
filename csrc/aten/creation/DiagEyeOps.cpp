// diag (a vector into a diagonal matrix, or a matrix's diagonal) and eye,
// composed from the NPU's fill / copy into strided diagonal views: no
// dedicated kernel is needed.
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {

at::Tensor& NPUNativeFunctions::diag_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  TORCH_CHECK(self.dim() == 1 || self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", self.dim(), "D");
  if (self.dim() == 2) {
    const at::Tensor d = self.diagonal(diagonal);
    at::native::resize_output(out, d.sizes());
    return out.copy_(d);
  }
  const int64_t n = self.size(0) + std::abs(diagonal);
  at::native::resize_output(out, {n, n});
  out.zero_();
  out.diagonal(diagonal).copy_(self);
  return out;
}

at::Tensor& NPUNativeFunctions::eye_out(int64_t n, int64_t m, at::Tensor& out) {
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  at::native::resize_output(out, {n, m});
  out.zero_();
  if (n > 0 && m > 0) out.diagonal().fill_(1);
  return out;
}

at::Tensor& NPUNativeFunctions::eye_out(int64_t n, at::Tensor& out) { return eye_out(n, n, out); }

}  // namespace native
}  // namespace at_npu
