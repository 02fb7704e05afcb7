// triu / tril on the Triu / Tril ops (causal attention masks).
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

at::Tensor& triangleOut(const char* name, const char* acl_op, const at::Tensor& self, int64_t diagonal,
                        at::Tensor& out) {
  TORCH_CHECK(self.dim() >= 2, name, ": input tensor must have at least 2 dimensions, got ", self.dim());
  if (self.numel() == 0) return out;
  return torch_npu::runInto(acl_op, out, self.sizes(), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) { cmd.Input(self).Attr("diagonal", diagonal); });
}

}  // namespace

// Structured kernels (Note [Structured NPU kernels]).
at::Tensor& NPUNativeFunctions::triu_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  return triangleOut("triu", "Triu", self, diagonal, out);
}

at::Tensor& NPUNativeFunctions::tril_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  return triangleOut("tril", "Tril", self, diagonal, out);
}

}  // namespace native
}  // namespace at_npu
