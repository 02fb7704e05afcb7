// Triangular solves on the AI CPU kernel MatrixTriangularSolve:
// triangular_solve (structured, deprecated; also returns a copy of A) and
// linalg.solve_triangular (triu / tril are in TriangularOps.cpp). Batch dims of A and B broadcast in the kernel.
// See Note [Linear algebra on the NPU] in LinalgUtils.h.
#include <ATen/ExpandUtils.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// X with op(A) X = B (left) or X op(A) = B, into `out` (of the broadcast shape).
void triangularSolveInto(const at::Tensor& A, const at::Tensor& B, bool upper, bool transpose, bool unitriangular,
                         bool left, const at::Tensor& out) {
  if (out.numel() == 0) return;
  const torch_npu::LinalgOut x(out);
  torch_npu::OpCommand("MatrixTriangularSolve")
      .Input(A)
      .Input(B)
      .Output(x.dense())
      .Attr("lower", !upper)
      .Attr("adjoint", transpose)
      .Attr("unit_diagonal", unitriangular)
      .Attr("left", left)
      .Run();
  x.commit();
}

}  // namespace

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::triangular_solve_out(const at::Tensor& self,
                                                                                const at::Tensor& A, bool upper,
                                                                                bool transpose, bool unitriangular,
                                                                                at::Tensor& X, at::Tensor& M) {
  torch_npu::checkLinalgFloat(A, "triangular_solve");
  if (M.numel() > 0) M.copy_(A.expand(M.sizes()));  // cloned_coefficient: A broadcast to the batch
  triangularSolveInto(A, self, upper, transpose, unitriangular, /*left=*/true, X);
  return {X, M};
}

at::Tensor& NPUNativeFunctions::linalg_solve_triangular_out(const at::Tensor& self, const at::Tensor& B, bool upper,
                                                            bool left, bool unitriangular, at::Tensor& out) {
  const at::Tensor& A = self;
  const char* api = "linalg.solve_triangular";
  torch_npu::checkSquare(A, api);
  TORCH_CHECK(B.dim() >= 2, api, ": The input tensor B must have at least 2 dimensions.");
  TORCH_CHECK(left ? A.size(-2) == B.size(-2) : A.size(-1) == B.size(-1), api,
              ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", A.size(-2), "x",
              A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  torch_npu::checkLinalgFloat(A, api);
  torch_npu::checkLinalgFloat(B, api);
  std::vector<int64_t> sizes = at::infer_size(torch_npu::batchDims(A), torch_npu::batchDims(B));
  sizes.push_back(B.size(-2));
  sizes.push_back(B.size(-1));
  const at::Tensor result = torch_npu::prepareOut(api, out, sizes, B.scalar_type());
  triangularSolveInto(A, B, upper, /*transpose=*/false, unitriangular, left, result);
  return torch_npu::finishOut(out, result);
}

at::Tensor NPUNativeFunctions::linalg_solve_triangular(const at::Tensor& self, const at::Tensor& B, bool upper,
                                                       bool left, bool unitriangular) {
  at::Tensor out = torch_npu::emptyNpu({0}, B.scalar_type(), B.device());
  return linalg_solve_triangular_out(self, B, upper, left, unitriangular, out);
}

}  // namespace native
}  // namespace at_npu
