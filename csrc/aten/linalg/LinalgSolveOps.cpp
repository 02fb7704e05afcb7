// Determinants, inverse and linear solves on the AI CPU kernels
// MatrixDeterminant, LogMatrixDeterminant, MatrixInverse (and Lu + LuSolve
// for linalg.solve): _linalg_det, _linalg_slogdet, linalg_inv_ex,
// _linalg_solve_ex (structured). See Note [Linear algebra on the NPU] in
// LinalgUtils.h.
//
// Note [Factorising A^T]
// PyTorch's CPU det, slogdet and solve factorise A^T when A is contiguous
// (row-major: its buffer is A^T in LAPACK's column-major order, so no copy is
// needed), and their backward formulas (linalg_det_backward,
// linalg_solve_backward) look at A.is_contiguous() to know which
// factorisation LU and pivots hold. The NPU returns the same factorisation:
// the kernels factorise A^T exactly when A is contiguous.
#include <ATen/native/LinearAlgebraUtils.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::LinalgOut;

// Runs MatrixDeterminant / LogMatrixDeterminant on A into `results` (the
// determinant outputs), LU and pivots, factorising A^T exactly when A is
// contiguous (Note [Factorising A^T]).
void runDeterminant(const char* op, const at::Tensor& A, std::initializer_list<at::Tensor> results,
                    const at::Tensor& LU, const at::Tensor& pivots) {
  const torch_npu::MatrixOperand x = torch_npu::matrixOperand(A);
  const bool factorise_transpose = A.is_contiguous() != x.transposed;
  std::vector<LinalgOut> outs;
  for (const at::Tensor& r : results) outs.emplace_back(r);
  outs.emplace_back(LU);
  outs.emplace_back(pivots);
  torch_npu::OpCommand cmd(op);
  cmd.Input(x.tensor);
  for (const LinalgOut& o : outs) cmd.Output(o.dense());
  cmd.Attr("transpose_x", factorise_transpose).Run();
  for (const LinalgOut& o : outs) o.commit();
}

}  // namespace

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::_linalg_det_out(const at::Tensor& A,
                                                                                        at::Tensor& result,
                                                                                        at::Tensor& LU,
                                                                                        at::Tensor& pivots) {
  torch_npu::checkLinalgFloat(A, "linalg.det");
  if (A.numel() == 0) {
    result.fill_(1);  // the determinant of a 0 x 0 matrix
  } else {
    runDeterminant("MatrixDeterminant", A, {result}, LU, pivots);
  }
  return {result, LU, pivots};
}

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::_linalg_slogdet_out(
    const at::Tensor& A, at::Tensor& sign, at::Tensor& logabsdet, at::Tensor& LU, at::Tensor& pivots) {
  torch_npu::checkLinalgFloat(A, "linalg.slogdet");
  if (A.numel() == 0) {
    sign.fill_(1);
    logabsdet.zero_();
  } else {
    runDeterminant("LogMatrixDeterminant", A, {sign, logabsdet}, LU, pivots);
  }
  return {sign, logabsdet, LU, pivots};
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::linalg_inv_ex_out(const at::Tensor& A, bool check_errors,
                                                                             at::Tensor& inverse, at::Tensor& info) {
  torch_npu::checkLinalgFloat(A, "linalg.inv");
  if (A.numel() == 0) {
    info.zero_();
    return {inverse, info};
  }
  const LinalgOut inv(inverse), inf(info);
  torch_npu::OpCommand("MatrixInverse").Input(A).Output(inv.dense()).Output(inf.dense()).Run();
  inv.commit();
  inf.commit();
  if (check_errors) at::_linalg_check_errors(info, "linalg.inv_ex", A.dim() == 2);
  return {inverse, info};
}

// As PyTorch's CPU: LU of A (or of A^T, Note [Factorising A^T]), then the
// solve with it; B may be a vector (or a batch of vectors) right-hand side.
::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::_linalg_solve_ex_out(
    const at::Tensor& A, const at::Tensor& B, bool left, bool check_errors, at::Tensor& result, at::Tensor& LU,
    at::Tensor& pivots, at::Tensor& info) {
  torch_npu::checkLinalgFloat(A, "linalg.solve");
  const bool use_A_T = A.is_contiguous();
  at::linalg_lu_factor_ex_out(LU, pivots, info, use_A_T ? A.mT() : A);
  if (check_errors) at::_linalg_check_errors(info, "torch.linalg.solve_ex", A.dim() == 2);
  const bool vector_case = at::native::linalg_solve_is_vector_rhs(LU, B);
  at::Tensor result_ = vector_case ? result.unsqueeze(-1) : result;
  const at::Tensor B_ = vector_case ? B.unsqueeze(-1) : B;
  at::linalg_lu_solve_out(result_, LU, pivots, B_, left, /*adjoint=*/use_A_T);
  return {result, LU, pivots, info};
}

}  // namespace native
}  // namespace at_npu
