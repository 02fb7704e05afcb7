// Cholesky, CholeskySolve, CholeskyInverse (OPS.md "Linear algebra (AI
// CPU)"): the Cholesky factorisation of symmetric positive-definite matrices
// (spotrf), solves with a factor (spotrs) and the inverse from a factor
// (spotri). Attr `upper` picks the factor: A = U^T U (true) or L L^T (false,
// the default). See Note [Linear algebra kernels].
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

char uploOf(const OpCall& call) { return attrBool(call, "upper", false) ? 'U' : 'L'; }

// Cholesky and CholeskyInverse: x -> y [, info], attr `upper`.
void validateSquareWithUplo(const OpCall& call) {
  checkSquareWithOptionalInfo(call);
  attrBool(call, "upper", false);
}

// ---- Cholesky: x -> y [, info] ---------------------------------------------
// Only the `upper` (or lower) triangle of x is read; the other triangle of y
// is zero. A matrix that is not positive definite stops at the first leading
// minor of order info that is not, leaving the rest of that triangle partly
// updated (LAPACK's result, as on PyTorch's CPU).

void validateCholesky(const OpCall& call) { validateSquareWithUplo(call); }

void computeCholesky(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const int64_t n = x.rows;
  const char uplo = uploOf(call);
  const int ni = lapackInt(n);
  updateEachSquareMatrix(call, x, /*info_output=*/1, [&](int64_t, float* a) {
    zeroTriangle(a, n, n, n, uplo == 'U');
    int info = 0;
    spotrf_(&uplo, &ni, a, &ni, &info, 1);
    return info;
  });
}

KernelCost costCholesky(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  return aiCpuCost(call, static_cast<double>(x.count) * n * n * n / 3.0);
}

// ---- CholeskySolve: b, factor -> x with A x = b, A = factor's product ------

const FactorSolveInputs kCholeskySolveInputs{/*factor=*/1, "factor", /*b=*/0, /*pivots=*/-1};

void validateCholeskySolve(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  checkFactorSolve(call, kCholeskySolveInputs);
  attrBool(call, "upper", false);
}

void computeCholeskySolve(const OpCall& call) {
  const FactorSolve s = factorSolveOperands(call, kCholeskySolveInputs);
  const char uplo = uploOf(call);
  const int ni = lapackInt(s.factor.rows), ki = lapackInt(s.b.cols);
  solveEachMatrix(call, kCholeskySolveInputs, s, [&](int64_t, const float* a, float* x) {
    int info = 0;
    spotrs_(&uplo, &ni, &ki, a, &ni, x, &ni, &info, 1);
  });
}

KernelCost costCholeskySolve(const OpCall& call) {
  return factorSolveCost(call, factorSolveOperands(call, kCholeskySolveInputs));
}

// ---- CholeskyInverse: factor -> y [, info], y = (factor's product)^-1 ------
// Reads the `upper` (or lower) triangle of the factor; y is the full
// symmetric inverse. A zero on the factor's diagonal gives info = its
// (1-based) index and an unspecified y.

void validateCholeskyInverse(const OpCall& call) { validateSquareWithUplo(call); }

void computeCholeskyInverse(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const int64_t n = x.rows;
  const char uplo = uploOf(call);
  const int ni = lapackInt(n);
  updateEachSquareMatrix(call, x, /*info_output=*/1, [&](int64_t, float* a) {
    int info = 0;
    spotri_(&uplo, &ni, a, &ni, &info, 1);
    for (int64_t j = 0; j < n; ++j)  // mirror the computed triangle
      for (int64_t i = j + 1; i < n; ++i) {
        if (uplo == 'U')
          a[i + j * n] = a[j + i * n];
        else
          a[j + i * n] = a[i + j * n];
      }
    return info;
  });
}

KernelCost costCholeskyInverse(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  return aiCpuCost(call, static_cast<double>(x.count) * 2.0 / 3.0 * n * n * n);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Cholesky", &validateCholesky, &computeCholesky, &costCholesky});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"CholeskySolve", &validateCholeskySolve, &computeCholeskySolve,
                                     &costCholeskySolve});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"CholeskyInverse", &validateCholeskyInverse, &computeCholeskyInverse,
                                     &costCholeskyInverse});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
