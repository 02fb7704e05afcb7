// MatrixDeterminant, LogMatrixDeterminant (OPS.md "Linear algebra (AI CPU)"):
// determinants through the LU factorisation (sgetrf), as PyTorch computes
// them: det = det(P) * prod(diag(U)); sign = det(P) * prod(sgn(diag(U)))
// (sgn(NaN) = 0) and logabsdet = sum(log|diag(U)|), each in fp32 in
// diagonal order. The factorisation can be returned too (outputs lu and
// pivots, for the backward pass); attr transpose_x factorises x^T instead of
// x (same determinant; PyTorch factorises A^T of a row-major A).
#include <cmath>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

// The LU factorisation of one matrix: column-major factors and pivots.
struct Lu {
  std::vector<float> a;
  std::vector<int> ipiv;
  // det(P): -1 for an odd number of row swaps.
  float detP() const {
    float s = 1.0f;
    for (size_t i = 0; i < ipiv.size(); ++i)
      if (ipiv[i] != static_cast<int>(i) + 1) s = -s;
    return s;
  }
  float diag(int64_t i) const { return a[static_cast<size_t>(i + i * static_cast<int64_t>(ipiv.size()))]; }
};

// Factorises matrix `index` of x (n x n) and stores lu/pivots outputs
// `first_out`, `first_out + 1` when the call has them.
Lu factorise(const OpCall& call, int64_t index, int64_t n, size_t first_out) {
  Lu f;
  f.a.resize(static_cast<size_t>(n * n));
  f.ipiv.resize(static_cast<size_t>(n));
  if (n == 0) return f;
  if (attrBool(call, "transpose_x", false))
    loadTransposed(call.inputs[0], index, n, n, f.a.data());
  else
    loadColMajor(call.inputs[0], index, n, n, f.a.data(), n);
  const int ni = lapackInt(n);
  int info = 0;  // info > 0 (an exact zero pivot) shows in diag(U)
  sgetrf_(&ni, &ni, f.a.data(), &ni, f.ipiv.data(), &info);
  if (call.outputs.size() > first_out) {
    storeColMajor(call.outputs[first_out], index, n, n, f.a.data(), n);
    storeInts(call.outputs[first_out + 1], index * n, n, f.ipiv.data());
  }
  return f;
}

// Validates x, the `results` leading outputs (x's dtype, shape batch) and
// the optional lu, pivots outputs after them.
Matrices validateDet(const OpCall& call, size_t results, const char* const* names) {
  if (call.outputs.size() != results && call.outputs.size() != results + 2)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "expected " + std::to_string(results) + " outputs, or " + std::to_string(results + 2) +
             " with lu and pivots, got " + std::to_string(call.outputs.size()));
  checkArity(call, 1, 1, call.outputs.size());
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  for (size_t i = 0; i < results; ++i) checkFloatOut(call, i, names[i], call.inputs[0], x.batch);
  if (call.outputs.size() > results) {
    checkFloatOut(call, results, "lu", call.inputs[0], batchShape(x.batch, {x.rows, x.rows}));
    checkInt32Out(call, results + 1, "pivots", batchShape(x.batch, {x.rows}));
  }
  attrBool(call, "transpose_x", false);
  return x;
}

const char* const kDetNames[] = {"y"};
const char* const kLogDetNames[] = {"sign", "y"};

void validateMatrixDeterminant(const OpCall& call) { validateDet(call, 1, kDetNames); }

void computeMatrixDeterminant(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  for (int64_t b = 0; b < x.count; ++b) {
    const Lu f = factorise(call, b, x.rows, 1);
    float prod = 1.0f;
    for (int64_t i = 0; i < x.rows; ++i) prod *= f.diag(i);
    const float det = f.detP() * prod;
    storeFloat(call.outputs[0].dtype, call.outputs[0].data, b, 1, &det);
  }
}

float sgn(float v) { return v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : 0.0f); }  // NaN -> 0, as torch.sgn

void validateLogMatrixDeterminant(const OpCall& call) { validateDet(call, 2, kLogDetNames); }

void computeLogMatrixDeterminant(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  for (int64_t b = 0; b < x.count; ++b) {
    const Lu f = factorise(call, b, x.rows, 2);
    float sign = 1.0f, logabs = 0.0f;
    for (int64_t i = 0; i < x.rows; ++i) {
      sign *= sgn(f.diag(i));
      logabs += std::log(std::fabs(f.diag(i)));
    }
    sign *= f.detP();
    storeFloat(call.outputs[0].dtype, call.outputs[0].data, b, 1, &sign);
    storeFloat(call.outputs[1].dtype, call.outputs[1].data, b, 1, &logabs);
  }
}

KernelCost costDeterminant(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  return aiCpuCost(call, static_cast<double>(x.count) * (luFlops(n, n) + n));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MatrixDeterminant", &validateMatrixDeterminant, &computeMatrixDeterminant,
                                     &costDeterminant});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LogMatrixDeterminant", &validateLogMatrixDeterminant,
                                     &computeLogMatrixDeterminant, &costDeterminant});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
