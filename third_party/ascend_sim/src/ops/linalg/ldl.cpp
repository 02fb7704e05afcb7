// LdlFactor, LdlSolve (OPS.md "Linear algebra (AI CPU)"): the Bunch-Kaufman
// factorisation A = L D L^T of symmetric matrices (ssytrf with the lower
// triangle, PyTorch's CPU linalg.ldl_factor) and solves with it (ssytrs).
// Pivots are LAPACK's: ipiv[k] > 0 is a 1x1 block with rows k and ipiv[k]
// interchanged; ipiv[k] = ipiv[k+1] = -p < 0 is a 2x2 block with rows k+1
// and p interchanged (1-based). See Note [Linear algebra kernels].
#include <cstdlib>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

// ---- LdlFactor: x -> ld, pivots, info ---------------------------------------
// Reads the lower triangle of x; ld holds L (unit, below the diagonal) and
// the blocks of D, zeros above the diagonal. A singular D: info > 0.

void validateLdlFactor(const OpCall& call) {
  checkArity(call, 1, 1, 3);
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  checkFloatOut(call, 0, "ld", call.inputs[0], call.inputs[0].shape);
  checkInt32Out(call, 1, "pivots", batchShape(x.batch, {x.rows}));
  checkInt32Out(call, 2, "info", x.batch);
}

void computeLdlFactor(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const int64_t n = x.rows;
  const int ni = lapackInt(n);
  const char uplo = 'L';
  std::vector<int> ipiv(static_cast<size_t>(n));
  updateEachSquareMatrix(call, x, /*info_output=*/2, [&](int64_t b, float* a) {
    zeroTriangle(a, n, n, n, /*keep_upper=*/false);
    int info = 0, lwork = -1;
    float query = 0;
    ssytrf_(&uplo, &ni, a, &ni, ipiv.data(), &query, &lwork, &info, 1);
    lwork = workspaceSize(query);
    std::vector<float> work(static_cast<size_t>(lwork));
    ssytrf_(&uplo, &ni, a, &ni, ipiv.data(), work.data(), &lwork, &info, 1);
    storeInts(call.outputs[1], b * n, n, ipiv.data());
    return info;
  });
}

KernelCost costLdlFactor(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  return aiCpuCost(call, static_cast<double>(x.count) * n * n * n / 3.0);
}

// ---- LdlSolve: ld, pivots, b -> x with A x = b ------------------------------

const FactorSolveInputs kLdlSolveInputs{/*factor=*/0, "ld", /*b=*/2, /*pivots=*/1};

void validateLdlSolve(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  checkFactorSolve(call, kLdlSolveInputs);
}

// The pivots of matrix `index`, checked to describe valid blocks (ssytrs
// would read out of bounds otherwise): a device fault naming the first bad one.
std::vector<int> loadLdlPivots(const OpCall& call, int64_t index, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  loadInt(call.inputs[1].dtype, call.inputs[1].data, index * n, 1, n, v.data());
  for (int64_t k = 0; k < n; ++k) {
    const int64_t p = v[static_cast<size_t>(k)];
    const bool pair = p < 0 && k + 1 < n && v[static_cast<size_t>(k + 1)] == p;
    if (p == 0 || std::abs(p) > n || (p < 0 && !pair))
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "pivot " + std::to_string(k) + " of matrix " + std::to_string(index) + " is " + std::to_string(p) +
               ": not a 1x1 pivot in [1, " + std::to_string(n) + "] nor the first of a 2x2 pair (-p, -p)");
    if (pair) ++k;
  }
  return std::vector<int>(v.begin(), v.end());
}

void computeLdlSolve(const OpCall& call) {
  const FactorSolve s = factorSolveOperands(call, kLdlSolveInputs);
  const int64_t n = s.factor.rows;
  const char uplo = 'L';
  const int ni = lapackInt(n), ki = lapackInt(s.b.cols);
  solveEachMatrix(call, kLdlSolveInputs, s, [&](int64_t ld_index, const float* a, float* x) {
    const std::vector<int> ipiv = loadLdlPivots(call, ld_index, n);
    int info = 0;
    ssytrs_(&uplo, &ni, &ki, a, &ni, ipiv.data(), x, &ni, &info, 1);
  });
}

KernelCost costLdlSolve(const OpCall& call) {
  return factorSolveCost(call, factorSolveOperands(call, kLdlSolveInputs));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LdlFactor", &validateLdlFactor, &computeLdlFactor, &costLdlFactor});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LdlSolve", &validateLdlSolve, &computeLdlSolve, &costLdlSolve});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
