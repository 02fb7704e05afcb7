// Cholesky, CholeskySolve, CholeskyInverse, LdlFactor, LdlSolve, Qr, Geqrf,
// Orgqr, Ormqr against the double-precision references of linalg_reference.h.
#include "linalg_reference.h"

namespace ascend_sim {
namespace test {
namespace {

double tolFor(aclDataType dt) { return dt == ACL_FLOAT16 ? 2e-3 : 2e-5; }

TEST(KernelLinalgCholesky, LowerAndUpperFactors) {
  const int64_t n = 5;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool upper : {false, true}) {
      HostTensor x = HostTensor::floats(dt, {2, n, n}, spd(2, n, 41));
      HostTensor y(dt, {2, n, n}), info(ACL_INT32, {2});
      run(makeCall("Cholesky", {&x}, {&y, &info}, attrs({{"upper", upper}})));
      for (int64_t b = 0; b < 2; ++b) {
        const Mat l = refCholesky(matOf(x, b, n, n));
        expectMatNear(matOf(y, b, n, n), upper ? l.t() : l, tolFor(dt), tolFor(dt), "factor");
      }
      EXPECT_EQ(info.toInts(), (std::vector<int64_t>{0, 0}));
    }
}

TEST(KernelLinalgCholesky, ReadsOneTriangleAndReportsNonPositiveDefinite) {
  // Garbage above the diagonal is ignored for the lower factor.
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 2}, {4, 99, 2, 5}), y(ACL_FLOAT, {2, 2});
  run(makeCall("Cholesky", {&x}, {&y}));
  EXPECT_EQ(y.toFloats(), (std::vector<float>{2, 0, 1, 2}));
  // The leading minor of order 2 is not positive definite.
  HostTensor bad = HostTensor::floats(ACL_FLOAT, {3, 3}, {1, 2, 0, 2, 1, 0, 0, 0, 1}), yb(ACL_FLOAT, {3, 3});
  HostTensor info(ACL_INT32, {});
  run(makeCall("Cholesky", {&bad}, {&yb, &info}));
  EXPECT_EQ(info.toInts()[0], 2);
  HostTensor e(ACL_FLOAT, {3, 0, 0}), ye(ACL_FLOAT, {3, 0, 0}), ie = HostTensor::ints(ACL_INT32, {3}, {1, 1, 1});
  run(makeCall("Cholesky", {&e}, {&ye, &ie}));
  EXPECT_EQ(ie.toInts(), (std::vector<int64_t>{0, 0, 0}));
  HostTensor r(ACL_FLOAT, {2, 3}), yr(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Cholesky", {&r}, {&yr}), ACL_ERROR_OP_INPUT_NOT_MATCH, "square");
  HostTensor xi(ACL_INT64, {2, 2}), yi(ACL_INT64, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("Cholesky", {&xi}, {&yi}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int64");
}

TEST(KernelLinalgCholeskySolve, SolvesWithEitherFactorAndBroadcasts) {
  const int64_t n = 4, k = 2;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool upper : {false, true}) {
      HostTensor a = HostTensor::floats(dt, {1, n, n}, spd(1, n, 5));
      HostTensor f(dt, {1, n, n});
      run(makeCall("Cholesky", {&a}, {&f}, attrs({{"upper", upper}})));
      HostTensor b = HostTensor::floats(dt, {3, n, k}, randomFloats(3 * n * k, -1, 1, 6)), x(dt, {3, n, k});
      run(makeCall("CholeskySolve", {&b, &f}, {&x}, attrs({{"upper", upper}})));
      for (int64_t i = 0; i < 3; ++i)
        expectMatNear(matOf(x, i, n, k), refInverse(matOf(a, 0, n, n)) * matOf(b, i, n, k), 5 * tolFor(dt),
                      5 * tolFor(dt), "x");
    }
  HostTensor b(ACL_FLOAT, {3, 1}), f(ACL_FLOAT, {2, 2}), x(ACL_FLOAT, {3, 1});
  EXPECT_KERNEL_ERROR(makeCall("CholeskySolve", {&b, &f}, {&x}), ACL_ERROR_OP_INPUT_NOT_MATCH, "b has 3 rows");
}

TEST(KernelLinalgCholeskyInverse, InverseOfTheProductIsSymmetric) {
  const int64_t n = 4;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool upper : {false, true}) {
      HostTensor a = HostTensor::floats(dt, {2, n, n}, spd(2, n, 8));
      HostTensor f(dt, {2, n, n}), y(dt, {2, n, n}), info(ACL_INT32, {2});
      run(makeCall("Cholesky", {&a}, {&f}, attrs({{"upper", upper}})));
      run(makeCall("CholeskyInverse", {&f}, {&y, &info}, attrs({{"upper", upper}})));
      for (int64_t b = 0; b < 2; ++b) {
        const Mat fm = matOf(f, b, n, n);
        const Mat want = refInverse(upper ? fm.t() * fm : fm * fm.t());
        expectMatNear(matOf(y, b, n, n), want, 5 * tolFor(dt), 5 * tolFor(dt), "inverse");
      }
    }
  HostTensor z = HostTensor::floats(ACL_FLOAT, {2, 2}, {1, 0, 0, 0}), yz(ACL_FLOAT, {2, 2}), iz(ACL_INT32, {});
  run(makeCall("CholeskyInverse", {&z}, {&yz, &iz}));
  EXPECT_EQ(iz.toInts()[0], 2);
}

// L D L^T without pivoting, in double (what Bunch-Kaufman does on a
// diagonally dominant matrix): L unit lower below the diagonal, D on it.
Mat refLdl(const Mat& a) {
  const int64_t n = a.rows;
  Mat ld(n, n);
  for (int64_t j = 0; j < n; ++j) {
    double d = a(j, j);
    for (int64_t k = 0; k < j; ++k) d -= ld(j, k) * ld(j, k) * ld(k, k);
    ld(j, j) = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (int64_t k = 0; k < j; ++k) s -= ld(i, k) * ld(j, k) * ld(k, k);
      ld(i, j) = s / d;
    }
  }
  return ld;
}

TEST(KernelLinalgLdl, FactorOfDominantMatricesAndSolves) {
  const int64_t n = 5;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    std::vector<float> v = spd(2, n, 91);
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(n * n + i * n + i)] *= -1;  // the second one indefinite
    HostTensor x = HostTensor::floats(dt, {2, n, n}, v);
    HostTensor ld(dt, {2, n, n}), piv(ACL_INT32, {2, n}), info(ACL_INT32, {2});
    run(makeCall("LdlFactor", {&x}, {&ld, &piv, &info}));
    const Mat want = refLdl(matOf(x, 0, n, n));
    expectMatNear(matOf(ld, 0, n, n), want, 5 * tolFor(dt), 5 * tolFor(dt), "ld");
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(piv.toInts()[static_cast<size_t>(i)], i + 1);
    HostTensor b = HostTensor::floats(dt, {3, 1, n, 2}, randomFloats(6 * n, -1, 1, 92)), out(dt, {3, 2, n, 2});
    run(makeCall("LdlSolve", {&ld, &piv, &b}, {&out}));
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j)
        expectMatNear(matOf(out, i * 2 + j, n, 2), refInverse(matOf(x, j, n, n)) * matOf(b, i, n, 2),
                      10 * tolFor(dt), 10 * tolFor(dt), "x");
    EXPECT_EQ(info.toInts(), (std::vector<int64_t>{0, 0}));
  }
}

TEST(KernelLinalgLdl, TwoByTwoPivotsSingularAndErrors) {
  // A zero diagonal needs a 2x2 block: negative paired pivots.
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 2}, {0, 1, 1, 0}), ld(ACL_FLOAT, {2, 2});
  HostTensor piv(ACL_INT32, {2}), info(ACL_INT32, {});
  run(makeCall("LdlFactor", {&x}, {&ld, &piv, &info}));
  const std::vector<int64_t> p = piv.toInts();
  EXPECT_LT(p[0], 0);
  EXPECT_EQ(p[0], p[1]);
  HostTensor b = HostTensor::floats(ACL_FLOAT, {2, 1}, {3, 5}), y(ACL_FLOAT, {2, 1});
  run(makeCall("LdlSolve", {&ld, &piv, &b}, {&y}));
  EXPECT_EQ(y.toFloats(), (std::vector<float>{5, 3}));
  HostTensor z(ACL_FLOAT, {2, 2}), lz(ACL_FLOAT, {2, 2}), pz(ACL_INT32, {2}), iz(ACL_INT32, {});
  run(makeCall("LdlFactor", {&z}, {&lz, &pz, &iz}));
  EXPECT_GT(iz.toInts()[0], 0);
  HostTensor bad = HostTensor::ints(ACL_INT32, {2}, {1, -2});  // an unpaired 2x2 pivot
  EXPECT_KERNEL_ERROR(makeCall("LdlSolve", {&ld, &bad, &b}, {&y}), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "pivot 1 of matrix 0 is -2");
  HostTensor e(ACL_FLOAT, {0, 3, 3}), le(ACL_FLOAT, {0, 3, 3}), pe(ACL_INT32, {0, 3}), ie(ACL_INT32, {0});
  run(makeCall("LdlFactor", {&e}, {&le, &pe, &ie}));
  HostTensor r(ACL_FLOAT, {2, 3}), lr(ACL_FLOAT, {2, 3}), pr(ACL_INT32, {2}), ir(ACL_INT32, {});
  EXPECT_KERNEL_ERROR(makeCall("LdlFactor", {&r}, {&lr, &pr, &ir}), ACL_ERROR_OP_INPUT_NOT_MATCH, "square");
}

// Q and R against the double Householder reference (same sign convention).
void checkQr(aclDataType dt, int64_t m, int64_t n, bool full) {
  const int64_t k = std::min(m, n), qc = full ? m : k;
  HostTensor x = HostTensor::floats(dt, {2, m, n}, randomFloats(2 * m * n, -1, 1, 13));
  HostTensor q(dt, {2, m, qc}), r(dt, {2, full ? m : k, n});
  run(makeCall("Qr", {&x}, {&q, &r}, attrs({{"full_matrices", full}})));
  for (int64_t b = 0; b < 2; ++b) {
    const RefQr ref = refGeqrf(matOf(x, b, m, n));
    const Mat fq = refHouseholderQ(ref.a, ref.tau);
    Mat wq(m, qc), wr(full ? m : k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < qc; ++j) wq(i, j) = fq(i, j);
    for (int64_t i = 0; i < wr.rows; ++i)
      for (int64_t j = i; j < n; ++j) wr(i, j) = ref.a(i, j);
    expectMatNear(matOf(q, b, m, qc), wq, 2 * tolFor(dt), 2 * tolFor(dt), "q");
    expectMatNear(matOf(r, b, wr.rows, n), wr, 2 * tolFor(dt), 2 * tolFor(dt), "r");
  }
}

TEST(KernelLinalgQr, ReducedAndCompleteMatchHouseholderReference) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (auto dims : std::vector<std::pair<int64_t, int64_t>>{{5, 3}, {3, 5}, {4, 4}})
      for (bool full : {false, true}) checkQr(dt, dims.first, dims.second, full);
}

TEST(KernelLinalgQr, ROnlyEmptyAndErrors) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {4, 3}, randomFloats(12, -1, 1, 3)), r(ACL_FLOAT, {3, 3});
  HostTensor q2(ACL_FLOAT, {4, 3}), r2(ACL_FLOAT, {3, 3});
  run(makeCall("Qr", {&x}, {&r}, attrs({{"compute_q", false}})));
  run(makeCall("Qr", {&x}, {&q2, &r2}));
  EXPECT_EQ(r.toFloats(), r2.toFloats());
  // 3 x 0, complete: Q is the identity.
  HostTensor e(ACL_FLOAT, {3, 0}), qe(ACL_FLOAT, {3, 3}), re(ACL_FLOAT, {3, 0});
  run(makeCall("Qr", {&e}, {&qe, &re}, attrs({{"full_matrices", true}})));
  EXPECT_EQ(qe.toFloats(), (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  HostTensor bad(ACL_FLOAT, {4, 4});
  EXPECT_KERNEL_ERROR(makeCall("Qr", {&x}, {&bad, &r2}), ACL_ERROR_OP_INPUT_NOT_MATCH, "output q");
  EXPECT_KERNEL_ERROR(makeCall("Qr", {&x}, {&q2}), ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 2 outputs");
}

TEST(KernelLinalgGeqrf, ReflectorsAndTauMatchReference) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (auto dims : std::vector<std::pair<int64_t, int64_t>>{{5, 3}, {3, 5}}) {
      const int64_t m = dims.first, n = dims.second, k = std::min(m, n);
      HostTensor x = HostTensor::floats(dt, {m, n}, randomFloats(m * n, -1, 1, 17));
      HostTensor a(dt, {m, n}), tau(dt, {k});
      run(makeCall("Geqrf", {&x}, {&a, &tau}));
      const RefQr ref = refGeqrf(matOf(x, 0, m, n));
      expectMatNear(matOf(a, 0, m, n), ref.a, 2 * tolFor(dt), 2 * tolFor(dt), "a");
      Mat want_tau(1, k), got_tau = matOf(tau, 0, 1, k);
      want_tau.v = ref.tau;
      expectMatNear(got_tau, want_tau, 2 * tolFor(dt), 2 * tolFor(dt), "tau");
    }
}

TEST(KernelLinalgOrgqrOrmqr, ReflectorProducts) {
  const int64_t m = 5, n = 3;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {m, n}, randomFloats(m * n, -1, 1, 19));
    HostTensor a(dt, {m, n}), tau(dt, {n});
    run(makeCall("Geqrf", {&x}, {&a, &tau}));
    const Mat am = matOf(a, 0, m, n), tm = matOf(tau, 0, 1, n);
    const Mat q = refHouseholderQ(am, tm.v);  // m x m, from the kernel's own (rounded) reflectors
    HostTensor y(dt, {m, n});
    run(makeCall("Orgqr", {&a, &tau}, {&y}));
    Mat want(m, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) want(i, j) = q(i, j);
    expectMatNear(matOf(y, 0, m, n), want, 2 * tolFor(dt), 2 * tolFor(dt), "orgqr");
    for (bool left : {true, false})
      for (bool transpose : {false, true}) {
        const int64_t cr = left ? m : 2, cc = left ? 2 : m;
        HostTensor c = HostTensor::floats(dt, {cr, cc}, randomFloats(cr * cc, -1, 1, 23)), out(dt, {cr, cc});
        run(makeCall("Ormqr", {&a, &tau, &c}, {&out}, attrs({{"left", left}, {"transpose", transpose}})));
        const Mat op = transpose ? q.t() : q, cm = matOf(c, 0, cr, cc);
        expectMatNear(matOf(out, 0, cr, cc), left ? op * cm : cm * op, 3 * tolFor(dt), 3 * tolFor(dt), "ormqr");
      }
  }
  HostTensor wide(ACL_FLOAT, {2, 3}), t2(ACL_FLOAT, {2}), y2(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Orgqr", {&wide, &t2}, {&y2}), ACL_ERROR_OP_INPUT_NOT_MATCH, "at least as many rows");
  HostTensor x(ACL_FLOAT, {4, 2}), t3(ACL_FLOAT, {3}), y3(ACL_FLOAT, {4, 2});
  EXPECT_KERNEL_ERROR(makeCall("Orgqr", {&x, &t3}, {&y3}), ACL_ERROR_OP_INPUT_NOT_MATCH, "3 reflectors");
  HostTensor t(ACL_FLOAT, {2}), c(ACL_FLOAT, {3, 3}), yc(ACL_FLOAT, {3, 3});
  EXPECT_KERNEL_ERROR(makeCall("Ormqr", {&x, &t, &c}, {&yc}), ACL_ERROR_OP_INPUT_NOT_MATCH, "a has 4 rows");
  HostTensor ce(ACL_FLOAT, {4, 0}), ye(ACL_FLOAT, {4, 0});
  run(makeCall("Ormqr", {&x, &t, &ce}, {&ye}));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
