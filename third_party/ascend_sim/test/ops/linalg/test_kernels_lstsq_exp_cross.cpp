// MatrixSolveLs, MatrixExp, Triu, Tril (src/ops/layout/triangle.cpp) and Cross against double-precision
// references written here (normal equations, Taylor series, index rules,
// the cross product formula).
#include "linalg_reference.h"

namespace ascend_sim {
namespace test {
namespace {

double tolFor(aclDataType dt) { return dt == ACL_FLOAT16 ? 3e-3 : 3e-5; }

// The least squares solution of a full-rank a: (a^T a)^-1 a^T b for m >= n,
// the minimum-norm a^T (a a^T)^-1 b for m < n.
Mat refLeastSquares(const Mat& a, const Mat& b) {
  if (a.rows >= a.cols) return refInverse(a.t() * a) * (a.t() * b);
  return a.t() * (refInverse(a * a.t()) * b);
}

TEST(KernelLinalgSolveLs, FullRankEveryDriver) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"})
      for (auto dims : std::vector<std::pair<int64_t, int64_t>>{{6, 3}, {3, 5}, {4, 4}}) {
        SCOPED_TRACE(std::string(driver) + " " + dtypeName(dt));
        const int64_t m = dims.first, n = dims.second, k = 2, rows = std::max(m, n), mn = std::min(m, n);
        const std::string d(driver);
        const bool has_rank = d != "gels", has_s = d == "gelsd" || d == "gelss";
        HostTensor a = HostTensor::floats(dt, {2, m, n}, randomFloats(2 * m * n, -1, 1, 81));
        HostTensor b = HostTensor::floats(dt, {m, k}, randomFloats(m * k, -1, 1, 82));  // broadcast over a's batch
        HostTensor x(dt, {2, rows, k}), rank(ACL_INT64, {2}), s(dt, {2, mn}), info(ACL_INT32, {2});
        OpCall c = makeCall("MatrixSolveLs", {&a, &b}, {&x}, attrs({{"driver", d}, {"rcond", 1e-5f}}));
        if (has_rank) c.outputs.push_back(rank.arg());
        if (has_s) c.outputs.push_back(s.arg());
        c.outputs.push_back(info.arg());
        run(c);
        for (int64_t i = 0; i < 2; ++i) {
          const Mat am = matOf(a, i, m, n), bm = matOf(b, 0, m, k), xm = matOf(x, i, rows, k);
          const Mat want = refLeastSquares(am, bm);
          Mat sol(n, k);
          for (int64_t r = 0; r < n; ++r)
            for (int64_t c2 = 0; c2 < k; ++c2) sol(r, c2) = xm(r, c2);
          expectMatNear(sol, want, 20 * tolFor(dt), 20 * tolFor(dt), "solution");
          if (m > n && d != "gelsy") {  // rows n..m-1 hold the residual components
            const Mat res = am * want;
            for (int64_t c2 = 0; c2 < k; ++c2) {
              double got = 0, ref = 0;
              for (int64_t r = n; r < m; ++r) got += xm(r, c2) * xm(r, c2);
              for (int64_t r = 0; r < m; ++r) ref += (res(r, c2) - bm(r, c2)) * (res(r, c2) - bm(r, c2));
              EXPECT_NEAR(got, ref, 50 * tolFor(dt) * (1 + ref));
            }
          }
          if (has_s) {
            const std::vector<double> sv = matOf(s, i, 1, mn).v, want_s = refSingularValues(am);
            for (int64_t j = 0; j < mn; ++j)
              EXPECT_NEAR(sv[static_cast<size_t>(j)], want_s[static_cast<size_t>(j)], 5 * tolFor(dt));
          }
        }
        if (has_rank) { EXPECT_EQ(rank.toInts(), (std::vector<int64_t>{mn, mn})); }
        EXPECT_EQ(info.toInts(), (std::vector<int64_t>{0, 0}));
      }
}

TEST(KernelLinalgSolveLs, RankDeficientAndEdges) {
  // Third column = second: rank 2 for the rank-revealing drivers.
  std::vector<float> v = randomFloats(15, -1, 1, 83);
  for (int64_t r = 0; r < 5; ++r) v[static_cast<size_t>(r * 3 + 2)] = v[static_cast<size_t>(r * 3 + 1)];
  HostTensor a = HostTensor::floats(ACL_FLOAT, {5, 3}, v),
             b = HostTensor::floats(ACL_FLOAT, {5, 1}, randomFloats(5, -1, 1, 84));
  for (const char* driver : {"gelsy", "gelsd", "gelss"}) {
    HostTensor x(ACL_FLOAT, {5, 1}), rank(ACL_INT64, {}), s(ACL_FLOAT, {3}), info(ACL_INT32, {});
    OpCall c =
        makeCall("MatrixSolveLs", {&a, &b}, {&x, &rank}, attrs({{"driver", std::string(driver)}, {"rcond", 1e-5f}}));
    if (std::string(driver) != "gelsy") c.outputs.push_back(s.arg());
    c.outputs.push_back(info.arg());
    run(c);
    EXPECT_EQ(rank.toInts()[0], 2) << driver;
  }
  // gelsd / gelss never see a non-finite a (LAPACK may not return on inf).
  std::vector<float> vi = v;
  vi[0] = INFINITY;
  HostTensor ai = HostTensor::floats(ACL_FLOAT, {5, 3}, vi), xi(ACL_FLOAT, {5, 1}), ri(ACL_INT64, {}),
             si(ACL_FLOAT, {3});
  HostTensor ii(ACL_INT32, {});
  run(makeCall("MatrixSolveLs", {&ai, &b}, {&xi, &ri, &si, &ii}, attrs({{"driver", std::string("gelsd")}})));
  EXPECT_EQ(ii.toInts()[0], 3);
  EXPECT_TRUE(std::isnan(xi.toFloats()[0]));
  // m = 0: the solution is 0 and the rank 0.
  HostTensor a0(ACL_FLOAT, {0, 3}), b0(ACL_FLOAT, {0, 2}), x0(ACL_FLOAT, {3, 2}),
      r0 = HostTensor::ints(ACL_INT64, {}, {9});
  HostTensor i0(ACL_INT32, {});
  run(makeCall("MatrixSolveLs", {&a0, &b0}, {&x0, &r0, &i0}));
  EXPECT_EQ(x0.toFloats(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(r0.toInts()[0], 0);
  HostTensor xe(ACL_FLOAT, {5, 1}), ie(ACL_INT32, {});
  EXPECT_KERNEL_ERROR(makeCall("MatrixSolveLs", {&a, &b}, {&xe, &ie}, attrs({{"driver", std::string("gesv")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "expected gels, gelsy, gelsd or gelss");
  EXPECT_KERNEL_ERROR(makeCall("MatrixSolveLs", {&a, &b}, {&xe, &ie}), ACL_ERROR_OP_OUTPUT_NOT_MATCH,
                      "expected 3 outputs");
  HostTensor b4(ACL_FLOAT, {4, 1}), x4(ACL_FLOAT, {5, 1}), r4(ACL_INT64, {});
  EXPECT_KERNEL_ERROR(makeCall("MatrixSolveLs", {&a, &b4}, {&x4, &r4, &ie}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "a has 5 rows but b has 4");
}

// exp(a) by 2^-s scaling, a 40-term Taylor series and s squarings, in double.
Mat refExpm(const Mat& a) {
  double norm = 0;
  for (double v : a.v) norm = std::max(norm, std::fabs(v));
  int s = 0;
  while (norm * static_cast<double>(a.rows) > 0.5) {
    norm /= 2;
    ++s;
  }
  Mat scaled = a;
  for (double& v : scaled.v) v = std::ldexp(v, -s);
  Mat term = Mat::eye(a.rows), sum = Mat::eye(a.rows);
  for (int k = 1; k <= 40; ++k) {
    term = term * scaled;
    for (double& v : term.v) v /= k;
    for (size_t i = 0; i < sum.v.size(); ++i) sum.v[i] += term.v[i];
  }
  for (int i = 0; i < s; ++i) sum = sum * sum;
  return sum;
}

TEST(KernelLinalgMatrixExp, EveryPadeDegreeAndScaling) {
  const int64_t n = 5;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (float scale : {0.02f, 0.3f, 1.5f, 6.0f}) {  // ||x||_1 below theta_3, theta_5, theta_7, and above
      std::vector<float> v = randomFloats(2 * n * n, -scale, scale, 91);
      HostTensor x = HostTensor::floats(dt, {2, n, n}, v), y(dt, {2, n, n});
      run(makeCall("MatrixExp", {&x}, {&y}));
      for (int64_t b = 0; b < 2; ++b) {
        const Mat want = refExpm(matOf(x, b, n, n));
        double big = 0;
        for (double w : want.v) big = std::max(big, std::fabs(w));
        expectMatNear(matOf(y, b, n, n), want, 10 * tolFor(dt), 10 * tolFor(dt) * big, "exp");
      }
    }
}

TEST(KernelLinalgMatrixExp, NonFiniteEmptyAndErrors) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 2, 2}, {0, 1, -1, 0, INFINITY, 0, 0, 1}), y(ACL_FLOAT, {2, 2, 2});
  run(makeCall("MatrixExp", {&x}, {&y}));
  const std::vector<float> got = y.toFloats();
  EXPECT_NEAR(got[0], std::cos(1.0), 1e-6);  // exp of a rotation generator
  EXPECT_NEAR(got[1], std::sin(1.0), 1e-6);
  for (size_t i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(got[i]));
  HostTensor e(ACL_FLOAT, {3, 0, 0}), ye(ACL_FLOAT, {3, 0, 0});
  run(makeCall("MatrixExp", {&e}, {&ye}));
  HostTensor r(ACL_FLOAT, {2, 3}), yr(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("MatrixExp", {&r}, {&yr}), ACL_ERROR_OP_INPUT_NOT_MATCH, "square");
}

TEST(KernelLinalgTriangle, TriuTrilEveryDiagonalAndDtype) {
  const int64_t m = 4, n = 6;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_BOOL})
    for (bool upper : {true, false})
      for (int64_t diagonal : {-5, -1, 0, 2, 7}) {
        std::vector<int64_t> v(2 * m * n);
        for (size_t i = 0; i < v.size(); ++i) v[i] = dt == ACL_BOOL ? 1 : static_cast<int64_t>(i) + 1;
        HostTensor x = HostTensor::ints(dt, {2, m, n}, v), y(dt, {2, m, n});
        run(makeCall(upper ? "Triu" : "Tril", {&x}, {&y}, attrs({{"diagonal", diagonal}})));
        const std::vector<int64_t> got = y.toInts();
        for (int64_t e = 0; e < 2 * m * n; ++e) {
          const int64_t i = (e / n) % m, j = e % n;
          const bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
          ASSERT_EQ(got[static_cast<size_t>(e)], keep ? v[static_cast<size_t>(e)] : 0)
              << dtypeName(dt) << " upper " << upper << " diagonal " << diagonal << " element " << e;
        }
      }
}

TEST(KernelLinalgTriangle, InPlaceEmptyAndErrors) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 2}, {1, 2, 3, 4});
  OpCall c = makeCall("Tril", {&x}, {&x});
  run(c);
  EXPECT_EQ(x.toFloats(), (std::vector<float>{1, 0, 3, 4}));
  HostTensor e(ACL_FLOAT, {3, 0, 5}), ye(ACL_FLOAT, {3, 0, 5});
  run(makeCall("Triu", {&e}, {&ye}));
  HostTensor v(ACL_FLOAT, {5}), yv(ACL_FLOAT, {5});
  EXPECT_KERNEL_ERROR(makeCall("Triu", {&v}, {&yv}), ACL_ERROR_OP_INPUT_NOT_MATCH, "at least 2 dimensions");
  HostTensor y16(ACL_FLOAT16, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("Triu", {&x}, {&y16}), ACL_ERROR_OP_INPUT_NOT_MATCH, "does not match");
  HostTensor xp(ACL_FLOAT, {1, 1, 16, 16}), yp(ACL_FLOAT, {1, 1, 16, 16});
  xp.setFormat(ACL_FORMAT_NC1HWC0);
  yp.setFormat(ACL_FORMAT_NC1HWC0);
  EXPECT_KERNEL_ERROR(makeCall("Triu", {&xp}, {&yp}), ACL_ERROR_OP_UNSUPPORTED_FORMAT, "private format");
}

TEST(KernelLinalgCross, BroadcastDimsAndDtypes) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32}) {
    // x1 [2, 3, 4] with dim 1; x2 [3, 1] broadcasts along the last dim.
    std::vector<float> v1 = randomFloats(24, -4, 4, 95), v2 = randomFloats(3, -4, 4, 96);
    if (dt == ACL_INT32)
      for (float* v : {v1.data(), v2.data()})
        for (size_t i = 0; i < (v == v1.data() ? 24u : 3u); ++i) v[i] = std::round(v[i]);
    HostTensor x1 = HostTensor::floats(dt, {2, 3, 4}, v1), x2 = HostTensor::floats(dt, {3, 1}, v2), y(dt, {2, 3, 4});
    run(makeCall("Cross", {&x1, &x2}, {&y}, attrs({{"dim", int64_t{1}}})));
    const std::vector<float> a = x1.toFloats(), b = x2.toFloats(), got = y.toFloats();
    for (int64_t o = 0; o < 2; ++o)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t k = 0; k < 3; ++k) {
          const int64_t k1 = (k + 1) % 3, k2 = (k + 2) % 3;
          const double want =
              static_cast<double>(a[static_cast<size_t>(o * 12 + k1 * 4 + i)]) * b[static_cast<size_t>(k2)] -
              static_cast<double>(a[static_cast<size_t>(o * 12 + k2 * 4 + i)]) * b[static_cast<size_t>(k1)];
          EXPECT_NEAR(got[static_cast<size_t>(o * 12 + k * 4 + i)], want, tolFor(dt) * (1 + std::fabs(want)))
              << dtypeName(dt) << " " << o << "," << k << "," << i;
        }
  }
}

TEST(KernelLinalgCross, EmptyAndErrors) {
  HostTensor e1(ACL_FLOAT, {0, 3}), e2(ACL_FLOAT, {0, 3}), ye(ACL_FLOAT, {0, 3});
  run(makeCall("Cross", {&e1, &e2}, {&ye}));
  HostTensor x(ACL_FLOAT, {2, 4}), y(ACL_FLOAT, {2, 4});
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&x, &x}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "must have size 3");
  HostTensor a(ACL_FLOAT, {2, 3}), b(ACL_INT32, {2, 3}), c(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&a, &b}, {&c}), ACL_ERROR_OP_INPUT_NOT_MATCH, "input x2 dtype int32");
  HostTensor bo(ACL_BOOL, {3}), yb(ACL_BOOL, {3});
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&bo, &bo}, {&yb}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "bool");
  HostTensor w(ACL_FLOAT, {4, 3});
  EXPECT_KERNEL_ERROR(makeCall("Cross", {&w, &a}, {&c}), ACL_ERROR_OP_INPUT_NOT_MATCH, "does not broadcast");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
