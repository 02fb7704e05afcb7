// Svd, SelfAdjointEig and MatrixTriangularSolve against the double-precision
// references of linalg_reference.h (Jacobi eigenvalues, substitution).
#include "linalg_reference.h"

namespace ascend_sim {
namespace test {
namespace {

double tolFor(aclDataType dt) { return dt == ACL_FLOAT16 ? 3e-3 : 3e-5; }

Mat diagOf(const std::vector<double>& d, int64_t rows, int64_t cols) {
  Mat m(rows, cols);
  for (size_t i = 0; i < d.size(); ++i) m(static_cast<int64_t>(i), static_cast<int64_t>(i)) = d[i];
  return m;
}

std::vector<double> vecOf(const HostTensor& t, int64_t index, int64_t n) { return matOf(t, index, 1, n).v; }

void checkSvd(aclDataType dt, int64_t m, int64_t n, bool full) {
  const int64_t k = std::min(m, n), uc = full ? m : k, vr = full ? n : k;
  HostTensor x = HostTensor::floats(dt, {2, m, n}, randomFloats(2 * m * n, -1, 1, 51));
  HostTensor s(dt, {2, k}), u(dt, {2, m, uc}), vh(dt, {2, vr, n}), info(ACL_INT32, {2});
  run(makeCall("Svd", {&x}, {&s, &u, &vh, &info}, attrs({{"full_matrices", full}})));
  const double tol = tolFor(dt);
  for (int64_t b = 0; b < 2; ++b) {
    const Mat xm = matOf(x, b, m, n), um = matOf(u, b, m, uc), vm = matOf(vh, b, vr, n);
    const std::vector<double> sv = vecOf(s, b, k), want = refSingularValues(xm);
    for (int64_t i = 0; i < k; ++i) EXPECT_NEAR(sv[static_cast<size_t>(i)], want[static_cast<size_t>(i)], 2 * tol);
    expectMatNear(um.t() * um, Mat::eye(uc), 0, 2 * tol, "u orthonormal");
    expectMatNear(vm * vm.t(), Mat::eye(vr), 0, 2 * tol, "vh orthonormal");
    expectMatNear(um * diagOf(sv, uc, vr) * vm, xm, 0, 4 * tol, "u s vh");
  }
  EXPECT_EQ(info.toInts(), (std::vector<int64_t>{0, 0}));
  // Values only: the same s.
  HostTensor s2(dt, {2, k});
  run(makeCall("Svd", {&x}, {&s2}, attrs({{"compute_uv", false}})));
  for (int64_t b = 0; b < 2; ++b) {
    const std::vector<double> a = vecOf(s, b, k), c = vecOf(s2, b, k);
    for (int64_t i = 0; i < k; ++i) EXPECT_NEAR(a[static_cast<size_t>(i)], c[static_cast<size_t>(i)], 2 * tol);
  }
}

TEST(KernelLinalgSvd, ReducedFullAndValuesOnly) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (auto dims : std::vector<std::pair<int64_t, int64_t>>{{5, 3}, {3, 5}, {4, 4}})
      for (bool full : {false, true}) checkSvd(dt, dims.first, dims.second, full);
}

TEST(KernelLinalgSvd, NonFiniteInputIsReportedNotIterated) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 2, 2}, {1, 2, 3, 4, INFINITY, 0, 0, 1});
  HostTensor s(ACL_FLOAT, {2, 2}), u(ACL_FLOAT, {2, 2, 2}), vh(ACL_FLOAT, {2, 2, 2}), info(ACL_INT32, {2});
  run(makeCall("Svd", {&x}, {&s, &u, &vh, &info}));
  EXPECT_EQ(info.toInts(), (std::vector<int64_t>{0, -4}));
  EXPECT_TRUE(std::isnan(s.toFloats()[2]));
}

TEST(KernelLinalgSvd, EmptyMatricesGiveIdentitiesAndErrors) {
  HostTensor x(ACL_FLOAT, {3, 0}), s(ACL_FLOAT, {0}), u(ACL_FLOAT, {3, 3}), vh(ACL_FLOAT, {0, 0});
  run(makeCall("Svd", {&x}, {&s, &u, &vh}, attrs({{"full_matrices", true}})));
  EXPECT_EQ(u.toFloats(), (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  HostTensor y(ACL_FLOAT, {3, 2}), sy(ACL_FLOAT, {2}), uy(ACL_FLOAT, {3, 2}), vy(ACL_FLOAT, {3, 2});
  EXPECT_KERNEL_ERROR(makeCall("Svd", {&y}, {&sy, &uy, &vy}), ACL_ERROR_OP_INPUT_NOT_MATCH, "output vh");
  EXPECT_KERNEL_ERROR(makeCall("Svd", {&y}, {&sy, &uy}), ACL_ERROR_OP_OUTPUT_NOT_MATCH, "s, u, vh [, info]");
}

TEST(KernelLinalgSelfAdjointEig, EigenpairsOfEitherTriangle) {
  const int64_t n = 6;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool lower : {true, false}) {
      std::vector<float> v = randomFloats(2 * n * n, -1, 1, 61);
      for (int64_t b = 0; b < 2; ++b)  // symmetrise from the triangle that is read; the other is garbage
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j)
            if (lower ? j > i : j < i) v[static_cast<size_t>(b * n * n + i * n + j)] = 50.0f;
      HostTensor x = HostTensor::floats(dt, {2, n, n}, v);
      HostTensor e(dt, {2, n}), vecs(dt, {2, n, n}), info(ACL_INT32, {2});
      run(makeCall("SelfAdjointEig", {&x}, {&e, &vecs, &info}, attrs({{"lower", lower}})));
      for (int64_t b = 0; b < 2; ++b) {
        Mat a = matOf(x, b, n, n);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j)
            if (lower ? j > i : j < i) a(i, j) = a(j, i);
        const std::vector<double> want = refSymEigenvalues(a), got = vecOf(e, b, n);
        for (int64_t i = 0; i < n; ++i)
          EXPECT_NEAR(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)], 3 * tolFor(dt));
        const Mat vm = matOf(vecs, b, n, n);
        expectMatNear(vm.t() * vm, Mat::eye(n), 0, 3 * tolFor(dt), "orthonormal");
        expectMatNear(a * vm, vm * diagOf(got, n, n), 0, 6 * tolFor(dt), "A v = v diag(e)");
      }
      HostTensor e2(dt, {2, n}), e3(dt, {2, n}), v3(dt, {2, n, n});
      run(makeCall("SelfAdjointEig", {&x}, {&e2}, attrs({{"lower", lower}, {"compute_v", false}})));
      // ssyev (QR iteration): the same eigenvalues, eigenvectors up to sign.
      run(makeCall("SelfAdjointEig", {&x}, {&e3, &v3}, attrs({{"lower", lower}, {"driver", std::string("syev")}})));
      for (int64_t b = 0; b < 2; ++b) {
        const std::vector<double> a = vecOf(e, b, n), c = vecOf(e2, b, n), d = vecOf(e3, b, n);
        for (int64_t i = 0; i < n; ++i) {
          EXPECT_NEAR(a[static_cast<size_t>(i)], c[static_cast<size_t>(i)], 3 * tolFor(dt));
          EXPECT_NEAR(a[static_cast<size_t>(i)], d[static_cast<size_t>(i)], 3 * tolFor(dt));
        }
        Mat v3m = matOf(v3, b, n, n), vm = matOf(vecs, b, n, n);
        for (int64_t j = 0; j < n; ++j) {
          const double sign = v3m(0, j) * vm(0, j) < 0 ? -1.0 : 1.0;
          for (int64_t i = 0; i < n; ++i) v3m(i, j) *= sign;
        }
        expectMatNear(v3m, vm, 0, 6 * tolFor(dt), "syev vectors");
      }
    }
}

TEST(KernelLinalgSelfAdjointEig, NanReportsInfoEmptyAndErrors) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {3, 3}, {NAN, 1, 2, 1, 1, 3, 2, 3, 2});
  HostTensor e(ACL_FLOAT, {3}), v(ACL_FLOAT, {3, 3}), info(ACL_INT32, {});
  run(makeCall("SelfAdjointEig", {&x}, {&e, &v, &info}));
  EXPECT_EQ(info.toInts()[0], 2);  // ssyevd's code, as PyTorch's CPU reports it
  HostTensor z(ACL_FLOAT, {2, 0, 0}), ez(ACL_FLOAT, {2, 0}), vz(ACL_FLOAT, {2, 0, 0});
  HostTensor iz = HostTensor::ints(ACL_INT32, {2}, {3, 3});
  run(makeCall("SelfAdjointEig", {&z}, {&ez, &vz, &iz}));
  EXPECT_EQ(iz.toInts(), (std::vector<int64_t>{0, 0}));
  HostTensor r(ACL_FLOAT, {2, 3}), er(ACL_FLOAT, {2}), vr(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("SelfAdjointEig", {&r}, {&er, &vr}), ACL_ERROR_OP_INPUT_NOT_MATCH, "square");
  EXPECT_KERNEL_ERROR(makeCall("SelfAdjointEig", {&x}, {&e, &v}, attrs({{"driver", std::string("heevr")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "expected syevd or syev");
}

TEST(KernelLinalgTriangularSolve, AllVariantsWithBroadcast) {
  const int64_t n = 4;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool lower : {true, false})
      for (bool adjoint : {false, true})
        for (bool unit : {false, true})
          for (bool left : {true, false}) {
            HostTensor a = HostTensor::floats(dt, {1, n, n}, wellConditioned(1, n, 71));
            const int64_t r = left ? n : 3, c = left ? 3 : n;
            HostTensor b = HostTensor::floats(dt, {2, r, c}, randomFloats(2 * r * c, -1, 1, 72)), y(dt, {2, r, c});
            run(makeCall("MatrixTriangularSolve", {&a, &b}, {&y},
                         attrs({{"lower", lower}, {"adjoint", adjoint}, {"unit_diagonal", unit}, {"left", left}})));
            Mat t = matOf(a, 0, n, n);  // the triangle that is read (and the unit diagonal)
            for (int64_t i = 0; i < n; ++i)
              for (int64_t j = 0; j < n; ++j)
                if (lower ? j > i : j < i) t(i, j) = 0;
            for (int64_t i = 0; i < 2; ++i)
              expectMatNear(matOf(y, i, r, c), refTriangularSolve(t, matOf(b, i, r, c), lower, adjoint, unit, left),
                            3 * tolFor(dt), 3 * tolFor(dt), "y");
          }
  HostTensor a(ACL_FLOAT, {3, 3}), b(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("MatrixTriangularSolve", {&a, &b}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "rhs rows must equal n");
  HostTensor ah(ACL_FLOAT16, {3, 3}), bh(ACL_FLOAT, {3, 3}), yh(ACL_FLOAT16, {3, 3});
  EXPECT_KERNEL_ERROR(makeCall("MatrixTriangularSolve", {&ah, &bh}, {&yh}), ACL_ERROR_OP_INPUT_NOT_MATCH, "rhs");
  HostTensor be(ACL_FLOAT, {3, 0}), ye(ACL_FLOAT, {3, 0});
  run(makeCall("MatrixTriangularSolve", {&a, &be}, {&ye}));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
