// Broadcasting binary arithmetic: add/sub (alpha), mul, div (rounding modes),
// maximum/minimum and pow, against PyTorch's CPU backend.
#include "csrc/core/NPUFunctions.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using BinaryFn = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

// Values of `dtype` with both signs and |x| >= 1 (safe divisors).
at::Tensor sample(at::IntArrayRef sizes, at::ScalarType dtype) {
  if (dtype == at::kBool) return at::randn(sizes).gt(0);
  at::Tensor t = at::randn(sizes).mul(4);
  t = t.masked_fill(t.abs().lt(1), 1.5);
  return (at::isIntegralType(dtype, false) ? t.round() : t).to(dtype);
}

// fn(a, b) on the NPU equals fn(a, b) on the CPU (fp16: fp32 result, rounded).
void expectBinaryMatches(const BinaryFn& fn, const at::Tensor& a, const at::Tensor& b) {
  const auto type = at::result_type(a, b);
  const bool half = type == at::kHalf;
  at::Tensor expected = half ? fn(a.to(at::kFloat), b.to(at::kFloat)).to(at::kHalf) : fn(a, b);
  expectClose(fn(a.to(npu()), b.to(npu())), expected, rtolFor(type), atolFor(type));
}

// Forward and backward of fn over two float tensors of broadcasting shapes.
void expectBinaryAutograd(const BinaryFn& fn, const at::Tensor& a, const at::Tensor& b) {
  const auto type = a.scalar_type();
  expectSameAutograd([&](const std::vector<at::Tensor>& in) { return fn(in[0], in[1]); }, {a, b}, rtolFor(type),
                     atolFor(type));
}

const std::vector<std::pair<std::string, BinaryFn>>& arithmeticOps() {
  static const std::vector<std::pair<std::string, BinaryFn>> ops = {
      {"add", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }},
      {"add_alpha", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b, 3); }},
      {"sub", [](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); }},
      {"sub_alpha", [](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b, -2); }},
      {"mul", [](const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); }},
      {"div", [](const at::Tensor& a, const at::Tensor& b) { return at::div(a, b); }},
      {"div_floor", [](const at::Tensor& a, const at::Tensor& b) { return at::div(a, b, "floor"); }},
      {"maximum", [](const at::Tensor& a, const at::Tensor& b) { return at::maximum(a, b); }},
      {"minimum", [](const at::Tensor& a, const at::Tensor& b) { return at::minimum(a, b); }},
  };
  return ops;
}

}  // namespace

TEST(NpuBinaryOps, AllOpsAllDtypesWithBroadcasting) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong}) {
    for (const auto& [name, fn] : arithmeticOps()) {
      SCOPED_TRACE(name + " " + c10::toString(dtype));
      expectBinaryMatches(fn, sample({5, 17}, dtype), sample({5, 17}, dtype));
      expectBinaryMatches(fn, sample({3, 1, 19}, dtype), sample({4, 1}, dtype));
    }
  }
}

TEST(NpuBinaryOps, BoolOperands) {
  const at::Tensor a = sample({6, 7}, at::kBool), b = sample({6, 7}, at::kBool);
  expectBinaryMatches([](const at::Tensor& x, const at::Tensor& y) { return at::add(x, y); }, a, b);
  expectBinaryMatches([](const at::Tensor& x, const at::Tensor& y) { return at::mul(x, y); }, a, b);
  expectBinaryMatches([](const at::Tensor& x, const at::Tensor& y) { return at::maximum(x, y); }, a, b);
  expectBinaryMatches([](const at::Tensor& x, const at::Tensor& y) { return at::div(x, y.logical_not().add(1)); },
                      a, b);
  EXPECT_THROW(at::sub(a.to(npu()), b.to(npu())), c10::Error);  // PyTorch forbids bool subtraction
}

TEST(NpuBinaryOps, ZeroDimAndScalarOperands) {
  const at::Tensor a = sample({7, 18}, at::kFloat);
  for (const auto& [name, fn] : arithmeticOps()) {
    SCOPED_TRACE(name);
    expectBinaryMatches(fn, a, at::scalar_tensor(2.5));         // 0-d NPU tensor
    expectBinaryMatches(fn, at::scalar_tensor(-1.5), a);        // 0-d first
    expectBinaryMatches(fn, a, at::scalar_tensor(3, at::kInt));  // int 0-d keeps float
    // 0-d CPU tensors mix with NPU tensors
    expectClose(fn(a.to(npu()), at::scalar_tensor(2.5)), fn(a, at::scalar_tensor(2.5)));
    expectClose(fn(at::scalar_tensor(-1.5), a.to(npu())), fn(at::scalar_tensor(-1.5), a));
  }
  // 0-d NPU tensor operand
  expectClose(at::mul(a.to(npu()), at::scalar_tensor(4.0).to(npu())), a * 4.0);
  // Python scalars (at::Scalar overloads)
  expectClose(a.to(npu()).add(2.5, 2), a.add(2.5, 2));
  expectClose(a.to(npu()).sub(1), a.sub(1));
  expectClose(a.to(npu()).mul(-3), a.mul(-3));
  expectClose(a.to(npu()).div(7), a.div(7));
  const at::Tensor i = sample({9}, at::kInt);
  expectClose(i.to(npu()).mul(2), i.mul(2));     // int * int scalar stays int
  expectClose(i.to(npu()).mul(0.5), i.mul(0.5));  // int * float scalar is float
  expectClose(i.to(npu()).div(2), i.div(2));      // true division of ints is float
}

TEST(NpuBinaryOps, TypePromotionIntFloat) {
  const at::Tensor i = sample({4, 17}, at::kInt), l = sample({4, 17}, at::kLong);
  const at::Tensor f = sample({4, 17}, at::kFloat), h = sample({4, 17}, at::kHalf);
  for (const auto& [name, fn] : arithmeticOps()) {
    SCOPED_TRACE(name);
    expectBinaryMatches(fn, i, f);
    expectBinaryMatches(fn, l, f);
    expectBinaryMatches(fn, i, l);
    expectBinaryMatches(fn, h, f);
  }
  EXPECT_EQ(at::add(i.to(npu()), f.to(npu())).scalar_type(), at::kFloat);
  EXPECT_EQ(at::div(i.to(npu()), l.to(npu())).scalar_type(), at::kFloat);
}

TEST(NpuBinaryOps, IntegerFloorDivisionRoundsDown) {
  const at::Tensor a = at::tensor({7, -7, 7, -7, 0, 9}, at::kInt);
  const at::Tensor b = at::tensor({2, 2, -2, -2, 3, 4}, at::kInt);
  expectClose(at::div(a.to(npu()), b.to(npu()), "floor"), at::tensor({3, -4, -4, 3, 0, 2}, at::kInt));
  expectClose(at::div(a.to(npu()).to(at::kFloat), b.to(npu()), "floor"),
              at::tensor({3.f, -4.f, -4.f, 3.f, 0.f, 2.f}));
}

TEST(NpuBinaryOps, TruncDivisionRoundsTowardZero) {
  const at::Tensor a = at::tensor({7, -7, 7, -7, 0, 9}, at::kInt);
  const at::Tensor b = at::tensor({2, 2, -2, -2, 3, 4}, at::kInt);
  expectClose(at::div(a.to(npu()), b.to(npu()), "trunc"), at::div(a, b, "trunc"));
  const at::Tensor x = sample({3, 5}, at::kFloat), y = sample({3, 5}, at::kFloat);
  expectClose(at::div(x.to(npu()), y.to(npu()), "trunc"), at::div(x, y, "trunc"));
  EXPECT_THROW_WITH(at::div(x.to(npu()), y.to(npu()), "bogus"), "rounding_mode", "bogus");
}

TEST(NpuBinaryOps, DivisionByZeroIsIeee) {
  const at::Tensor a = at::tensor({1.f, -1.f, 0.f, 2.f});
  const at::Tensor b = at::tensor({0.f, 0.f, 0.f, -0.f});
  expectClose(at::div(a.to(npu()), b.to(npu())), at::div(a, b));
}

TEST(NpuBinaryOps, MaximumMinimumPropagateNan) {
  const at::Tensor a = at::tensor({1.f, NAN, 3.f, -INFINITY});
  const at::Tensor b = at::tensor({NAN, 2.f, 1.f, 5.f});
  expectClose(at::maximum(a.to(npu()), b.to(npu())), at::maximum(a, b));
  expectClose(at::minimum(a.to(npu()), b.to(npu())), at::minimum(a, b));
}

TEST(NpuBinaryOps, PowAllThreeForms) {
  const at::Tensor base = at::rand({6, 17}).add(0.5), expo = at::randn({6, 17});
  expectClose(at::pow(base.to(npu()), expo.to(npu())), at::pow(base, expo));                 // Tensor_Tensor
  expectClose(at::pow(base.to(npu()), 2.5), at::pow(base, 2.5));                             // Tensor_Scalar
  expectClose(at::pow(base.to(npu()), 2), at::pow(base, 2));
  expectClose(at::pow(1.7, expo.to(npu())), at::pow(1.7, expo));                             // Scalar
  expectClose(at::pow(base.to(npu()), expo.slice(0, 0, 1).to(npu())), at::pow(base, expo.slice(0, 0, 1)));
  const at::Tensor ib = at::randint(-4, 5, {5, 9}, at::kLong), ie = at::randint(0, 5, {5, 9}, at::kLong);
  expectClose(at::pow(ib.to(npu()), ie.to(npu())), at::pow(ib, ie));
  expectClose(at::pow(ib.to(npu()).to(at::kInt), 3), at::pow(ib.to(at::kInt), 3));
  expectClose(at::pow(2, ie.to(npu())), at::pow(2, ie));
  expectClose(at::pow(base.to(npu()).to(at::kHalf), 1.5), at::pow(base, 1.5).to(at::kHalf), 1e-3, 1e-3);
}

TEST(NpuBinaryOps, InPlaceVariants) {
  const at::Tensor a = sample({5, 19}, at::kFloat), b = sample({1, 19}, at::kFloat);
  auto check = [&](const std::function<void(at::Tensor&, const at::Tensor&)>& op) {
    at::Tensor cpu = a.clone(), dev = a.to(npu());
    op(cpu, b);
    op(dev, b.to(npu()));
    expectClose(dev, cpu);
  };
  check([](at::Tensor& x, const at::Tensor& y) { x.add_(y, 2); });
  check([](at::Tensor& x, const at::Tensor& y) { x.sub_(y); });
  check([](at::Tensor& x, const at::Tensor& y) { x.mul_(y); });
  check([](at::Tensor& x, const at::Tensor& y) { x.div_(y); });
  check([](at::Tensor& x, const at::Tensor& y) { x.div_(y, "floor"); });
  check([](at::Tensor& x, const at::Tensor& y) { x.abs_().pow_(y); });
  check([](at::Tensor& x, const at::Tensor&) { x.abs_().pow_(1.5); });
  check([](at::Tensor& x, const at::Tensor&) { x.mul_(3).add_(1.25); });
  // In-place on a non-contiguous view writes through to the base.
  check([](at::Tensor& x, const at::Tensor&) { x.t().mul_(at::arange(5, at::kFloat).to(x.device())); });
  // In-place cannot grow self, and cannot turn an int tensor into a float one.
  at::Tensor small = a.slice(0, 0, 1).to(npu());
  EXPECT_THROW_WITH(small.add_(a.to(npu())), "doesn't match the broadcast shape");
  at::Tensor ints = sample({4}, at::kInt).to(npu());
  EXPECT_THROW(ints.add_(at::ones({4}).to(npu())), c10::Error);
}

TEST(NpuBinaryOps, OutVariants) {
  const at::Tensor a = sample({6, 17}, at::kFloat), b = sample({17}, at::kFloat);
  const at::Tensor da = a.to(npu()), db = b.to(npu());
  auto dev_out = [] { return at::empty({0}, at::TensorOptions().device(npu())); };
  at::Tensor out = dev_out();
  expectClose(at::add_out(out, da, db, 2), at::add(a, b, 2));
  expectClose(at::sub_out(out, da, db), at::sub(a, b));
  expectClose(at::mul_out(out, da, db), at::mul(a, b));
  expectClose(at::div_out(out, da, db), at::div(a, b));
  expectClose(at::div_out(out, da, db, "floor"), at::div(a, b, "floor"));
  expectClose(at::maximum_out(out, da, db), at::maximum(a, b));
  expectClose(at::minimum_out(out, da, db), at::minimum(a, b));
  expectClose(at::pow_out(out, da.abs(), db), at::pow(a.abs(), b));
  expectClose(at::pow_out(out, da, 3), at::pow(a, 3));
  expectClose(at::pow_out(out, 1.5, db), at::pow(1.5, b));
}

TEST(NpuBinaryOps, NonContiguousOutAndOutOfAnotherDtype) {
  const at::Tensor a = sample({17, 6}, at::kFloat), b = sample({17, 6}, at::kFloat);
  // A transposed out: values land at the right strided positions.
  at::Tensor out_t = at::zeros({6, 17}).to(npu()).t();
  at::add_out(out_t, a.to(npu()), b.to(npu()));
  EXPECT_FALSE(out_t.is_contiguous());
  expectClose(out_t, a + b);
  // A strided slice of a larger buffer; untouched columns stay zero.
  at::Tensor base = at::zeros({17, 12}).to(npu());
  at::Tensor out_s = base.slice(1, 0, 12, 2);
  at::mul_out(out_s, a.to(npu()), b.to(npu()));
  at::Tensor expected_base = at::zeros({17, 12});
  expected_base.slice(1, 0, 12, 2).copy_(a * b);
  expectClose(base, expected_base);
  // A float result into a half or float64 out is cast (the NPU computes in
  // float32; only Cast handles float64, as in CANN).
  const at::Tensor i = sample({17, 6}, at::kInt);
  at::Tensor out_h = at::empty({0}, at::TensorOptions().dtype(at::kHalf).device(npu()));
  at::add_out(out_h, a.to(npu()), i.to(npu()));
  expectClose(out_h, (a + i).to(at::kHalf), 0, 0);
  at::Tensor out_d = at::empty({0}, at::TensorOptions().dtype(at::kDouble).device(npu()));
  at::add_out(out_d, a.to(npu()), i.to(npu()));
  expectClose(out_d, (a + i).to(at::kDouble), 0, 0);
  // Arithmetic in float64 itself is not an NPU dtype: a clear error at the next synchronisation.
  EXPECT_THROW_WITH({ (a.to(at::kDouble).to(npu()) * 2).cpu(); torch_npu::synchronize(0); }, "float64");
  at::Tensor out_l = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  at::mul_out(out_l, i.to(npu()), i.to(npu()));
  expectClose(out_l, (i * i).to(at::kLong));
  at::Tensor out_i = at::empty({0}, at::TensorOptions().dtype(at::kInt).device(npu()));
  EXPECT_THROW_WITH(at::add_out(out_i, a.to(npu()), b.to(npu())), "can't be cast");
}

TEST(NpuBinaryOps, Backward) {
  const at::Tensor a = sample({4, 17}, at::kFloat), b = sample({1, 17}, at::kFloat);
  for (const auto& [name, fn] : arithmeticOps()) {
    if (name == "div_floor") continue;  // zero gradient, not differentiable in PyTorch
    SCOPED_TRACE(name);
    expectBinaryAutograd(fn, a, b);
    // fp16 gradients that are one rounding of the fp32 value (no broadcast reduction, no chains).
    if (name != "div") expectBinaryAutograd(fn, a.to(at::kHalf), sample({4, 17}, at::kHalf));
  }
  expectBinaryAutograd([](const at::Tensor& x, const at::Tensor& y) { return at::pow(x.abs().add(0.5), y); }, a, b);
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::pow(in[0], 3).mul(2.5).sub(1); }, {a});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::pow(1.3, in[0]); }, {a});
}

// _add_relu (the fused add + relu of torch.fx and the JIT): functional, in place and out=.
TEST(NpuBinaryOps, AddRelu) {
  const at::Tensor a = at::randn({4, 5}), b = at::randn({4, 5}), row = at::randn({5});
  expectClose(at::_add_relu(a.to(npu()), b.to(npu()), 0.5), at::_add_relu(a, b, 0.5));
  expectClose(at::_add_relu(a.to(npu()), row.to(npu())), at::_add_relu(a, row));
  at::Tensor in_place = a.to(npu());
  at::_add_relu_(in_place, b.to(npu()), 2);
  expectClose(in_place, at::_add_relu(a, b, 2));
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::_add_relu_out(out, a.to(npu()), b.to(npu()));
  expectClose(out, at::_add_relu(a, b));
  expectClose(at::_add_relu(a.to(npu()).to(at::kInt), b.to(npu()).to(at::kInt)),
              at::_add_relu(a.to(at::kInt), b.to(at::kInt)));
}
