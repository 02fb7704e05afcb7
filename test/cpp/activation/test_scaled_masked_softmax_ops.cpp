// npu_scaled_masked_softmax (ScaledMaskedSoftmaxOps.cpp) and its backward on the NPU against the
// CPU expression softmax((x * scale).masked_fill(mask, -10000), -1), forward and backward, fp32
// and fp16, broadcast and causal masks; one kernel each way; argument errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Softmax = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&, bool);

c10::TypedOperatorHandle<Softmax> softmaxOp() {
  return c10::Dispatcher::singleton().findSchemaOrThrow("npu::npu_scaled_masked_softmax", "").typed<Softmax>();
}

// The CPU expression in fp32 (the CPU has no fp16 softmax), back in x's dtype.
at::Tensor reference(const at::Tensor& x, const at::Tensor& mask, double scale, bool triu) {
  const at::Tensor m = triu ? at::ones({x.size(2), x.size(3)}, at::kBool).triu(1) : mask;
  return at::softmax((x.to(at::kFloat) * scale).masked_fill(m, -10000.0), -1).to(x.scalar_type());
}

}  // namespace

TEST(NpuScaledMaskedSoftmax, MatchesTheCpuExpression) {
  const auto op = softmaxOp();
  const at::Tensor mask = at::rand({2, 1, 32, 64}) < 0.3;
  for (auto dtype : floatAndHalf())
    for (bool triu : {false, true}) {
      SCOPED_TRACE(c10::toString(dtype) + std::string(triu ? " triu" : " mask"));
      const auto fn = [&](const std::vector<at::Tensor>& in) {
        return in[0].device() == npu() ? op.call(in[0], mask.to(npu()), 0.5, triu) : reference(in[0], mask, 0.5, triu);
      };
      expectSameAutograd(fn, {at::randn({2, 3, 32, 64}).mul(4).to(dtype)}, rtolTwoRoundings(dtype),
                         atolTwoRoundings(dtype));
    }
}

TEST(NpuScaledMaskedSoftmax, OneKernelEachWayAndErrors) {
  const auto op = softmaxOp();
  const at::Tensor x = at::randn({1, 2, 32, 32}).to(npu()).requires_grad_();
  const at::Tensor mask = at::zeros({1, 1, 32, 32}, at::kBool).to(npu());
  at::Tensor y;
  {
    OpRecorder rec;
    y = op.call(x, mask, 1.0, false);
    EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"ScaledMaskedSoftmax"}) << rec.summary();
  }
  const at::Tensor grad = at::randn({1, 2, 32, 32}).to(npu());
  torch_npu::synchronize(0);
  {
    OpRecorder rec;
    y.backward(grad);
    EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"ScaledMaskedSoftmaxGrad"}) << rec.summary();
  }
  EXPECT_THROW_WITH(op.call(at::randn({2, 32, 32}).to(npu()), mask, 1.0, false), "npu_scaled_masked_softmax", "4-D x");
  EXPECT_THROW_WITH(op.call(x.detach(), at::zeros({1, 1, 32, 32}).to(npu()), 1.0, false), "bool mask");
  EXPECT_THROW_WITH(op.call(x.detach(), at::zeros({1, 1, 32, 16}, at::kBool).to(npu()), 1.0, false), "last two dims");
  EXPECT_THROW_WITH(
      op.call(at::randn({1, 1, 32, 48}).to(npu()), at::zeros({1, 1, 32, 48}, at::kBool).to(npu()), 1.0, false),
      "multiples of 32 in [32, 4096]");
}
