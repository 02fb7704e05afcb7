// Activations (elu/celu/selu, softplus, mish, hardsigmoid, softshrink,
// hardshrink, threshold, logsigmoid, glu, prelu, rrelu) and the pointwise
// losses (smooth_l1, huber, soft_margin) against the CPU: one row per op
// (forward and backward, fp32/fp16, non-contiguous, 0-d, empty — see
// pointwise_math_test_util.h), then formats, rrelu's randomness, errors.
#include <ATen/core/Reduction.h>

#include "pointwise_math_test_util.h"

using namespace torch_npu_test;

namespace {

#define ROW(name, fn_expr, lo, hi, n) \
  PointwiseCase { name, [](const std::vector<at::Tensor>& in) { return fn_expr; }, lo, hi, n }

const std::vector<PointwiseCase>& activationRows() {
  static const std::vector<PointwiseCase> rows = {
      ROW("elu", at::elu(in[0], 1.3), -3, 3, 1),
      ROW("celu", at::celu(in[0], 0.7), -3, 3, 1),
      ROW("selu", at::selu(in[0]), -3, 3, 1),
      ROW("softplus", at::softplus(in[0], 2, 4), -4, 4, 1),
      ROW("mish", at::mish(in[0]), -4, 4, 1),
      ROW("hardsigmoid", at::hardsigmoid(in[0]), -5, 5, 1),
      ROW("softshrink", at::softshrink(in[0], 0.7), -3, 3, 1),
      ROW("hardshrink", at::hardshrink(in[0], 0.7), -3, 3, 1),
      ROW("threshold", at::threshold(in[0], 0.3, -2), -3, 3, 1),
      ROW("log_sigmoid", at::log_sigmoid(in[0]), -6, 6, 1),
      ROW("smooth_l1 mean", at::smooth_l1_loss(in[0], in[1], at::Reduction::Mean, 0.5), -3, 3, 2),
      ROW("smooth_l1 sum", at::smooth_l1_loss(in[0], in[1], at::Reduction::Sum, 0.5), -3, 3, 2),
      ROW("smooth_l1 none", at::smooth_l1_loss(in[0], in[1], at::Reduction::None, 0.0), -3, 3, 2),
      ROW("huber mean", at::huber_loss(in[0], in[1], at::Reduction::Mean, 0.8), -3, 3, 2),
      ROW("huber none", at::huber_loss(in[0], in[1], at::Reduction::None, 1.5), -3, 3, 2),
      ROW("rrelu eval", at::rrelu(in[0], 0.1, 0.3, false), -3, 3, 1),
  };
  return rows;
}

// elu_ in place: its backward reads the result (elu_backward with is_result).
at::Tensor eluInPlace(const std::vector<at::Tensor>& in) {
  at::Tensor t = in[0].mul(1);
  return at::elu_(t, 1.3, 1.1);
}

}  // namespace

TEST(NpuActivationMore, ForwardBackward) {
  for (const auto& row : activationRows()) expectPointwiseCase(row);
  expectPointwiseCase(PointwiseCase{"elu_ (result saved)", eluInPlace});
}

TEST(NpuActivationMore, GluAndPreluChannels) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = rtolTwoRoundings(dtype), atol = atolTwoRoundings(dtype);
    const at::Tensor x = at::randn({4, 6, 3}).to(dtype);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::glu(in[0], 1); }, {x}, rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::glu(in[0], -1); },
                       {at::randn({3, 4}).to(dtype)}, rtol, atol);
    // per-channel prelu on NCHW: weight gradient sums over N, H, W
    const at::Tensor img = at::randn({2, 3, 4, 5}).to(dtype), w = at::rand({3}).to(dtype);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::prelu(in[0], in[1]); }, {img, w},
                       dtype == at::kHalf ? 2e-2 : 1e-4, dtype == at::kHalf ? 2e-2 : 1e-5);
  }
  // non-contiguous glu input; prelu with a single weight on a 1-D input
  const at::Tensor t = at::randn({6, 4});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::glu(in[0].t(), 1); }, {t});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::prelu(in[0], in[1]); },
                     {at::randn({7}), at::rand({1})});
}

TEST(NpuActivationMore, PrivateFormatsFollowTheInput) {
  forBothFormatModes([](bool allow) {
    const at::Tensor x = at::randn({2, 19, 3, 5});
    at::Tensor d = npuFormatCast(x.to(npu()), ACL_FORMAT_NC1HWC0);
    at::Tensor y = at::mish(d);
    expectFormatWhenAllowed(allow, ACL_FORMAT_NC1HWC0)(y);
    expectClose(y, at::mish(x));
    expectClose(at::softplus(d), at::softplus(x));
  });
}

TEST(NpuActivationMore, RreluTrainingUsesRandomSlopes) {
  const at::Tensor x = at::randn({4000});
  at::Tensor xd = x.to(npu()).requires_grad_();
  at::Tensor y = at::rrelu(xd, 0.1, 0.3, true);
  const at::Tensor yc = y.detach().cpu();
  const at::Tensor pos = x.gt(0);
  expectClose(yc.masked_select(pos), x.masked_select(pos));
  const at::Tensor slope = yc.masked_select(pos.logical_not()).div(x.masked_select(pos.logical_not()));
  EXPECT_GE(slope.min().item<float>(), 0.1f - 1e-5f);
  EXPECT_LE(slope.max().item<float>(), 0.3f + 1e-5f);
  EXPECT_GT(slope.std().item<float>(), 0.03f);  // random, not one slope
  y.sum().backward();
  const at::Tensor g = xd.grad().cpu();
  expectClose(g.masked_select(pos), at::ones_like(x).masked_select(pos));
  expectClose(g.masked_select(pos.logical_not()), slope, 1e-4, 1e-5);
}

TEST(NpuActivationMore, InPlaceForms) {
  const at::Tensor x = at::randn({5, 6});
  at::Tensor d = x.to(npu());
  at::elu_(d, 0.5);
  expectClose(d, at::elu(x, 0.5));
  d = x.to(npu());
  at::hardsigmoid_(d);
  expectClose(d, at::hardsigmoid(x));
  d = x.to(npu());
  at::threshold_(d, 0.1, 7);
  expectClose(d, at::threshold(x, 0.1, 7));
  d = x.to(npu());
  at::mish_(d);
  expectClose(d, at::mish(x));
  const at::Tensor i = at::tensor({-3, 1, 2, 5}, at::kInt);
  expectClose(at::threshold(i.to(npu()), 1, 9), at::threshold(i, 1, 9));
}

TEST(NpuActivationMore, ThresholdBackwardWithNan) {
  const at::Tensor x = at::tensor({NAN, 0.2f, 0.9f, -1.f});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::threshold(in[0], 0.5, -1); }, {x});
}

TEST(NpuActivationMore, Errors) {
  const at::Tensor f = at::randn({4, 3}).to(npu());
  EXPECT_THROW_WITH(at::glu(f, 1), "even");
  EXPECT_THROW_WITH(at::prelu(at::randn({2, 3, 4}).to(npu()), at::rand({4}).to(npu())), "channel size");
  EXPECT_THROW_WITH(at::huber_loss(f, f, at::Reduction::Mean, -1.0), "delta");
  EXPECT_THROW_WITH(at::smooth_l1_loss(f, f, at::Reduction::Mean, -1.0), "beta");
  EXPECT_THROW_WITH(at::mish(at::ones({3}, at::kInt).to(npu())), "floating");
  EXPECT_THROW_WITH(at::smooth_l1_loss(f, at::randn({5, 3}).to(npu())), "size");
}

TEST(NpuActivationMore, MarginLosses) {
  const at::Tensor target = at::tensor({0, 3, 6, 2, 3}, at::kLong);
  const at::Tensor labels = at::tensor({2, 5, -1, 0, 0, 0, 0, 1, -1, 6, 6, 6, 6, 6, 6, 3, 0, -1, 1, 1, 1,
                                        -1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, -1}, at::kLong).reshape({5, 7});
  const at::Tensor weight = at::rand({7}).add(0.5);
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = dtype == at::kHalf ? 5e-3 : 1e-4, atol = dtype == at::kHalf ? 5e-3 : 1e-5;
    for (int64_t reduction : {at::Reduction::None, at::Reduction::Mean, at::Reduction::Sum}) {
      SCOPED_TRACE(reduction);
      const at::Tensor x = at::randn({5, 7}).to(dtype);
      // the weight is a constant (torch has no derivative for it)
      const at::Tensor w = weight.to(dtype);
      expectSameAutograd([&](const std::vector<at::Tensor>& in) {
        const at::Tensor wd = in[0].is_cpu() ? w.to(in[0].scalar_type()) : w.to(npu());
        return at::multi_margin_loss(in[0], in[1], 2, 0.7, wd, reduction);
      }, {x, target}, rtol, atol);
      expectSameAutograd([&](const std::vector<at::Tensor>& in) {
        return at::multi_margin_loss(in[0], in[1], 1, 1.0, {}, reduction);
      }, {x, target}, rtol, atol);
      expectSameAutograd([&](const std::vector<at::Tensor>& in) {
        return at::multilabel_margin_loss(in[0], in[1], reduction);
      }, {x, labels}, rtol, atol);
    }
  }
  // soft_margin_loss (SoftMarginLoss / SoftMarginLossGrad); its target takes no gradient
  const at::Tensor sign = at::randn({5, 7}).sign();
  for (int64_t reduction : {at::Reduction::None, at::Reduction::Mean, at::Reduction::Sum}) {
    expectSameAutograd([&](const std::vector<at::Tensor>& in) {
      return at::soft_margin_loss(in[0], in[0].is_cpu() ? sign : sign.to(npu()), reduction);
    }, {at::randn({5, 7}).mul(3)});
  }
  // fp16: computed in fp32 and rounded once, so it matches the fp32 CPU result of the same fp16
  // values to one fp16 rounding (PyTorch's composite formula rounds each of its steps).
  {
    const at::Tensor x = at::randn({64}).mul(4).to(at::kHalf), y = at::randn({64}).sign().to(at::kHalf);
    const at::Tensor g = at::rand({64}).to(at::kHalf);
    const at::Tensor loss = at::soft_margin_loss(x.to(npu()), y.to(npu()), at::Reduction::None);
    const at::Tensor want = at::soft_margin_loss(x.to(at::kFloat), y.to(at::kFloat), at::Reduction::None);
    expectClose(loss, want.to(at::kHalf), 1e-3, 1e-4);
    const at::Tensor grad = at::soft_margin_loss_backward(g.to(npu()), x.to(npu()), y.to(npu()), at::Reduction::None);
    const at::Tensor want_grad = at::soft_margin_loss_backward(g.to(at::kFloat), x.to(at::kFloat), y.to(at::kFloat),
                                                               at::Reduction::None);
    expectClose(grad, want_grad.to(at::kHalf), 1e-3, 1e-4);
  }
  expectClose(at::soft_margin_loss(at::ones({0, 3}).to(npu()), at::ones({0, 3}).to(npu()), at::Reduction::Sum),
              at::zeros({}));
  // one sample as a vector, a non-contiguous input
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::multi_margin_loss(in[0], in[1]); },
                     {at::randn({7}), at::tensor({4}, at::kLong)});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::multilabel_margin_loss(in[0].t(), in[1]); },
                     {at::randn({7, 5}), labels});
  // an empty batch sums to 0 (PyTorch 1.13's CPU kernel leaves that output uninitialised)
  const at::Tensor none = at::multi_margin_loss(at::randn({0, 7}).to(npu()), at::empty({0}, at::kLong).to(npu()), 1,
                                                1.0, {}, at::Reduction::Sum);
  expectClose(none, at::zeros({}));
  const at::Tensor f = at::randn({5, 7}).to(npu());
  EXPECT_THROW_WITH(at::multi_margin_loss(f, target.to(npu()), 3), "p == 1 and p == 2");
  EXPECT_THROW_WITH(at::multi_margin_loss(f, at::zeros({4}, at::kLong).to(npu())), "inconsistent target size");
  EXPECT_THROW_WITH(at::multi_margin_loss(f, at::full({5}, 9, at::kLong).to(npu())).cpu(), "out of range");
  EXPECT_THROW_WITH(at::multilabel_margin_loss(f, labels.slice(0, 0, 4).to(npu())), "inconsistent target size");
}
