// Qr, Geqrf, Orgqr, Ormqr (OPS.md "Linear algebra (AI CPU)"): Householder QR
// (sgeqrf), the explicit Q from the reflectors (sorgqr) and the product of
// the reflectors' Q with another matrix (sormqr). Qr runs sgeqrf then sorgqr
// on the same column-major matrix as PyTorch's CPU linalg.qr, so the signs
// of Q's columns and R's rows are LAPACK's (R's diagonal may be negative).
// See Note [Linear algebra kernels].
#include <algorithm>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

// geqrf on a column-major m x n matrix (lda = m), in place; tau gets min(m, n) values.
void geqrf(int64_t m, int64_t n, float* a, float* tau) {
  if (m == 0 || n == 0) return;
  const int mi = lapackInt(m), ni = lapackInt(n);
  int info = 0, lwork = -1;
  float query = 0;
  sgeqrf_(&mi, &ni, a, &mi, tau, &query, &lwork, &info);
  lwork = workspaceSize(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  sgeqrf_(&mi, &ni, a, &mi, tau, work.data(), &lwork, &info);
}

// orgqr: overwrites the column-major m x n matrix q (lda = m), whose first k
// columns hold reflectors, with the first n columns of their product.
void orgqr(int64_t m, int64_t n, int64_t k, float* q, const float* tau) {
  if (m == 0 || n == 0) return;
  const int mi = lapackInt(m), ni = lapackInt(n), ki = lapackInt(k);
  int info = 0, lwork = -1;
  float query = 0;
  sorgqr_(&mi, &ni, &ki, q, &mi, tau, &query, &lwork, &info);
  lwork = workspaceSize(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  sorgqr_(&mi, &ni, &ki, q, &mi, tau, work.data(), &lwork, &info);
}

// ---- Qr: x -> q, r (or r alone with compute_q = false) ---------------------

struct QrDims {
  Matrices x;
  bool full = false, compute_q = true;
  int64_t q_cols = 0, r_rows = 0;  // m or k
};

QrDims qrDims(const OpCall& call) {
  QrDims d;
  d.x = checkMatrices(call, call.inputs[0], "input x", false);
  d.full = attrBool(call, "full_matrices", false);
  d.compute_q = attrBool(call, "compute_q", true);
  d.q_cols = d.full ? d.x.rows : d.x.k();
  d.r_rows = d.full ? d.x.rows : d.x.k();
  return d;
}

void validateQr(const OpCall& call) {
  checkArity(call, 1, 1, attrBool(call, "compute_q", true) ? 2 : 1);
  const QrDims d = qrDims(call);
  if (d.compute_q) checkFloatOut(call, 0, "q", call.inputs[0], batchShape(d.x.batch, {d.x.rows, d.q_cols}));
  checkFloatOut(call, d.compute_q ? 1 : 0, "r", call.inputs[0], batchShape(d.x.batch, {d.r_rows, d.x.cols}));
}

void computeQr(const OpCall& call) {
  const QrDims d = qrDims(call);
  const int64_t m = d.x.rows, n = d.x.cols, k = d.x.k();
  if (m == 0) return;  // every output is empty
  std::vector<float> a(static_cast<size_t>(m * n)), tau(static_cast<size_t>(k));
  std::vector<float> q(static_cast<size_t>(m * d.q_cols));
  for (int64_t b = 0; b < d.x.count; ++b) {
    loadColMajor(call.inputs[0], b, m, n, a.data(), m);
    geqrf(m, n, a.data(), tau.data());
    if (d.compute_q) {
      std::fill(q.begin(), q.end(), 0.0f);
      std::copy(a.begin(), a.begin() + std::min(n, d.q_cols) * m, q.begin());
      orgqr(m, d.q_cols, k, q.data(), tau.data());
      storeColMajor(call.outputs[0], b, m, d.q_cols, q.data(), m);
    }
    zeroTriangle(a.data(), m, n, m, true);
    storeColMajor(call.outputs[d.compute_q ? 1 : 0], b, d.r_rows, n, a.data(), m);
  }
}

KernelCost costQr(const OpCall& call) {
  const QrDims d = qrDims(call);
  const double m = static_cast<double>(d.x.rows), n = static_cast<double>(d.x.cols);
  double flops = qrFlops(m, n);
  if (d.compute_q) flops += orgqrFlops(m, static_cast<double>(d.q_cols), static_cast<double>(d.x.k()));
  return aiCpuCost(call, static_cast<double>(d.x.count) * flops);
}

// ---- Geqrf: x -> a (R above the diagonal, reflectors below), tau -----------

void validateGeqrf(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", false);
  checkFloatOut(call, 0, "a", call.inputs[0], call.inputs[0].shape);
  checkFloatOut(call, 1, "tau", call.inputs[0], batchShape(x.batch, {x.k()}));
}

void computeGeqrf(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", false);
  std::vector<float> a(static_cast<size_t>(x.rows * x.cols)), tau(static_cast<size_t>(x.k()));
  if (x.k() == 0) return;
  for (int64_t b = 0; b < x.count; ++b) {
    loadColMajor(call.inputs[0], b, x.rows, x.cols, a.data(), x.rows);
    geqrf(x.rows, x.cols, a.data(), tau.data());
    storeColMajor(call.outputs[0], b, x.rows, x.cols, a.data(), x.rows);
    storeFloat(call.outputs[1].dtype, call.outputs[1].data, b * x.k(), x.k(), tau.data());
  }
}

KernelCost costGeqrf(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", false);
  return aiCpuCost(call,
                   static_cast<double>(x.count) * qrFlops(static_cast<double>(x.rows), static_cast<double>(x.cols)));
}

// ---- Orgqr: x (reflectors), tau -> y = first n columns of H_1 ... H_k ------

struct ReflectorDims {
  Matrices x;
  int64_t k = 0;  // reflectors (tau's last dim)
};

// x and tau with matching batches; k <= max_k (x's columns).
ReflectorDims reflectorDims(const OpCall& call, const std::string& xname) {
  ReflectorDims d;
  d.x = checkMatrices(call, call.inputs[0], "input " + xname, false);
  const TensorArg& tau = call.inputs[1];
  checkSameDtype(call, call.inputs[0], xname, tau, "tau");
  if (tau.shape.size() != d.x.batch.size() + 1 || !std::equal(d.x.batch.begin(), d.x.batch.end(), tau.shape.begin()))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "tau shape " + shapeToString(tau.shape) + " must be the batch " + shapeToString(d.x.batch) + " of " + xname +
             " plus one dim");
  d.k = tau.shape.back();
  if (d.k > d.x.cols)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "tau has " + std::to_string(d.k) + " reflectors but " + xname + " has only " + std::to_string(d.x.cols) +
             " columns");
  return d;
}

void validateOrgqr(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const ReflectorDims d = reflectorDims(call, "x");
  if (d.x.rows < d.x.cols)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "x must have at least as many rows as columns, got shape " + shapeToString(call.inputs[0].shape));
  checkFloatOut(call, 0, "y", call.inputs[0], call.inputs[0].shape);
}

void computeOrgqr(const OpCall& call) {
  const ReflectorDims d = reflectorDims(call, "x");
  const int64_t m = d.x.rows, n = d.x.cols;
  std::vector<float> q(static_cast<size_t>(m * n)), tau(static_cast<size_t>(d.k));
  if (n == 0) return;
  for (int64_t b = 0; b < d.x.count; ++b) {
    loadColMajor(call.inputs[0], b, m, n, q.data(), m);
    loadFloat(call.inputs[1].dtype, call.inputs[1].data, b * d.k, 1, d.k, tau.data());
    orgqr(m, n, d.k, q.data(), tau.data());
    storeColMajor(call.outputs[0], b, m, n, q.data(), m);
  }
}

KernelCost costOrgqr(const OpCall& call) {
  const ReflectorDims d = reflectorDims(call, "x");
  return aiCpuCost(
      call, static_cast<double>(d.x.count) *
                orgqrFlops(static_cast<double>(d.x.rows), static_cast<double>(d.x.cols), static_cast<double>(d.k)));
}

// ---- Ormqr: a (reflectors), tau, c -> y = op(Q) c (left) or c op(Q) ---------

struct OrmqrDims {
  ReflectorDims r;
  Matrices c;
  bool left = true;
};

OrmqrDims ormqrDims(const OpCall& call) {
  OrmqrDims d;
  d.r = reflectorDims(call, "a");
  d.c = checkMatrices(call, call.inputs[2], "input c", false);
  d.left = attrBool(call, "left", true);
  return d;
}

void validateOrmqr(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  const OrmqrDims d = ormqrDims(call);
  checkSameDtype(call, call.inputs[0], "a", call.inputs[2], "c");
  if (d.c.batch != d.r.x.batch)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "c batch " + shapeToString(d.c.batch) + " must equal a batch " + shapeToString(d.r.x.batch));
  const int64_t order = d.left ? d.c.rows : d.c.cols;  // Q is order x order
  if (d.r.x.rows != order)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "a has " + std::to_string(d.r.x.rows) + " rows but Q must be " + std::to_string(order) + " x " +
             std::to_string(order) + " to multiply c " + shapeToString(call.inputs[2].shape) +
             (d.left ? " from the left" : " from the right"));
  if (d.r.k > order)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "tau has " + std::to_string(d.r.k) + " reflectors, more than Q's order " + std::to_string(order));
  checkFloatOut(call, 0, "y", call.inputs[0], call.inputs[2].shape);
  attrBool(call, "transpose", false);
}

void computeOrmqr(const OpCall& call) {
  const OrmqrDims d = ormqrDims(call);
  const int64_t m = d.c.rows, n = d.c.cols, ar = d.r.x.rows, ac = d.r.x.cols, k = d.r.k;
  if (m == 0 || n == 0) return;
  const char side = d.left ? 'L' : 'R', trans = attrBool(call, "transpose", false) ? 'T' : 'N';
  std::vector<float> a(static_cast<size_t>(ar * ac)), tau(static_cast<size_t>(k)), c(static_cast<size_t>(m * n));
  const int mi = lapackInt(m), ni = lapackInt(n), ki = lapackInt(k), lda = lapackInt(std::max<int64_t>(1, ar));
  for (int64_t b = 0; b < d.c.count; ++b) {
    loadColMajor(call.inputs[0], b, ar, ac, a.data(), ar);
    loadFloat(call.inputs[1].dtype, call.inputs[1].data, b * k, 1, k, tau.data());
    loadColMajor(call.inputs[2], b, m, n, c.data(), m);
    int info = 0, lwork = -1;
    float query = 0;
    sormqr_(&side, &trans, &mi, &ni, &ki, a.data(), &lda, tau.data(), c.data(), &mi, &query, &lwork, &info, 1, 1);
    lwork = workspaceSize(query);
    std::vector<float> work(static_cast<size_t>(lwork));
    sormqr_(&side, &trans, &mi, &ni, &ki, a.data(), &lda, tau.data(), c.data(), &mi, work.data(), &lwork, &info, 1, 1);
    storeColMajor(call.outputs[0], b, m, n, c.data(), m);
  }
}

KernelCost costOrmqr(const OpCall& call) {
  const OrmqrDims d = ormqrDims(call);
  const double m = static_cast<double>(d.c.rows), n = static_cast<double>(d.c.cols), k = static_cast<double>(d.r.k);
  const double flops = 4.0 * m * n * k - 2.0 * (d.left ? n : m) * k * k;
  return aiCpuCost(call, static_cast<double>(d.c.count) * std::max(0.0, flops));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Qr", &validateQr, &computeQr, &costQr});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Geqrf", &validateGeqrf, &computeGeqrf, &costGeqrf});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Orgqr", &validateOrgqr, &computeOrgqr, &costOrgqr});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Ormqr", &validateOrmqr, &computeOrmqr, &costOrmqr});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
