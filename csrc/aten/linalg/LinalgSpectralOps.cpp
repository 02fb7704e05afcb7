// Spectral decompositions on the AI CPU kernels Svd and SelfAdjointEig:
// _linalg_svd and _linalg_eigh (structured), behind linalg.svd, svdvals,
// pinv, matrix_rank, matrix_norm, cond, eigh, eigvalsh..., and
// _symeig_helper (the deprecated torch.symeig, LAPACK's ssyev as on the CPU).
// See Note [Linear algebra on the NPU] in LinalgUtils.h.
#include <cctype>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {

using torch_npu::LinalgOut;

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::_linalg_svd_out(
    const at::Tensor& A, bool full_matrices, bool compute_uv, c10::optional<c10::string_view> driver, at::Tensor& U,
    at::Tensor& S, at::Tensor& Vh) {
  TORCH_CHECK(!driver.has_value(),
              "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
  torch_npu::checkLinalgFloat(A, "linalg.svd");
  if (A.numel() == 0) {  // U or Vh of an empty matrix may be a (full) identity, as on the CPU
    if (compute_uv && full_matrices) {
      torch_npu::fillIdentity(U);
      torch_npu::fillIdentity(Vh);
    }
    return {U, S, Vh};
  }
  const at::Tensor info = torch_npu::emptyNpu(torch_npu::batchDims(A), at::kInt, A.device());
  const LinalgOut u(U), s(S), vh(Vh);
  torch_npu::OpCommand cmd("Svd");
  cmd.Input(A).Output(s.dense());
  if (compute_uv) cmd.Output(u.dense()).Output(vh.dense());
  cmd.Output(info).Attr("compute_uv", compute_uv).Attr("full_matrices", full_matrices).Run();
  s.commit();
  if (compute_uv) {
    u.commit();
    vh.commit();
  }
  at::_linalg_check_errors(info, "linalg.svd", A.dim() == 2);
  return {U, S, Vh};
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::_linalg_eigh_out(const at::Tensor& A, c10::string_view UPLO,
                                                                            bool compute_v, at::Tensor& eigenvalues,
                                                                            at::Tensor& eigenvectors) {
  torch_npu::checkLinalgFloat(A, "linalg.eigh");
  if (A.numel() == 0) return {eigenvalues, eigenvectors};
  const at::Tensor info = torch_npu::emptyNpu(torch_npu::batchDims(A), at::kInt, A.device());
  const LinalgOut e(eigenvalues), v(eigenvectors);
  torch_npu::OpCommand cmd("SelfAdjointEig");
  cmd.Input(A).Output(e.dense());
  if (compute_v) cmd.Output(v.dense());
  // The meta function has checked UPLO is "L", "U", "l" or "u".
  cmd.Output(info).Attr("compute_v", compute_v).Attr("lower", std::toupper(UPLO[0]) == 'L').Run();
  e.commit();
  if (compute_v) v.commit();
  at::_linalg_check_errors(info, "linalg.eigh", A.dim() == 2);
  return {eigenvalues, eigenvectors};
}

::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::_symeig_helper(const at::Tensor& self, bool eigenvectors,
                                                                        bool upper) {
  torch_npu::checkLinalgFloat(self, "symeig");
  const at::IntArrayRef sizes = self.sizes();
  at::Tensor values = torch_npu::emptyNpu(sizes.slice(0, sizes.size() - 1), self.scalar_type(), self.device());
  at::Tensor vectors =
      torch_npu::emptyNpu(eigenvectors ? sizes : at::IntArrayRef{0}, self.scalar_type(), self.device());
  if (self.numel() == 0) return {values, torch_npu::emptyNpu(sizes, self.scalar_type(), self.device())};
  const at::Tensor info = torch_npu::emptyNpu(torch_npu::batchDims(self), at::kInt, self.device());
  torch_npu::OpCommand cmd("SelfAdjointEig");
  cmd.Input(self).Output(values);
  if (eigenvectors) cmd.Output(vectors);
  cmd.Output(info).Attr("compute_v", eigenvectors).Attr("lower", !upper).Attr("driver", "syev").Run();
  at::_linalg_check_errors(info, "symeig", self.dim() == 2);
  return {values, vectors};
}

}  // namespace native
}  // namespace at_npu
