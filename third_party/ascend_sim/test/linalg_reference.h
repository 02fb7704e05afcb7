// Double-precision references for the linear algebra kernel tests: textbook
// algorithms written here, independent of LAPACK and of the kernels' code.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {

// A row-major double matrix.
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  Mat() = default;
  Mat(int64_t r, int64_t c) : rows(r), cols(c), v(static_cast<size_t>(r * c), 0.0) {}
  double& operator()(int64_t i, int64_t j) { return v[static_cast<size_t>(i * cols + j)]; }
  double operator()(int64_t i, int64_t j) const { return v[static_cast<size_t>(i * cols + j)]; }
  static Mat eye(int64_t n) {
    Mat m(n, n);
    for (int64_t i = 0; i < n; ++i) m(i, i) = 1.0;
    return m;
  }
  Mat t() const {
    Mat r(cols, rows);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) r(j, i) = (*this)(i, j);
    return r;
  }
};

inline Mat operator*(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t k = 0; k < a.cols; ++k)
      for (int64_t j = 0; j < b.cols; ++j) c(i, j) += a(i, k) * b(k, j);
  return c;
}

// Matrix `index` of a [..., rows, cols] host tensor.
inline Mat matOf(const HostTensor& t, int64_t index, int64_t rows, int64_t cols) {
  const std::vector<float> all = t.toFloats();
  Mat m(rows, cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    m.v[static_cast<size_t>(i)] = all[static_cast<size_t>(index * rows * cols + i)];
  return m;
}

// Expects |got - want| <= atol + rtol |want| elementwise.
inline void expectMatNear(const Mat& got, const Mat& want, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(got.rows, want.rows) << what;
  ASSERT_EQ(got.cols, want.cols) << what;
  for (size_t i = 0; i < want.v.size(); ++i)
    ASSERT_LE(std::fabs(got.v[i] - want.v[i]), atol + rtol * std::fabs(want.v[i]))
        << what << " element " << i << ": got " << got.v[i] << ", want " << want.v[i];
}

// Random matrices with a dominant diagonal (well conditioned), and SPD ones.
inline std::vector<float> wellConditioned(int64_t batch, int64_t n, uint32_t seed) {
  std::vector<float> v = randomFloats(static_cast<size_t>(batch * n * n), -1, 1, seed);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(b * n * n + i * n + i)] += static_cast<float>(n);
  return v;
}
inline std::vector<float> spd(int64_t batch, int64_t n, uint32_t seed) {
  std::vector<float> r = randomFloats(static_cast<size_t>(batch * n * n), -1, 1, seed), v(r.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t k = 0; k < n; ++k)
          s += r[static_cast<size_t>(b * n * n + i * n + k)] * r[static_cast<size_t>(b * n * n + j * n + k)];
        v[static_cast<size_t>(b * n * n + i * n + j)] = static_cast<float>(s);
      }
  return v;
}

// LU with partial pivoting (first largest |pivot|), LAPACK's conventions:
// lu holds L (unit, below) and U, piv are 1-based, info = first zero pivot.
struct RefLu {
  Mat lu;
  std::vector<int> piv;
  int info = 0;
};
inline RefLu refLu(Mat a) {
  RefLu r;
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < m; ++i)
      if (std::fabs(a(i, j)) > std::fabs(a(p, j))) p = i;
    r.piv.push_back(static_cast<int>(p + 1));
    for (int64_t c = 0; c < n; ++c) std::swap(a(j, c), a(p, c));
    if (a(j, j) == 0.0) {
      if (r.info == 0) r.info = static_cast<int>(j + 1);
      continue;
    }
    for (int64_t i = j + 1; i < m; ++i) {
      a(i, j) /= a(j, j);
      for (int64_t c = j + 1; c < n; ++c) a(i, c) -= a(i, j) * a(j, c);
    }
  }
  r.lu = a;
  return r;
}

// A x = b from a square LU factorisation (or A^T x = b).
inline Mat refLuSolve(const RefLu& f, Mat b, bool transpose) {
  const int64_t n = f.lu.rows;
  const Mat& a = f.lu;
  if (!transpose) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < b.cols; ++c) std::swap(b(i, c), b(f.piv[static_cast<size_t>(i)] - 1, c));
    for (int64_t c = 0; c < b.cols; ++c) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < i; ++k) b(i, c) -= a(i, k) * b(k, c);
      for (int64_t i = n; i-- > 0;) {
        for (int64_t k = i + 1; k < n; ++k) b(i, c) -= a(i, k) * b(k, c);
        b(i, c) /= a(i, i);
      }
    }
    return b;
  }
  for (int64_t c = 0; c < b.cols; ++c) {  // U^T z = b, L^T w = z, x = P w
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < i; ++k) b(i, c) -= a(k, i) * b(k, c);
      b(i, c) /= a(i, i);
    }
    for (int64_t i = n; i-- > 0;)
      for (int64_t k = i + 1; k < n; ++k) b(i, c) -= a(k, i) * b(k, c);
  }
  for (int64_t i = n; i-- > 0;)
    for (int64_t c = 0; c < b.cols; ++c) std::swap(b(i, c), b(f.piv[static_cast<size_t>(i)] - 1, c));
  return b;
}

inline double refDet(const Mat& a) {
  const RefLu f = refLu(a);
  double d = 1.0;
  for (int64_t i = 0; i < a.rows; ++i) d *= f.lu(i, i) * (f.piv[static_cast<size_t>(i)] != i + 1 ? -1.0 : 1.0);
  return d;
}

inline Mat refInverse(const Mat& a) { return refLuSolve(refLu(a), Mat::eye(a.rows), false); }

// Lower Cholesky factor of an SPD matrix.
inline Mat refCholesky(const Mat& a) {
  const int64_t n = a.rows;
  Mat l(n, n);
  for (int64_t j = 0; j < n; ++j) {
    double d = a(j, j);
    for (int64_t k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    l(j, j) = std::sqrt(d);
    for (int64_t i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (int64_t k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = s / l(j, j);
    }
  }
  return l;
}

// Householder QR with LAPACK's reflector convention (slarfg: beta =
// -sign(alpha) ||x||, v(0) = 1, tau = (beta - alpha) / beta): returns the
// geqrf-style matrix (R on and above the diagonal, v below) and tau.
struct RefQr {
  Mat a;
  std::vector<double> tau;
};
inline RefQr refGeqrf(Mat a) {
  RefQr r;
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    double norm = 0;
    for (int64_t i = j + 1; i < m; ++i) norm += a(i, j) * a(i, j);
    const double alpha = a(j, j);
    if (norm == 0.0) {
      r.tau.push_back(0.0);
      continue;
    }
    const double beta = -std::copysign(std::sqrt(alpha * alpha + norm), alpha);
    const double tau = (beta - alpha) / beta, scale = 1.0 / (alpha - beta);
    for (int64_t i = j + 1; i < m; ++i) a(i, j) *= scale;
    a(j, j) = beta;
    for (int64_t c = j + 1; c < n; ++c) {  // apply H = I - tau v v^T
      double s = a(j, c);
      for (int64_t i = j + 1; i < m; ++i) s += a(i, j) * a(i, c);
      a(j, c) -= tau * s;
      for (int64_t i = j + 1; i < m; ++i) a(i, c) -= tau * s * a(i, j);
    }
    r.tau.push_back(tau);
  }
  r.a = a;
  return r;
}

// The m x m product H_1 ... H_k of geqrf-style reflectors (columns of a).
inline Mat refHouseholderQ(const Mat& a, const std::vector<double>& tau) {
  const int64_t m = a.rows;
  Mat q = Mat::eye(m);
  for (size_t jj = tau.size(); jj-- > 0;) {  // Q = H_1 (H_2 (... H_k I))
    const int64_t j = static_cast<int64_t>(jj);
    std::vector<double> v(static_cast<size_t>(m), 0.0);
    v[static_cast<size_t>(j)] = 1.0;
    for (int64_t i = j + 1; i < m; ++i) v[static_cast<size_t>(i)] = a(i, j);
    for (int64_t c = 0; c < m; ++c) {
      double s = 0;
      for (int64_t i = j; i < m; ++i) s += v[static_cast<size_t>(i)] * q(i, c);
      for (int64_t i = j; i < m; ++i) q(i, c) -= tau[jj] * s * v[static_cast<size_t>(i)];
    }
  }
  return q;
}

// Eigenvalues (ascending) of a symmetric matrix by cyclic Jacobi rotations.
inline std::vector<double> refSymEigenvalues(Mat a) {
  const int64_t n = a.rows;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) off += a(i, j) * a(i, j);
    if (off < 1e-30) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        if (a(p, q) == 0.0) continue;
        const double theta = (a(q, q) - a(p, p)) / (2 * a(p, q));
        const double t = std::copysign(1.0, theta) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // A <- J^T A J
          const double akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {
          const double apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> e;
  for (int64_t i = 0; i < n; ++i) e.push_back(a(i, i));
  std::sort(e.begin(), e.end());
  return e;
}

// Singular values (descending): square roots of the eigenvalues of A^T A or A A^T.
inline std::vector<double> refSingularValues(const Mat& a) {
  const Mat g = a.rows >= a.cols ? a.t() * a : a * a.t();
  std::vector<double> e = refSymEigenvalues(g);
  std::vector<double> s;
  for (size_t i = e.size(); i-- > 0;) s.push_back(std::sqrt(std::max(0.0, e[i])));
  return s;
}

// Solves op(T) X = B (left) or X op(T) = B for triangular T by substitution.
inline Mat refTriangularSolve(const Mat& t, const Mat& b, bool lower, bool transpose, bool unit, bool left) {
  if (!left) return refTriangularSolve(t, b.t(), lower, !transpose, unit, true).t();
  Mat a = transpose ? t.t() : t;
  const bool low = lower != transpose;
  const int64_t n = a.rows;
  Mat x = b;
  for (int64_t c = 0; c < b.cols; ++c)
    for (int64_t s = 0; s < n; ++s) {
      const int64_t i = low ? s : n - 1 - s;
      double v = x(i, c);
      for (int64_t k = 0; k < n; ++k)
        if (low ? k < i : k > i) v -= a(i, k) * x(k, c);
      x(i, c) = unit ? v : v / a(i, i);
    }
  return x;
}

}  // namespace test
}  // namespace ascend_sim
