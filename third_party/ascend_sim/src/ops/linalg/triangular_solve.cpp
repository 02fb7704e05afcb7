// MatrixTriangularSolve (OPS.md "Linear algebra (AI CPU)"): matrix [..., n, n]
// triangular, rhs -> y with op(A) y = rhs (attr left = true, the default) or
// y op(A) = rhs (left = false), by BLAS strsm (as PyTorch's CPU
// triangular_solve). attrs: lower (default true) picks the triangle that is
// read, adjoint (default false) makes op(A) = A^T, unit_diagonal (default
// false) takes the diagonal as ones without reading it. Batch dims of matrix
// and rhs broadcast. A zero on the diagonal gives inf/NaN, as on the CPU.
// See Note [Linear algebra kernels].
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

struct TrsmDims {
  Matrices a, b;
  Shape batch;
  bool left = true;
};

TrsmDims trsmDims(const OpCall& call) {
  TrsmDims d;
  d.a = checkMatrices(call, call.inputs[0], "input matrix", true);
  d.b = checkMatrices(call, call.inputs[1], "input rhs", false);
  d.batch = broadcastBatch(call, d.a, "matrix", d.b, "rhs");
  d.left = attrBool(call, "left", true);
  return d;
}

void validateMatrixTriangularSolve(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TrsmDims d = trsmDims(call);
  checkSameDtype(call, call.inputs[0], "matrix", call.inputs[1], "rhs");
  const int64_t shared = d.left ? d.b.rows : d.b.cols;
  if (shared != d.a.rows)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "rhs " + shapeToString(call.inputs[1].shape) + " does not fit matrix " + shapeToString(call.inputs[0].shape) +
             (d.left ? " (left: rhs rows must equal n)" : " (right: rhs columns must equal n)"));
  checkFloatOut(call, 0, "y", call.inputs[0], batchShape(d.batch, {d.b.rows, d.b.cols}));
  attrBool(call, "lower", true);
  attrBool(call, "adjoint", false);
  attrBool(call, "unit_diagonal", false);
}

void computeMatrixTriangularSolve(const OpCall& call) {
  const TrsmDims d = trsmDims(call);
  const int64_t n = d.a.rows, r = d.b.rows, c = d.b.cols, count = numelOf(d.batch);
  if (r == 0 || c == 0) return;
  const std::vector<int64_t> a_of = batchIndex(d.a.batch, d.batch), b_of = batchIndex(d.b.batch, d.batch);
  const char side = d.left ? 'L' : 'R', uplo = attrBool(call, "lower", true) ? 'L' : 'U';
  const char trans = attrBool(call, "adjoint", false) ? 'T' : 'N';
  const char diag = attrBool(call, "unit_diagonal", false) ? 'U' : 'N';
  const int ni = lapackInt(n), ri = lapackInt(r), ci = lapackInt(c);
  const float one = 1.0f;
  std::vector<float> a(static_cast<size_t>(n * n)), y(static_cast<size_t>(r * c));
  for (int64_t i = 0; i < count; ++i) {
    loadColMajor(call.inputs[0], a_of[static_cast<size_t>(i)], n, n, a.data(), n);
    loadColMajor(call.inputs[1], b_of[static_cast<size_t>(i)], r, c, y.data(), r);
    strsm_(&side, &uplo, &trans, &diag, &ri, &ci, &one, a.data(), &ni, y.data(), &ri, 1, 1, 1, 1);
    storeColMajor(call.outputs[0], i, r, c, y.data(), r);
  }
}

KernelCost costMatrixTriangularSolve(const OpCall& call) {
  const TrsmDims d = trsmDims(call);
  const double n = static_cast<double>(d.a.rows), other = static_cast<double>(d.left ? d.b.cols : d.b.rows);
  return aiCpuCost(call, static_cast<double>(numelOf(d.batch)) * n * n * other);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MatrixTriangularSolve", &validateMatrixTriangularSolve,
                                     &computeMatrixTriangularSolve, &costMatrixTriangularSolve});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
