// range, linspace and logspace on the NPU (Range and LinSpace kernels, Note [LinSpace from both
// ends]) against the CPU: dtypes, 0/1/2 points, long ranges, integer outputs, errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

at::TensorOptions onNpu(at::ScalarType dtype = at::kFloat) { return at::TensorOptions().dtype(dtype).device(npu()); }

// One fp32 ulp near the values compared: PyTorch's vectorized CPU kernel groups the same multiply
// and add differently from its scalar definition, which the NPU computes.
constexpr double kUlpRtol = 2.4e-7;

}  // namespace

TEST(NpuRangeFactories, LinspaceMatchesTheCpu) {
  for (int64_t steps : {0, 1, 2, 7, 10, 1001}) {
    SCOPED_TRACE("steps " + std::to_string(steps));
    expectClose(at::linspace(-3.3, 7.1, steps, onNpu()), at::linspace(-3.3, 7.1, steps), kUlpRtol, 1e-6);
    expectClose(at::linspace(5, -5, steps, onNpu()), at::linspace(5, -5, steps), kUlpRtol, 1e-6);
  }
  const at::Tensor ends = at::linspace(-1.5, 2.25, 9, onNpu()).cpu();
  EXPECT_EQ(ends[0].item<float>(), -1.5f);
  EXPECT_EQ(ends[8].item<float>(), 2.25f);  // both ends exact
  expectClose(at::linspace(0, 1, 11, onNpu(at::kHalf)), at::linspace(0, 1, 11, at::kHalf), kHalfRtol, kHalfAtol);
  for (auto dtype : {at::kInt, at::kLong, at::kShort}) {
    expectClose(at::linspace(0, 100, 7, onNpu(dtype)), at::linspace(0, 100, 7, dtype));
    expectClose(at::linspace(-7, 9, 5, onNpu(dtype)), at::linspace(-7, 9, 5, dtype));
  }
  const int64_t big = (int64_t{1} << 40) + 3;  // beyond fp32: integer outputs take float64 ends
  expectClose(at::linspace(big, big + 8, 5, onNpu(at::kLong)), at::linspace(big, big + 8, 5, at::kLong));
  at::Tensor out = at::empty({2}, onNpu());
  at::linspace_out(out, 1, 2, 4);
  expectClose(out, at::linspace(1, 2, 4));
  EXPECT_THROW(at::linspace(0, 1, -1, onNpu()), c10::Error);
}

TEST(NpuRangeFactories, LogspaceMatchesTheCpu) {
  expectClose(at::logspace(-2, 2, 9, 10.0, onNpu()), at::logspace(-2, 2, 9, 10.0), 1e-6, 1e-7);
  expectClose(at::logspace(0, 5, 6, 2.0, onNpu()), at::logspace(0, 5, 6, 2.0), 1e-6, 1e-7);
  expectClose(at::logspace(3, 3, 1, 10.0, onNpu()), at::logspace(3, 3, 1, 10.0));
  EXPECT_EQ(at::logspace(0, 1, 0, 10.0, onNpu()).numel(), 0);
  expectClose(at::logspace(0, 4, 5, 2.5, onNpu(at::kLong)), at::logspace(0, 4, 5, 2.5, at::kLong));
  expectClose(at::logspace(0.5, 3.5, 4, 2, onNpu(at::kInt)), at::logspace(0.5, 3.5, 4, 2, at::kInt));  // int ends
  EXPECT_THROW(at::logspace(0, 1, -2, 10.0, onNpu()), c10::Error);
}

TEST(NpuRangeFactories, RangeIncludesItsEnd) {
  expectClose(at::range(0, 1, 0.25, onNpu()), at::range(0, 1, 0.25));
  expectClose(at::range(-3, 3, 1, onNpu()), at::range(-3, 3, 1));
  expectClose(at::range(10, -2, -3, onNpu(at::kLong)), at::range(10, -2, -3, at::kLong));
  expectClose(at::range(0.5, 2.4, 0.3, onNpu()), at::range(0.5, 2.4, 0.3));
  EXPECT_THROW(at::range(0, 1, 0, onNpu()), c10::Error);
  EXPECT_THROW(at::range(0, 1, -1, onNpu()), c10::Error);
}
