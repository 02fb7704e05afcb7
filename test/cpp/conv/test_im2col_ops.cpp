// im2col / col2im (nn.functional.unfold / fold) against the CPU: forward and
// backward (each is the other's backward), fp32 and fp16, unbatched and
// empty batches, non-contiguous inputs, out= forms and PyTorch's checks.
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

struct ColRow {
  const char* name;
  std::vector<int64_t> image;  // [N,] C, H, W
  std::vector<int64_t> k, d, p, s;
};

std::vector<ColRow> rows() {
  return {
      {"plain", {2, 3, 5, 6}, {2, 3}, {1, 1}, {0, 0}, {1, 1}},
      {"strided padded", {1, 2, 7, 7}, {3, 3}, {1, 1}, {1, 1}, {2, 2}},
      {"dilated", {2, 1, 8, 5}, {2, 2}, {1, 2}, {2, 0}, {2, 1}},
      {"unbatched", {3, 5, 6}, {2, 2}, {1, 1}, {1, 0}, {1, 2}},
      {"empty batch", {0, 3, 4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
  };
}

}  // namespace

TEST(NpuIm2col, UnfoldAndFoldAgainstCpu) {
  for (const ColRow& row : rows()) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(std::string(row.name) + " " + c10::toString(dtype));
      const at::Tensor x = at::randn(row.image).to(dtype);
      expectSameAutograd([&](const auto& in) { return at::im2col(in[0], row.k, row.d, row.p, row.s); }, {x},
                         rtolFor(dtype), atolFor(dtype));
      const at::Tensor cols = at::im2col(x.to(at::kFloat), row.k, row.d, row.p, row.s);
      const std::vector<int64_t> hw(row.image.end() - 2, row.image.end());
      expectSameAutograd([&](const auto& in) { return at::col2im(in[0], hw, row.k, row.d, row.p, row.s); },
                         {at::randn(cols.sizes()).to(dtype)}, rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
    }
  }
}

TEST(NpuIm2col, NonContiguousOutAndErrors) {
  const at::Tensor x = at::randn({2, 3, 6, 5});
  expectSameAutograd([](const auto& in) { return at::im2col(in[0].transpose(2, 3), {2, 2}, {1, 1}, {0, 0}, {1, 1}); },
                     {x});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::im2col_out(out, x.to(npu()), {3, 2}, {1, 1}, {1, 1}, {2, 1});
  expectClose(out, at::im2col(x, {3, 2}, {1, 1}, {1, 1}, {2, 1}));
  const at::Tensor xn = x.to(npu());
  EXPECT_THROW_WITH(at::im2col(xn, {0, 2}, {1, 1}, {0, 0}, {1, 1}), "kernel size should be greater than zero");
  EXPECT_THROW_WITH(at::im2col(xn, {2, 2}, {1, 1}, {-1, 0}, {1, 1}), "padding should be non-negative");
  EXPECT_THROW_WITH(at::im2col(xn, {7, 2}, {1, 1}, {0, 0}, {1, 1}), "but its components must be at least one");
  EXPECT_THROW_WITH(at::im2col(xn, {2}, {1, 1}, {0, 0}, {1, 1}), "kernel_size equals to 2");
  EXPECT_THROW_WITH(at::col2im(at::randn({2, 12, 7}).to(npu()), {6, 5}, {2, 2}, {1, 1}, {0, 0}, {1, 1}),
                    "Given output_size=(6, 5)");
}
