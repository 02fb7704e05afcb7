// Dropout on the NPU (Note [Dropout on the NPU]): npu_dropout_gen_mask /
// npu_dropout_do_mask / npu_dropout and its backward, F.dropout routed
// through them, and npu_dropout_with_add_softmax with its gradients — each
// against CPU math on the mask's bits, fp32 and fp16, plus argument errors.
#include <torch/torch.h>

#include "csrc/core/NPUGenerator.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using TwoOut = std::tuple<at::Tensor, at::Tensor>;
const auto dropoutOp = [] { return npuOp<TwoOut(const at::Tensor&, double)>("npu::npu_dropout"); };
const auto doMaskOp = [] {
  return npuOp<TwoOut(const at::Tensor&, const at::Tensor&, double)>("npu::npu_dropout_do_mask");
};
const auto genMaskOp = [] {
  return npuOp<at::Tensor(at::IntArrayRef, double, c10::optional<at::ScalarType>, c10::optional<at::Layout>,
                          c10::optional<at::Device>, c10::optional<bool>)>("npu::npu_dropout_gen_mask");
};
const auto addSoftmaxOp = [] {
  return npuOp<std::tuple<at::Tensor, at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&,
                                                              const at::Scalar&, double, int64_t)>(
      "npu::npu_dropout_with_add_softmax");
};

// The kept elements of a bit mask (LSB first), as a float 0/1 tensor of `sizes` on the CPU.
at::Tensor keptOf(const at::Tensor& mask, at::IntArrayRef sizes) {
  const int64_t n = c10::multiply_integers(sizes);
  EXPECT_EQ(mask.numel(), (n + 127) / 128 * 16);
  const at::Tensor bytes = mask.cpu().to(at::kInt).unsqueeze(1);
  const at::Tensor bits = bytes.bitwise_right_shift(at::arange(8, at::kInt)).bitwise_and(1).reshape({-1});
  return bits.slice(0, 0, n).to(at::kFloat).reshape(sizes);
}

// CPU reference of applying a mask: x * kept * (1 / keep) in fp32, rounded once.
at::Tensor droppedOnCpu(const at::Tensor& x, const at::Tensor& kept, double p) {
  const float scale = p < 1.0 ? 1.0f / static_cast<float>(1.0 - p) : 0.0f;
  return x.cpu().to(at::kFloat).mul(kept).mul(scale).to(x.scalar_type());
}

}  // namespace

TEST(NpuDropoutOps, GenMaskIsSeededAndKeepsAboutOneMinusP) {
  torch_npu::NPUGenerator::forDevice(0).manual_seed(11);
  const at::Tensor a = genMaskOp().call({64, 100}, 0.3, c10::nullopt, c10::nullopt, npu(), c10::nullopt);
  torch_npu::NPUGenerator::forDevice(0).manual_seed(11);
  const at::Tensor b = genMaskOp().call({64, 100}, 0.3, c10::nullopt, c10::nullopt, npu(), c10::nullopt);
  EXPECT_EQ(a.scalar_type(), at::kByte);
  EXPECT_EQ(a.device(), npu());
  EXPECT_TRUE(at::equal(a.cpu(), b.cpu()));
  EXPECT_NEAR(keptOf(a, {64, 100}).mean().item<double>(), 0.7, 0.03);
  EXPECT_THROW_WITH(genMaskOp().call({4}, 0.3, c10::nullopt, c10::nullopt, at::Device("cpu"), c10::nullopt),
                    "npu_dropout_gen_mask: device must be an npu device");
  EXPECT_THROW_WITH(genMaskOp().call({4}, 1.5, c10::nullopt, c10::nullopt, npu(), c10::nullopt),
                    "dropout probability has to be between 0 and 1, but got 1.5");
}

TEST(NpuDropoutOps, DropoutForwardAndBackwardMatchTheMaskMath) {
  for (auto dtype : floatAndHalf()) {
    for (double p : {0.0, 0.25, 0.6, 1.0}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + " p=" + std::to_string(p));
      const at::Tensor x_cpu = at::randn({3, 7, 11}).to(dtype);
      at::Tensor x = x_cpu.to(npu()).requires_grad_();
      auto [y, mask] = dropoutOp().call(x, p);
      const at::Tensor kept = keptOf(mask, x.sizes());
      expectClose(y.detach(), droppedOnCpu(x_cpu, kept, p), 0, 0);
      // do_mask with the same mask reproduces the forward.
      expectClose(std::get<0>(doMaskOp().call(x.detach(), mask, p)), droppedOnCpu(x_cpu, kept, p), 0, 0);
      const at::Tensor g_cpu = at::randn({3, 7, 11}).to(dtype);
      y.backward(g_cpu.to(npu()));
      expectClose(x.grad(), droppedOnCpu(g_cpu, kept, p), 0, 0);
    }
  }
}

TEST(NpuDropoutOps, FunctionalDropoutRunsGenMaskAndDoMask) {
  const at::Tensor x_cpu = at::randn({16, 33});
  at::Tensor x = x_cpu.to(npu()).requires_grad_();
  torch_npu::NPUGenerator::forDevice(0).manual_seed(5);
  at::Tensor y = at::dropout(x, 0.4, /*train=*/true);
  torch_npu::NPUGenerator::forDevice(0).manual_seed(5);
  auto [y_ref, mask] = dropoutOp().call(x.detach(), 0.4);
  expectClose(y.detach(), y_ref.cpu(), 0, 0);
  y.sum().backward();
  expectClose(x.grad(), droppedOnCpu(at::ones({16, 33}), keptOf(mask, {16, 33}), 0.4), 0, 0);
  // Eval mode, p = 0 and empty tensors return the input itself, as on the CPU.
  EXPECT_TRUE(at::dropout(x, 0.4, /*train=*/false).is_same(x));
  EXPECT_TRUE(at::dropout(x, 0.0, /*train=*/true).is_same(x));
  const at::Tensor empty = at::empty({0, 3}, at::TensorOptions().device(npu()));
  EXPECT_EQ(at::dropout(empty, 0.5, true).sizes(), empty.sizes());
  EXPECT_THROW_WITH(at::dropout(x, -0.1, true), "dropout probability has to be between 0 and 1");
}

TEST(NpuDropoutOps, DropoutWithAddSoftmaxMatchesCpuSoftmax) {
  for (auto dtype : floatAndHalf()) {
    for (int64_t dim : {-1, 1}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + " dim=" + std::to_string(dim));
      const double p = 0.2, alpha = 0.125;
      const at::Tensor a_cpu = at::randn({2, 4, 9, 12}).to(dtype), b_cpu = at::randn({2, 4, 9, 12}).to(dtype);
      at::Tensor a = a_cpu.to(npu()).requires_grad_(), b = b_cpu.to(npu()).requires_grad_();
      auto [mask, softmax_out, y] = addSoftmaxOp().call(a, b, alpha, p, dim);
      const at::Tensor kept = keptOf(mask, a.sizes());
      // CPU: softmax(b + alpha * a) in fp32, dropped with the same bits.
      at::Tensor af = a_cpu.to(at::kFloat).requires_grad_(), bf = b_cpu.to(at::kFloat).requires_grad_();
      const at::Tensor sm = at::softmax(bf + af * alpha, dim);
      const at::Tensor y_ref = sm * kept / (1 - p);
      expectClose(softmax_out.detach(), sm.detach().to(dtype), rtolFor(dtype), atolFor(dtype));
      expectClose(y.detach(), y_ref.detach().to(dtype), rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
      const at::Tensor g = at::randn({2, 4, 9, 12});
      y.backward(g.to(dtype).to(npu()));
      y_ref.backward(g.to(dtype).to(at::kFloat));
      expectClose(a.grad(), af.grad().to(dtype), rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
      expectClose(b.grad(), bf.grad().to(dtype), rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
    }
  }
}

TEST(NpuDropoutOps, BadInputsSayWhatIsWrong) {
  const at::Tensor x = at::randn({300}).to(npu());
  const at::Tensor ints = at::ones({4}, at::kInt).to(npu());
  EXPECT_THROW_WITH(dropoutOp().call(ints, 0.5), "npu_dropout: expected a float32, float16 or bfloat16 tensor");
  EXPECT_THROW_WITH(doMaskOp().call(x, at::zeros({16}, at::kByte).to(npu()), 0.5),
                    "expected a uint8 bit mask of 48 bytes for 300 elements");
  EXPECT_THROW_WITH(doMaskOp().call(x, at::zeros({48}, at::kByte), 0.5), "mask is on cpu");
  EXPECT_THROW_WITH(addSoftmaxOp().call(x, at::randn({30}).to(npu()), 1.0, 0.1, -1),
                    "x1 must match self in shape, dtype and device");
  EXPECT_THROW_WITH(addSoftmaxOp().call(x, x, 1.0, 0.1, 3), "Dimension out of range");
}
