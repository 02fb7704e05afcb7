// LDL^T (Bunch-Kaufman) factorisation of symmetric matrices on the AI CPU
// kernels LdlFactor and LdlSolve: linalg_ldl_factor_ex and linalg_ldl_solve
// (structured). For real matrices `hermitian` changes nothing, as on the
// CPU. See Note [Linear algebra on the NPU] in LinalgUtils.h.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {

using torch_npu::LinalgOut;

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::linalg_ldl_factor_ex_out(
    const at::Tensor& self, bool /*hermitian*/, bool check_errors, at::Tensor& LD, at::Tensor& pivots, at::Tensor& info) {
  torch_npu::checkLinalgFloat(self, "torch.linalg.ldl_factor_ex");
  if (self.numel() == 0) {
    info.zero_();
    return {LD, pivots, info};
  }
  const LinalgOut ld(LD), piv(pivots), inf(info);
  torch_npu::OpCommand("LdlFactor").Input(self).Output(ld.dense()).Output(piv.dense()).Output(inf.dense()).Run();
  ld.commit();
  piv.commit();
  inf.commit();
  if (check_errors) at::_linalg_check_errors(info, "torch.linalg.ldl_factor_ex", self.dim() == 2);
  return {LD, pivots, info};
}

at::Tensor& NPUNativeFunctions::linalg_ldl_solve_out(const at::Tensor& LD, const at::Tensor& pivots,
                                                    const at::Tensor& B, bool /*hermitian*/, at::Tensor& out) {
  torch_npu::checkLinalgFloat(LD, "torch.linalg.ldl_solve");
  if (out.numel() == 0) return out;
  const LinalgOut x(out);
  torch_npu::OpCommand("LdlSolve").Input(LD).Input(pivots).Input(B).Output(x.dense()).Run();
  x.commit();
  return out;
}

}  // namespace native
}  // namespace at_npu
