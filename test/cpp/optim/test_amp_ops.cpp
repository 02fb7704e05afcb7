// Mixed precision on the NPU: the autocast kernels (Note [NPU autocast])
// casting by policy with a CPU reference computed in the cast dtypes, and
// GradScaler's two device kernels against reference computations written
// here (PyTorch 1.13 has no CPU kernels for them).
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include "csrc/aten/common/AutocastNPU.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

// Turns the NPU autocast on for a scope (as torch.npu.amp.autocast does).
class AutocastScope {
 public:
  explicit AutocastScope(at::ScalarType dtype = at::kHalf) : prev_dtype_(at_npu::native::npuAutocastDtype()) {
    at::autocast::set_xpu_enabled(true);
    at_npu::native::setNpuAutocastDtype(dtype);
  }
  ~AutocastScope() {
    at::autocast::set_xpu_enabled(false);
    at_npu::native::setNpuAutocastDtype(prev_dtype_);
    at_npu::native::clearAutocastCache();
  }

 private:
  at::ScalarType prev_dtype_;
};

}  // namespace

TEST(NpuAutocast, CastPoliciesFollowCudasLists) {
  const at::Tensor a = at::randn({8, 16}), b = at::randn({16, 4});
  const at::Tensor an = a.to(npu()), bn = b.to(npu());
  AutocastScope scope;
  // Lower precision: the product of the fp16-rounded operands.
  const at::Tensor mm = at::mm(an, bn);
  EXPECT_EQ(mm.scalar_type(), at::kHalf);
  expectClose(mm, at::mm(a.to(at::kHalf).to(at::kFloat), b.to(at::kHalf).to(at::kFloat)).to(at::kHalf), kHalfRtol,
              kHalfAtol);
  EXPECT_EQ(at::linear(an, bn.t()).scalar_type(), at::kHalf);
  EXPECT_EQ(at::matmul(an, bn).scalar_type(), at::kHalf);
  // fp32: fragile ops of half inputs run in fp32.
  const at::Tensor h = an.to(at::kHalf);
  EXPECT_EQ(at::exp(h).scalar_type(), at::kFloat);
  expectClose(at::exp(h), at::exp(a.to(at::kHalf).to(at::kFloat)), 1e-5, 1e-6);
  EXPECT_EQ(at::layer_norm(h, {16}).scalar_type(), at::kFloat);
  EXPECT_EQ(at::mse_loss(h, h).scalar_type(), at::kFloat);
  // fp32 accumulation for reductions with a dtype argument.
  EXPECT_EQ(at::sum(h).scalar_type(), at::kFloat);
  EXPECT_EQ(at::softmax(h, 1).scalar_type(), at::kFloat);
  EXPECT_EQ(at::sum(h, at::kHalf).scalar_type(), at::kHalf);  // an explicit dtype wins
  // Promote: the widest floating type among the inputs.
  EXPECT_EQ(at::cat({h, an}).scalar_type(), at::kFloat);
  EXPECT_EQ(at::addcmul(h, h, an).scalar_type(), at::kFloat);
  // Ops outside the lists, CPU tensors and float64 are untouched.
  EXPECT_EQ(at::add(h, h).scalar_type(), at::kHalf);
  EXPECT_EQ(at::mm(a, b).scalar_type(), at::kFloat);
  EXPECT_EQ(at::relu(an).scalar_type(), at::kFloat);
  // Banned.
  const at::Tensor p = at::sigmoid(an);
  EXPECT_THROW_WITH(at::binary_cross_entropy(p, p.detach()), "binary_cross_entropy_with_logits");
}

TEST(NpuAutocast, DisabledMeansNoCastsAndBf16Works) {
  const at::Tensor an = at::randn({4, 4}).to(npu());
  EXPECT_EQ(at::mm(an, an).scalar_type(), at::kFloat);  // autocast off
  {
    AutocastScope scope(at::kBFloat16);
    EXPECT_EQ(at::mm(an, an).scalar_type(), at::kBFloat16);
  }
  EXPECT_EQ(at::mm(an, an).scalar_type(), at::kFloat);
}

TEST(NpuAutocast, GradientsReachTheFp32Parameters) {
  const at::Tensor w_cpu = at::randn({16, 4});
  at::Tensor w = w_cpu.to(npu()).requires_grad_();
  const at::Tensor x = at::randn({8, 16});
  {
    AutocastScope scope;
    at::Tensor y = at::mm(x.to(npu()), w);  // the fp16 copy of w is cached for the region
    at::Tensor y2 = at::mm(x.to(npu()), w);
    EXPECT_EQ(y.scalar_type(), at::kHalf);
    (y.to(at::kFloat).sum() + y2.to(at::kFloat).sum()).backward();
  }
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().scalar_type(), at::kFloat);
  // Each product's gradient is an fp16 matmul; both accumulate in the fp16
  // copy of w, and the sum is cast back to fp32.
  const at::Tensor g = at::mm(x.to(at::kHalf).to(at::kFloat).t(), at::ones({8, 4})).to(at::kHalf);
  expectClose(w.grad(), g.add(g).to(at::kFloat), 1e-3, 1e-3);
}

TEST(NpuAmpKernels, NonFiniteCheckAndUnscale) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor g1 = at::randn({5, 3}).to(dtype), g2 = at::randn({7}).to(dtype);
    std::vector<at::Tensor> grads = {g1.to(npu()), g2.to(npu()), at::empty({0}, dtype).to(npu())};
    at::Tensor found = at::zeros({1}).to(npu());
    const at::Tensor inv = at::full({1}, 0.125f).to(npu());
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found, inv);
    EXPECT_EQ(found.cpu().item<float>(), 0.0f);
    expectClose(grads[0], g1.to(at::kFloat).mul(0.125).to(dtype), 0, 0);
    expectClose(grads[1], g2.to(at::kFloat).mul(0.125).to(dtype), 0, 0);
    for (float bad : {INFINITY, -INFINITY, NAN}) {
      at::Tensor g = at::ones({4}, dtype);
      g[2] = bad;
      std::vector<at::Tensor> with_bad = {g1.to(npu()), g.to(npu())};
      at::Tensor f = at::zeros({1}).to(npu());
      at::_amp_foreach_non_finite_check_and_unscale_(with_bad, f, inv);
      EXPECT_EQ(f.cpu().item<float>(), 1.0f) << bad;
    }
  }
  std::vector<at::Tensor> grads = {at::ones({2}).to(npu())};
  at::Tensor bad_found = at::zeros({1}, at::kInt).to(npu());
  EXPECT_THROW_WITH(at::_amp_foreach_non_finite_check_and_unscale_(grads, bad_found, at::ones({1}).to(npu())),
                    "found_inf must be a 1-element float32 tensor");
}

TEST(NpuAmpKernels, UnscaleJoinsPrivateFormatsViewsAndStridedGradients) {
  // A FRACTAL_Z and an NC1HWC0 gradient (no TransData: their storages join the launch), a slice of a
  // flat buffer (a combined gradient's view) and a strided view (the per-tensor path).
  InternalFormatGuard guard(true);
  const at::Tensor w = at::randn({8, 3, 3, 3}), bn = at::randn({1, 8, 1, 1}), flat = at::randn({100}),
                   strided = at::randn({6, 4});
  at::Tensor w_npu = npuFormatCast(w.to(npu()), ACL_FORMAT_FRACTAL_Z);
  at::Tensor bn_npu = npuFormatCast(bn.to(npu()), ACL_FORMAT_NC1HWC0);
  at::Tensor flat_npu = flat.to(npu());
  at::Tensor strided_npu = strided.to(npu());
  std::vector<at::Tensor> grads = {w_npu, bn_npu, flat_npu.narrow(0, 10, 50), strided_npu.t()};
  at::Tensor found = at::zeros({1}).to(npu());
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found, at::full({1}, 0.5f).to(npu()));
  EXPECT_EQ(found.cpu().item<float>(), 0.0f);
  expectClose(w_npu, w.mul(0.5), 0, 0);
  expectClose(bn_npu, bn.mul(0.5), 0, 0);
  at::Tensor flat_want = flat.clone();
  flat_want.narrow(0, 10, 50).mul_(0.5);
  expectClose(flat_npu, flat_want, 0, 0);
  expectClose(strided_npu, strided.mul(0.5), 0, 0);
  EXPECT_EQ(torch_npu::npuFormatOf(w_npu), ACL_FORMAT_FRACTAL_Z);
  // An inf in a private-format gradient is found.
  at::Tensor w_bad = w.clone();
  w_bad.view(-1)[7] = INFINITY;
  std::vector<at::Tensor> bad = {npuFormatCast(w_bad.to(npu()), ACL_FORMAT_FRACTAL_Z)};
  at::Tensor f = at::zeros({1}).to(npu());
  at::_amp_foreach_non_finite_check_and_unscale_(bad, f, at::full({1}, 0.5f).to(npu()));
  EXPECT_EQ(f.cpu().item<float>(), 1.0f);
}

TEST(NpuAmpKernels, UpdateScaleFollowsTheDynamicRule) {
  at::Tensor scale = at::full({1}, 1024.0f).to(npu());
  at::Tensor tracker = at::zeros({1}, at::kInt).to(npu());
  double ref_scale = 1024.0;
  int ref_tracker = 0;
  const int interval = 3;
  for (bool inf : {false, false, false, true, false, false, false, false, true, true}) {
    at::_amp_update_scale_(scale, tracker, at::full({1}, inf ? 1.0f : 0.0f).to(npu()), 2.0, 0.5, interval);
    if (inf) {
      ref_scale *= 0.5;
      ref_tracker = 0;
    } else if (++ref_tracker == interval) {
      ref_scale *= 2.0;
      ref_tracker = 0;
    }
    EXPECT_EQ(scale.cpu().item<float>(), static_cast<float>(ref_scale));
    EXPECT_EQ(tracker.cpu().item<int>(), ref_tracker);
  }
  at::Tensor bad_tracker = at::zeros({1}).to(npu());
  EXPECT_THROW_WITH(at::_amp_update_scale_(scale, bad_tracker, at::zeros({1}).to(npu()), 2.0, 0.5, 3),
                    "growth_tracker must be a 1-element int32 tensor");
}
