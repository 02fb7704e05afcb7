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

// y [, info] outputs of Cholesky and CholeskyInverse.
Matrices validateSquareWithInfo(const OpCall& call) {
  if (call.outputs.size() != 1 && call.outputs.size() != 2)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "expected outputs y [, info], got " + std::to_string(call.outputs.size()) + " outputs");
  checkArity(call, 1, 1, call.outputs.size());
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  checkFloatOut(call, 0, "y", call.inputs[0], call.inputs[0].shape);
  if (call.outputs.size() == 2) checkInt32Out(call, 1, "info", x.batch);
  attrBool(call, "upper", false);
  return x;
}

// ---- Cholesky: x -> y [, info] ---------------------------------------------
// Only the `upper` (or lower) triangle of x is read; the other triangle of y
// is zero. A matrix that is not positive definite stops at the first leading
// minor of order info that is not, leaving the rest of that triangle partly
// updated (LAPACK's result, as on PyTorch's CPU).

void validateCholesky(const OpCall& call) { validateSquareWithInfo(call); }

void computeCholesky(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const int64_t n = x.rows;
  const char uplo = uploOf(call);
  std::vector<float> a(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < x.count; ++b) {
    int info = 0;
    if (n > 0) {
      loadColMajor(call.inputs[0], b, n, n, a.data(), n);
      zeroTriangle(a.data(), n, n, n, uplo == 'U');
      const int ni = lapackInt(n);
      spotrf_(&uplo, &ni, a.data(), &ni, &info, 1);
      storeColMajor(call.outputs[0], b, n, n, a.data(), n);
    }
    if (call.outputs.size() == 2) storeInts(call.outputs[1], b, 1, &info);
  }
}

KernelCost costCholesky(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  return aiCpuCost(call, static_cast<double>(x.count) * n * n * n / 3.0);
}

// ---- CholeskySolve: b, factor -> x with A x = b, A = factor's product ------

struct SolveDims {
  Matrices b, f;
  Shape batch;
};

SolveDims solveDims(const OpCall& call) {
  SolveDims d;
  d.b = checkMatrices(call, call.inputs[0], "input b", false);
  d.f = checkMatrices(call, call.inputs[1], "input factor", true);
  d.batch = broadcastBatch(call, d.b, "b", d.f, "factor");
  return d;
}

void validateCholeskySolve(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const SolveDims d = solveDims(call);
  checkSameDtype(call, call.inputs[0], "b", call.inputs[1], "factor");
  if (d.b.rows != d.f.rows)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "b has " + std::to_string(d.b.rows) + " rows but factor is " + std::to_string(d.f.rows) + " x " +
             std::to_string(d.f.rows));
  checkFloatOut(call, 0, "x", call.inputs[0], batchShape(d.batch, {d.b.rows, d.b.cols}));
  attrBool(call, "upper", false);
}

void computeCholeskySolve(const OpCall& call) {
  const SolveDims d = solveDims(call);
  const int64_t n = d.f.rows, nrhs = d.b.cols, count = numelOf(d.batch);
  if (n == 0 || nrhs == 0) return;
  const std::vector<int64_t> b_of = batchIndex(d.b.batch, d.batch), f_of = batchIndex(d.f.batch, d.batch);
  const char uplo = uploOf(call);
  std::vector<float> a(static_cast<size_t>(n * n)), x(static_cast<size_t>(n * nrhs));
  for (int64_t i = 0; i < count; ++i) {
    loadColMajor(call.inputs[1], f_of[static_cast<size_t>(i)], n, n, a.data(), n);
    loadColMajor(call.inputs[0], b_of[static_cast<size_t>(i)], n, nrhs, x.data(), n);
    const int ni = lapackInt(n), ki = lapackInt(nrhs);
    int info = 0;
    spotrs_(&uplo, &ni, &ki, a.data(), &ni, x.data(), &ni, &info, 1);
    storeColMajor(call.outputs[0], i, n, nrhs, x.data(), n);
  }
}

KernelCost costCholeskySolve(const OpCall& call) {
  const SolveDims d = solveDims(call);
  const double n = static_cast<double>(d.f.rows);
  return aiCpuCost(call, static_cast<double>(numelOf(d.batch)) * 2.0 * n * n * static_cast<double>(d.b.cols));
}

// ---- CholeskyInverse: factor -> y [, info], y = (factor's product)^-1 ------
// Reads the `upper` (or lower) triangle of the factor; y is the full
// symmetric inverse. A zero on the factor's diagonal gives info = its
// (1-based) index and an unspecified y.

void validateCholeskyInverse(const OpCall& call) { validateSquareWithInfo(call); }

void computeCholeskyInverse(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const int64_t n = x.rows;
  const char uplo = uploOf(call);
  std::vector<float> a(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < x.count; ++b) {
    int info = 0;
    if (n > 0) {
      loadColMajor(call.inputs[0], b, n, n, a.data(), n);
      const int ni = lapackInt(n);
      spotri_(&uplo, &ni, a.data(), &ni, &info, 1);
      for (int64_t j = 0; j < n; ++j)  // mirror the computed triangle
        for (int64_t i = j + 1; i < n; ++i) {
          if (uplo == 'U')
            a[static_cast<size_t>(i + j * n)] = a[static_cast<size_t>(j + i * n)];
          else
            a[static_cast<size_t>(j + i * n)] = a[static_cast<size_t>(i + j * n)];
        }
      storeColMajor(call.outputs[0], b, n, n, a.data(), n);
    }
    if (call.outputs.size() == 2) storeInts(call.outputs[1], b, 1, &info);
  }
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
