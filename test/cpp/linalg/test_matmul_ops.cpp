// mm, addmm, bmm, matmul and nn::Linear against the CPU.
#include <torch/nn/modules/linear.h>

#include "ascend_sim/acl.h"
#include "npu_test_util.h"
#include "third_party/ascend_sim/test/runtime_test_util.h"  // ScopedPrecisionMode

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

// fp32 matmuls of K terms accumulate in a different order than the CPU.
constexpr double kMmRtol = 1e-4, kMmAtol = 1e-4;

void expectMatmulAutograd(const torch_npu_test::TensorFn& fn, const std::vector<at::Tensor>& in) {
  expectSameAutograd(fn, in, kMmRtol, kMmAtol);
}

}  // namespace

TEST(NpuMatmul, MmOddShapesAndTransposedOperands) {
  const at::Tensor a = at::randn({17, 33}), b = at::randn({33, 9});
  expectClose(at::mm(a.to(npu()), b.to(npu())), at::mm(a, b), kMmRtol, kMmAtol);
  const at::Tensor at_ = at::randn({33, 17}), bt = at::randn({9, 33});
  expectClose(at::mm(at_.to(npu()).t(), b.to(npu())), at::mm(at_.t(), b), kMmRtol, kMmAtol);
  expectClose(at::mm(a.to(npu()), bt.to(npu()).t()), at::mm(a, bt.t()), kMmRtol, kMmAtol);
  expectClose(at::mm(at_.to(npu()).t(), bt.to(npu()).t()), at::mm(at_.t(), bt.t()), kMmRtol, kMmAtol);
  // A sliced (neither contiguous nor transposed-contiguous) operand.
  const at::Tensor wide = at::randn({17, 66});
  expectClose(at::mm(wide.to(npu()).slice(1, 0, 66, 2), b.to(npu())), at::mm(wide.slice(1, 0, 66, 2), b), kMmRtol,
              kMmAtol);
  // Vectors as 1xK / Kx1 matrices and an empty inner dimension.
  expectClose(at::mm(a.slice(0, 0, 1).to(npu()), b.to(npu())), at::mm(a.slice(0, 0, 1), b), kMmRtol, kMmAtol);
  expectClose(at::mm(at::randn({5, 0}).to(npu()), at::randn({0, 3}).to(npu())), at::zeros({5, 3}));
  at::Tensor out = at::empty({9, 17}, at::TensorOptions().device(npu())).t();
  at::mm_out(out, a.to(npu()), b.to(npu()));
  expectClose(out, at::mm(a, b), kMmRtol, kMmAtol);
}

TEST(NpuMatmul, Fp16) {
  const at::Tensor a = at::randn({17, 33}), b = at::randn({33, 9});
  const at::Tensor expected = at::mm(a.to(at::kHalf).to(at::kFloat), b.to(at::kHalf).to(at::kFloat)).to(at::kHalf);
  expectClose(at::mm(a.to(npu()).to(at::kHalf), b.to(npu()).to(at::kHalf)), expected, kHalfRtol, kHalfAtol);
  const at::Tensor x = at::randn({3, 17, 33}), y = at::randn({3, 33, 9});
  expectClose(at::bmm(x.to(at::kHalf).to(npu()), y.to(at::kHalf).to(npu())),
              at::bmm(x.to(at::kHalf).to(at::kFloat), y.to(at::kHalf).to(at::kFloat)).to(at::kHalf), kHalfRtol,
              kHalfAtol);
}

TEST(NpuMatmul, AddmmBiasBetaAlpha) {
  const at::Tensor m1 = at::randn({17, 33}), m2 = at::randn({33, 9});
  for (const at::Tensor& self : {at::randn({9}), at::randn({1, 9}), at::randn({17, 9}), at::randn({17, 1})}) {
    SCOPED_TRACE(::testing::Message() << "self " << self.sizes());
    const at::Tensor ds = self.to(npu()), d1 = m1.to(npu()), d2 = m2.to(npu());
    expectClose(at::addmm(ds, d1, d2), at::addmm(self, m1, m2), kMmRtol, kMmAtol);
    expectClose(at::addmm(ds, d1, d2, 0.5, 2), at::addmm(self, m1, m2, 0.5, 2), kMmRtol, kMmAtol);
    expectClose(at::addmm(ds, d1, d2, 0, -1), at::addmm(self, m1, m2, 0, -1), kMmRtol, kMmAtol);
  }
  at::Tensor acc = at::randn({17, 9});
  at::Tensor dacc = acc.to(npu());
  dacc.addmm_(m1.to(npu()), m2.to(npu()), 2, 0.5);
  expectClose(dacc, acc.addmm(m1, m2, 2, 0.5), kMmRtol, kMmAtol);
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::addmm_out(out, at::randn({9}).fill_(1).to(npu()), m1.to(npu()), m2.to(npu()));
  expectClose(out, at::addmm(at::ones({9}), m1, m2), kMmRtol, kMmAtol);
  // beta = 0 ignores NaN in self, as PyTorch does
  expectClose(at::addmm(at::full({17, 9}, NAN).to(npu()), m1.to(npu()), m2.to(npu()), 0),
              at::addmm(at::full({17, 9}, NAN), m1, m2, 0), kMmRtol, kMmAtol);
}

TEST(NpuMatmul, BmmAndMatmulComposite) {
  const at::Tensor x = at::randn({4, 17, 33}), y = at::randn({4, 33, 9});
  expectClose(at::bmm(x.to(npu()), y.to(npu())), at::bmm(x, y), kMmRtol, kMmAtol);
  expectClose(at::bmm(x.to(npu()).transpose(1, 2).contiguous().transpose(1, 2), y.to(npu())), at::bmm(x, y),
              kMmRtol, kMmAtol);
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::bmm_out(out, x.to(npu()), y.to(npu()));
  expectClose(out, at::bmm(x, y), kMmRtol, kMmAtol);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{33}, {33}}, {{17, 33}, {33}}, {{33}, {33, 9}}, {{17, 33}, {33, 9}},
      {{2, 17, 33}, {33, 9}}, {{17, 33}, {3, 33, 9}}, {{2, 1, 17, 33}, {3, 33, 9}}};
  for (const auto& [sa, sb] : shapes) {
    SCOPED_TRACE(::testing::Message() << at::IntArrayRef(sa) << " @ " << at::IntArrayRef(sb));
    const at::Tensor a = at::randn(sa), b = at::randn(sb);
    expectClose(at::matmul(a.to(npu()), b.to(npu())), at::matmul(a, b), kMmRtol, kMmAtol);
  }
  EXPECT_THROW_WITH(at::dot(at::randn({3}).to(npu()), at::randn({4}).to(npu())), "inconsistent tensor size");
}

TEST(NpuMatmul, Backward) {
  expectMatmulAutograd([](const std::vector<at::Tensor>& in) { return at::mm(in[0], in[1]); },
                       {at::randn({17, 33}), at::randn({33, 9})});
  expectMatmulAutograd([](const std::vector<at::Tensor>& in) { return at::addmm(in[0], in[1], in[2], 0.5, 2); },
                       {at::randn({9}), at::randn({17, 33}), at::randn({33, 9})});
  expectMatmulAutograd([](const std::vector<at::Tensor>& in) { return at::bmm(in[0], in[1]); },
                       {at::randn({3, 17, 33}), at::randn({3, 33, 9})});
  expectMatmulAutograd([](const std::vector<at::Tensor>& in) { return at::matmul(in[0], in[1]); },
                       {at::randn({2, 17, 33}), at::randn({33, 9})});
}

TEST(NpuMatmul, LinearForwardBackward) {
  torch::nn::Linear linear(33, 9);
  const at::Tensor w = linear->weight.detach(), b = linear->bias.detach();
  expectMatmulAutograd([](const std::vector<at::Tensor>& in) { return at::linear(in[0], in[1], in[2]); },
                       {at::randn({17, 33}), w, b});
  expectMatmulAutograd([](const std::vector<at::Tensor>& in) { return at::linear(in[0], in[1]); },
                       {at::randn({2, 5, 33}), w});
  // A module built on the CPU, forward on NPU copies of its parameters.
  const at::Tensor x = at::randn({17, 33});
  at::Tensor y = at::linear(x.to(npu()), w.to(npu()), b.to(npu()));
  expectClose(y, linear(x).detach(), kMmRtol, kMmAtol);
  // C++ Module::to(device) moves each parameter with Variable::set_data, which the NPU's
  // _has_compatible_shallow_copy_type allows (Note [Parameters keep their identity across devices]).
  const c10::TensorImpl* weight_impl = linear->weight.unsafeGetTensorImpl();
  linear->to(npu());
  EXPECT_EQ(linear->weight.unsafeGetTensorImpl(), weight_impl);
  EXPECT_EQ(linear->weight.device(), npu());
  expectClose(linear(x.to(npu())).detach(), y.cpu(), 0, 0);
}

TEST(NpuMatmul, ShapeAndDtypeErrors) {
  const at::Tensor a = at::randn({17, 33}).to(npu()), b = at::randn({32, 9}).to(npu());
  EXPECT_THROW_WITH(at::mm(a, b), "mat1 and mat2 shapes cannot be multiplied (17x33 and 32x9)");
  EXPECT_THROW_WITH(at::addmm(at::randn({9}).to(npu()), a, b), "cannot be multiplied");
  EXPECT_THROW_WITH(at::bmm(at::randn({2, 3, 4}).to(npu()), at::randn({2, 5, 4}).to(npu())),
                    "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5]");
  EXPECT_THROW_WITH(at::mm(a, at::randn({33, 9}).to(at::kHalf).to(npu())), "same dtype");
  EXPECT_THROW_WITH(at::mm(a.to(at::kInt), at::randn({33, 9}).to(at::kInt).to(npu())), "float16 and float32");
  EXPECT_THROW(at::matmul(a, b), c10::Error);
  EXPECT_THROW_WITH(at::addmm(at::randn({5}).to(npu()), a, at::randn({33, 9}).to(npu())), "must match the existing size");
}

// The Ascend910A default runs fp32 matmuls on the fp16 Cube: operands are
// rounded to fp16, products accumulate in fp32 (docs/simulated_device.md, precision modes).
TEST(NpuMatmul, AllowFp32ToFp16RoundsOperandsToHalf) {
  const at::Tensor a = at::randn({37, 65}), b = at::randn({65, 23});
  at::Tensor npu_result;
  {
    ScopedPrecisionMode fp16_cube("allow_fp32_to_fp16");
    npu_result = at::mm(a.to(npu()), b.to(npu())).cpu();
  }
  expectClose(npu_result, at::mm(a.to(at::kHalf).to(at::kFloat), b.to(at::kHalf).to(at::kFloat)), 1e-5, 1e-4);
  EXPECT_GT((npu_result - at::mm(a, b)).abs().max().item<double>(), 1e-3);
}
