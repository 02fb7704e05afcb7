// unique (_unique2, _unique, unique_dim, unique_consecutive), bincount and
// histc against the CPU.
#include "reduce_family_util.h"

using namespace torch_npu_test;

namespace {

using TripleFn = std::function<std::tuple<at::Tensor, at::Tensor, at::Tensor>(const at::Tensor&)>;

// fp16 runs against the CPU in fp32 (PyTorch's CPU unique has no fp16 kernel).
void expectTripleMatchesCpu(const TripleFn& fn, const at::Tensor& x) {
  const auto got = fn(x.to(npu()));
  const auto want = fn(x.scalar_type() == at::kHalf ? x.to(at::kFloat) : x);
  SCOPED_TRACE("unique outputs");
  expectClose(std::get<0>(got), std::get<0>(want).to(x.scalar_type()), 0, 0);
  expectClose(std::get<1>(got), std::get<1>(want));
  expectClose(std::get<2>(got), std::get<2>(want));
}

// Small integers as floats: many repeats, no NaN (PyTorch 1.13's CPU unique mishandles NaN).
at::Tensor repeats(at::IntArrayRef sizes, at::ScalarType dtype) { return at::randint(-4, 5, sizes).to(dtype); }

}  // namespace

TEST(NpuUnique, FlattenedSortedAndConsecutive) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong, at::kBool}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = repeats({6, 25}, dtype);
    for (bool inverse : {false, true}) {
      for (bool counts : {false, true}) {
        expectTripleMatchesCpu([&](const at::Tensor& t) { return at::_unique2(t, true, inverse, counts); }, x);
        expectTripleMatchesCpu([&](const at::Tensor& t) { return at::unique_consecutive(t, inverse, counts); },
                               std::get<0>(x.to(at::kFloat).sort(1)).to(dtype));
        expectTripleMatchesCpu([&](const at::Tensor& t) { return at::unique_consecutive(t, inverse, counts); }, x);
      }
    }
    const auto u = at::_unique(x.to(npu()), true, true);
    const auto w = at::_unique(x.scalar_type() == at::kHalf ? x.to(at::kFloat) : x, true, true);
    expectClose(std::get<0>(u), std::get<0>(w).to(x.scalar_type()));
    expectClose(std::get<1>(u), std::get<1>(w));
    // Non-contiguous, 0-d and empty inputs.
    expectTripleMatchesCpu([](const at::Tensor& t) { return at::_unique2(t.t(), true, true, true); }, x);
    expectTripleMatchesCpu([](const at::Tensor& t) { return at::_unique2(t, true, true, true); }, repeats({}, dtype));
    expectTripleMatchesCpu([](const at::Tensor& t) { return at::_unique2(t, true, true, true); },
                           repeats({2, 0}, dtype));
    expectTripleMatchesCpu([](const at::Tensor& t) { return at::unique_consecutive(t, true, true); },
                           repeats({0}, dtype));
  }
  // torch.unique(sorted=False) returns the sorted order too (a valid order; the CPU's order is its hash set's).
  const at::Tensor x = repeats({40}, at::kFloat);
  expectClose(std::get<0>(at::_unique2(x.to(npu()), false)), std::get<0>(at::_unique2(x, true)));
}

TEST(NpuUnique, AlongADim) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kLong}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randint(0, 2, {3, 5, 2, 3}).to(dtype);  // ties, and an order that depends on the dim
    for (int64_t dim : {0, 1, 2, -1}) {
      expectTripleMatchesCpu([&](const at::Tensor& t) { return at::unique_dim(t, dim, true, true, true); }, x);
      expectTripleMatchesCpu([&](const at::Tensor& t) { return at::unique_dim_consecutive(t, dim, true, true); }, x);
      expectTripleMatchesCpu([&](const at::Tensor& t) { return at::unique_consecutive(t, true, true, dim); }, x);
    }
    expectTripleMatchesCpu([](const at::Tensor& t) { return at::unique_dim(t.transpose(0, 1), 0, true, true, true); },
                           x);
    expectTripleMatchesCpu([](const at::Tensor& t) { return at::unique_dim(t, 0, true, true, true); },
                           at::randn({0, 3}).to(dtype));
  }
  EXPECT_THROW_WITH(at::unique_dim(at::randn({3, 0}).to(npu()), 0), "unique cannot be applied");
  EXPECT_THROW(at::unique_dim(at::randn({3, 2}).to(npu()), 2), c10::Error);
}

TEST(NpuBincount, CountsWeightsAndMinlength) {
  const at::Tensor x = at::randint(0, 9, {50});
  for (auto dtype : {at::kLong, at::kInt, at::kByte}) {
    SCOPED_TRACE(c10::toString(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.bincount(); }, x.to(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.bincount({}, 20); }, x.to(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.slice(0, 0, 50, 3).bincount(); }, x.to(dtype));  // strided
  }
  const at::Tensor w = at::randn({50});
  expectClose(x.to(npu()).bincount(w.to(npu())), x.bincount(w), 1e-5, 1e-5);
  const at::Tensor wh = w.to(at::kHalf);
  const at::Tensor got = x.to(npu()).bincount(wh.to(npu()), 3);
  EXPECT_EQ(got.scalar_type(), at::kDouble);
  expectClose(got, x.bincount(wh, 3), 1e-6, 1e-6);
  expectClose(at::empty({0}, at::kLong).to(npu()).bincount({}, 4), at::empty({0}, at::kLong).bincount({}, 4));
  EXPECT_THROW_WITH(at::tensor({1, -1}).to(npu()).bincount(), "non-negative");
  EXPECT_THROW_WITH(at::ones({2, 2}, at::kLong).to(npu()).bincount(), "1-d non-negative integral");
  EXPECT_THROW_WITH(at::ones({2}).to(npu()).bincount(), "1-d non-negative integral");
  EXPECT_THROW_WITH(x.to(npu()).bincount(at::ones({3}).to(npu())), "same length");
  EXPECT_THROW_WITH(x.to(npu()).bincount({}, -1), "minlength should be >= 0");
}

TEST(NpuHistc, MatchesCpu) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randn({30, 40}).to(dtype);
    expectMatchesCpu([](const at::Tensor& t) { return t.histc(10, -1, 2); }, x);
    expectMatchesCpu([](const at::Tensor& t) { return t.histc(7); }, x);             // the data's own range
    expectMatchesCpu([](const at::Tensor& t) { return t.t().histc(5, -3, 3); }, x);  // non-contiguous
    expectMatchesCpu([](const at::Tensor& t) { return t.histc(4); }, at::full({3}, 2.f).to(dtype));  // [1, 3]
    expectMatchesCpu([](const at::Tensor& t) { return t.histc(3); }, at::randn({}).to(dtype));
    expectMatchesCpu([](const at::Tensor& t) { return t.histc(3, 0, 1); }, at::randn({0}).to(dtype));
  }
  const at::Tensor x = at::randn({100});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::histc_out(out, x.to(npu()), 6, -2, 2);
  expectClose(out, x.histc(6, -2, 2));
  EXPECT_THROW_WITH(x.to(npu()).histc(0), "bins must be > 0");
  EXPECT_THROW_WITH(x.to(npu()).histc(3, 2, 1), "max must be larger than min");
  EXPECT_THROW_WITH(at::tensor({1.f, INFINITY}).to(npu()).histc(3), "is not finite");
  EXPECT_THROW_WITH(at::ones({3}, at::kLong).to(npu()).histc(3), "floating point");
}

TEST(NpuHistogram, BinCountAndBinEdgesMatchCpu) {
  using HistFn = std::function<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&)>;
  const at::Tensor x = at::randn({20, 30});
  const at::Tensor w = at::rand({20, 30});
  const at::Tensor edges = at::tensor({-2.f, -0.5f, 0.f, 0.1f, 1.f, 2.5f});
  const std::vector<HistFn> cases = {
      [](const at::Tensor& t) { return at::histogram(t, 7); },
      [](const at::Tensor& t) {
        return at::histogram(t, 5, at::ArrayRef<double>({-1.0, 1.5}));
      },
      [&](const at::Tensor& t) { return at::histogram(t, 4, c10::nullopt, w.to(t.device())); },
      [&](const at::Tensor& t) {
        return at::histogram(t, 6, at::ArrayRef<double>({-3.0, 3.0}), w.to(t.device()), true);
      },
      [&](const at::Tensor& t) { return at::histogram(t, edges.to(t.device())); },
      [&](const at::Tensor& t) { return at::histogram(t, edges.to(t.device()), w.to(t.device()), true); },
      [](const at::Tensor& t) { return at::histogram(t.t(), 3); },  // non-contiguous
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "case " << k);
    expectPairMatchesCpu(cases[k], x);
  }
  // Degenerate ranges: a constant input, a 0-d input, an empty input; inf outside the range (NaN is never
  // counted on the NPU; PyTorch 1.13's CPU kernel converts it to a bin index, which is undefined).
  expectPairMatchesCpu([](const at::Tensor& t) { return at::histogram(t, 3); }, at::full({4}, 2.f));
  expectPairMatchesCpu([](const at::Tensor& t) { return at::histogram(t, 3); }, at::tensor(2.f));
  expectPairMatchesCpu([](const at::Tensor& t) { return at::histogram(t, 2); }, at::empty({0}));
  expectPairMatchesCpu(
      [](const at::Tensor& t) {
        return at::histogram(t, 4, at::ArrayRef<double>({0.0, 1.0}));
      },
      at::tensor({0.f, 1.f, INFINITY, -INFINITY, 0.5f, 0.25f}));
  // fp16 (the CPU reference in fp32): values on a 1/8 grid, edges on a 1/4 grid.
  const at::Tensor grid = at::randint(-16, 16, {50}).div(8).to(at::kHalf);
  expectPairMatchesCpu(
      [](const at::Tensor& t) {
        return at::histogram(t, 8, at::ArrayRef<double>({-2.0, 2.0}));
      },
      grid);
  at::Tensor hist = at::empty({0}, at::TensorOptions().device(npu())), bin_edges = at::empty_like(hist);
  at::histogram_out(hist, bin_edges, x.to(npu()), 5);
  expectClose(hist, std::get<0>(at::histogram(x, 5)));
  expectClose(bin_edges, std::get<1>(at::histogram(x, 5)));
  at::histogram_out(hist, bin_edges, x.to(npu()), edges.to(npu()));
  expectClose(hist, std::get<0>(at::histogram(x, edges)));
  const at::Tensor xn = x.to(npu());
  EXPECT_THROW_WITH(at::histogram(xn, 0), "bins must be > 0");
  EXPECT_THROW_WITH(at::histogram(xn, 3, at::ArrayRef<double>({1.0, 0.0})), "min should not exceed max");
  EXPECT_THROW_WITH(at::histogram(at::tensor({1.f, INFINITY}).to(npu()), 3), "is not finite");
  EXPECT_THROW_WITH(at::histogram(xn, edges.to(at::kDouble).to(npu())), "same dtype");
  EXPECT_THROW_WITH(at::histogram(xn, edges.reshape({2, 3}).to(npu())), "one dimension");
  EXPECT_THROW_WITH(at::histogram(xn, 3, c10::nullopt, at::ones({3}).to(npu())), "same shape");
}

TEST(NpuHistogram, HistogramddMatchesCpu) {
  const at::Tensor x = at::randn({40, 3});
  const at::Tensor w = at::rand({40});
  const std::vector<at::Tensor> edges = {at::tensor({-2.f, 0.f, 2.f}), at::tensor({-1.f, 0.f, 0.5f, 1.f}),
                                         at::tensor({-3.f, 3.f})};
  auto both = [](const at::Tensor& t, const std::function<at::Tensor(const at::Tensor&)>& fn) {
    expectClose(fn(t.to(npu())), fn(t), 1e-5, 1e-5);
  };
  both(x, [](const at::Tensor& t) { return std::get<0>(at::histogramdd(t, {2, 3, 4})); });
  both(x, [](const at::Tensor& t) { return std::get<1>(at::histogramdd(t, {2, 3, 4}))[1]; });
  both(x, [&](const at::Tensor& t) {
    return std::get<0>(
        at::histogramdd(t, {3, 2, 2}, at::ArrayRef<double>({-1, 1, -2, 2, 0, 1}), w.to(t.device()), true));
  });
  both(x, [&](const at::Tensor& t) {
    std::vector<at::Tensor> e;
    for (const auto& b : edges) e.push_back(b.to(t.device()));
    return at::_histogramdd_from_bin_tensors(t, e, w.to(t.device()));
  });
  both(x.reshape({4, 10, 3}), [](const at::Tensor& t) { return std::get<0>(at::histogramdd(t, {2, 2, 2})); });
  both(at::empty({0, 2}), [](const at::Tensor& t) { return std::get<0>(at::histogramdd(t, {2, 3})); });
  EXPECT_THROW_WITH(at::histogramdd(x.to(npu()), {2, 3}), "sequences of bin edges");
  EXPECT_THROW_WITH(at::histogramdd(x.to(npu()), {2, 3, 2}, at::ArrayRef<double>({0, 1})), "range should have 6");
  EXPECT_THROW_WITH(at::histogramdd(at::randn({4}).to(npu()), {2}), "at least 2 dimensions");
}
