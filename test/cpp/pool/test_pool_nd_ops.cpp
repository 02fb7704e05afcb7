// adaptive_max_pool1d/2d/3d, adaptive_avg_pool3d (and interpolate 'area'),
// avg_pool3d, max_pool3d_with_indices and max_unpool1d/2d/3d against the
// CPU: forward and backward, fp32 and fp16, unbatched inputs, empty batches,
// non-contiguous inputs and PyTorch's argument errors.
#include "op_rows.h"

using namespace torch_npu_test;

namespace {

at::Tensor first(const std::tuple<at::Tensor, at::Tensor>& t) { return std::get<0>(t); }

std::vector<OpRow> rows() {
  return {
      {"adaptive_max_pool2d", {2, 3, 7, 5}, [](const auto& in) { return first(at::adaptive_max_pool2d(in[0], {3, 4})); }},
      {"adaptive_max_pool2d unbatched", {3, 7, 5},
       [](const auto& in) { return first(at::adaptive_max_pool2d(in[0], {3, 4})); }},
      {"adaptive_max_pool1d", {2, 3, 7}, [](const auto& in) { return first(at::adaptive_max_pool1d(in[0], {3})); }},
      {"adaptive_max_pool3d", {1, 2, 5, 4, 3},
       [](const auto& in) { return first(at::adaptive_max_pool3d(in[0], {2, 3, 2})); }},
      {"adaptive_avg_pool3d", {1, 2, 5, 4, 3}, [](const auto& in) { return at::adaptive_avg_pool3d(in[0], {3, 2, 2}); }},
      {"adaptive_avg_pool3d unbatched", {2, 5, 4, 3},
       [](const auto& in) { return at::adaptive_avg_pool3d(in[0], {3, 2, 2}); }},
      {"avg_pool3d", {2, 2, 5, 6, 4},
       [](const auto& in) { return at::avg_pool3d(in[0], {2, 3, 2}, {2, 1, 2}, {1, 1, 0}); }},
      {"avg_pool3d ceil exclude pad", {1, 2, 5, 5, 5},
       [](const auto& in) { return at::avg_pool3d(in[0], {3}, {2}, {1}, true, false); }},
      {"avg_pool3d divisor", {2, 5, 5, 5},
       [](const auto& in) { return at::avg_pool3d(in[0], {3}, {2}, {1}, false, true, 5); }},
      {"avg_pool3d negative divisor", {1, 2, 4, 4, 4},
       [](const auto& in) { return at::avg_pool3d(in[0], {2}, {2}, {0}, false, true, -3); }},
      {"avg_pool2d negative divisor", {1, 2, 4, 4},
       [](const auto& in) { return at::avg_pool2d(in[0], {2, 2}, {2, 2}, {0, 0}, false, true, -2); }},
      {"max_pool3d dilated", {2, 2, 6, 7, 5},
       [](const auto& in) { return first(at::max_pool3d_with_indices(in[0], {3}, {2}, {1}, {1, 2, 1})); }},
      {"max_pool3d ceil", {2, 5, 5, 5},
       [](const auto& in) { return first(at::max_pool3d_with_indices(in[0], {2}, {2}, {0}, {1}, true)); }},
      {"max_unpool2d", {2, 3, 6, 6}, [](const auto& in) {
         const auto p = at::max_pool2d_with_indices(in[0], {2, 2}, {2, 2});
         return at::max_unpool2d(std::get<0>(p), std::get<1>(p), {6, 6});
       }},
      {"max_unpool3d", {2, 3, 4, 4, 4}, [](const auto& in) {
         const auto p = at::max_pool3d_with_indices(in[0], {2}, {2});
         return at::max_unpool3d(std::get<0>(p), std::get<1>(p), {4, 4, 4}, {2, 2, 2}, {0, 0, 0});
       }},
  };
}

}  // namespace

TEST(NpuPoolNd, ForwardBackwardAgainstCpu) { expectRowsMatchCpu(rows(), true); }

TEST(NpuPoolNd, EmptyBatchAndNonContiguous) {
  expectRowsOnEmptyBatch(rows(), {"unbatched", "avg_pool3d divisor", "max_pool3d ceil"});
  expectRowsOnTransposedInput(rows(), -1, -2);
}

TEST(NpuPoolNd, Errors) {
  const at::Tensor x = at::randn({1, 2, 4, 4, 4}).to(npu());
  EXPECT_THROW_WITH(at::max_pool3d_with_indices(x, {2}, {2}, {2}), "pad should be at most half of kernel size");
  EXPECT_THROW_WITH(at::max_pool3d_with_indices(x, {5}, {1}), "Output size is too small");
  EXPECT_THROW_WITH(at::max_pool3d_with_indices(x, {2, 2}, {1}), "kernel_size must either be a single int");
  EXPECT_THROW_WITH(at::max_pool3d_with_indices(x.select(0, 0).select(0, 0), {2}, {1}), "Expected 4D or 5D tensor");
  EXPECT_THROW_WITH(at::adaptive_avg_pool3d(at::randn({2, 0, 3, 3, 3}).to(npu()), {2, 2, 2}), "non-zero size");
  EXPECT_THROW_WITH(at::adaptive_max_pool2d(at::randn({2, 3}).to(npu()), {2, 2}), "3D or 4D");
  const at::Tensor y = at::randn({2, 3, 3, 3}).to(npu());
  EXPECT_THROW_WITH(at::max_unpool2d(y, at::zeros({2, 3, 3, 3}, at::kInt).to(npu()), {6, 6}),
                    "elements in indices should be type int64");
  EXPECT_THROW_WITH(at::max_unpool2d(y, at::zeros({2, 3, 3, 2}, at::kLong).to(npu()), {6, 6}),
                    "Expected shape of indices to be same as that of the input tensor");
  EXPECT_THROW_WITH(at::max_unpool2d(y, at::zeros({2, 3, 3, 3}, at::kLong).to(npu()), {6}),
                    "exactly two elements (height, width)");
  EXPECT_THROW_WITH(at::max_unpool2d(y, at::full({2, 3, 3, 3}, 36, at::kLong).to(npu()), {6, 6}).cpu(), "36");
}
