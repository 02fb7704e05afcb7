// flip, roll, unfold (+ unfold_backward) and the composites built on them
// (repeat, tile, rot90, fliplr) against the CPU: forward and backward, fp32
// and fp16, 0-d and empty tensors, non-contiguous inputs, integers, errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

struct LayoutRow {
  const char* name;
  std::vector<int64_t> shape;
  TensorFn fn;
};

std::vector<LayoutRow> rows() {
  return {
      {"flip", {3, 4, 5}, [](const auto& in) { return in[0].flip({0, 2}); }},
      {"flip last", {3, 4, 5}, [](const auto& in) { return in[0].flip({-1}); }},
      {"flip 0-d", {}, [](const auto& in) { return in[0].flip({0}); }},
      {"roll flat", {3, 4, 5}, [](const auto& in) { return in[0].roll({7}); }},
      {"roll dims", {3, 4, 5}, [](const auto& in) { return in[0].roll({1, -7}, {0, 2}); }},
      {"roll repeated dim", {3, 4, 5}, [](const auto& in) { return in[0].roll({2, 3}, {1, 1}); }},
      {"roll 0-d", {}, [](const auto& in) { return in[0].roll({3}); }},
      {"unfold", {3, 4, 7}, [](const auto& in) { return in[0].unfold(2, 3, 2); }},
      {"unfold overlapping", {3, 6, 2}, [](const auto& in) { return in[0].unfold(1, 4, 1); }},
      {"unfold gaps", {9, 2}, [](const auto& in) { return in[0].unfold(0, 2, 3); }},
      {"unfold 0-d", {}, [](const auto& in) { return in[0].unfold(0, 1, 1); }},
      {"repeat", {3, 4}, [](const auto& in) { return in[0].repeat({2, 1, 3}); }},
      {"tile", {3, 4}, [](const auto& in) { return in[0].tile({2}); }},
      {"rot90", {3, 4, 5}, [](const auto& in) { return at::rot90(in[0], 1, {1, 2}); }},
      {"fliplr", {3, 4}, [](const auto& in) { return at::fliplr(in[0]); }},
  };
}

}  // namespace

TEST(NpuLayout, ForwardBackwardAgainstCpu) {
  for (const LayoutRow& row : rows()) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(std::string(row.name) + " " + c10::toString(dtype));
      expectSameAutograd(row.fn, {at::randn(row.shape).to(dtype)}, rtolFor(dtype), atolFor(dtype));
    }
  }
}

TEST(NpuLayout, EmptyNonContiguousAndIntegers) {
  for (const LayoutRow& row : rows()) {
    SCOPED_TRACE(row.name);
    if (row.shape.size() >= 2) {
      std::vector<int64_t> swapped = row.shape;
      std::swap(swapped[0], swapped[1]);
      expectSameAutograd([&](const auto& in) { return row.fn({in[0].transpose(0, 1)}); }, {at::randn(swapped)});
      std::vector<int64_t> empty = row.shape;
      empty[0] = 0;
      if (std::string(row.name).rfind("unfold", 0) != 0) expectSameAutograd(row.fn, {at::randn(empty)});
    }
    const at::Tensor ints = at::randint(-100, 100, row.shape, at::kLong);
    expectClose(row.fn({ints.to(npu())}), row.fn({ints}));
  }
  // unfold is a view of its input.
  const at::Tensor x = at::randn({4, 6}).to(npu());
  EXPECT_TRUE(x.unfold(1, 2, 2).is_alias_of(x));
  // unfold_backward directly, with windows that skip elements and an empty grad.
  const at::Tensor g = at::randn({2, 3, 2});
  expectClose(at::unfold_backward(g.to(npu()), {2, 8}, 1, 2, 3), at::unfold_backward(g, {2, 8}, 1, 2, 3));
  const at::Tensor g0 = at::randn({0, 4, 2});
  expectClose(at::unfold_backward(g0.to(npu()), {0, 5}, -1, 2, 1), at::unfold_backward(g0, {0, 5}, -1, 2, 1));
}

TEST(NpuLayout, Errors) {
  const at::Tensor x = at::randn({3, 4}).to(npu());
  EXPECT_THROW_WITH(x.flip({0, -2}), "dim 0 appears multiple times in the list of dims");
  EXPECT_THROW_WITH(x.flip({2}), "Dimension out of range");
  EXPECT_THROW_WITH(x.roll({1, 2}), "shifts and dimensions must align");
  EXPECT_THROW_WITH(x.roll({1}, {3}), "Dimension out of range");
  EXPECT_THROW_WITH(x.unfold(1, 5, 1), "maximum size for tensor at dimension 1 is 4 but size is 5");
}
