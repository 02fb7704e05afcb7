// Svd (OPS.md "Linear algebra (AI CPU)"): x = u diag(s) vh for every matrix
// of the batch, by divide and conquer (sgesdd, the driver of PyTorch's CPU
// linalg.svd) on the same column-major matrix, so the signs of the singular
// vectors are PyTorch's CPU ones. s is descending. Outputs s, u, vh [, info]
// (attr compute_uv, default true) or s [, info] (compute_uv = false); attr
// full_matrices (default false) makes u m x m and vh n x n instead of m x k
// and k x n. CANN's Svd returns v; this op returns vh = v^T, as LAPACK and
// PyTorch do. info: 0, LAPACK's positive code when the iteration did not
// converge, or -4 when the matrix holds a NaN or an infinity (LAPACK 3.10's
// code for NaN; such a matrix is not handed to LAPACK at all, since sgesdd
// may not return on an infinity) — the outputs of that matrix are then NaN.
// See Note [Linear algebra kernels].
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

struct SvdDims {
  Matrices x;
  bool compute_uv = true, full = false;
  int64_t u_cols = 0, vh_rows = 0;
  bool has_info = false;
};

SvdDims svdDims(const OpCall& call) {
  SvdDims d;
  d.x = checkMatrices(call, call.inputs[0], "input x", false);
  d.compute_uv = attrBool(call, "compute_uv", true);
  d.full = attrBool(call, "full_matrices", false);
  d.u_cols = d.full ? d.x.rows : d.x.k();
  d.vh_rows = d.full ? d.x.cols : d.x.k();
  d.has_info = call.outputs.size() == (d.compute_uv ? 4u : 2u);
  return d;
}

void validateSvd(const OpCall& call) {
  const size_t base = attrBool(call, "compute_uv", true) ? 3 : 1;
  if (call.outputs.size() != base && call.outputs.size() != base + 1)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         std::string("expected outputs ") + (base == 3 ? "s, u, vh" : "s") + " [, info], got " +
             std::to_string(call.outputs.size()) + " outputs");
  checkArity(call, 1, 1, call.outputs.size());
  const SvdDims d = svdDims(call);
  checkFloatOut(call, 0, "s", call.inputs[0], batchShape(d.x.batch, {d.x.k()}));
  if (d.compute_uv) {
    checkFloatOut(call, 1, "u", call.inputs[0], batchShape(d.x.batch, {d.x.rows, d.u_cols}));
    checkFloatOut(call, 2, "vh", call.inputs[0], batchShape(d.x.batch, {d.vh_rows, d.x.cols}));
  }
  if (d.has_info) checkInt32Out(call, base, "info", d.x.batch);
}

// sgesdd on the column-major m x n matrix a; returns info.
int gesdd(const SvdDims& d, float* a, float* s, float* u, float* vt) {
  const char jobz = d.compute_uv ? (d.full ? 'A' : 'S') : 'N';
  const int m = lapackInt(d.x.rows), n = lapackInt(d.x.cols);
  const int ldu = lapackInt(std::max<int64_t>(1, d.x.rows)), ldvt = lapackInt(std::max<int64_t>(1, d.vh_rows));
  std::vector<int> iwork(static_cast<size_t>(8 * d.x.k()));
  int info = 0, lwork = -1;
  float query = 0;
  sgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, &query, &lwork, iwork.data(), &info, 1);
  lwork = workspaceSize(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  sgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
  return info;
}

void computeSvd(const OpCall& call) {
  const SvdDims d = svdDims(call);
  const int64_t m = d.x.rows, n = d.x.cols, k = d.x.k();
  std::vector<float> a(static_cast<size_t>(m * n)), s(static_cast<size_t>(k));
  std::vector<float> u(static_cast<size_t>(d.compute_uv ? m * d.u_cols : 1));
  std::vector<float> vt(static_cast<size_t>(d.compute_uv ? d.vh_rows * n : 1));
  for (int64_t b = 0; b < d.x.count; ++b) {
    int info = 0;
    loadColMajor(call.inputs[0], b, m, n, a.data(), std::max<int64_t>(1, m));
    if (!allFinite(a)) {
      info = -4;
      const float nan = std::numeric_limits<float>::quiet_NaN();
      std::fill(s.begin(), s.end(), nan);
      std::fill(u.begin(), u.end(), nan);
      std::fill(vt.begin(), vt.end(), nan);
    } else if (k > 0) {
      info = gesdd(d, a.data(), s.data(), u.data(), vt.data());
    } else if (d.compute_uv) {  // an empty matrix: u and vh are identities (full) or empty
      std::fill(u.begin(), u.end(), 0.0f);
      std::fill(vt.begin(), vt.end(), 0.0f);
      for (int64_t i = 0; i < d.u_cols; ++i) u[static_cast<size_t>(i + i * m)] = 1.0f;
      for (int64_t i = 0; i < d.vh_rows; ++i) vt[static_cast<size_t>(i + i * d.vh_rows)] = 1.0f;
    }
    storeFloat(call.outputs[0].dtype, call.outputs[0].data, b * k, k, s.data());
    if (d.compute_uv) {
      storeColMajor(call.outputs[1], b, m, d.u_cols, u.data(), std::max<int64_t>(1, m));
      storeColMajor(call.outputs[2], b, d.vh_rows, n, vt.data(), std::max<int64_t>(1, d.vh_rows));
    }
    if (d.has_info) storeInts(call.outputs.back(), b, 1, &info);
  }
}

KernelCost costSvd(const OpCall& call) {
  const SvdDims d = svdDims(call);
  // Golub & Van Loan's counts for the R-SVD (m >= n; swapped otherwise).
  const double big = static_cast<double>(std::max(d.x.rows, d.x.cols)), k = static_cast<double>(d.x.k());
  double flops = 4.0 * big * k * k - 4.0 / 3.0 * k * k * k;
  if (d.compute_uv)
    flops = d.full ? 4.0 * big * big * k + 8.0 * big * k * k + 9.0 * k * k * k : 14.0 * big * k * k + 8.0 * k * k * k;
  return aiCpuCost(call, static_cast<double>(d.x.count) * flops);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Svd", &validateSvd, &computeSvd, &costSvd});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
