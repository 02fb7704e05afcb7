// LU family on the AI CPU kernels Lu, LuSolve, LuUnpack: linalg.lu_factor_ex,
// linalg.lu_solve, lu_unpack, linalg.lu (structured; PyTorch's meta
// functions have checked shapes and dtypes). See Note [Linear algebra on the
// NPU] in LinalgUtils.h.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {

using torch_npu::LinalgOut;

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::linalg_lu_factor_ex_out(
    const at::Tensor& A, bool pivot, bool check_errors, at::Tensor& LU, at::Tensor& pivots, at::Tensor& info) {
  TORCH_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the NPU (nor on the CPU)");
  torch_npu::checkLinalgFloat(A, "linalg.lu_factor");
  if (A.numel() == 0) {
    info.zero_();
    return {LU, pivots, info};
  }
  const torch_npu::MatrixOperand x = torch_npu::matrixOperand(A);
  const LinalgOut lu(LU), piv(pivots), inf(info);
  torch_npu::OpCommand("Lu")
      .Input(x.tensor)
      .Output(lu.dense())
      .Output(piv.dense())
      .Output(inf.dense())
      .Attr("transpose_x", x.transposed)
      .Run();
  lu.commit();
  piv.commit();
  inf.commit();
  if (check_errors) at::_linalg_check_errors(info, "torch.linalg.lu_factor_ex", A.dim() == 2);
  return {LU, pivots, info};
}

at::Tensor& NPUNativeFunctions::linalg_lu_solve_out(const at::Tensor& LU, const at::Tensor& pivots, const at::Tensor& B,
                                                    bool left, bool adjoint, at::Tensor& out) {
  torch_npu::checkLinalgFloat(LU, "linalg.lu_solve");
  if (out.numel() == 0) return out;
  // X A = B is A^T X^T = B^T: solve for X^T and transpose back.
  const at::Tensor rhs = left ? B : B.mT();
  if (left && out.is_contiguous()) {
    torch_npu::OpCommand("LuSolve").Input(LU).Input(pivots).Input(rhs).Output(out).Attr("adjoint", adjoint).Run();
    return out;
  }
  at::Tensor x = torch_npu::emptyNpu(left ? out.sizes() : out.mT().sizes(), out.scalar_type(), out.device());
  torch_npu::OpCommand("LuSolve")
      .Input(LU)
      .Input(pivots)
      .Input(rhs)
      .Output(x)
      .Attr("adjoint", left ? adjoint : !adjoint)
      .Run();
  out.copy_(left ? x : x.mT());
  return out;
}

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::lu_unpack_out(const at::Tensor& LU_data,
                                                                                      const at::Tensor& LU_pivots,
                                                                                      bool unpack_data,
                                                                                      bool unpack_pivots, at::Tensor& P,
                                                                                      at::Tensor& L, at::Tensor& U) {
  // Unpacking only moves data: float16 works too, as on the CPU.
  TORCH_CHECK(LU_data.scalar_type() == at::kFloat || LU_data.scalar_type() == at::kHalf,
              "lu_unpack: the NPU supports float32 and float16 LU_data, got ", LU_data.scalar_type());
  TORCH_CHECK(LU_pivots.scalar_type() == at::kInt,
              "lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. Note: this function "
              "is intended to be used with the output produced by torch.linalg.lu_factor");
  // Outputs that are empty (k = 0, an empty batch, or not requested) are left out of the launch.
  const bool data = unpack_data && L.numel() > 0 && U.numel() > 0;
  const bool perm = unpack_pivots && P.numel() > 0;
  if (!data && !perm) return {P, L, U};
  const LinalgOut p(P), l(L), u(U);
  torch_npu::OpCommand cmd("LuUnpack");
  cmd.Input(LU_data).Input(LU_pivots);
  if (perm) cmd.Output(p.dense());
  if (data) cmd.Output(l.dense()).Output(u.dense());
  cmd.Attr("unpack_data", data).Attr("unpack_pivots", perm).Run();
  if (perm) p.commit();
  if (data) {
    l.commit();
    u.commit();
  }
  return {P, L, U};
}

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::linalg_lu_out(const at::Tensor& A, bool pivot,
                                                                                      at::Tensor& P, at::Tensor& L,
                                                                                      at::Tensor& U) {
  TORCH_CHECK(pivot, "linalg.lu: LU without pivoting is not implemented on the NPU (nor on the CPU)");
  torch_npu::checkLinalgFloat(A, "linalg.lu");
  at::Tensor LU, pivots, info;
  std::tie(LU, pivots, info) = at::linalg_lu_factor_ex(A, pivot, /*check_errors=*/false);
  at::lu_unpack_out(P, L, U, LU, pivots, /*unpack_data=*/true, /*unpack_pivots=*/pivot);
  return {P, L, U};
}

}  // namespace native
}  // namespace at_npu
