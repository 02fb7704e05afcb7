// MatrixSolveLs (OPS.md "Linear algebra (AI CPU)"): least squares
// min ||a x - b|| for every matrix of the (broadcast) batch with the LAPACK
// driver PyTorch's CPU linalg.lstsq uses, attr `driver`: "gels" (QR, full
// rank assumed), "gelsy" (complete orthogonal factorisation with column
// pivoting, the default), "gelsd" (SVD, divide and conquer) or "gelss" (SVD).
// attr `rcond` (float; singular values below rcond * s_max count as zero;
// not used by gels). Outputs, as LAPACK returns them:
//   x [..., max(m, n), k]  rows 0..n-1 the solution; for m > n rows n..m-1
//                          hold the residual components (gels, and gelsd /
//                          gelss at full rank)
//   rank [...] (int64)     effective rank — gelsy, gelsd, gelss only
//   s [..., min(m, n)]     singular values, descending — gelsd, gelss only
//   info [...] (int32)     LAPACK's info (gels: > 0 when a is rank deficient;
//                          gelsd / gelss: > 0 when the SVD does not converge)
// so the outputs are x, info (gels); x, rank, info (gelsy); x, rank, s, info.
// gelsd and gelss are not handed an a holding NaN or inf (they may not return
// on an infinity): its x and s are NaN, rank 0 and info = min(m, n), as if
// the SVD had failed (LAPACK reports such a NaN input with info > 0 too).
// See Note [Linear algebra kernels].
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

struct LsDims {
  Matrices a, b;
  Shape batch;
  std::string driver;
  bool has_rank = false, has_s = false;
};

LsDims lsDims(const OpCall& call) {
  LsDims d;
  d.driver = attrString(call, "driver", "gelsy");
  if (d.driver != "gels" && d.driver != "gelsy" && d.driver != "gelsd" && d.driver != "gelss")
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'driver' is \"" + d.driver + "\"; expected gels, gelsy, gelsd or gelss");
  d.has_rank = d.driver != "gels";
  d.has_s = d.driver == "gelsd" || d.driver == "gelss";
  d.a = checkMatrices(call, call.inputs[0], "input a", false);
  d.b = checkMatrices(call, call.inputs[1], "input b", false);
  d.batch = broadcastBatch(call, d.a, "a", d.b, "b");
  return d;
}

size_t outputCount(const LsDims& d) { return 2 + (d.has_rank ? 1 : 0) + (d.has_s ? 1 : 0); }

void validateMatrixSolveLs(const OpCall& call) {
  if (call.inputs.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 2 inputs, got " + std::to_string(call.inputs.size()));
  const LsDims d = lsDims(call);
  checkArity(call, 2, 2, outputCount(d));
  checkSameDtype(call, call.inputs[0], "a", call.inputs[1], "b");
  if (d.a.rows != d.b.rows)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "a has " + std::to_string(d.a.rows) + " rows but b has " + std::to_string(d.b.rows));
  checkFloatOut(call, 0, "x", call.inputs[0], batchShape(d.batch, {std::max(d.a.rows, d.a.cols), d.b.cols}));
  size_t o = 1;
  if (d.has_rank) {
    checkDtype(call, call.outputs[o], "output rank", dtBit(ACL_INT64));
    checkOutShape(call, o++, "rank", d.batch);
  }
  if (d.has_s) checkFloatOut(call, o++, "s", call.inputs[0], batchShape(d.batch, {d.a.k()}));
  checkInt32Out(call, o, "info", d.batch);
  attrFloat(call, "rcond", -1.0f);
}

// Runs the driver on column-major a (m x n) and b (ldb x nrhs); returns info.
int leastSquares(const LsDims& d, float rcond, float* a, float* b, int ldb, int* rank, float* s) {
  const int m = lapackInt(d.a.rows), n = lapackInt(d.a.cols), nrhs = lapackInt(d.b.cols);
  const int lda = std::max(1, m);
  int info = 0, lwork = -1;
  float query = 0;
  std::vector<int> jpvt(static_cast<size_t>(n), 0);
  std::vector<int> iwork;
  auto call = [&](float* work) {
    if (d.driver == "gels") {
      const char no = 'N';
      sgels_(&no, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, &info, 1);
    } else if (d.driver == "gelsy") {
      sgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt.data(), &rcond, rank, work, &lwork, &info);
    } else if (d.driver == "gelsd") {
      sgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork.data(), &info);
    } else {
      sgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, &info);
    }
  };
  int iquery = 1;
  if (d.driver == "gelsd") iwork.assign(1, 0);
  call(&query);
  if (d.driver == "gelsd") iquery = std::max(1, iwork[0]);
  lwork = workspaceSize(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  iwork.assign(static_cast<size_t>(iquery), 0);
  call(work.data());
  return info;
}

void computeMatrixSolveLs(const OpCall& call) {
  const LsDims d = lsDims(call);
  const int64_t m = d.a.rows, n = d.a.cols, nrhs = d.b.cols, rows = std::max(m, n), k = d.a.k();
  const int64_t count = numelOf(d.batch);
  const std::vector<int64_t> a_of = batchIndex(d.a.batch, d.batch), b_of = batchIndex(d.b.batch, d.batch);
  const float rcond = attrFloat(call, "rcond", -1.0f);
  const int ldb = lapackInt(std::max<int64_t>(1, rows));
  std::vector<float> a(static_cast<size_t>(m * n)), x(static_cast<size_t>(ldb * nrhs)), s(static_cast<size_t>(k));
  for (int64_t i = 0; i < count; ++i) {
    std::fill(x.begin(), x.end(), 0.0f);
    loadColMajor(call.inputs[1], b_of[static_cast<size_t>(i)], m, nrhs, x.data(), ldb);
    int rank = 0, info = 0;
    if (k > 0) {  // else x stays b (n = 0: all residual) or 0 (m = 0: the minimum-norm solution)
      loadColMajor(call.inputs[0], a_of[static_cast<size_t>(i)], m, n, a.data(), m);
      if (d.has_s && !allFinite(a)) {
        std::fill(x.begin(), x.end(), std::numeric_limits<float>::quiet_NaN());
        std::fill(s.begin(), s.end(), std::numeric_limits<float>::quiet_NaN());
        info = lapackInt(k);
      } else {
        info = leastSquares(d, rcond, a.data(), x.data(), ldb, &rank, s.data());
      }
    }
    storeColMajor(call.outputs[0], i, rows, nrhs, x.data(), ldb);
    size_t o = 1;
    if (d.has_rank) {
      const int64_t r = rank;
      storeInt(call.outputs[o].dtype, call.outputs[o].data, i, 1, &r);
      ++o;
    }
    if (d.has_s) {
      storeFloat(call.outputs[o].dtype, call.outputs[o].data, i * k, k, s.data());
      ++o;
    }
    storeInts(call.outputs[o], i, 1, &info);
  }
}

KernelCost costMatrixSolveLs(const OpCall& call) {
  const LsDims d = lsDims(call);
  const double m = static_cast<double>(d.a.rows), n = static_cast<double>(d.a.cols);
  const double nrhs = static_cast<double>(d.b.cols), k = static_cast<double>(d.a.k());
  // The factorisation (QR for gels / gelsy, SVD ~ 4 m n^2 + 8 n^3 for
  // gelsd / gelss) plus applying it to the right-hand sides.
  const double factor = d.has_s ? 4.0 * std::max(m, n) * k * k + 8.0 * k * k * k : qrFlops(m, n);
  return aiCpuCost(call, static_cast<double>(numelOf(d.batch)) * (factor + 4.0 * std::max(m, n) * k * nrhs));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MatrixSolveLs", &validateMatrixSolveLs, &computeMatrixSolveLs,
                                     &costMatrixSolveLs});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
