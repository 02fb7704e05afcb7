// CTC loss on CTCLossV2 / CTCLossV2Grad (AI CPU; Note [CTC recursions] in the
// simulator). nn.CTCLoss / F.ctc_loss are composite in PyTorch: they call
// these with the lengths as host lists and apply the reduction and
// zero_infinity themselves.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void checkCtcInputs(const at::Tensor& log_probs, const at::Tensor& targets, at::IntArrayRef input_lengths,
                    at::IntArrayRef target_lengths, int64_t blank) {
  TORCH_CHECK(log_probs.dim() == 3, "ctc_loss: log_probs must be [T, N, C], got ", log_probs.sizes());
  TORCH_CHECK(at::isFloatingType(log_probs.scalar_type()), "ctc_loss: log_probs must be a floating point tensor, got ",
              log_probs.scalar_type());
  TORCH_CHECK(targets.scalar_type() == at::kLong || targets.scalar_type() == at::kInt,
              "ctc_loss: targets must be int32 or int64, got ", targets.scalar_type());
  const int64_t batch = log_probs.size(1);
  TORCH_CHECK(blank >= 0 && blank < log_probs.size(2), "blank must be in label range");
  TORCH_CHECK(static_cast<int64_t>(input_lengths.size()) == batch, "input_lengths must be of size batch_size");
  TORCH_CHECK(static_cast<int64_t>(target_lengths.size()) == batch, "target_lengths must be of size batch_size");
  for (int64_t b = 0; b < batch; ++b) {
    TORCH_CHECK(input_lengths[b] >= 0 && input_lengths[b] <= log_probs.size(0), "Expected input_lengths to have value at most ",
                log_probs.size(0), ", but got value ", input_lengths[b], " (while checking arguments for ctc_loss)");
    if (targets.dim() == 2) {
      TORCH_CHECK(target_lengths[b] >= 0 && target_lengths[b] <= targets.size(1), "Expected tensor to have size at least ",
                  target_lengths[b], " at dimension 1, but got size ", targets.size(1), " for argument #2 'targets'");
    }
  }
}

at::Tensor lengthsOnDevice(at::IntArrayRef lengths, const at::Tensor& like) {
  return at::tensor(std::vector<int64_t>(lengths.begin(), lengths.end()), at::kLong).to(like.device());
}

std::vector<int64_t> hostLengths(const at::Tensor& lengths) {
  const at::Tensor host = lengths.to(at::kLong).cpu().contiguous();
  return std::vector<int64_t>(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + host.numel());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::_ctc_loss(const at::Tensor& log_probs, const at::Tensor& targets,
                                                                  at::IntArrayRef input_lengths,
                                                                  at::IntArrayRef target_lengths, int64_t blank,
                                                                  bool /*zero_infinity*/) {
  checkCtcInputs(log_probs, targets, input_lengths, target_lengths, blank);
  const int64_t max_target = target_lengths.empty() ? 0 : *std::max_element(target_lengths.begin(), target_lengths.end());
  at::Tensor nll = torch_npu::emptyNpu({log_probs.size(1)}, log_probs.scalar_type(), log_probs.device());
  at::Tensor log_alpha = torch_npu::emptyNpu({log_probs.size(1), log_probs.size(0), 2 * max_target + 1},
                                             log_probs.scalar_type(), log_probs.device());
  if (log_probs.size(1) == 0) return {nll, log_alpha};
  torch_npu::OpCommand cmd("CTCLossV2");
  cmd.Input(log_probs)
      .Input(targets.numel() == 0 ? targets.reshape({targets.dim() == 2 ? targets.size(0) : 0, 0}) : targets)
      .Input(lengthsOnDevice(input_lengths, log_probs))
      .Input(lengthsOnDevice(target_lengths, log_probs))
      .Output(nll)
      .Output(log_alpha)
      .Attr("blank", blank)
      .Run();
  return {nll, log_alpha};
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::_ctc_loss(const at::Tensor& log_probs, const at::Tensor& targets,
                                                                  const at::Tensor& input_lengths,
                                                                  const at::Tensor& target_lengths, int64_t blank,
                                                                  bool zero_infinity) {
  return _ctc_loss(log_probs, targets, hostLengths(input_lengths), hostLengths(target_lengths), blank, zero_infinity);
}

at::Tensor NPUNativeFunctions::_ctc_loss_backward(const at::Tensor& grad, const at::Tensor& log_probs,
                                                  const at::Tensor& targets, at::IntArrayRef input_lengths,
                                                  at::IntArrayRef target_lengths, const at::Tensor& neg_log_likelihood,
                                                  const at::Tensor& /*log_alpha*/, int64_t blank, bool zero_infinity) {
  checkCtcInputs(log_probs, targets, input_lengths, target_lengths, blank);
  at::Tensor result = torch_npu::emptyNpu(log_probs.sizes(), log_probs.scalar_type(), log_probs.device());
  if (log_probs.numel() == 0) return result;
  torch_npu::OpCommand cmd("CTCLossV2Grad");
  cmd.Input(grad.to(log_probs.scalar_type()))
      .Input(log_probs)
      .Input(targets)
      .Input(lengthsOnDevice(input_lengths, log_probs))
      .Input(lengthsOnDevice(target_lengths, log_probs))
      .Input(neg_log_likelihood.to(log_probs.scalar_type()))
      .Output(result)
      .Attr("blank", blank)
      .Attr("zero_infinity", zero_infinity)
      .Run();
  return result;
}

at::Tensor NPUNativeFunctions::_ctc_loss_backward(const at::Tensor& grad, const at::Tensor& log_probs,
                                                  const at::Tensor& targets, const at::Tensor& input_lengths,
                                                  const at::Tensor& target_lengths,
                                                  const at::Tensor& neg_log_likelihood, const at::Tensor& log_alpha,
                                                  int64_t blank, bool zero_infinity) {
  return _ctc_loss_backward(grad, log_probs, targets, hostLengths(input_lengths), hostLengths(target_lengths),
                            neg_log_likelihood, log_alpha, blank, zero_infinity);
}

}  // namespace native
}  // namespace at_npu
