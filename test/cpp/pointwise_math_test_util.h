// Table-driven checks of the pointwise math and activation suites
// (test_pointwise_math_ops.cpp, test_elu_softplus_shrink_ops.cpp): one row per
// op with its sampling range; each row is compared with the CPU forward and
// backward (expectSameAutograd), in fp32 and fp16, on a non-contiguous input,
// on a 0-d input and on an empty one.
#pragma once

#include "npu_test_util.h"

namespace torch_npu_test {

struct PointwiseCase {
  std::string name;
  TensorFn fn;
  double lo = -3, hi = 3;  // inputs sampled uniformly from [lo, hi)
  int inputs = 1;
  bool half = true;        // also check float16
  bool grad = true;        // floating inputs require grad
  bool degenerate = true;  // also check a 0-d and an empty input
  double half_tol = 0;     // fp16 rtol = atol; 0: two fp16 roundings
  double rtol = 1e-4;      // fp32 relative tolerance
  double atol = 1e-5;      // fp32 absolute tolerance
};

inline at::Tensor uniformSample(at::IntArrayRef sizes, double lo, double hi) {
  return at::rand(sizes).mul(hi - lo).add(lo);
}

inline std::vector<at::Tensor> caseInputs(const PointwiseCase& c, at::IntArrayRef sizes, at::ScalarType dtype) {
  std::vector<at::Tensor> in;
  for (int i = 0; i < c.inputs; ++i) {
    at::Tensor t = uniformSample(sizes, c.lo, c.hi).to(dtype);
    in.push_back(c.grad ? t : t.detach());
  }
  return in;
}

// Forward and backward vs the CPU for one row: fp32 [5,7], fp16, a transposed
// (non-contiguous) input, a 0-d input and an empty [0,3] input.
inline void expectPointwiseCase(const PointwiseCase& c) {
  SCOPED_TRACE(c.name);
  const TensorFn fn = c.grad ? c.fn : [&c](const std::vector<at::Tensor>& in) {
    std::vector<at::Tensor> detached;
    for (const auto& t : in) detached.push_back(t.detach());
    return c.fn(detached);
  };
  expectSameAutograd(fn, caseInputs(c, {5, 7}, at::kFloat), c.rtol, c.atol);
  if (c.half) {
    SCOPED_TRACE("float16");
    const double tol = c.half_tol > 0 ? c.half_tol : rtolTwoRoundings(at::kHalf);
    expectSameAutograd(fn, caseInputs(c, {5, 7}, at::kHalf), tol, tol);
  }
  {
    SCOPED_TRACE("non-contiguous");
    std::vector<at::Tensor> in = caseInputs(c, {7, 5}, at::kFloat);
    for (auto& t : in) t = t.t();
    expectSameAutograd(fn, in, c.rtol, c.atol);
  }
  if (!c.degenerate) return;
  {
    SCOPED_TRACE("0-d");
    expectSameAutograd(fn, caseInputs(c, {}, at::kFloat), c.rtol, c.atol);
  }
  {
    SCOPED_TRACE("empty");
    std::vector<at::Tensor> in = caseInputs(c, {0, 3}, at::kFloat);
    std::vector<at::Tensor> dev;
    for (const auto& t : in) dev.push_back(t.to(npu()));
    expectClose(fn(dev), fn(in));
  }
}

}  // namespace torch_npu_test
