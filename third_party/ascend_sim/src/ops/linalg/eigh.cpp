// SelfAdjointEig (OPS.md "Linear algebra (AI CPU)"): eigenvalues (ascending)
// and eigenvectors (columns of v) of symmetric matrices, by divide and
// conquer (ssyevd, the routine of PyTorch's CPU linalg.eigh) on the same
// column-major matrix, so the eigenvectors' signs are PyTorch's CPU ones.
// Only the lower (attr lower = true, the default) or upper triangle is read.
// Outputs e, v [, info] (attr compute_v, default true) or e [, info]. info is
// LAPACK's: > 0 when the iteration did not converge (e.g. on NaN input).
// attr driver: "syevd" (the default) or "syev" (QR iteration, the routine of
// the deprecated torch.symeig; its eigenvectors may differ in sign).
// See Note [Linear algebra kernels].
#include <algorithm>
#include <string>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

void validateSelfAdjointEig(const OpCall& call) {
  const bool compute_v = attrBool(call, "compute_v", true);
  const size_t base = compute_v ? 2 : 1;
  if (call.outputs.size() != base && call.outputs.size() != base + 1)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         std::string("expected outputs ") + (compute_v ? "e, v" : "e") + " [, info], got " +
             std::to_string(call.outputs.size()) + " outputs");
  checkArity(call, 1, 1, call.outputs.size());
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  checkFloatOut(call, 0, "e", call.inputs[0], batchShape(x.batch, {x.rows}));
  if (compute_v) checkFloatOut(call, 1, "v", call.inputs[0], call.inputs[0].shape);
  if (call.outputs.size() > base) checkInt32Out(call, base, "info", x.batch);
  attrBool(call, "lower", true);
  const std::string driver = attrString(call, "driver", "syevd");
  if (driver != "syevd" && driver != "syev")
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'driver' is \"" + driver + "\"; expected syevd or syev");
}

// ssyevd or ssyev on the column-major n x n matrix a; returns info.
int symmetricEigen(bool divide_and_conquer, char jobz, char uplo, int n, float* a, float* w) {
  int info = 0, lwork = -1, liwork = -1, iquery = 0;
  float query = 0;
  if (!divide_and_conquer) {
    ssyev_(&jobz, &uplo, &n, a, &n, w, &query, &lwork, &info, 1, 1);
    lwork = workspaceSize(query);
    std::vector<float> work(static_cast<size_t>(lwork));
    ssyev_(&jobz, &uplo, &n, a, &n, w, work.data(), &lwork, &info, 1, 1);
    return info;
  }
  ssyevd_(&jobz, &uplo, &n, a, &n, w, &query, &lwork, &iquery, &liwork, &info, 1, 1);
  lwork = workspaceSize(query);
  liwork = std::max(1, iquery);
  std::vector<float> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  ssyevd_(&jobz, &uplo, &n, a, &n, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  return info;
}

void computeSelfAdjointEig(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const bool compute_v = attrBool(call, "compute_v", true);
  const size_t base = compute_v ? 2 : 1;
  const int64_t n = x.rows;
  const char jobz = compute_v ? 'V' : 'N', uplo = attrBool(call, "lower", true) ? 'L' : 'U';
  const bool divide_and_conquer = attrString(call, "driver", "syevd") == "syevd";
  const int ni = lapackInt(n);
  std::vector<float> a(static_cast<size_t>(n * n)), w(static_cast<size_t>(n));
  for (int64_t b = 0; b < x.count; ++b) {
    int info = 0;
    if (n > 0) {
      loadColMajor(call.inputs[0], b, n, n, a.data(), n);
      info = symmetricEigen(divide_and_conquer, jobz, uplo, ni, a.data(), w.data());
      storeFloat(call.outputs[0].dtype, call.outputs[0].data, b * n, n, w.data());
      if (compute_v) storeColMajor(call.outputs[1], b, n, n, a.data(), n);
    }
    if (call.outputs.size() > base) storeInts(call.outputs[base], b, 1, &info);
  }
}

KernelCost costSelfAdjointEig(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  // Tridiagonal reduction (4/3 n^3), plus back-transformation and divide
  // and conquer for the vectors (~ 8/3 n^3 more; Golub & Van Loan ~ 9 n^3 overall).
  const double flops = attrBool(call, "compute_v", true) ? 9.0 * n * n * n : 4.0 / 3.0 * n * n * n;
  return aiCpuCost(call, static_cast<double>(x.count) * flops);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SelfAdjointEig", &validateSelfAdjointEig, &computeSelfAdjointEig,
                                     &costSelfAdjointEig});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
