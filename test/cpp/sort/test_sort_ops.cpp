// sort, argsort, msort, kthvalue, median, nanmedian, mode against the CPU.
#include "reduce_family_util.h"

using namespace torch_npu_test;

namespace {

// Distinct values (no ties), so every index is unique on the CPU too.
at::Tensor distinct(at::IntArrayRef sizes, at::ScalarType dtype) {
  return at::randperm(c10::multiply_integers(sizes)).reshape(sizes).sub(20).mul(0.25).to(dtype);
}

// Values with many ties and some NaN/inf.
at::Tensor tied(at::IntArrayRef sizes, at::ScalarType dtype) {
  at::Tensor x = at::randint(-3, 4, sizes).to(at::kFloat);
  x.masked_fill_(at::rand(sizes).lt(0.1), NAN);
  x.masked_fill_(at::rand(sizes).lt(0.05), INFINITY);
  return x.to(dtype);
}

struct SelectCase {
  const char* name;
  PairFn fn;
};

}  // namespace

TEST(NpuSort, SortAndArgsortMatchCpuWithTiesAndNaN) {
  for (auto dtype : floatAndHalf()) {
    for (int64_t dim : {0, 1, -1}) {
      for (bool descending : {false, true}) {
        SCOPED_TRACE(::testing::Message() << dtype << " dim " << dim << " descending " << descending);
        const at::Tensor x = tied({6, 40, 3}, dtype);
        // stable=True: the CPU's order is defined for ties.
        expectPairMatchesCpu([&](const at::Tensor& t) { return at::sort(t, true, dim, descending); }, x);
        expectMatchesCpu([&](const at::Tensor& t) { return at::argsort(t, true, dim, descending); }, x);
        // stable=False without ties: the same order everywhere.
        expectPairMatchesCpu([&](const at::Tensor& t) { return t.sort(dim, descending); }, distinct({6, 40, 3}, dtype));
        expectMatchesCpu([&](const at::Tensor& t) { return t.argsort(dim, descending); }, distinct({6, 40, 3}, dtype));
      }
    }
    SCOPED_TRACE(c10::toString(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.msort(); }, distinct({7, 5}, dtype));
    // Non-contiguous (fp16 without NaN/inf: a 910A-style device saturates them when it makes fp16 views contiguous).
    const at::Tensor strided = dtype == at::kHalf ? tied({9, 30}, at::kFloat).nan_to_num(0, 5, -5).to(dtype)
                                                  : tied({9, 30}, dtype);
    expectPairMatchesCpu([](const at::Tensor& t) { return at::sort(t.t(), true, 0, false); }, strided);
    expectPairMatchesCpu([](const at::Tensor& t) { return t.sort(0); }, at::randn({}).to(dtype));
    expectPairMatchesCpu([](const at::Tensor& t) { return t.sort(1); }, at::randn({4, 0}).to(dtype));
    expectPairMatchesCpu([](const at::Tensor& t) { return t.sort(0, true); }, at::randn({0}).to(dtype));
  }
  const at::Tensor ints = at::randint(-5, 5, {4, 33}, at::kInt);
  expectPairMatchesCpu([](const at::Tensor& t) { return at::sort(t, true, 1, true); }, ints);
  expectPairMatchesCpu([](const at::Tensor& t) { return at::sort(t, true, 0, false); }, ints.gt(0));
}

TEST(NpuSort, SortOutVariantsAndErrors) {
  const at::Tensor x = distinct({5, 8}, at::kFloat);
  at::Tensor values = at::empty({0}, at::TensorOptions().device(npu()));
  at::Tensor indices = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  at::sort_out(values, indices, x.to(npu()), 1, true);
  expectClose(values, std::get<0>(x.sort(1, true)));
  expectClose(indices, std::get<1>(x.sort(1, true)));
  at::Tensor wide_v = at::zeros({8, 5}, at::TensorOptions().device(npu())).t();
  at::Tensor wide_i = at::zeros({8, 5}, at::TensorOptions().dtype(at::kLong).device(npu())).t();
  at::sort_out(wide_v, wide_i, x.to(npu()), true, 0, false);
  expectClose(wide_v, std::get<0>(x.sort(0)));
  expectClose(wide_i, std::get<1>(x.sort(0)));
  EXPECT_THROW(x.to(npu()).sort(2), c10::Error);
  at::Tensor int_values = at::empty({0}, at::TensorOptions().dtype(at::kInt).device(npu()));
  EXPECT_THROW(at::sort_out(int_values, indices, x.to(npu()), 1), c10::Error);
}

TEST(NpuSort, OrderStatisticsMatchCpu) {
  const std::vector<SelectCase> cases = {
      {"kthvalue", [](const at::Tensor& t) { return t.kthvalue(3, 1); }},
      {"kthvalue keepdim", [](const at::Tensor& t) { return t.kthvalue(1, -1, true); }},
      {"median", [](const at::Tensor& t) { return t.median(1); }},
      {"median keepdim", [](const at::Tensor& t) { return t.median(0, true); }},
      {"nanmedian", [](const at::Tensor& t) { return t.nanmedian(1); }},
      {"nanmedian keepdim", [](const at::Tensor& t) { return t.nanmedian(-1, true); }},
      {"mode", [](const at::Tensor& t) { return t.mode(1); }},
      {"mode keepdim", [](const at::Tensor& t) { return t.mode(0, true); }},
  };
  for (const auto& c : cases) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(::testing::Message() << c.name << " " << dtype);
      expectPairMatchesCpu(c.fn, distinct({4, 9, 3}, dtype));
      expectPairMatchesCpu(c.fn, distinct({4, 9, 3}, dtype).transpose(0, 2));  // non-contiguous
      // At most two NaN per line, never selected as a tie (CPU picks tied indices by its selection algorithm).
      const at::Tensor pos = at::arange(4).view({4, 1, 1}) + at::arange(9).view({1, 9, 1}) + at::arange(3);
      const at::Tensor with_nan = distinct({4, 9, 3}, at::kFloat).masked_fill(pos.remainder(7).eq(0), NAN);
      if (std::string(c.name).rfind("mode", 0) != 0) expectPairMatchesCpu(c.fn, with_nan.to(dtype));
    }
  }
  for (auto dtype : floatAndHalf()) {  // 0-d inputs
    const at::Tensor s = at::randn({}).to(dtype);
    for (bool keepdim : {false, true}) {
      expectPairMatchesCpu([&](const at::Tensor& t) { return t.kthvalue(1, 0, keepdim); }, s);
      expectPairMatchesCpu([&](const at::Tensor& t) { return t.median(-1, keepdim); }, s);
      expectPairMatchesCpu([&](const at::Tensor& t) { return t.nanmedian(0, keepdim); }, s);
      expectPairMatchesCpu([&](const at::Tensor& t) { return t.mode(0, keepdim); }, s);
    }
  }
  // A line of NaN only: median points at the first NaN; nanmedian's index is a tie among NaN (values only).
  const at::Tensor all_nan = at::full({2, 5}, NAN);
  expectPairMatchesCpu([](const at::Tensor& t) { return t.median(1); }, all_nan);
  expectMatchesCpu([](const at::Tensor& t) { return std::get<0>(t.nanmedian(1)); }, all_nan);
  // Mode with ties: the smallest of the most frequent values, at its last position.
  const at::Tensor few = at::randint(0, 3, {6, 12}).to(at::kFloat);
  expectPairMatchesCpu([](const at::Tensor& t) { return t.mode(1); }, few);
  expectPairMatchesCpu([](const at::Tensor& t) { return t.mode(1); }, few.to(at::kInt));
  // Integers.
  const at::Tensor ints = at::randperm(60).reshape({6, 10}).to(at::kInt);
  expectPairMatchesCpu([](const at::Tensor& t) { return t.median(1); }, ints);
  expectPairMatchesCpu([](const at::Tensor& t) { return t.kthvalue(4, 0); }, ints);
}

TEST(NpuSort, FullMedianAndEdgeCases) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.median(); }, distinct({5, 7}, dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.nanmedian(); }, distinct({5, 7}, dtype));
    at::Tensor with_nan = distinct({5, 7}, at::kFloat);
    with_nan.masked_fill_(at::rand({5, 7}).lt(0.3), NAN);
    expectMatchesCpu([](const at::Tensor& t) { return t.median(); }, with_nan.to(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.nanmedian(); }, with_nan.to(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.median(); }, at::randn({0}).to(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.nanmedian(); }, at::randn({}).to(dtype));
    // Empty results along a non-empty dim.
    expectPairMatchesCpu([](const at::Tensor& t) { return t.median(1); }, at::randn({0, 3}).to(dtype));
    expectPairMatchesCpu([](const at::Tensor& t) { return t.kthvalue(2, 1); }, at::randn({0, 3}).to(dtype));
    expectPairMatchesCpu([](const at::Tensor& t) { return t.mode(1); }, at::randn({0, 3}).to(dtype));
  }
  for (auto dtype : {at::kInt, at::kLong, at::kByte}) {  // an empty integer median: NaN cast by the device
    const at::Tensor nan_cast = at::full({}, NAN, at::TensorOptions().device(npu())).to(dtype);
    expectClose(at::empty({0}, dtype).to(npu()).median(), nan_cast.cpu());
    expectClose(at::empty({0}, dtype).to(npu()).nanmedian(), nan_cast.cpu());
  }
  const at::Tensor e = at::randn({3, 0}).to(npu());
  EXPECT_THROW_WITH(e.median(1), "median(): Expected reduction dim 1 to have non-zero size");
  EXPECT_THROW_WITH(e.nanmedian(1), "median(): Expected reduction dim 1 to have non-zero size");
  EXPECT_THROW_WITH(e.kthvalue(1, 1), "kthvalue(): Expected reduction dim 1 to have non-zero size");
  EXPECT_THROW_WITH(e.mode(1), "mode(): Expected reduction dim 1 to have non-zero size");
  EXPECT_THROW_WITH(at::randn({3, 4}).to(npu()).kthvalue(5, 1), "selected number k out of range");
  EXPECT_THROW_WITH(at::randn({3, 4}).to(npu()).kthvalue(0, 1), "selected number k out of range");
}

TEST(NpuSort, OutVariantsOfSelections) {
  const at::Tensor x = distinct({5, 8}, at::kFloat);
  at::Tensor values = at::empty({0}, at::TensorOptions().device(npu()));
  at::Tensor indices = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  at::kthvalue_out(values, indices, x.to(npu()), 2, 1);
  expectClose(values, std::get<0>(x.kthvalue(2, 1)));
  expectClose(indices, std::get<1>(x.kthvalue(2, 1)));
  at::median_out(values, indices, x.to(npu()), 0, true);
  expectClose(values, std::get<0>(x.median(0, true)));
  at::nanmedian_out(values, indices, x.to(npu()), 1);
  expectClose(indices, std::get<1>(x.nanmedian(1)));
  at::mode_out(values, indices, x.to(npu()), 1);
  expectClose(values, std::get<0>(x.mode(1)));
  expectClose(indices, std::get<1>(x.mode(1)));
  at::topk_out(values, indices, x.to(npu()), 3, 1);
  expectClose(indices, std::get<1>(x.topk(3, 1)));
  // int32 indices are refused, as by the CPU, rather than narrowed.
  at::Tensor int_indices = at::empty({0}, at::TensorOptions().dtype(at::kInt).device(npu()));
  const at::Tensor d = x.to(npu());
  EXPECT_THROW_WITH(at::kthvalue_out(values, int_indices, d, 2, 1), "kthvalue(): the indices output must be of dtype Long");
  EXPECT_THROW_WITH(at::median_out(values, int_indices, d, 0), "median(): the indices output must be of dtype Long");
  EXPECT_THROW_WITH(at::nanmedian_out(values, int_indices, d, 0), "nanmedian(): the indices output");
  EXPECT_THROW_WITH(at::mode_out(values, int_indices, d, 0), "mode(): the indices output");
  EXPECT_THROW_WITH(at::topk_out(values, int_indices, d, 2, 1), "topk(): the indices output");
  EXPECT_EQ(int_indices.numel(), 0);
}

TEST(NpuSort, Backward) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = distinct({6, 11}, dtype);
    const double rtol = rtolTwoRoundings(dtype), atol = atolTwoRoundings(dtype);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return std::get<0>(in[0].sort(1, true)); }, {x}, rtol,
                       atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].msort(); }, {x}, rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return std::get<0>(in[0].kthvalue(4, 1)); }, {x}, rtol,
                       atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return std::get<0>(in[0].median(0)); }, {x}, rtol,
                       atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].median(); }, {x}, rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return std::get<0>(in[0].nanmedian(1, true)); }, {x},
                       rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].nanmedian(); }, {x}, rtol, atol);
    expectSameAutograd([](const std::vector<at::Tensor>& in) { return std::get<0>(in[0].mode(1)); }, {x}, rtol, atol);
  }
}
