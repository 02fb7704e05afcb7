// var / std / var_mean / std_mean (correction forms) against the CPU.
#include "reduce_family_util.h"

using namespace torch_npu_test;

namespace {

struct StatCase {
  const char* name;
  // The statistic (or, for *_mean, the pair flattened as statistic and mean).
  std::function<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, at::OptionalIntArrayRef, int64_t, bool)> fn;
};

const std::vector<StatCase>& statCases() {
  static const std::vector<StatCase> cases = {
      {"var",
       [](const at::Tensor& t, at::OptionalIntArrayRef d, int64_t c, bool k) {
         const at::Tensor v = at::var(t, d, c, k);
         return std::make_tuple(v, v);
       }},
      {"std",
       [](const at::Tensor& t, at::OptionalIntArrayRef d, int64_t c, bool k) {
         const at::Tensor v = at::std(t, d, c, k);
         return std::make_tuple(v, v);
       }},
      {"var_mean",
       [](const at::Tensor& t, at::OptionalIntArrayRef d, int64_t c, bool k) { return at::var_mean(t, d, c, k); }},
      {"std_mean",
       [](const at::Tensor& t, at::OptionalIntArrayRef d, int64_t c, bool k) { return at::std_mean(t, d, c, k); }},
  };
  return cases;
}

}  // namespace

TEST(NpuStatistics, MatchCpuOverDimsCorrectionsAndDtypes) {
  const std::vector<std::vector<int64_t>> dim_lists = {{0}, {1}, {-1}, {0, 2}, {}};
  for (const auto& c : statCases()) {
    for (auto dtype : floatAndHalf()) {
      const at::Tensor x = at::randn({4, 67, 5}).mul(3).add(1).to(dtype);
      for (const auto& dims : dim_lists) {
        for (int64_t correction : {0, 1, 3}) {
          for (bool keepdim : {false, true}) {
            SCOPED_TRACE(::testing::Message() << c.name << " " << dtype << " dims " << at::IntArrayRef(dims)
                                              << " correction " << correction << " keepdim " << keepdim);
            expectPairMatchesCpu([&](const at::Tensor& t) { return c.fn(t, dims, correction, keepdim); }, x, 2);
          }
        }
      }
      SCOPED_TRACE(c.name);
      // dim=None, a non-contiguous input, a 0-d input, empty inputs.
      expectPairMatchesCpu([&](const at::Tensor& t) { return c.fn(t, c10::nullopt, 1, false); }, x, 2);
      expectPairMatchesCpu([&](const at::Tensor& t) { return c.fn(t.transpose(0, 2), {{1}}, 1, false); }, x, 2);
      expectPairMatchesCpu([&](const at::Tensor& t) { return c.fn(t, c10::nullopt, 0, false); },
                           at::randn({}).to(dtype));
      expectPairMatchesCpu([&](const at::Tensor& t) { return c.fn(t, {{1}}, 1, false); }, at::randn({3, 0}).to(dtype));
      expectPairMatchesCpu([&](const at::Tensor& t) { return c.fn(t, {{0}}, 1, true); }, at::randn({3, 0}).to(dtype));
      expectPairMatchesCpu([&](const at::Tensor& t) { return c.fn(t, c10::nullopt, 1, false); },
                           at::randn({0}).to(dtype));
    }
  }
}

TEST(NpuStatistics, DegenerateCorrectionAndAccuracy) {
  // n - correction <= 0 gives inf (or NaN) as on the CPU.
  const at::Tensor x = at::tensor({1.f, 3.f, 2.f, 2.f}).reshape({2, 2});
  expectClose(at::var(x.to(npu()), {{1}}, 2), at::var(x, {{1}}, 2));
  expectClose(at::std(x.to(npu()), {{1}}, 5), at::std(x, {{1}}, 5));
  // A large offset: the two-pass variance keeps its digits.
  const at::Tensor big = at::randn({4096}).add(1e4);
  expectClose(at::var(big.to(npu())), at::var(big.to(at::kDouble)).to(at::kFloat), 1e-3, 1e-3);
}

TEST(NpuStatistics, OutVariantsAndErrors) {
  const at::Tensor x = at::randn({6, 9});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::var_out(out, x.to(npu()), {{1}}, 1, true);
  expectClose(out, at::var(x, {{1}}, 1, true));
  at::std_out(out, x.to(npu()), {{0}}, 0, false);
  expectClose(out, at::std(x, {{0}}, 0, false));
  // A non-contiguous out.
  at::Tensor wide = at::zeros({9, 2}, at::TensorOptions().device(npu()));
  at::Tensor col = wide.select(1, 0);
  at::std_out(col, x.to(npu()), {{0}}, 1, false);
  expectClose(wide.select(1, 0), at::std(x, {{0}}, 1, false));
  EXPECT_THROW_WITH(at::var(at::ones({3}, at::kInt).to(npu())), "std and var only support floating point");
  EXPECT_THROW_WITH(at::var(x.to(npu()), {{0, 0}}), "appears multiple times");
  EXPECT_THROW(at::std(x.to(npu()), {{2}}), c10::Error);
  // The old unbiased= overloads go through the correction forms.
  expectClose(x.to(npu()).var(1, /*unbiased=*/false), x.var(1, false));
  expectClose(x.to(npu()).std(), x.std());
}

TEST(NpuStatistics, Backward) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randn({5, 33}).to(dtype);
    const double rtol = rtolTwoRoundings(dtype) * 2, atol = atolTwoRoundings(dtype) * 2;
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::var(in[0], {{1}}, 1); }, {x}, rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return at::std(in[0], {{0}}, 0, true); }, {x}, rtol,
                       atol);
    expectSameAutograd(
        [](const std::vector<at::Tensor>& in) {
          const auto r = at::var_mean(in[0], {{1}}, 1);
          return std::get<0>(r).add(std::get<1>(r));
        },
        {x}, rtol, atol);
    expectSameAutograd(
        [](const std::vector<at::Tensor>& in) {
          const auto r = at::std_mean(in[0], c10::nullopt, 1);
          return std::get<0>(r).mul(std::get<1>(r));
        },
        {x}, rtol, atol);
  }
}
