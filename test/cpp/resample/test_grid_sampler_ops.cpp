// grid_sampler_2d / grid_sampler_3d (nn.functional.grid_sample) against the
// CPU: every interpolation / padding / align_corners combination (3-D:
// bilinear and nearest), forward and backward
// (input and grid gradients), fp32 and fp16, empty batches, non-contiguous
// inputs and PyTorch's argument errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

TEST(NpuGridSampler, AllModesAgainstCpu) {
  for (int64_t interp : {0, 1, 2}) {
    for (int64_t padding : {0, 1, 2}) {
      for (bool align : {false, true}) {
        for (auto dtype : floatAndHalf()) {
          SCOPED_TRACE(c10::str("interp ", interp, " padding ", padding, " align ", align, " ", dtype));
          const at::Tensor x = at::randn({2, 3, 5, 7}).to(dtype);
          const at::Tensor grid = at::rand({2, 4, 6, 2}).mul(2.6).sub(1.3).to(dtype);
          // fp16 grids: a coordinate rounded next to a pixel edge may land on
          // the other side, so fp16 is compared forward only (fp32 covers the gradients).
          const double tol = dtype == at::kHalf ? 2e-2 : 1e-4;
          if (dtype == at::kHalf) {
            expectClose(at::grid_sampler_2d(x.to(npu()), grid.to(npu()), interp, padding, align),
                        at::grid_sampler_2d(x.to(at::kFloat), grid.to(at::kFloat), interp, padding, align).to(dtype),
                        tol, tol);
            continue;
          }
          expectSameAutograd(
              [=](const auto& in) { return at::grid_sampler_2d(in[0], in[1], interp, padding, align); }, {x, grid},
              tol, tol);
        }
      }
    }
  }
}

TEST(NpuGridSampler, VolumetricAgainstCpu) {
  for (int64_t interp : {0, 1}) {
    for (int64_t padding : {0, 1, 2}) {
      for (bool align : {false, true}) {
        SCOPED_TRACE(c10::str("interp ", interp, " padding ", padding, " align ", align));
        expectSameAutograd(
            [=](const auto& in) { return at::grid_sampler_3d(in[0], in[1], interp, padding, align); },
            {at::randn({2, 2, 4, 5, 3}), at::rand({2, 3, 2, 4, 3}).mul(2.6).sub(1.3)}, 1e-4, 1e-4);
      }
    }
  }
  const at::Tensor x = at::randn({1, 1, 2, 2, 2}).to(npu());
  EXPECT_THROW_WITH(at::grid_sampler(x, at::rand({1, 1, 1, 1, 3}).to(npu()), 2, 0, false),
                    "bicubic interpolation only supports 4D input");
}

TEST(NpuGridSampler, EmptyNonContiguousAndErrors) {
  expectSameAutograd([](const auto& in) { return at::grid_sampler(in[0], in[1], 0, 0, false); },
                     {at::randn({0, 3, 5, 7}), at::rand({0, 4, 6, 2})});
  expectSameAutograd([](const auto& in) { return at::grid_sampler(in[0].transpose(2, 3), in[1], 0, 1, true); },
                     {at::randn({2, 3, 7, 5}), at::rand({2, 4, 6, 2}).mul(2).sub(1)}, 1e-4, 1e-4);
  const at::Tensor x = at::randn({2, 3, 5, 7}).to(npu());
  EXPECT_THROW_WITH(at::grid_sampler(x, at::rand({2, 4, 6, 3}).to(npu()), 0, 0, false),
                    "grid_sampler(): expected grid to have size 2 in last dimension");
  EXPECT_THROW_WITH(at::grid_sampler(x, at::rand({3, 4, 6, 2}).to(npu()), 0, 0, false),
                    "grid_sampler(): expected grid and input to have same batch size");
  EXPECT_THROW_WITH(at::grid_sampler_2d(x, at::rand({2, 4, 6, 2}).to(npu()), 5, 0, false), "interpolation_mode");
}
