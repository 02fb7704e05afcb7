// _weight_norm_interface and its backward (Note [Weight norm on the NPU]) against the CPU, through
// at::_weight_norm (what nn.utils.weight_norm calls): dim 0 and the last dim, 1-D to 4-D weights,
// fp32 and fp16, forward, both gradients and the norms' dtype.
#include "npu_test_util.h"

using namespace torch_npu_test;

TEST(NpuWeightNorm, ForwardAndBackwardMatchTheCpu) {
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{6, 4, 3}, 0}, {{6, 4, 3}, 2}, {{5, 3}, 0}, {{5, 3}, 1}, {{8}, 0}, {{4, 3, 2, 2}, 0}};
  for (const auto& [shape, dim] : cases) {
    SCOPED_TRACE("shape " + c10::str(at::IntArrayRef(shape)) + " dim " + std::to_string(dim));
    // |v| >= 0.2: the [8] / dim 0 case normalises single elements, whose v gradient is
    // a cancellation (0 exactly) scaled by g / |v|, so a tiny |v| would magnify rounding.
    const at::Tensor r = at::randn(shape), v = r.sign() * (r.abs() + 0.2);
    std::vector<int64_t> g_shape(shape.size(), 1);
    g_shape[dim] = shape[dim];
    const at::Tensor g = at::rand(g_shape) + 0.5;
    expectSameAutograd([dim = dim](const auto& in) { return at::_weight_norm(in[0], in[1], dim); }, {v, g});
  }
}

TEST(NpuWeightNorm, InterfaceReturnsTheNormsInFp32ForHalfWeights) {
  const at::Tensor v = at::randn({6, 5}), g = at::rand({6, 1}) + 0.5;
  const auto [w, norms] = at::_weight_norm_interface(v.to(npu()).to(at::kHalf), g.to(npu()).to(at::kHalf), 0);
  const auto [cpu_w, cpu_norms] = at::_weight_norm_interface(v, g, 0);
  EXPECT_EQ(w.scalar_type(), at::kHalf);
  EXPECT_EQ(norms.scalar_type(), at::kFloat);
  EXPECT_EQ(norms.sizes(), cpu_norms.sizes());
  expectClose(w, cpu_w.to(at::kHalf), kHalfRtol, kHalfAtol);
  expectClose(norms, cpu_norms, 1e-3, 1e-3);
  const at::Tensor v3 = at::randn({3, 4, 5}).to(npu()), g3 = at::ones({1, 4, 1}).to(npu());
  EXPECT_THROW(at::_weight_norm_interface(v3, g3, 1), c10::Error);  // only dim 0 or the last dim
}
