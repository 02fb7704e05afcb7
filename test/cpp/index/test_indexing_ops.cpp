// cat/stack, views (chunk/split/narrow/select), index_select, gather,
// scatter(_add), masked_fill and topk against the CPU, forward and backward,
// fp32 and fp16, on both format paths.
#include "npu_test_util.h"

#include "csrc/core/NPUFunctions.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

// Indexing moves values without arithmetic, except backward accumulations
// (index_add / scatter_add of fp16 gradients: fp32 sums rounded once).
void expectIndexingAutograd(const std::string& name, const TensorFn& fn, const std::vector<at::Tensor>& inputs) {
  const auto dtype = inputs.front().scalar_type();
  SCOPED_TRACE(name + " " + c10::toString(dtype));
  forBothFormatModes([&](bool) {
    AutogradCheck check;
    check.rtol = torch_npu_test::rtolFor(dtype);
    check.atol = torch_npu_test::atolFor(dtype);
    expectSameAutogradWith(fn, inputs, check);
  });
}

// An index tensor of `shape` with values in [0, bound), as int64 or int32.
at::Tensor randomIndex(int64_t bound, at::IntArrayRef shape, at::ScalarType dtype = at::kLong) {
  return at::randint(0, bound, shape, at::kLong).to(dtype);
}

// Both views share the base tensor's storage.
void expectViewOf(const at::Tensor& view, const at::Tensor& base) {
  EXPECT_TRUE(view.is_alias_of(base));
}

}  // namespace

TEST(NpuIndexing, CatAndStack) {
  for (auto dtype : floatAndHalf()) {
    const at::Tensor a = at::randn({3, 19, 7}).to(dtype), b = at::randn({3, 5, 7}).to(dtype);
    const at::Tensor c = at::randn({3, 19, 7}).to(dtype);
    expectIndexingAutograd("cat dim 1", [](const auto& in) { return at::cat({in[0], in[1]}, 1); }, {a, b});
    expectIndexingAutograd("cat dim -1", [](const auto& in) { return at::cat({in[0], in[1], in[0]}, -1); }, {a, c});
    expectIndexingAutograd("stack", [](const auto& in) { return at::stack({in[0], in[1]}, 2); }, {a, c});
  }
}

TEST(NpuIndexing, CatPromotionAndEmptyRule) {
  const at::Tensor f = at::randn({2, 3}), h = at::randn({2, 5}).to(at::kHalf), i = at::randint(0, 9, {2, 4}, at::kInt);
  const at::Tensor l = at::randint(0, 9, {2, 1}, at::kLong), empty1d = at::empty({0});
  auto dev = [](const at::Tensor& t) { return t.to(npu()); };
  expectClose(at::cat({dev(h), dev(f)}, 1), at::cat({h, f}, 1));
  expectClose(at::cat({dev(i), dev(h)}, 1), at::cat({i, h}, 1));
  expectClose(at::cat({dev(i), dev(l)}, 1), at::cat({i, l}, 1));
  // Legacy rule: 1-D empty tensors are skipped whatever the other shapes.
  expectClose(at::cat({dev(empty1d), dev(f), dev(empty1d)}, 1), at::cat({empty1d, f, empty1d}, 1));
  expectClose(at::cat({dev(empty1d), dev(empty1d)}, 0), at::cat({empty1d, empty1d}, 0));
  expectClose(at::cat({dev(f.slice(1, 0, 0)), dev(f)}, 1), f);
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::cat_out(out, {dev(f), dev(i.to(at::kFloat))}, 1);
  expectClose(out, at::cat({f, i.to(at::kFloat)}, 1));
  EXPECT_THROW_WITH(at::cat({dev(f), dev(at::randn({3, 3}))}, 1), "Sizes of tensors must match except in dimension 1");
  EXPECT_THROW_WITH(at::cat({dev(f), dev(at::randn({2}))}, 0), "same number of dimensions");
}

TEST(NpuIndexing, ViewsChunkSplitNarrowSelect) {
  for (auto dtype : floatAndHalf()) {
    const at::Tensor x = at::randn({13, 11, 3}).to(dtype);
    expectIndexingAutograd("chunk", [](const auto& in) { return at::chunk(in[0], 3, 1)[2].mul(2); }, {x});
    expectIndexingAutograd("split", [](const auto& in) { return at::split(in[0], 4, 0)[3].mul(2); }, {x});
    expectIndexingAutograd("split_with_sizes",
                           [](const auto& in) { return at::split_with_sizes(in[0], {5, 6}, 1)[1].mul(2); }, {x});
    expectIndexingAutograd("narrow", [](const auto& in) { return in[0].narrow(0, 3, 7).mul(2); }, {x});
    expectIndexingAutograd("select", [](const auto& in) { return in[0].select(1, 9).mul(2); }, {x});
  }
  const at::Tensor base = at::randn({13, 11}).to(npu());
  const auto parts = base.split(4, 0);
  ASSERT_EQ(parts.size(), 4u);
  for (const auto& p : parts) expectViewOf(p, base);
  expectViewOf(base.narrow(1, 2, 5), base);
  expectViewOf(base.select(0, 12), base);
  // Writing through a view changes the base.
  base.select(0, 12).fill_(3);
  expectClose(base.select(0, 12), at::full({11}, 3.f));
}

TEST(NpuIndexing, IndexSelectInt32AndInt64) {
  for (auto index_type : {at::kLong, at::kInt}) {
    for (auto dtype : floatAndHalf()) {
      const at::Tensor x = at::randn({13, 19}).to(dtype), index = randomIndex(13, {33}, index_type);
      // Repeated indices: the backward (index_add) accumulates.
      expectIndexingAutograd("index_select dim 0", [](const auto& in) { return at::index_select(in[0], 0, in[1]); },
                             {x, index});
      expectIndexingAutograd("index_select dim 1",
                             [](const auto& in) { return at::index_select(in[0], 1, in[1]); },
                             {x, randomIndex(19, {7}, index_type)});
    }
  }
  const at::Tensor x = at::randn({13, 19}), index = randomIndex(13, {5});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::index_select_out(out, x.to(npu()), 0, index.to(npu()));
  expectClose(out, at::index_select(x, 0, index));
  const at::Tensor updates = at::randn({5, 19});
  at::Tensor acc = x.to(npu());
  acc.index_add_(0, index.to(npu()), updates.to(npu()), 0.5);
  expectClose(acc, x.index_add(0, index, updates, 0.5));
}

TEST(NpuIndexing, GatherScatter) {
  for (auto dtype : floatAndHalf()) {
    const at::Tensor x = at::randn({7, 9}).to(dtype);
    expectIndexingAutograd("gather dim 1", [](const auto& in) { return at::gather(in[0], 1, in[1]); },
                           {x, randomIndex(9, {7, 13})});
    expectIndexingAutograd("gather dim 0", [](const auto& in) { return at::gather(in[0], 0, in[1]); },
                           {x, randomIndex(7, {3, 9})});
    // scatter_add: the gradient of self is dy, the one of src dy gathered.
    expectIndexingAutograd("scatter_add",
                           [](const auto& in) { return at::scatter_add(in[0], 1, in[2], in[1]); },
                           {x, at::randn({7, 5}).to(dtype), randomIndex(9, {7, 5})});
  }
  // scatter with unique indices per row (duplicates pick an unspecified winner on the CPU).
  const at::Tensor x = at::randn({7, 9}), src = at::randn({7, 4});
  const at::Tensor index = at::argsort(at::rand({7, 9}), /*dim=*/1, /*descending=*/false).slice(1, 0, 4);
  auto dev = [](const at::Tensor& t) { return t.to(npu()); };
  expectClose(at::scatter(dev(x), 1, dev(index), dev(src)), at::scatter(x, 1, index, src));
  expectClose(at::scatter(dev(x), 1, dev(index), 2.5), at::scatter(x, 1, index, 2.5));
  expectIndexingAutograd("scatter src", [&](const auto& in) { return at::scatter(in[0], 1, in[2], in[1]); },
                         {x, src, index});
  at::Tensor inplace = dev(x);
  inplace.scatter_(0, dev(at::argsort(at::rand({7, 9}), /*dim=*/0, /*descending=*/false).slice(0, 0, 1)), -1.0);
  EXPECT_EQ(inplace.eq(-1).sum().item<int64_t>(), 9);
  at::Tensor acc = dev(x);
  acc.scatter_add_(1, dev(index), dev(src));
  expectClose(acc, x.scatter_add(1, index, src));
}

TEST(NpuIndexing, MaskedFill) {
  for (auto dtype : floatAndHalf()) {
    const at::Tensor x = at::randn({13, 11}).to(dtype), mask = at::rand({13, 11}).lt(0.4);
    expectIndexingAutograd("masked_fill", [&](const auto& in) { return in[0].masked_fill(in[1], -2.5); }, {x, mask});
    expectIndexingAutograd("masked_fill broadcast mask",
                           [&](const auto& in) { return in[0].masked_fill(in[1].slice(0, 0, 1), 1.5); }, {x, mask});
  }
}

TEST(NpuIndexing, Topk) {
  for (auto dtype : floatAndHalf()) {
    // Distinct values so ties cannot reorder the indices.
    const at::Tensor x = at::randperm(13 * 19).to(at::kFloat).div(8).reshape({13, 19}).to(dtype);
    for (bool largest : {true, false}) {
      for (int64_t dim : {0, 1}) {
        SCOPED_TRACE(::testing::Message() << "largest " << largest << " dim " << dim);
        expectIndexingAutograd("topk values",
                               [&](const auto& in) { return std::get<0>(at::topk(in[0], 5, dim, largest, true)); },
                               {x});
        const auto npu_out = at::topk(x.to(npu()), 5, dim, largest, true);
        const auto cpu_out = at::topk(x.to(at::kFloat), 5, dim, largest, true);
        expectClose(std::get<1>(npu_out), std::get<1>(cpu_out));
      }
    }
  }
  // Unsorted: the same set of values per row.
  const at::Tensor x = at::randn({7, 33});
  const at::Tensor values = std::get<0>(at::topk(x.to(npu()), 6, 1, true, false)).cpu();
  expectClose(std::get<0>(values.sort(1)), std::get<0>(std::get<0>(at::topk(x, 6, 1)).sort(1)));
  EXPECT_THROW_WITH(at::topk(x.to(npu()), 34, 1), "k out of range");
}

TEST(NpuIndexing, OutOfRangeIndexSurfacesAtSynchronize) {
  const at::Tensor x = at::randn({5, 3}).to(npu());
  EXPECT_THROW_WITH(
      {
        at::Tensor y = at::index_select(x, 0, at::tensor({0, 7, 1}, at::kLong).to(npu()));
        torch_npu::synchronize(0);
      },
      "7");
  EXPECT_THROW_WITH(at::gather(x, 1, at::full({5, 3}, -4, at::kLong).to(npu())).cpu(), "-4");
  EXPECT_THROW_WITH(at::index_select(x, 0, at::ones({3}).to(npu())), "int32/int64");
  // The NPU also takes int32 gather indices (the CPU requires int64).
  const at::Tensor index = randomIndex(3, {5, 2});
  expectClose(at::gather(x, 1, index.to(at::kInt).to(npu())), at::gather(x.cpu(), 1, index));
  // Cases the differential fuzzer found: a 0-d input checks every index, not only the first;
  // an empty result (another dim is 0) still checks the indices against the axis.
  const at::Tensor scalar = at::scalar_tensor(2.5).to(npu());
  expectClose(at::index_select(scalar, 0, at::tensor({0, 0}, at::kLong).to(npu())),
              at::index_select(scalar.cpu(), 0, at::tensor({0, 0}, at::kLong)));
  EXPECT_THROW_WITH(at::index_select(scalar, 0, at::tensor({0, 1}, at::kLong).to(npu())).cpu(), "1");
  const at::Tensor empty = at::zeros({1, 0}).to(npu());
  EXPECT_EQ(at::index_select(empty, 0, at::tensor({0, 0}, at::kLong).to(npu())).sizes(), at::IntArrayRef({2, 0}));
  EXPECT_THROW_WITH(  // the result is empty: .cpu() copies nothing, so synchronize
      {
        at::index_select(empty, 0, at::tensor({2}, at::kLong).to(npu()));
        torch_npu::synchronize(0);
      },
      "2");
  // The device recovers: later ops run normally.
  expectClose(x.mul(2), x.cpu().mul(2));
}

TEST(NpuIndexing, CatOfZeroDimensionalTensorsRaises) {
  // It crashed the process before (found by the differential fuzzer).
  const at::Tensor s = at::scalar_tensor(1.0).to(npu());
  EXPECT_THROW_WITH(at::cat({s, s}, -1), "zero-dimensional tensor (at position 0) cannot be concatenated");
  EXPECT_THROW_WITH(at::cat({at::ones({2}).to(npu()), s}, 0),
                    "zero-dimensional tensor (at position 1) cannot be concatenated");
}
