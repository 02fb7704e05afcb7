// prod, nansum, nanmean, count_nonzero, aminmax, trace against the CPU, and
// argmax/argmin/max.dim/min.dim on 0-d inputs.
#include "reduce_family_util.h"

using namespace torch_npu_test;

namespace {

struct ReduceCase {
  const char* name;
  UnaryFn fn;
  double scale;  // tolerance scale (products of many terms round more)
};

// Values away from zero so that products stay in range; some NaN for nan*.
at::Tensor sample(at::IntArrayRef sizes, at::ScalarType dtype, bool with_nan = false) {
  at::Tensor x = at::rand(sizes).add(0.5);
  if (with_nan) x.masked_fill_(at::rand(sizes).lt(0.2), NAN);
  return x.to(dtype);
}

}  // namespace

TEST(NpuReduceMore, TableAgainstCpu) {
  const std::vector<ReduceCase> cases = {
      {"prod", [](const at::Tensor& t) { return t.prod(); }, 4},
      {"prod.dim", [](const at::Tensor& t) { return t.prod(1); }, 4},
      {"prod.dim keepdim", [](const at::Tensor& t) { return t.prod(-1, true); }, 4},
      {"prod.dtype", [](const at::Tensor& t) { return t.prod(0, false, at::kFloat); }, 4},
      {"nansum", [](const at::Tensor& t) { return t.nansum(); }, 4},
      {"nansum.dims",
       [](const at::Tensor& t) {
         return t.nansum({0, 2}, true);
       },
       2},
      {"nanmean", [](const at::Tensor& t) { return t.nanmean({1}); }, 2},
      {"count_nonzero", [](const at::Tensor& t) { return t.count_nonzero(); }, 1},
      {"count_nonzero.dims",
       [](const at::Tensor& t) {
         return t.count_nonzero({0, -1});
       },
       1},
      {"aminmax.min", [](const at::Tensor& t) { return std::get<0>(at::aminmax(t)); }, 1},
      {"aminmax.max", [](const at::Tensor& t) { return std::get<1>(at::aminmax(t, 1, true)); }, 1},
      {"aminmax.min keepdim", [](const at::Tensor& t) { return std::get<0>(at::aminmax(t, c10::nullopt, true)); }, 1},
      {"trace", [](const at::Tensor& t) { return t.flatten(1).trace(); }, 2},
  };
  for (const auto& c : cases) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(::testing::Message() << c.name << " " << dtype);
      const bool nan = std::string(c.name).rfind("nan", 0) == 0;
      expectMatchesCpu(c.fn, sample({3, 7, 5}, dtype, nan), c.scale);
      // Non-contiguous (fp16 without NaN: a 910A-style device saturates NaN when it makes fp16 views contiguous).
      expectMatchesCpu(c.fn, sample({3, 7, 5}, dtype, nan && dtype == at::kFloat).transpose(0, 2), c.scale);
      const at::Tensor zeros = sample({3, 7, 5}, dtype).masked_fill(at::rand({3, 7, 5}).lt(0.3), 0);
      expectMatchesCpu(c.fn, zeros, c.scale);
    }
  }
}

TEST(NpuReduceMore, IntegerInputsPromoteLikeCpu) {
  const at::Tensor i = at::randint(-3, 4, {4, 6}, at::kInt);
  for (const UnaryFn& fn : std::vector<UnaryFn>{
           [](const at::Tensor& t) { return t.prod(); }, [](const at::Tensor& t) { return t.prod(1); },
           [](const at::Tensor& t) { return t.nansum(0); },
           [](const at::Tensor& t) { return t.count_nonzero(at::IntArrayRef{1}); },
           [](const at::Tensor& t) { return std::get<1>(at::aminmax(t, 0)); },
           [](const at::Tensor& t) { return t.trace(); }, [](const at::Tensor& t) { return t.gt(0).prod(0); }}) {
    const at::Tensor got = fn(i.to(npu()));
    EXPECT_EQ(got.scalar_type(), fn(i).scalar_type());
    expectClose(got, fn(i));
  }
}

TEST(NpuReduceMore, EmptyAndZeroDimInputs) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor e = at::empty({0, 4}).to(dtype);
    expectMatchesCpu([](const at::Tensor& t) { return t.prod(); }, e);
    expectMatchesCpu([](const at::Tensor& t) { return t.prod(0); }, e);
    expectMatchesCpu([](const at::Tensor& t) { return t.prod(1); }, e);
    expectMatchesCpu([](const at::Tensor& t) { return t.nansum(0); }, e);
    expectMatchesCpu([](const at::Tensor& t) { return t.count_nonzero(at::IntArrayRef{0}); }, e);
    expectMatchesCpu([](const at::Tensor& t) { return std::get<0>(at::aminmax(t, 1)); }, e);
    expectMatchesCpu([](const at::Tensor& t) { return t.trace(); }, e);
    const at::Tensor s = at::randn({}).to(dtype);
    expectMatchesCpu([](const at::Tensor& t) { return t.prod(); }, s);
    expectMatchesCpu([](const at::Tensor& t) { return t.prod(0, true); }, s);
    expectMatchesCpu([](const at::Tensor& t) { return t.nansum(); }, s);
    expectMatchesCpu([](const at::Tensor& t) { return t.count_nonzero(); }, s);
    expectMatchesCpu([](const at::Tensor& t) { return std::get<0>(at::aminmax(t, 0, true)); }, s);
    expectMatchesCpu([](const at::Tensor& t) { return std::get<1>(at::aminmax(t)); }, s);
  }
  const at::Tensor e = at::empty({0, 4}, at::TensorOptions().device(npu()));
  EXPECT_THROW_WITH(at::aminmax(e), "aminmax");
  EXPECT_THROW_WITH(at::aminmax(e, 0), "aminmax");
  EXPECT_THROW_WITH(at::ones({2, 2, 2}, at::TensorOptions().device(npu())).trace(), "expected a matrix");
}

TEST(NpuReduceMore, OutVariants) {
  const at::Tensor x = sample({5, 6}, at::kFloat, true);
  const at::Tensor clean = x.nan_to_num();
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::prod_out(out, clean.to(npu()), 1, true);
  expectClose(out, clean.prod(1, true));
  at::nansum_out(out, x.to(npu()), {0});
  expectClose(out, x.nansum({0}));
  at::Tensor mn = at::empty({0}, at::TensorOptions().device(npu())), mx = at::empty_like(mn);
  at::aminmax_out(mn, mx, clean.to(npu()), 0);
  expectClose(mn, std::get<0>(at::aminmax(clean, 0)));
  expectClose(mx, std::get<1>(at::aminmax(clean, 0)));
  // A non-contiguous out.
  at::Tensor wide = at::zeros({6, 3}, at::TensorOptions().device(npu()));
  at::Tensor col = wide.select(1, 2);
  at::prod_out(col, clean.to(npu()), 0);
  expectClose(wide.select(1, 2), clean.prod(0));
}

TEST(NpuReduceMore, Backward) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = sample({4, 9}, dtype);
    const double rtol = 4 * rtolTwoRoundings(dtype), atol = 4 * atolTwoRoundings(dtype);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].prod(1); }, {x}, rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].prod(); }, {x}, rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].nansum(0); }, {sample({4, 9}, dtype, true)},
                       rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].nanmean(); }, {sample({4, 9}, dtype, true)},
                       rtol, atol);
    // (aminmax has no derivative in PyTorch 1.13.)
    if (npuImplements("aten::index_fill_", "int_Tensor")) {  // trace's backward fills the diagonal with index_fill_
      expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].trace(); }, {x}, rtol, atol);
    }
    if (npuImplements("aten::flip")) {  // with zeros, prod's backward reverses cumulative products with flip
      const at::Tensor zeros = sample({4, 9}, at::kFloat).index_fill(1, at::tensor({2, 5}, at::kLong), 0).to(dtype);
      expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].prod(1); }, {zeros}, rtol, atol);
    }
  }
}

TEST(NpuReduceMore, ArgReductionsOfZeroDimInputs) {
  const at::Tensor s = at::tensor(2.5f);
  for (bool keepdim : {false, true}) {
    SCOPED_TRACE(keepdim);
    expectClose(s.to(npu()).argmax(0, keepdim), s.argmax(0, keepdim));
    expectClose(s.to(npu()).argmin(c10::nullopt, keepdim), s.argmin(c10::nullopt, keepdim));
    expectPairMatchesCpu([&](const at::Tensor& t) { return t.max(0, keepdim); }, s);
    expectPairMatchesCpu([&](const at::Tensor& t) { return t.min(-1, keepdim); }, s);
  }
}

TEST(NpuReduceMore, Renorm) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randn({4, 6, 5}).mul(2).to(dtype);
    for (double p : {1.0, 2.0, 3.5, static_cast<double>(INFINITY)}) {
      for (int64_t dim : {0, 1, -1}) {
        expectMatchesCpu([&](const at::Tensor& t) { return t.renorm(p, dim, 3.0); }, x, 2);
      }
    }
    expectMatchesCpu([](const at::Tensor& t) { return t.transpose(0, 2).renorm(2, 1, 1.0); }, x, 2);
    expectMatchesCpu([](const at::Tensor& t) { return t.renorm(2, 0, 0.0); }, x);
    expectMatchesCpu([](const at::Tensor& t) { return t.renorm(2, 1, 1.0); }, at::randn({3, 0}).to(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.renorm(2, 0, 1.0); }, at::randn({0, 3}).to(dtype));
    // (No backward check: PyTorch 1.13's renorm_backward computes in float64, which the NPU's
    // elementwise kernels do not support.)
  }
  at::Tensor y = at::randn({3, 4}).mul(3);
  at::Tensor z = y.to(npu());
  z.renorm_(1, 0, 2.0);
  expectClose(z, y.renorm(1, 0, 2.0));
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::renorm_out(out, y.to(npu()), 2, 1, 1.5);
  expectClose(out, y.renorm(2, 1, 1.5));
  EXPECT_THROW_WITH(y.to(npu()).renorm(0, 0, 1.0), "non-positive-norm not supported");
  EXPECT_THROW_WITH(y.to(npu()).renorm(2, 0, -1.0), "maxnorm");
  EXPECT_THROW_WITH(at::randn({3}).to(npu()).renorm(2, 0, 1.0), "at least 2 dimensions");
}
