// Inputs and tolerances shared by the linear algebra suites (test_linalg_*.cpp).
#pragma once

#include <string>
#include <vector>

#include "npu_test_util.h"

namespace torch_npu_test {

// Forward results use the CPU's LAPACK routines (usually the same bits);
// backward passes add NPU matmuls that sum in another order.
constexpr double kLinalgRtol = 1e-3, kLinalgAtol = 1e-4;

// Random [batch..., n, n] matrices with a dominant diagonal (well conditioned).
inline at::Tensor wellConditioned(std::vector<int64_t> sizes) {
  const int64_t n = sizes.back();
  return at::randn(sizes) + n * at::eye(n);
}

// Random symmetric positive-definite [batch..., n, n] matrices.
inline at::Tensor spdMatrices(std::vector<int64_t> sizes) {
  const int64_t n = sizes.back();
  const at::Tensor r = at::randn(sizes);
  return at::matmul(r, r.mT()) + n * at::eye(n);
}

// One row of a table-driven autograd test: `fn` on CPU and NPU copies of `inputs`.
struct AutogradCase {
  std::string name;
  TensorFn fn;
  std::vector<at::Tensor> inputs;
};

inline void expectSameAutogradCases(const std::vector<AutogradCase>& cases, double rtol = kLinalgRtol,
                                    double atol = kLinalgAtol) {
  for (const AutogradCase& c : cases) {
    SCOPED_TRACE(c.name);
    expectSameAutograd(c.fn, c.inputs, rtol, atol);
  }
}

// The NPU rejects float16 linear algebra with a dtype error, as the CPU does.
inline void expectRejectsHalf(const std::function<void(const at::Tensor&)>& fn, const at::Tensor& input) {
  EXPECT_ANY_THROW(fn(input.to(at::kHalf)));  // the CPU's "... not implemented for 'Half'"
  EXPECT_THROW_WITH(fn(input.to(at::kHalf).to(npu())), "Half");
}

}  // namespace torch_npu_test
