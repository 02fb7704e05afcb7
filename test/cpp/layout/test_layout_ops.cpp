// flip, roll, unfold (+ unfold_backward), diag, eye, repeat_interleave and
// the composites built on them (repeat, tile, rot90, fliplr, diagflat,
// diag_embed) against the CPU: forward and backward, fp32 and fp16, 0-d and
// empty tensors, non-contiguous inputs, integers, errors.
#include "op_rows.h"

using namespace torch_npu_test;

namespace {

std::vector<OpRow> rows() {
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
      {"diag of a vector", {4}, [](const auto& in) { return at::diag(in[0], 1); }},
      {"diag of a matrix", {4, 5}, [](const auto& in) { return at::diag(in[0], -1); }},
      {"diagflat", {2, 3}, [](const auto& in) { return at::diagflat(in[0]); }},
      {"diag_embed", {2, 3}, [](const auto& in) { return at::diag_embed(in[0], 1, 0, 2); }},
      {"repeat_interleave", {4, 3}, [](const auto& in) {
         return at::repeat_interleave(in[0], at::tensor({2, 0, 3, 1}, at::kLong).to(in[0].device()), 0);
       }},
  };
}

}  // namespace

// repeat's backward is PyTorch's two sums (the repeated dims, then the leading
// new ones), each rounded to fp16 on the NPU: two roundings.
TEST(NpuLayout, ForwardBackwardAgainstCpu) { expectRowsMatchCpu(rows(), /*two_roundings=*/true); }

TEST(NpuLayout, EmptyNonContiguousAndIntegers) {
  // Not on an empty batch: unfold (window larger than the dim), repeat_interleave
  // (one repeat per row), diag (the CPU overflows on an empty matrix).
  expectRowsOnEmptyBatch(rows(), {"unfold", "repeat_interleave", "diag of"});
  expectRowsOnTransposedInput(rows(), 0, 1);
  for (const OpRow& row : rows()) {
    SCOPED_TRACE(row.name);
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
  // A 0-d tensor has no dim 0 to roll along (found by the differential fuzzer).
  EXPECT_THROW_WITH(at::scalar_tensor(1.5).to(npu()).roll({1}, {0}), "tensor has no dimensions");
  expectClose(at::scalar_tensor(1.5).to(npu()).roll({1}), at::scalar_tensor(1.5).roll({1}));
  EXPECT_THROW_WITH(x.unfold(1, 5, 1), "maximum size for tensor at dimension 1 is 4 but size is 5");
  EXPECT_THROW_WITH(at::diag(at::randn({2, 2, 2}).to(npu())), "diag(): Supports 1D or 2D tensors. Got 3D");
  EXPECT_THROW_WITH(at::eye(-1, at::TensorOptions().device(npu())), "n must be greater or equal to 0, got -1");
  const at::Tensor r = at::tensor({1, -1}, at::kLong).to(npu());
  EXPECT_THROW_WITH(at::repeat_interleave(r), "repeats can not be negative");
  EXPECT_THROW_WITH(at::repeat_interleave(r.view({1, 2})), "repeat_interleave only accept 1D vector as repeat");
  EXPECT_THROW_WITH(at::repeat_interleave(r.to(at::kFloat)), "repeats has to be Long or Int tensor");
}

TEST(NpuLayout, ChannelAndPixelShuffle) {
  // channel_shuffle has no derivative in PyTorch: forward only.
  for (auto dtype : floatAndHalf()) {
    const at::Tensor x = at::randn({2, 8, 3, 4}).to(dtype);
    expectClose(at::channel_shuffle(x.to(npu()), 4), at::channel_shuffle(x.to(at::kFloat), 4).to(dtype));
    expectClose(at::channel_shuffle(x.to(npu()).transpose(2, 3), 2),
                at::channel_shuffle(x.to(at::kFloat).transpose(2, 3), 2).to(dtype));
    expectSameAutograd([](const auto& in) { return at::pixel_unshuffle(at::pixel_shuffle(in[0], 2), 2).mul(2); },
                       {x}, rtolFor(dtype), atolFor(dtype));
  }
  expectClose(at::channel_shuffle(at::randn({0, 6, 2}).to(npu()), 3), at::empty({0, 6, 2}));
  EXPECT_THROW_WITH(at::channel_shuffle(at::randn({2, 6, 2}).to(npu()), 4),
                    "Number of channels must be divisible by groups. Got 6 channels and 4 groups.");
  EXPECT_THROW_WITH(at::channel_shuffle(at::randn({2, 6}).to(npu()), 2), "at least 3 dimensions");
}

TEST(NpuLayout, EyeAndRepeatInterleaveIndices) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kLong}) {
    expectClose(at::eye(3, 5, at::TensorOptions().dtype(dtype).device(npu())), at::eye(3, 5, dtype));
    expectClose(at::eye(4, at::TensorOptions().dtype(dtype).device(npu())), at::eye(4, dtype));
  }
  expectClose(at::eye(0, 3, at::TensorOptions().device(npu())), at::eye(0, 3));
  at::Tensor out = at::empty({2, 2}, at::TensorOptions().device(npu())).t();
  at::eye_out(out, 2);
  expectClose(out, at::eye(2));
  for (auto dtype : {at::kLong, at::kInt}) {
    const at::Tensor r = at::tensor({2, 0, 3, 1}, at::kLong).to(dtype);
    expectClose(at::repeat_interleave(r.to(npu())), at::repeat_interleave(r));
    expectClose(at::repeat_interleave(r.to(npu()), 6), at::repeat_interleave(r, 6));
  }
  expectClose(at::repeat_interleave(at::empty({0}, at::kLong).to(npu())), at::repeat_interleave(at::empty({0}, at::kLong)));
}
