// Unary elementwise ops and the activation gradients, against the CPU.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using UnaryFn = std::function<at::Tensor(const at::Tensor&)>;

struct UnaryOp {
  std::string name;
  UnaryFn fn;
  bool positive_domain;  // log, sqrt, rsqrt: sample from (0.1, 5)
};

#define UNARY_OP(op, positive) \
  UnaryOp { #op, [](const at::Tensor& t) { return at::op(t); }, positive }

const std::vector<UnaryOp>& floatOps() {
  static const std::vector<UnaryOp> ops = {
      UNARY_OP(neg, false),  UNARY_OP(abs, false),     UNARY_OP(exp, false),        UNARY_OP(log, true),
      UNARY_OP(sqrt, true),  UNARY_OP(rsqrt, true),    UNARY_OP(relu, false),       UNARY_OP(sigmoid, false),
      UNARY_OP(tanh, false), UNARY_OP(reciprocal, false), UNARY_OP(sign, false)};
  return ops;
}

at::Tensor sampleFor(const UnaryOp& op, at::IntArrayRef sizes) {
  if (op.positive_domain) return at::rand(sizes).mul(4.9).add(0.1);
  at::Tensor t = at::randn(sizes).mul(3);
  return t.masked_fill(t.abs().lt(0.05), 0.25);  // keep reciprocal well conditioned
}

// op on the NPU vs op on the CPU; fp16 against the fp32 result rounded once.
void expectUnaryMatches(const UnaryFn& fn, const at::Tensor& x) {
  const auto t = x.scalar_type();
  at::Tensor expected = fn(t == at::kHalf ? x.to(at::kFloat) : x);
  if (t == at::kHalf && expected.scalar_type() == at::kFloat) expected = expected.to(at::kHalf);
  expectClose(fn(x.to(npu())), expected, rtolFor(t), atolFor(t));
}

// x (NPU) modified in place by `inplace` equals fn(x) on the CPU.
void expectInPlaceMatches(const std::function<void(at::Tensor&)>& inplace, const UnaryFn& fn, const at::Tensor& x) {
  at::Tensor dev = x.to(npu());
  inplace(dev);
  expectClose(dev, fn(x));
}

}  // namespace

TEST(NpuUnaryOps, FloatAndHalf) {
  for (const auto& op : floatOps()) {
    SCOPED_TRACE(op.name);
    const at::Tensor x = sampleFor(op, {7, 33});
    expectUnaryMatches(op.fn, x);
    expectUnaryMatches(op.fn, x.to(at::kHalf));
    expectUnaryMatches(op.fn, x.t());  // non-contiguous input
  }
}

TEST(NpuUnaryOps, NanAndInfinity) {
  const at::Tensor x = at::tensor({NAN, INFINITY, -INFINITY, 0.f, -0.f, 1.f, -2.f});
  for (const auto& op : floatOps()) {
    SCOPED_TRACE(op.name);
    expectUnaryMatches(op.fn, x);
  }
}

TEST(NpuUnaryOps, IntegerInputs) {
  const at::Tensor i = at::randint(-9, 10, {5, 17}, at::kInt), l = i.to(at::kLong);
  for (const auto& x : {i, l}) {
    expectUnaryMatches([](const at::Tensor& t) { return at::neg(t); }, x);
    expectUnaryMatches([](const at::Tensor& t) { return at::abs(t); }, x);
    expectUnaryMatches([](const at::Tensor& t) { return at::sign(t); }, x);
    expectUnaryMatches([](const at::Tensor& t) { return at::relu(t); }, x);
    expectUnaryMatches([](const at::Tensor& t) { return at::exp(t.div(4, "floor")); }, x);  // promotes to float
    expectUnaryMatches([](const at::Tensor& t) { return at::sigmoid(t); }, x);
    expectUnaryMatches([](const at::Tensor& t) { return at::sqrt(t.abs()); }, x);
  }
  EXPECT_THROW_WITH(at::relu(i.gt(0).to(npu())), "Boolean");
}

TEST(NpuUnaryOps, LogicalNot) {
  for (auto dtype : {at::kBool, at::kFloat, at::kInt, at::kLong, at::kHalf}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randint(-1, 2, {4, 19}).to(dtype);
    expectUnaryMatches([](const at::Tensor& t) { return at::logical_not(t); }, x);
  }
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  const at::Tensor x = at::tensor({0.f, 1.f, NAN, -2.f});
  at::logical_not_out(out, x.to(npu()));
  expectClose(out, at::logical_not(x).to(at::kFloat));
}

TEST(NpuUnaryOps, InPlaceAndOutVariants) {
  const at::Tensor x = at::rand({6, 17}).add(0.1);
  expectInPlaceMatches([](at::Tensor& t) { t.neg_(); }, [](const at::Tensor& t) { return t.neg(); }, x);
  expectInPlaceMatches([](at::Tensor& t) { t.exp_(); }, [](const at::Tensor& t) { return t.exp(); }, x);
  expectInPlaceMatches([](at::Tensor& t) { t.log_(); }, [](const at::Tensor& t) { return t.log(); }, x);
  expectInPlaceMatches([](at::Tensor& t) { t.sqrt_(); }, [](const at::Tensor& t) { return t.sqrt(); }, x);
  expectInPlaceMatches([](at::Tensor& t) { t.rsqrt_(); }, [](const at::Tensor& t) { return t.rsqrt(); }, x);
  expectInPlaceMatches([](at::Tensor& t) { t.sigmoid_(); }, [](const at::Tensor& t) { return t.sigmoid(); }, x);
  expectInPlaceMatches([](at::Tensor& t) { t.tanh_(); }, [](const at::Tensor& t) { return t.tanh(); }, x);
  expectInPlaceMatches([](at::Tensor& t) { t.reciprocal_(); }, [](const at::Tensor& t) { return t.reciprocal(); },
                       x);
  expectInPlaceMatches([](at::Tensor& t) { t.sub_(0.5).sign_(); }, [](const at::Tensor& t) { return t.sub(0.5).sign(); },
                       x);
  expectInPlaceMatches([](at::Tensor& t) { t.sub_(0.5).relu_(); }, [](const at::Tensor& t) { return t.sub(0.5).relu(); },
                       x);
  expectInPlaceMatches([](at::Tensor& t) { t.sub_(0.5).abs_(); }, [](const at::Tensor& t) { return t.sub(0.5).abs(); },
                       x);
  expectInPlaceMatches([](at::Tensor& t) { t.t().exp_(); }, [](const at::Tensor& t) { return t.exp(); }, x);
  // out= into a transposed buffer and into a double tensor
  at::Tensor out = at::empty({17, 6}, at::TensorOptions().device(npu())).t();
  at::exp_out(out, x.to(npu()));
  expectClose(out, x.exp());
  at::Tensor out_i = at::empty({0}, at::TensorOptions().dtype(at::kInt).device(npu()));
  EXPECT_THROW_WITH(at::sqrt_out(out_i, x.to(npu())), "can't be cast");
  at::Tensor ints = at::ones({3}, at::kInt).to(npu());
  EXPECT_THROW(ints.exp_(), c10::Error);  // float result into an int tensor
}

TEST(NpuUnaryOps, Backward) {
  for (const auto& op : floatOps()) {
    SCOPED_TRACE(op.name);
    const at::Tensor x = sampleFor(op, {5, 21});
    expectSameAutograd([&](const std::vector<at::Tensor>& in) { return op.fn(in[0]); }, {x});
  }
}

TEST(NpuUnaryOps, BackwardHalf) {
  // The gradient is computed from the fp16-rounded forward output, so it is
  // two fp16 roundings away from the fp32 reference: allow two half ulps.
  const at::Tensor x = at::randn({4, 19}).to(at::kHalf);
  for (const auto& op : {UNARY_OP(relu, false), UNARY_OP(sigmoid, false), UNARY_OP(tanh, false)}) {
    SCOPED_TRACE(op.name);
    expectSameAutograd([&](const std::vector<at::Tensor>& in) { return op.fn(in[0]); }, {x},
                       2 * rtolFor(at::kHalf), 2 * atolFor(at::kHalf));
  }
}

TEST(NpuActivationGrad, ExplicitBackwardOps) {
  const at::Tensor x = at::randn({6, 17}), g = at::randn({6, 17}), y = x.sigmoid(), t = x.tanh();
  auto dev = [](const at::Tensor& a) { return a.to(npu()); };
  expectClose(at::threshold_backward(dev(g), dev(x), 0), at::threshold_backward(g, x, 0));
  expectClose(at::threshold_backward(dev(g), dev(x), 0.3), at::threshold_backward(g, x, 0.3));
  expectClose(at::sigmoid_backward(dev(g), dev(y)), at::sigmoid_backward(g, y));
  expectClose(at::tanh_backward(dev(g), dev(t)), at::tanh_backward(g, t));
  at::Tensor out = at::empty({17, 6}, at::TensorOptions().device(npu())).t();
  at::threshold_backward_out(out, dev(g), dev(x), -0.2);
  expectClose(out, at::threshold_backward(g, x, -0.2));
  at::sigmoid_backward_out(out, dev(g), dev(y));
  expectClose(out, at::sigmoid_backward(g, y));
  at::tanh_backward_out(out, dev(g), dev(t));
  expectClose(out, at::tanh_backward(g, t));
  EXPECT_THROW_WITH(at::threshold_backward(dev(g), dev(x.slice(0, 0, 2)), 0), "threshold_backward");
}

TEST(NpuActivationGrad, BaseGradMeetsPrivateSavedTensor) {
  // A base-format grad_output with an NC1HWC0 saved tensor (relu after conv/BN,
  // grad from a base-format op): grad_output is converted once and the gradient
  // stays NC1HWC0, ready for the backward of the producing op.
  const at::Tensor x = at::randn({2, 19, 5, 3}), g = at::randn({2, 19, 5, 3});
  const at::Tensor y = x.sigmoid(), t = x.tanh();
  const at::Tensor x5 = npuFormatCast(x.to(npu()), ACL_FORMAT_NC1HWC0);
  const at::Tensor y5 = npuFormatCast(y.to(npu()), ACL_FORMAT_NC1HWC0);
  const at::Tensor t5 = npuFormatCast(t.to(npu()), ACL_FORMAT_NC1HWC0);
  const at::Tensor g_npu = g.to(npu());
  struct Case {
    std::string name;
    std::function<at::Tensor()> npu_fn;
    at::Tensor expected;
  };
  const std::vector<Case> cases = {
      {"threshold_backward 0", [&] { return at::threshold_backward(g_npu, x5, 0); }, at::threshold_backward(g, x, 0)},
      {"threshold_backward 0.3", [&] { return at::threshold_backward(g_npu, x5, 0.3); },
       at::threshold_backward(g, x, 0.3)},
      {"sigmoid_backward", [&] { return at::sigmoid_backward(g_npu, y5); }, at::sigmoid_backward(g, y)},
      {"tanh_backward", [&] { return at::tanh_backward(g_npu, t5); }, at::tanh_backward(g, t)},
      {"hardtanh_backward", [&] { return at::hardtanh_backward(g_npu, x5, -0.5, 0.5); },
       at::hardtanh_backward(g, x, -0.5, 0.5)},
      {"leaky_relu_backward", [&] { return at::leaky_relu_backward(g_npu, x5, 0.1, false); },
       at::leaky_relu_backward(g, x, 0.1, false)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (bool allow : {true, false}) {
      InternalFormatGuard guard(allow);
      at::Tensor out;
      {
        OpRecorder rec;
        out = c.npu_fn();
        if (allow) { EXPECT_EQ(rec.count("TransData"), 1) << rec.summary(); }
      }
      expectFormatWhenAllowed(allow, ACL_FORMAT_NC1HWC0)(out);
      expectClose(out, c.expected, 1e-6, 1e-7);
    }
  }
  // The same results bit for bit as the base-format path.
  expectClose(at::threshold_backward(g_npu, x5, 0), at::threshold_backward(g_npu, x.to(npu()), 0).cpu(), 0, 0);
  expectClose(at::sigmoid_backward(g_npu, y5), at::sigmoid_backward(g_npu, y.to(npu())).cpu(), 0, 0);
}
