// Reductions: sum, mean, max/min, argmax/argmin, against the CPU.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using ReduceFn = std::function<at::Tensor(const at::Tensor&)>;

// Float sums accumulate in a different order than the CPU: allow for it.
void expectReduceMatches(const ReduceFn& fn, const at::Tensor& x, double rtol = 1e-4, double atol = 1e-4) {
  expectClose(fn(x.to(npu())), fn(x), rtol, atol);
}

// (values, indices) of a dim reduction on the NPU vs the CPU.
void expectValuesIndices(const std::tuple<at::Tensor, at::Tensor>& got,
                         const std::tuple<at::Tensor, at::Tensor>& expected) {
  expectClose(std::get<0>(got), std::get<0>(expected), 0, 0);
  expectClose(std::get<1>(got), std::get<1>(expected), 0, 0);
}

const std::vector<std::vector<int64_t>>& dimLists() {
  static const std::vector<std::vector<int64_t>> dims = {{0}, {1}, {-1}, {0, 2}, {-3, -1}, {}};
  return dims;
}

}  // namespace

TEST(NpuReduce, SumAndMeanOverDims) {
  const at::Tensor x = at::randn({5, 17, 33});
  for (const auto& dims : dimLists()) {
    for (bool keepdim : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "dims " << at::IntArrayRef(dims) << " keepdim " << keepdim);
      expectReduceMatches([&](const at::Tensor& t) { return t.sum(dims, keepdim); }, x);
      expectReduceMatches([&](const at::Tensor& t) { return t.mean(dims, keepdim); }, x);
      expectReduceMatches([&](const at::Tensor& t) { return t.transpose(0, 2).sum(dims, keepdim); }, x);
    }
  }
  expectReduceMatches([](const at::Tensor& t) { return t.sum(); }, x, 1e-4, 1e-3);
  expectReduceMatches([](const at::Tensor& t) { return t.mean(); }, x);
  EXPECT_THROW_WITH(x.to(npu()).sum({1, -2}), "appears multiple times");
  EXPECT_THROW(x.to(npu()).sum({3}), c10::Error);
}

TEST(NpuReduce, DtypeArgumentAndIntegerPromotion) {
  const at::Tensor i = at::randint(-100, 100, {7, 19}, at::kInt);
  at::Tensor s = i.to(npu()).sum({1});
  EXPECT_EQ(s.scalar_type(), at::kLong);
  expectClose(s, i.sum({1}));
  expectClose(i.to(npu()).sum(), i.sum());
  expectClose(i.gt(0).to(npu()).sum({0}), i.gt(0).sum({0}));  // bool counts as int64
  expectClose(i.to(npu()).sum({0}, false, at::kFloat), i.sum({0}, false, at::kFloat));
  expectClose(i.to(npu()).mean({1}, false, at::kFloat), i.mean({1}, false, at::kFloat));
  const at::Tensor h = at::randn({9, 21}).to(at::kHalf);
  expectClose(h.to(npu()).sum({1}, false, at::kFloat), h.sum({1}, false, at::kFloat), 1e-4, 1e-4);
  expectClose(h.to(npu()).mean({0}), h.to(at::kFloat).mean({0}).to(at::kHalf), 1e-3, 1e-3);
  EXPECT_THROW_WITH(i.to(npu()).mean({1}), "mean(): could not infer output dtype");
}

TEST(NpuReduce, OutVariants) {
  const at::Tensor x = at::randn({6, 17});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::sum_out(out, x.to(npu()), {1}, true);
  expectClose(out, x.sum({1}, true));
  at::mean_out(out, x.to(npu()), {0});
  expectClose(out, x.mean({0}));
  at::Tensor out_d = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  const at::Tensor i = at::randint(0, 9, {6, 17}, at::kInt);
  at::sum_out(out_d, i.to(npu()), {0});
  expectClose(out_d, i.sum({0}));
}

TEST(NpuReduce, SumMeanBackward) {
  const at::Tensor x = at::randn({4, 17, 3});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].sum({-1}); }, {x});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].mean(at::IntArrayRef{0, 2}, true); }, {x});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].mul(in[0]).mean(); }, {x});
}

TEST(NpuReduce, MaxMinFullAndAlongDim) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randperm(5 * 17 * 3).reshape({5, 17, 3}).to(dtype);
    expectReduceMatches([](const at::Tensor& t) { return t.max(); }, x, 0, 0);
    expectReduceMatches([](const at::Tensor& t) { return t.min(); }, x, 0, 0);
    for (int64_t dim : {0, 1, -1}) {
      for (bool keepdim : {false, true}) {
        expectValuesIndices(x.to(npu()).max(dim, keepdim), x.max(dim, keepdim));
        expectValuesIndices(x.to(npu()).min(dim, keepdim), x.min(dim, keepdim));
      }
    }
  }
}

TEST(NpuReduce, MaxMinTiesNanAndOut) {
  const at::Tensor x = at::tensor({1.f, 3.f, 3.f, 0.f, 2.f, NAN, 5.f, NAN, -1.f, -1.f, -4.f, -4.f}).reshape({3, 4});
  expectValuesIndices(x.to(npu()).max(1), x.max(1));
  expectValuesIndices(x.to(npu()).min(1), x.min(1));
  expectClose(x.to(npu()).max(), x.max());
  at::Tensor values = at::empty({0}, at::TensorOptions().device(npu()));
  at::Tensor indices = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  at::max_out(values, indices, x.to(npu()), 0, true);
  expectValuesIndices({values, indices}, x.max(0, true));
  at::min_out(values, indices, x.to(npu()), -1);
  expectValuesIndices({values, indices}, x.min(-1));
}

TEST(NpuReduce, MaxMinBackward) {
  const at::Tensor x = at::randn({6, 17});
  // Full max/min backward is composite (eq, masked ops); the dim form scatters
  // the gradient to the argmax positions.
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return in[0].max().mul(in[0].min()); }, {x});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return std::get<0>(in[0].max(1)); }, {x});
  expectSameAutograd([](const std::vector<at::Tensor>& in) { return std::get<0>(in[0].min(0, true)); }, {x});
}

TEST(NpuReduce, ArgmaxArgmin) {
  const at::Tensor x = at::randn({7, 19, 3});
  expectReduceMatches([](const at::Tensor& t) { return t.argmax(); }, x, 0, 0);
  expectReduceMatches([](const at::Tensor& t) { return t.argmin(); }, x, 0, 0);
  expectReduceMatches([](const at::Tensor& t) { return t.argmax(c10::nullopt, true); }, x, 0, 0);
  for (int64_t dim : {0, 1, -1}) {
    for (bool keepdim : {false, true}) {
      expectReduceMatches([&](const at::Tensor& t) { return t.argmax(dim, keepdim); }, x, 0, 0);
      expectReduceMatches([&](const at::Tensor& t) { return t.argmin(dim, keepdim); }, x, 0, 0);
      expectReduceMatches([&](const at::Tensor& t) { return t.to(at::kInt).argmin(dim, keepdim); }, x.mul(3), 0, 0);
    }
  }
  at::Tensor out = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  at::argmax_out(out, x.to(npu()), 1);
  expectClose(out, x.argmax(1));
  at::argmin_out(out, x.to(npu()));
  expectClose(out, x.argmin());
}

TEST(NpuReduce, EmptyTensorErrors) {
  const at::Tensor e = at::empty({0, 4}, at::TensorOptions().device(npu()));
  EXPECT_THROW_WITH(e.max(), "numel() == 0");
  EXPECT_THROW_WITH(e.min(), "numel() == 0");
  EXPECT_THROW_WITH(e.argmax(), "numel() == 0");
  EXPECT_THROW(e.max(0), c10::Error);
  EXPECT_THROW(e.argmin(0), c10::Error);
  // Reducing over a non-empty dim of an empty tensor is fine; sum of nothing is 0.
  expectClose(std::get<0>(e.max(1)), at::empty({0}));
  expectClose(e.sum(), at::zeros({}));
  expectClose(e.sum({0}), at::zeros({4}));
}
