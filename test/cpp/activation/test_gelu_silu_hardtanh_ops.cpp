// relu6/hardtanh, hardswish, silu, gelu, leaky_relu, clamp and addcmul/addcdiv
// forward and backward against the CPU, fp32 and fp16, on both format paths
// (a 4-D NC1HWC0 input keeps NC1HWC0 when internal formats are allowed), and
// their in-place variants.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

struct NamedFn {
  std::string name;
  TensorFn fn;
};

#define ACT(name, expr) \
  NamedFn { name, [](const std::vector<at::Tensor>& in) { return expr; } }

const std::vector<NamedFn>& unaryActivations() {
  static const std::vector<NamedFn> fns = {
      ACT("relu6", at::relu6(in[0])),
      ACT("hardtanh", at::hardtanh(in[0], -0.5, 1.5)),
      ACT("hardswish", at::hardswish(in[0])),
      ACT("silu", at::silu(in[0])),
      ACT("gelu", at::gelu(in[0])),
      ACT("gelu_tanh", at::gelu(in[0], "tanh")),
      ACT("leaky_relu", at::leaky_relu(in[0], 0.07)),
      ACT("clamp", at::clamp(in[0], -0.4, 0.7)),
      ACT("clamp_min", at::clamp_min(in[0], -0.3)),
      ACT("clamp_max", at::clamp_max(in[0], 0.2)),
  };
  return fns;
}

const std::vector<NamedFn>& ternaryOps() {
  static const std::vector<NamedFn> fns = {
      ACT("addcmul", at::addcmul(in[0], in[1], in[2], 0.7)),
      ACT("addcdiv", at::addcdiv(in[0], in[1], in[2], -1.3)),
      ACT("addcmul broadcast", at::addcmul(in[0], in[1], in[2].slice(2, 0, 1))),
  };
  return fns;
}

// Samples spread over every branch of the activations (|x| up to ~10), never
// exactly on a kink: there the one-sided derivative is a convention, and
// PyTorch 1.13's CPU kernels disagree with themselves (hardswish_backward at
// x = 3 gives 1.5·g in the scalar path, g in the vectorised one; OPS.md and
// CUDA use 1.5·g). fp16 rounding makes exact kinks likely, so they are moved;
// a bound such as clamp's 0.7 is a kink at its fp16 value (0.7002) too, which
// the fp32 reference sees outside the range and the fp16 NPU on its edge.
at::Tensor sample(at::IntArrayRef shape, at::ScalarType dtype) {
  at::Tensor t = at::randn(shape).mul(3);
  t = t.masked_fill(t.abs().lt(0.05), 0.5).to(dtype).to(at::kFloat);
  for (double kink : {-3.0, 3.0, 6.0, -0.5, 1.5, -0.4, 0.7, -0.3, 0.2}) {
    const double rounded = at::scalar_tensor(kink).to(dtype).item<double>();
    t = t.masked_fill(t.eq(kink).logical_or(t.eq(rounded)), kink + 0.25);
  }
  return t.to(dtype);
}

// Compares fn on both format paths; with internal formats allowed the NPU
// inputs are NC1HWC0 and so must be the output (format-agnostic elementwise ops).
void expectElementwiseMatches(const NamedFn& op, const std::vector<at::Tensor>& inputs, at::ScalarType dtype) {
  SCOPED_TRACE(op.name + " " + c10::toString(dtype));
  forBothFormatModes([&](bool allow) {
    AutogradCheck check;
    // The backward rounds the fp16 gradient once; addcdiv's backward divides
    // the fp16 gradient by x2 and multiplies (two roundings on the CPU side's
    // fp32 reference path vs one on the NPU): allow two roundings for fp16.
    check.rtol = torch_npu_test::rtolTwoRoundings(dtype);
    check.atol = torch_npu_test::atolTwoRoundings(dtype);
    if (allow) {
      check.npu_formats = std::vector<int64_t>(inputs.size(), ACL_FORMAT_NC1HWC0);
      if (op.name == "addcmul broadcast") check.npu_formats.back() = -1;
    }
    check.check_npu_out = expectFormatWhenAllowed(allow, ACL_FORMAT_NC1HWC0);
    expectSameAutogradWith(op.fn, inputs, check);
  });
}

// x (NPU) modified in place equals fn(x) on the CPU.
void expectInPlace(const std::function<void(at::Tensor&)>& inplace, const std::function<at::Tensor(const at::Tensor&)>& fn,
                   const at::Tensor& x) {
  at::Tensor dev = x.to(npu());
  const void* storage = dev.data_ptr();
  inplace(dev);
  EXPECT_EQ(dev.data_ptr(), storage);
  expectClose(dev, fn(x));
}

}  // namespace

TEST(NpuActivationExt, ForwardBackward) {
  for (const auto& op : unaryActivations()) {
    for (auto dtype : floatAndHalf()) expectElementwiseMatches(op, {sample({2, 19, 7, 9}, dtype)}, dtype);
  }
}

TEST(NpuActivationExt, AddcmulAddcdiv) {
  for (const auto& op : ternaryOps()) {
    for (auto dtype : floatAndHalf()) {
      // fp16: the broadcast operand's gradient sums fp16-rounded products
      // (rounded again by the sum): too many roundings for a fixed tolerance.
      if (dtype == at::kHalf && op.name == "addcmul broadcast") continue;
      const at::Tensor divisor = at::rand({2, 19, 7, 9}).add(0.5).to(dtype);
      expectElementwiseMatches(op, {sample({2, 19, 7, 9}, dtype), sample({2, 19, 7, 9}, dtype), divisor}, dtype);
    }
  }
}

TEST(NpuActivationExt, InPlaceVariants) {
  const at::Tensor x = sample({13, 11}, at::kFloat), a = sample({13, 11}, at::kFloat);
  const at::Tensor b = at::rand({13, 11}).add(0.5);
  expectInPlace([](at::Tensor& t) { at::relu6_(t); }, [](const at::Tensor& t) { return at::relu6(t); }, x);
  expectInPlace([](at::Tensor& t) { at::hardtanh_(t, -1, 2); }, [](const at::Tensor& t) { return at::hardtanh(t, -1, 2); },
                x);
  expectInPlace([](at::Tensor& t) { at::hardswish_(t); }, [](const at::Tensor& t) { return at::hardswish(t); }, x);
  expectInPlace([](at::Tensor& t) { at::silu_(t); }, [](const at::Tensor& t) { return at::silu(t); }, x);
  expectInPlace([](at::Tensor& t) { at::gelu_(t, "tanh"); }, [](const at::Tensor& t) { return at::gelu(t, "tanh"); },
                x);
  expectInPlace([](at::Tensor& t) { at::leaky_relu_(t, 0.2); },
                [](const at::Tensor& t) { return at::leaky_relu(t, 0.2); }, x);
  expectInPlace([](at::Tensor& t) { t.clamp_(-0.5, 0.5); }, [](const at::Tensor& t) { return t.clamp(-0.5, 0.5); }, x);
  expectInPlace([](at::Tensor& t) { t.clamp_min_(0.1); }, [](const at::Tensor& t) { return t.clamp_min(0.1); }, x);
  expectInPlace([](at::Tensor& t) { t.clamp_max_(0.1); }, [](const at::Tensor& t) { return t.clamp_max(0.1); }, x);
  expectInPlace([&](at::Tensor& t) { t.addcmul_(a.to(npu()), b.to(npu()), 0.5); },
                [&](const at::Tensor& t) { return t.addcmul(a, b, 0.5); }, x);
  expectInPlace([&](at::Tensor& t) { t.addcdiv_(a.to(npu()), b.to(npu()), 2); },
                [&](const at::Tensor& t) { return t.addcdiv(a, b, 2); }, x);
  // In place on a transposed (non-contiguous) view.
  expectInPlace([](at::Tensor& t) {
    at::Tensor view = t.t();
    at::hardswish_(view);
  }, [](const at::Tensor& t) { return at::hardswish(t); }, x);
  // In-place leaky_relu with a negative slope cannot be differentiated.
  at::Tensor leaf = x.to(npu()).requires_grad_();
  at::Tensor y = leaf.mul(1);
  at::leaky_relu_(y, -0.1);
  EXPECT_THROW_WITH(y.sum().backward(), "negative slope");
}

TEST(NpuActivationExt, ClampWithNanAndInfinity) {
  const at::Tensor x = at::tensor({NAN, -INFINITY, INFINITY, -1.f, 0.3f, 2.f});
  expectClose(at::clamp(x.to(npu()), -0.5, 0.5), at::clamp(x, -0.5, 0.5));
  expectClose(at::hardtanh(x.to(npu())), at::hardtanh(x));
  // min_val > max_val gives max_val everywhere, as on the CPU
  expectClose(at::hardtanh(x.to(npu()), 0.5, -0.5), at::hardtanh(x, 0.5, -0.5));
}

TEST(NpuActivationExt, Errors) {
  const at::Tensor i = at::ones({3}, at::kInt).to(npu());
  EXPECT_THROW_WITH(at::gelu(at::randn({3}).to(npu()), "fast"), "approximate");
  EXPECT_THROW_WITH(at::silu(i), "floating");
  EXPECT_THROW_WITH(at::clamp(at::randn({3}).to(npu())), "At least one of 'min' or 'max' must not be None");
}
