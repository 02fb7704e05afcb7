// linalg.matrix_exp on the AI CPU kernel MatrixExp, linalg.cross (structured)
// on the AI Core kernel Cross, and vdot (for real tensors the plain dot
// product, as on the CPU). See Note [Linear algebra on the NPU] in
// LinalgUtils.h.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {

at::Tensor NPUNativeFunctions::linalg_matrix_exp(const at::Tensor& self) {
  torch_npu::checkSquare(self, "linalg.matrix_exp");
  torch_npu::checkLinalgFloat(self, "linalg.matrix_exp");
  at::Tensor out = torch_npu::emptyNpu(self.sizes(), self.scalar_type(), self.device());
  if (out.numel() > 0) torch_npu::OpCommand("MatrixExp").Input(self).Output(out).Run();
  return out;
}

// The meta function has checked the ranks, the size-3 dim and the broadcast;
// the inputs broadcast inside the kernel. Unlike the CPU, float16 works too.
at::Tensor& NPUNativeFunctions::linalg_cross_out(const at::Tensor& self, const at::Tensor& other, int64_t dim,
                                                 at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "linalg.cross: expected both inputs to have the same dtype, ",
              "but got ", self.scalar_type(), " and ", other.scalar_type());
  if (out.numel() == 0) return out;
  const torch_npu::LinalgOut y(out);
  torch_npu::OpCommand("Cross").Input(self).Input(other).Output(y.dense()).Attr("dim", dim).Run();
  y.commit();
  return out;
}

at::Tensor NPUNativeFunctions::vdot(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", other.dim(),
              "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
              self.scalar_type(), " and ", other.scalar_type());
  return at::dot(self, other);
}

}  // namespace native
}  // namespace at_npu
