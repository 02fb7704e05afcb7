// ctc_loss (CTCLossV2 / CTCLossV2Grad) against the CPU: padded and
// concatenated targets, int32 / int64 targets, host and tensor lengths, every
// reduction, zero_infinity with an impossible alignment, fp16 (which the CPU
// lacks) against the fp32 CPU result, empty batches, and the argument errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

constexpr int64_t kT = 9, kN = 4, kC = 5;
// Batch 3 cannot align (4 labels with a repeat need 5 frames, it has 4).
const std::vector<int64_t> kInputLengths = {9, 7, 5, 4};
const std::vector<int64_t> kTargetLengths = {3, 2, 0, 4};

at::Tensor logProbs() { return at::randn({kT, kN, kC}).log_softmax(2); }

at::Tensor paddedTargets(at::ScalarType dtype) {
  return at::tensor({1, 2, 2, 9, 4, 4, 9, 9, 9, 9, 9, 9, 3, 3, 1, 2}, at::kLong).view({kN, 4}).to(dtype);
}

at::Tensor concatenatedTargets() { return at::tensor({1, 2, 2, 4, 4, 3, 3, 1, 2}, at::kLong); }

TensorFn ctc(const at::Tensor& targets, int64_t reduction, bool zero_infinity) {
  return [=](const std::vector<at::Tensor>& in) {
    return at::ctc_loss(in[0], targets.to(in[0].device()), kInputLengths, kTargetLengths, 0, reduction, zero_infinity);
  };
}

}  // namespace

TEST(NpuCtcLoss, ForwardBackwardMatchCpu) {
  for (bool zero_infinity : {false, true})
    for (int64_t reduction : {at::Reduction::None, at::Reduction::Mean, at::Reduction::Sum}) {
      SCOPED_TRACE("reduction " + std::to_string(reduction) + (zero_infinity ? " zero_infinity" : ""));
      // Without zero_infinity the impossible batch gives inf and NaN gradients on both devices.
      expectSameAutograd(ctc(paddedTargets(at::kLong), reduction, zero_infinity), {logProbs()});
      expectSameAutograd(ctc(paddedTargets(at::kInt), reduction, zero_infinity), {logProbs()});
      expectSameAutograd(ctc(concatenatedTargets(), reduction, zero_infinity), {logProbs()});
    }
}

TEST(NpuCtcLoss, TensorLengthsAndNonContiguousInput) {
  const at::Tensor targets = paddedTargets(at::kLong), lengths_in = at::tensor(kInputLengths),
                   lengths_tg = at::tensor(kTargetLengths).to(at::kInt);
  expectSameAutograd(
      [&](const std::vector<at::Tensor>& in) {
        const auto dev = in[0].device();
        return at::ctc_loss(in[0], targets.to(dev), lengths_in.to(dev), lengths_tg.to(dev), 0, at::Reduction::Mean,
                            true);
      },
      {logProbs()});
  // [N, T, C] data transposed to [T, N, C], and a blank other than 0
  expectSameAutograd(
      [&](const std::vector<at::Tensor>& in) {
        return at::ctc_loss(in[0].transpose(0, 1), paddedTargets(at::kLong).to(in[0].device()).remainder(4),
                            kInputLengths, kTargetLengths, 4, at::Reduction::Sum, true);
      },
      {at::randn({kN, kT, kC}).log_softmax(2)});
}

TEST(NpuCtcLoss, HalfAgainstFloatCpu) {
  // The CPU has no fp16 CTC; the NPU computes in double and rounds once, so
  // the fp16 loss is within fp16 rounding of the fp32 CPU loss on the same
  // (fp16-rounded) inputs. The gradient goes through fp16 nll: two roundings.
  // Every batch aligns here: on the 910A an impossible alignment's inf
  // saturates to 65504 in fp16 (saturation mode, docs/simulated_device.md), which
  // zero_infinity cannot recognise; autocast runs ctc_loss in fp32.
  const std::vector<int64_t> input_lengths = {9, 7, 5, 5};
  const at::Tensor lp = logProbs().to(at::kHalf);
  at::Tensor cpu_in = lp.to(at::kFloat).requires_grad_(), npu_in = lp.to(npu()).requires_grad_();
  const at::Tensor targets = paddedTargets(at::kLong);
  at::Tensor cpu_loss = at::ctc_loss(cpu_in, targets, input_lengths, kTargetLengths, 0, at::Reduction::Sum);
  at::Tensor npu_loss = at::ctc_loss(npu_in, targets.to(npu()), input_lengths, kTargetLengths, 0, at::Reduction::Sum);
  expectClose(npu_loss, cpu_loss.detach().to(at::kHalf), kHalfRtol, kHalfAtol);
  cpu_loss.backward();
  npu_loss.backward();
  expectClose(npu_in.grad(), cpu_in.grad().to(at::kHalf), 4 * kHalfRtol, 4 * kHalfAtol);
}

TEST(NpuCtcLoss, EmptyBatchAndBadArguments) {
  at::Tensor empty = at::randn({kT, 0, kC}).to(npu()).requires_grad_();
  at::Tensor loss = at::ctc_loss(empty, at::zeros({0, 3}, at::kLong).to(npu()), std::vector<int64_t>{},
                                 std::vector<int64_t>{}, 0, at::Reduction::Sum, false);
  loss.backward();
  EXPECT_EQ(loss.item<float>(), 0.0f);
  EXPECT_EQ(empty.grad().sizes(), empty.sizes());

  const at::Tensor lp = logProbs().to(npu()), targets = paddedTargets(at::kLong).to(npu());
  const std::vector<int64_t> too_long = {10, 7, 5, 4}, three = {9, 7, 5};
  EXPECT_THROW_WITH(at::ctc_loss(lp, targets, too_long, kTargetLengths), "Expected input_lengths to have value at most 9");
  EXPECT_THROW_WITH(at::ctc_loss(lp, targets, three, kTargetLengths), "input_lengths must be of size batch_size");
  EXPECT_THROW_WITH(at::ctc_loss(lp, targets, kInputLengths, kTargetLengths, 5), "blank must be in label range");
  EXPECT_THROW_WITH(at::ctc_loss(lp.unsqueeze(3), targets, kInputLengths, kTargetLengths), "log_probs must be [T, N, C]");
  const std::vector<int64_t> long_target = {5, 2, 0, 4};
  EXPECT_THROW_WITH(at::ctc_loss(lp, targets, kInputLengths, long_target), "Expected tensor to have size at least 5");
}
