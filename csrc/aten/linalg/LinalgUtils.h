// Helpers shared by the linear algebra ops (csrc/aten/linalg/), which run
// the simulator's AI CPU kernels of OPS.md "Linear algebra (AI CPU)".
//
// Note [Linear algebra on the NPU]
// The kernels compute in fp32 with the LAPACK routines PyTorch's CPU uses, so
// results (signs of singular vectors and eigenvectors included) are the CPU's.
// Like the CPU, the NPU rejects float16 (and every non-float32 dtype: the
// device has no float64 linear algebra) with a clear error; only ops without
// factorisations accept float16 (lu_unpack, triu/tril, linalg.cross, vdot:
// computed in fp32, rounded once). Every op checks
// its arguments as PyTorch does (for structured ops PyTorch's own meta
// function has already run) and then:
//  - handles empty inputs itself (an op with an empty output is not
//    launched, see OpCommand), as the CPU kernels do;
//  - runs the kernel on dense tensors (LinalgOut), copying into strided out=
//    tensors afterwards;
//  - reports numerical failures through at::_linalg_check_errors on the
//    kernel's int32 `info` output, i.e. with PyTorch's own messages.
// Where PyTorch's CPU factorises A^T of a row-major A (det, slogdet, solve),
// the NPU does too, because the backward formulas assume that factorisation.
#pragma once

#include <ATen/ATen.h>

#include <utility>

#include "csrc/framework/OpCommand.h"

namespace torch_npu {

// `api` (e.g. "linalg.cholesky") supports float32 only on the NPU.
void checkLinalgFloat(const at::Tensor& t, const char* api);

// PyTorch's squareCheckInputs: `t` is a batch of square matrices, or
// "<api>: A must be batches of square matrices, but they are 2 by 3 matrices".
void checkSquare(const at::Tensor& t, const char* api, const char* name = "A");

// An output the kernel writes densely: `out` itself when it is contiguous,
// else a contiguous temporary copied into `out` by commit().
class LinalgOut {
 public:
  explicit LinalgOut(const at::Tensor& out);
  const at::Tensor& dense() const { return dense_; }
  void commit() const;

 private:
  at::Tensor out_;
  at::Tensor dense_;
};

// A matrix operand for kernels with a `transpose_x` attribute (Lu,
// MatrixDeterminant, LogMatrixDeterminant): a transposed view of a row-major
// batch (A.mT() of a contiguous A) is passed as that contiguous tensor with
// transposed = true instead of being copied, as MatMul's operands are (Note
// [Transposed matmul operands] in MatmulOps.cpp).
struct MatrixOperand {
  at::Tensor tensor;
  bool transposed = false;
};
MatrixOperand matrixOperand(const at::Tensor& t);

// Fills a batch of matrices with identities (the Q / U / Vh of empty
// matrices), as PyTorch's CPU kernels do.
void fillIdentity(const at::Tensor& t);

// The batch dims of a [..., r, c] tensor.
inline at::IntArrayRef batchDims(const at::Tensor& t) { return t.sizes().slice(0, t.dim() - 2); }

}  // namespace torch_npu
