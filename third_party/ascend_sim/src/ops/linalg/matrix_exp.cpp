// MatrixExp (OPS.md "Linear algebra (AI CPU)"): x [..., n, n] -> y = exp(x),
// by scaling and squaring with a diagonal Padé approximant in fp32 (Higham,
// "The scaling and squaring method for the matrix exponential revisited",
// 2005, with the single-precision degrees 3, 5, 7): the 1-norm of x picks
// the degree, or for ||x||_1 > theta_7 scales x by 2^-s so that it fits,
// evaluates r(x) = (V - U)^-1 (V + U) (products by BLAS sgemm, the solve by
// sgetrf/sgetrs) and squares s times. A matrix holding NaN or inf gives a
// NaN matrix. See Note [Linear algebra kernels].
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/linalg/lapack.h"
#include "ops/linalg/linalg_util.h"

namespace ascend_sim {
namespace linalg {
namespace {

using Matrix = std::vector<float>;  // n x n, column-major

// c = a b.
void multiply(int n, const Matrix& a, const Matrix& b, Matrix& c) {
  const char no = 'N';
  const float one = 1.0f, zero = 0.0f;
  sgemm_(&no, &no, &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
}

// Padé coefficients b_0..b_m of degrees 3, 5, 7 and the largest 1-norms
// for which they reach single precision (Higham 2005, Table 2.3).
const std::vector<float>& padeCoefficients(int degree) {
  static const std::vector<float> b3{120.f, 60.f, 12.f, 1.f};
  static const std::vector<float> b5{30240.f, 15120.f, 3360.f, 420.f, 30.f, 1.f};
  static const std::vector<float> b7{17297280.f, 8648640.f, 1995840.f, 277200.f, 25200.f, 1512.f, 56.f, 1.f};
  return degree == 3 ? b3 : (degree == 5 ? b5 : b7);
}
constexpr double kTheta3 = 4.258730016922831e-01;
constexpr double kTheta5 = 1.880152677804762e+00;
constexpr double kTheta7 = 3.925724783138660e+00;

// exp(a) of one finite matrix, in place.
void expm(int n, Matrix& a) {
  double norm = 0;
  for (int j = 0; j < n; ++j) {
    double col = 0;
    for (int i = 0; i < n; ++i) col += std::fabs(a[static_cast<size_t>(i + j * n)]);
    norm = std::max(norm, col);
  }
  int degree = 7, squarings = 0;
  if (norm <= kTheta3) {
    degree = 3;
  } else if (norm <= kTheta5) {
    degree = 5;
  } else if (norm > kTheta7) {
    squarings = static_cast<int>(std::ceil(std::log2(norm / kTheta7)));
    const float scale = std::ldexp(1.0f, -squarings);
    for (float& v : a) v *= scale;
  }
  const std::vector<float>& b = padeCoefficients(degree);
  const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
  // Even powers A^0, A^2, ..., A^(degree - 1); U = A sum b_odd A^2j, V = sum b_even A^2j.
  std::vector<Matrix> even{Matrix(nn, 0.0f), Matrix(nn)};
  for (int i = 0; i < n; ++i) even[0][static_cast<size_t>(i + i * n)] = 1.0f;
  multiply(n, a, a, even[1]);
  for (int p = 2; 2 * p < degree; ++p) {
    even.emplace_back(nn);
    multiply(n, even[static_cast<size_t>(p - 1)], even[1], even.back());
  }
  Matrix odd(nn, 0.0f), v(nn, 0.0f), u(nn);
  for (size_t p = 0; p < even.size(); ++p)
    for (size_t e = 0; e < nn; ++e) {
      odd[e] += b[2 * p + 1] * even[p][e];
      v[e] += b[2 * p] * even[p][e];
    }
  multiply(n, a, odd, u);
  Matrix q(nn);  // (V - U) X = V + U
  for (size_t e = 0; e < nn; ++e) {
    q[e] = v[e] - u[e];
    a[e] = v[e] + u[e];
  }
  std::vector<int> ipiv(static_cast<size_t>(n));
  int info = 0;
  sgetrf_(&n, &n, q.data(), &n, ipiv.data(), &info);
  const char no = 'N';
  sgetrs_(&no, &n, &n, q.data(), &n, ipiv.data(), a.data(), &n, &info, 1);
  Matrix t(nn);
  for (int s = 0; s < squarings; ++s) {
    multiply(n, a, a, t);
    a.swap(t);
  }
}

void validateMatrixExp(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  checkMatrices(call, call.inputs[0], "input x", true);
  checkFloatOut(call, 0, "y", call.inputs[0], call.inputs[0].shape);
}

void computeMatrixExp(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const int64_t n = x.rows;
  if (n == 0) return;
  Matrix a(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < x.count; ++b) {
    loadColMajor(call.inputs[0], b, n, n, a.data(), n);
    if (allFinite(a))
      expm(lapackInt(n), a);
    else
      std::fill(a.begin(), a.end(), std::numeric_limits<float>::quiet_NaN());
    storeColMajor(call.outputs[0], b, n, n, a.data(), n);
  }
}

KernelCost costMatrixExp(const OpCall& call) {
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  const double n = static_cast<double>(x.rows);
  // A data-independent estimate: the degree-7 evaluation (4 products of
  // 2 n^3) and the solve; the data-dependent squarings are not counted.
  return aiCpuCost(call, static_cast<double>(x.count) * (8.0 * n * n * n + luFlops(n, n) + 2.0 * n * n * n));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MatrixExp", &validateMatrixExp, &computeMatrixExp, &costMatrixExp});

}  // namespace
}  // namespace linalg
}  // namespace ascend_sim
