// Lu, LuSolve, LuUnpack (OPS.md "Linear algebra (AI CPU)"): LU factorisation
// with partial pivoting (sgetrf), solves with it (sgetrs), and its unpacking
// into P, L, U. Pivots are LAPACK's: int32, 1-based, row i was swapped with
// row pivots[i] (in order), so that A = P L U. See Note [Linear algebra
// kernels].
#include <algorithm>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

// ---- Lu: x -> lu, pivots, info; attr transpose_x factorises x^T ----------

struct LuDims {
  Matrices x;
  int64_t m = 0, n = 0;  // the factorised matrix A (x, or x^T)
};

LuDims luDims(const OpCall& call) {
  LuDims d;
  d.x = checkMatrices(call, call.inputs[0], "input x", false);
  const bool t = attrBool(call, "transpose_x", false);
  d.m = t ? d.x.cols : d.x.rows;
  d.n = t ? d.x.rows : d.x.cols;
  return d;
}

void validateLu(const OpCall& call) {
  checkArity(call, 1, 1, 3);
  const LuDims d = luDims(call);
  checkFloatOut(call, 0, "lu", call.inputs[0], batchShape(d.x.batch, {d.m, d.n}));
  checkInt32Out(call, 1, "pivots", batchShape(d.x.batch, {std::min(d.m, d.n)}));
  checkInt32Out(call, 2, "info", d.x.batch);
}

void computeLu(const OpCall& call) {
  const LuDims d = luDims(call);
  const bool t = attrBool(call, "transpose_x", false);
  const int64_t k = std::min(d.m, d.n);
  std::vector<float> a(static_cast<size_t>(d.m * d.n));
  std::vector<int> ipiv(static_cast<size_t>(k));
  const int m = lapackInt(d.m), n = lapackInt(d.n);
  factorEachMatrix(call, d.x.count, k == 0, /*info_output=*/2, [&](int64_t b) {
    if (t)
      loadTransposed(call.inputs[0], b, d.x.rows, d.x.cols, a.data());
    else
      loadColMajor(call.inputs[0], b, d.x.rows, d.x.cols, a.data(), d.m);
    int info = 0;
    sgetrf_(&m, &n, a.data(), &m, ipiv.data(), &info);
    storeColMajor(call.outputs[0], b, d.m, d.n, a.data(), d.m);
    storeInts(call.outputs[1], b * k, k, ipiv.data());
    return info;
  });
}

KernelCost costLu(const OpCall& call) {
  const LuDims d = luDims(call);
  return aiCpuCost(call, static_cast<double>(d.x.count) * luFlops(static_cast<double>(d.m), static_cast<double>(d.n)));
}

// ---- LuSolve: lu, pivots, b -> x (A x = b, or A^T x = b with adjoint) ------

const FactorSolveInputs kLuSolveInputs{/*factor=*/0, "lu", /*b=*/2, /*pivots=*/1};

void validateLuSolve(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  checkFactorSolve(call, kLuSolveInputs);
  attrBool(call, "adjoint", false);
}

void computeLuSolve(const OpCall& call) {
  const FactorSolve s = factorSolveOperands(call, kLuSolveInputs);
  const int64_t n = s.factor.rows;
  const char trans = attrBool(call, "adjoint", false) ? 'T' : 'N';
  const int ni = lapackInt(n), ki = lapackInt(s.b.cols);
  solveEachMatrix(call, kLuSolveInputs, s, [&](int64_t lu_index, const float* a, float* x) {
    const std::vector<int> ipiv = loadPivots(call, call.inputs[1], lu_index, n, n);
    int info = 0;
    sgetrs_(&trans, &ni, &ki, a, &ni, ipiv.data(), x, &ni, &info, 1);
  });
}

KernelCost costLuSolve(const OpCall& call) { return factorSolveCost(call, factorSolveOperands(call, kLuSolveInputs)); }

// ---- LuUnpack: lu, pivots -> [p,] [l, u] ------------------------------------

struct UnpackDims {
  Matrices lu;
  bool data = true, pivots = true;
};

UnpackDims unpackDims(const OpCall& call) {
  UnpackDims d;
  d.lu = checkMatrices(call, call.inputs[0], "input lu", false);
  d.data = attrBool(call, "unpack_data", true);
  d.pivots = attrBool(call, "unpack_pivots", true);
  return d;
}

void validateLuUnpack(const OpCall& call) {
  const bool data = attrBool(call, "unpack_data", true), pivots = attrBool(call, "unpack_pivots", true);
  if (!data && !pivots)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "unpack_data and unpack_pivots are both false: nothing to compute");
  checkArity(call, 2, 2, (pivots ? 1 : 0) + (data ? 2 : 0));
  const UnpackDims d = unpackDims(call);
  const int64_t m = d.lu.rows, n = d.lu.cols, k = d.lu.k();
  checkDtype(call, call.inputs[1], "input pivots", dtBit(ACL_INT32));
  checkShapeEq(call, call.inputs[1], "input pivots", batchShape(d.lu.batch, {k}), "lu batch + [min(m, n)]");
  size_t o = 0;
  if (d.pivots) checkFloatOut(call, o++, "p", call.inputs[0], batchShape(d.lu.batch, {m, m}));
  if (d.data) {
    checkFloatOut(call, o++, "l", call.inputs[0], batchShape(d.lu.batch, {m, k}));
    checkFloatOut(call, o, "u", call.inputs[0], batchShape(d.lu.batch, {k, n}));
  }
}

// P of A = P L U: row perm[j] of P has its one in column j, where perm is the
// identity with the pivots' swaps applied in order.
void storePermutation(const OpCall& call, const TensorArg& p, int64_t index, int64_t m, int64_t k) {
  const std::vector<int> ipiv = loadPivots(call, call.inputs[1], index, k, m);
  std::vector<int64_t> perm(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) perm[static_cast<size_t>(i)] = i;
  for (int64_t i = 0; i < k; ++i) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(ipiv[i] - 1)]);
  std::vector<float> pm(static_cast<size_t>(m * m), 0.0f);
  for (int64_t j = 0; j < m; ++j) pm[static_cast<size_t>(perm[static_cast<size_t>(j)] + j * m)] = 1.0f;
  storeColMajor(p, index, m, m, pm.data(), m);
}

void computeLuUnpack(const OpCall& call) {
  const UnpackDims d = unpackDims(call);
  const int64_t m = d.lu.rows, n = d.lu.cols, k = d.lu.k();
  std::vector<float> a(static_cast<size_t>(m * n)), l(static_cast<size_t>(m * k)), u(static_cast<size_t>(k * n));
  for (int64_t b = 0; b < d.lu.count; ++b) {
    if (d.pivots) storePermutation(call, call.outputs[0], b, m, k);
    if (!d.data || k == 0) continue;
    loadColMajor(call.inputs[0], b, m, n, a.data(), m);
    for (int64_t j = 0; j < k; ++j)  // L: unit diagonal, the strictly lower part of lu
      for (int64_t i = 0; i < m; ++i) l[static_cast<size_t>(i + j * m)] = i > j ? a[i + j * m] : (i == j ? 1.0f : 0.0f);
    for (int64_t j = 0; j < n; ++j)  // U: the upper part of lu's first k rows
      for (int64_t i = 0; i < k; ++i) u[static_cast<size_t>(i + j * k)] = i <= j ? a[i + j * m] : 0.0f;
    const size_t o = d.pivots ? 1 : 0;
    storeColMajor(call.outputs[o], b, m, k, l.data(), m);
    storeColMajor(call.outputs[o + 1], b, k, n, u.data(), k);
  }
}

KernelCost costLuUnpack(const OpCall& call) { return aiCpuCost(call, 0); }

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Lu", &validateLu, &computeLu, &costLu});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LuSolve", &validateLuSolve, &computeLuSolve, &costLuSolve});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LuUnpack", &validateLuUnpack, &computeLuUnpack, &costLuUnpack});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
