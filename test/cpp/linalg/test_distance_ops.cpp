// linalg_cross (on linalg's Cross), cdist (_cdist_forward, _cdist_backward) and pdist
// (_pdist_forward, _pdist_backward) against the CPU: forward and backward, fp32 and fp16, broadcast batch dims, every
// p, empty sets, non-contiguous inputs and errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

TEST(NpuDistance, CrossAgainstCpu) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    expectSameAutograd([](const auto& in) { return at::linalg_cross(in[0], in[1]); },
                       {at::randn({4, 3}).to(dtype), at::randn({4, 3}).to(dtype)}, rtolTwoRoundings(dtype) * 5,
                       atolTwoRoundings(dtype) * 5);
    expectSameAutograd([](const auto& in) { return at::linalg_cross(in[0], in[1], 1); },
                       {at::randn({5, 3, 2}).to(dtype), at::randn({1, 3, 2}).to(dtype)}, rtolTwoRoundings(dtype) * 5,
                       atolTwoRoundings(dtype) * 5);
    expectSameAutograd([](const auto& in) { return at::cross(in[0].t(), in[1].t()); },
                       {at::randn({4, 3}).to(dtype), at::randn({4, 3}).to(dtype)}, rtolTwoRoundings(dtype) * 5,
                       atolTwoRoundings(dtype) * 5);
  }
  const at::Tensor a = at::randint(-9, 9, {6, 3}, at::kLong), b = at::randint(-9, 9, {6, 3}, at::kLong);
  expectClose(at::linalg_cross(a.to(npu()), b.to(npu())), at::linalg_cross(a, b));
  expectClose(at::linalg_cross(at::randn({0, 3}).to(npu()), at::randn({0, 3}).to(npu())), at::empty({0, 3}));
  EXPECT_THROW_WITH(at::linalg_cross(at::randn({4, 4}).to(npu()), at::randn({4, 4}).to(npu())),
                    "dimension -1 must have length 3");
}

TEST(NpuDistance, CdistAgainstCpu) {
  for (double p : {0.0, 1.0, 1.5, 2.0, 3.0, std::numeric_limits<double>::infinity()}) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(c10::str("p ", p, " ", dtype));
      // fp16 inf-norm gradients depend on the rounded distance: forward only there.
      const bool grad = !(std::isinf(p) && dtype == at::kHalf);
      const at::Tensor x1 = at::randn({2, 5, 4}).to(dtype), x2 = at::randn({2, 6, 4}).to(dtype);
      if (!grad) {
        expectClose(at::cdist(x1.to(npu()), x2.to(npu()), p), at::cdist(x1.to(at::kFloat), x2.to(at::kFloat), p).to(dtype),
                    rtolFor(dtype), atolFor(dtype));
        continue;
      }
      expectSameAutograd([p](const auto& in) { return at::_cdist_forward(in[0], in[1], p, 2); }, {x1, x2},
                         rtolTwoRoundings(dtype) * 5, atolTwoRoundings(dtype) * 5);
    }
  }
  // Broadcast batch dims, a transposed operand, empty sets, no columns.
  expectSameAutograd([](const auto& in) { return at::_cdist_forward(in[0], in[1].transpose(-1, -2), 1.0, 2); },
                     {at::randn({3, 1, 5, 4}), at::randn({2, 4, 6})}, 1e-4, 1e-4);
  expectSameAutograd([](const auto& in) { return at::_cdist_forward(in[0], in[1], 2.0, 2); },
                     {at::randn({0, 4}), at::randn({6, 4})});
  expectSameAutograd([](const auto& in) { return at::_cdist_forward(in[0], in[1], 2.0, 2); },
                     {at::randn({3, 0}), at::randn({6, 0})});
  EXPECT_THROW_WITH(at::cdist(at::randn({3, 4}).to(npu()), at::randn({3, 5}).to(npu())),
                    "X1 and X2 must have the same number of columns");
  EXPECT_THROW_WITH(at::_cdist_forward(at::randn({3, 4}).to(npu()), at::randn({3, 4}).to(npu()), -1.0, 0),
                    "cdist only supports non-negative p values");
  EXPECT_THROW_WITH(at::_cdist_forward(at::randn({4}).to(npu()), at::randn({3, 4}).to(npu()), 2.0, 0),
                    "cdist only supports at least 2D tensors, X1 got: 1D");
}

TEST(NpuDistance, PdistAgainstCpu) {
  for (double p : {0.0, 1.0, 1.5, 2.0, 3.0, std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(c10::str("p ", p));
    expectSameAutograd([p](const auto& in) { return at::pdist(in[0], p); }, {at::randn({6, 4})}, 1e-4, 1e-4);
  }
  const at::Tensor h = at::randn({6, 4}).to(at::kHalf);
  expectClose(at::pdist(h.to(npu())), at::pdist(h.to(at::kFloat)).to(at::kHalf), rtolFor(at::kHalf), atolFor(at::kHalf));
  expectSameAutograd([](const auto& in) { return at::pdist(in[0]); }, {at::randn({1, 4})});
  expectSameAutograd([](const auto& in) { return at::pdist(in[0]); }, {at::randn({5, 0})});
  EXPECT_THROW_WITH(at::pdist(at::randn({3, 4, 5}).to(npu())), "pdist only supports 2D tensors, got: 3D");
  EXPECT_THROW_WITH(at::pdist(at::randn({3, 4}).to(npu()), -1.0), "pdist only supports non-negative p values");
}
