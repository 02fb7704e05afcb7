// MatrixInverse (OPS.md "Linear algebra (AI CPU)"): x -> y [, info], the
// inverse of every matrix of the batch, computed as PyTorch's CPU computes
// linalg.inv: the LU factorisation of x^T (sgetrf on the row-major buffer)
// and the solve x y = I with it (sgetrs, transposed). A singular matrix
// gives info = the (1-based) index of the first zero pivot of U and a y
// full of inf/NaN, as on the CPU. See Note [Linear algebra kernels].
#include <algorithm>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

void validateMatrixInverse(const OpCall& call) {
  checkSquareWithOptionalInfo(call);
  if (attrBool(call, "adjoint", false))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'adjoint' = true is not supported");
}

void computeMatrixInverse(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const int64_t n = x.rows;
  std::vector<float> lu(static_cast<size_t>(n * n)), y(static_cast<size_t>(n * n));
  std::vector<int> ipiv(static_cast<size_t>(n));
  const int ni = lapackInt(n);
  factorEachMatrix(call, x.count, n == 0, /*info_output=*/1, [&](int64_t b) {
    loadTransposed(call.inputs[0], b, n, n, lu.data());  // x^T, column-major
    int info = 0;
    sgetrf_(&ni, &ni, lu.data(), &ni, ipiv.data(), &info);
    std::fill(y.begin(), y.end(), 0.0f);
    for (int64_t i = 0; i < n; ++i) y[static_cast<size_t>(i + i * n)] = 1.0f;
    int solve_info = 0;
    const char trans = 'T';  // (x^T)^T y = I
    sgetrs_(&trans, &ni, &ni, lu.data(), &ni, ipiv.data(), y.data(), &ni, &solve_info, 1);
    storeColMajor(call.outputs[0], b, n, n, y.data(), n);
    return info;
  });
}

KernelCost costMatrixInverse(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  return aiCpuCost(call, static_cast<double>(x.count) * (luFlops(n, n) + 2.0 * n * n * n));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MatrixInverse", &validateMatrixInverse, &computeMatrixInverse,
                                     &costMatrixInverse});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
