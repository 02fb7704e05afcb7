// Softmax / log-softmax, cross-entropy, nll_loss and mse_loss against the CPU,
// forward and backward.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

// Targets in [0, classes) with a few set to `ignore` (if given).
at::Tensor targets(int64_t n, int64_t classes, at::ScalarType dtype, c10::optional<int64_t> ignore = c10::nullopt) {
  at::Tensor t = at::randint(0, classes, {n}, at::kLong);
  if (ignore) t.slice(0, 0, n, 3).fill_(*ignore);
  return t.to(dtype);
}

// A loss over logits `x` with a fixed (non-differentiable) target.
void expectLossAutograd(const std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>& loss,
                        const at::Tensor& x, const at::Tensor& target) {
  expectSameAutograd([&](const std::vector<at::Tensor>& in) { return loss(in[0], target.to(in[0].device())); },
                     {x});
}

const int64_t kReductions[] = {at::Reduction::None, at::Reduction::Mean, at::Reduction::Sum};

}  // namespace

TEST(NpuSoftmax, ForwardBackwardAlongDims) {
  const at::Tensor x = at::randn({5, 17, 33}).mul(3);
  for (int64_t dim : {0, 1, 2, -1}) {
    SCOPED_TRACE(dim);
    expectSameAutograd([&](const std::vector<at::Tensor>& in) { return at::softmax(in[0], dim); }, {x});
    expectSameAutograd([&](const std::vector<at::Tensor>& in) { return at::log_softmax(in[0], dim); }, {x});
  }
  // Large logits: max subtraction keeps it finite.
  const at::Tensor big = at::tensor({1000.f, 999.f, -1000.f, 0.f, 0.f, 0.f}).reshape({2, 3});
  expectClose(at::softmax(big.to(npu()), 1), at::softmax(big, 1));
  expectClose(at::log_softmax(big.to(npu()), 1), at::log_softmax(big, 1));
  // 0-d inputs: 1 (log: 0) when finite, NaN for ±inf and NaN (a fully masked scalar).
  for (float v : {2.5f, -INFINITY, INFINITY, NAN}) {
    SCOPED_TRACE(v);
    const at::Tensor s = at::scalar_tensor(v);
    expectClose(at::softmax(s.to(npu()), 0), at::softmax(s, 0));
    expectClose(at::log_softmax(s.to(npu()), -1), at::log_softmax(s, -1));
  }
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::softmax(in[0], 0); }, {at::scalar_tensor(0.3)});
}

TEST(NpuSoftmax, HalfAndHalfToFloat) {
  const at::Tensor x = at::randn({7, 19});
  const at::Tensor xh = x.to(at::kHalf);
  expectClose(at::softmax(xh.to(npu()), 1), at::softmax(xh.to(at::kFloat), 1).to(at::kHalf), kHalfRtol, kHalfAtol);
  expectClose(at::log_softmax(xh.to(npu()), 0), at::log_softmax(xh.to(at::kFloat), 0).to(at::kHalf), kHalfRtol,
              kHalfAtol);
  expectClose(at::_softmax(xh.to(npu()), 1, true), at::softmax(xh.to(at::kFloat), 1));
  expectClose(at::softmax(xh.to(npu()), 1, at::kFloat), at::softmax(xh.to(at::kFloat), 1));
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::log_softmax(in[0], 1); }, {xh}, kHalfRtol,
                     kHalfAtol);
}

TEST(NpuSoftmax, ExplicitBackwardOpsAndOut) {
  const at::Tensor x = at::randn({6, 17}), g = at::randn({6, 17});
  const at::Tensor y = at::softmax(x, 1), ly = at::log_softmax(x, 1);
  expectClose(at::_softmax_backward_data(g.to(npu()), y.to(npu()), 1, at::kFloat),
              at::_softmax_backward_data(g, y, 1, at::kFloat));
  expectClose(at::_log_softmax_backward_data(g.to(npu()), ly.to(npu()), 1, at::kFloat),
              at::_log_softmax_backward_data(g, ly, 1, at::kFloat));
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::_softmax_out(out, x.to(npu()), 0, false);
  expectClose(out, at::softmax(x, 0));
  at::_log_softmax_out(out, x.to(npu()), 0, false);
  expectClose(out, at::log_softmax(x, 0));
  EXPECT_THROW_WITH(at::softmax(at::ones({3}, at::kInt).to(npu()), 0, c10::nullopt), "floating");
}

TEST(NpuLoss, CrossEntropyWeightsAndIgnoreIndex) {
  const int64_t n = 19, c = 7;
  const at::Tensor x = at::randn({n, c}), weight = at::rand({c}).add(0.2);
  const at::Tensor t = targets(n, c, at::kLong, -100);
  for (int64_t reduction : kReductions) {
    SCOPED_TRACE(reduction);
    expectLossAutograd([&](const at::Tensor& in, const at::Tensor& tt) {
      return at::cross_entropy_loss(in, tt, {}, reduction);
    }, x, t);
    expectLossAutograd([&](const at::Tensor& in, const at::Tensor& tt) {
      return at::cross_entropy_loss(in, tt, weight.to(in.device()), reduction);
    }, x, t);
    expectLossAutograd([&](const at::Tensor& in, const at::Tensor& tt) {
      return at::cross_entropy_loss(in, tt, weight.to(in.device()), reduction, 2);
    }, x, targets(n, c, at::kLong, 2));
  }
}

TEST(NpuLoss, NllLossInt32AndInt64Targets) {
  const int64_t n = 17, c = 5;
  const at::Tensor logp = at::log_softmax(at::randn({n, c}), 1), weight = at::rand({c}).add(0.5);
  for (auto dtype : {at::kLong, at::kInt}) {
    for (int64_t reduction : kReductions) {
      SCOPED_TRACE(::testing::Message() << dtype << " reduction " << reduction);
      const at::Tensor t = targets(n, c, dtype, 1);
      // The CPU kernel wants int64 targets; the NPU accepts both.
      const TensorFn fn = [&](const std::vector<at::Tensor>& in) {
        const bool on_npu = in[0].device() == npu();
        const at::Tensor tt = on_npu ? t.to(npu()) : t.to(at::kLong);
        return at::nll_loss(in[0], tt, on_npu ? weight.to(npu()) : weight, reduction, 1);
      };
      expectSameAutograd(fn, {logp});
    }
  }
  // Unbatched input [C] with a 0-d target.
  const at::Tensor t0 = at::scalar_tensor(3, at::kLong);
  expectLossAutograd([](const at::Tensor& in, const at::Tensor& tt) { return at::nll_loss(in, tt); },
                     logp.select(0, 0), t0);
}

TEST(NpuLoss, NllLossAllIgnoredMeanIsNan) {
  const at::Tensor logp = at::log_softmax(at::randn({4, 3}), 1), t = at::full({4}, -100, at::kLong);
  expectClose(at::nll_loss(logp.to(npu()), t.to(npu())), at::nll_loss(logp, t));
  expectClose(at::nll_loss(logp.to(npu()), t.to(npu()), {}, at::Reduction::Sum),
              at::nll_loss(logp, t, {}, at::Reduction::Sum));
}

TEST(NpuLoss, NllLossErrors) {
  const at::Tensor logp = at::log_softmax(at::randn({6, 5}), 1).to(npu());
  // An out-of-range target is a device fault: it surfaces at the next sync.
  const at::Tensor bad = at::tensor({0, 1, 7, 2, 3, 4}, at::kLong).to(npu());
  EXPECT_THROW_WITH(at::nll_loss(logp, bad).cpu(), "7");
  EXPECT_THROW_WITH(at::nll_loss(logp, at::tensor({0, 1, -3, 2, 3, 4}, at::kLong).to(npu())).cpu(), "-3");
  // The device is usable again afterwards.
  expectClose(at::ones({3}).to(npu()).add(1), at::full({3}, 2.f));
  EXPECT_THROW_WITH(at::nll_loss(logp, at::zeros({5}, at::kLong).to(npu())),
                    "size mismatch (got input: [6, 5], target: [5])");  // PyTorch's own message
  EXPECT_THROW_WITH(at::nll_loss(logp, at::zeros({6}).to(npu())), "target");
  EXPECT_THROW_WITH(at::nll_loss(logp, at::zeros({6}, at::kLong).to(npu()), at::ones({4}).to(npu())), "weight");
}

TEST(NpuLoss, MseLossAllReductions) {
  const at::Tensor x = at::randn({5, 17}), y = at::randn({5, 17});
  for (int64_t reduction : kReductions) {
    SCOPED_TRACE(reduction);
    expectSameAutograd([&](const std::vector<at::Tensor>& in) { return at::mse_loss(in[0], in[1], reduction); },
                       {x, y});
    at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
    at::mse_loss_out(out, x.to(npu()), y.to(npu()), reduction);
    expectClose(out, at::mse_loss(x, y, reduction));
    const at::Tensor g = reduction == at::Reduction::None ? at::randn({5, 17}) : at::randn({});
    expectClose(at::mse_loss_backward(g.to(npu()), x.to(npu()), y.to(npu()), reduction),
                at::mse_loss_backward(g, x, y, reduction));
  }
  EXPECT_THROW(at::mse_loss(x.to(npu()), y.to(npu()), 7), c10::Error);
}
