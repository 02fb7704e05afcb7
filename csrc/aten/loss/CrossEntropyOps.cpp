// cross_entropy_loss, registered on AutogradPrivateUse1 (yaml "autograd:").
//
// Note [cross_entropy on the NPU]
// PyTorch 1.13's composite cross_entropy_loss multiplies by label_smoothing
// factors held in 0-d float64 tensors, which promotes 0-d results to float64
// — a dtype NPU kernels do not compute in (only Cast handles it, as in CANN);
// even Python-float factors come back as 0-d float64 tensors in MulBackward.
// This override composes the same NPU ops with the factors as 0-d device
// tensors of the input's dtype. It calls at:: ops above the autograd key, so
// autograd records them exactly as for the composite.
#include <ATen/ATen.h>
#include <ATen/core/Reduction.h>

#include "PrivateUse1NativeFunctions.h"

namespace at_npu {
namespace native {
namespace {

constexpr int64_t kClassDim = 1;

int64_t classDim(const at::Tensor& input) { return input.dim() == 1 ? 0 : kClassDim; }

// Broadcasts a [C] weight against `input` along the class dim.
at::Tensor weightView(const at::Tensor& weight, const at::Tensor& input) {
  std::vector<int64_t> shape(input.dim(), 1);
  shape[classDim(input)] = weight.numel();
  return weight.view(shape);
}

// A 0-d factor on the input's device and dtype (see the note above).
at::Tensor factor(double value, const at::Tensor& like) { return at::scalar_tensor(value, like.options()); }

at::Tensor reduce(const at::Tensor& loss, int64_t reduction, const at::Tensor& mean_divisor) {
  switch (reduction) {
    case at::Reduction::Mean: return mean_divisor.defined() ? loss.sum() / mean_divisor : loss.mean();
    case at::Reduction::Sum: return loss.sum();
    default: return loss;
  }
}

// Class-probability targets (same shape as the input).
at::Tensor probabilityTargetLoss(const at::Tensor& input, const at::Tensor& target, const at::Tensor& weight,
                                 int64_t reduction, double label_smoothing) {
  const int64_t dim = classDim(input);
  const int64_t classes = input.size(dim);
  at::Tensor t = label_smoothing > 0
                     ? target * factor(1 - label_smoothing, input) + factor(label_smoothing / classes, input)
                     : target;
  at::Tensor prod = input * t;
  if (weight.defined()) prod = prod * weightView(weight, input);
  at::Tensor loss = -prod.sum(dim);
  if (reduction == at::Reduction::Mean) return loss.sum() / factor(input.numel() / classes, input);
  return reduce(loss, reduction, at::Tensor());
}

}  // namespace

at::Tensor NPUNativeFunctions::cross_entropy_loss(const at::Tensor& self, const at::Tensor& target,
                                                  const c10::optional<at::Tensor>& weight_opt, int64_t reduction,
                                                  int64_t ignore_index, double label_smoothing) {
  TORCH_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
              "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  const at::Tensor weight = weight_opt.has_value() ? *weight_opt : at::Tensor();
  const int64_t dim = classDim(self);
  const at::Tensor input = at::log_softmax(self, dim, self.scalar_type());
  if (self.sizes() == target.sizes() && at::isFloatingType(target.scalar_type())) {
    TORCH_CHECK(ignore_index == -100, "ignore_index is not supported for floating point target");
    return probabilityTargetLoss(input, target, weight, reduction, label_smoothing);
  }
  const at::Tensor nll = at::nll_loss_nd(input, target, weight_opt, reduction, ignore_index);
  if (label_smoothing == 0.0) return nll;
  const int64_t classes = input.size(dim);
  const at::Tensor ignore_mask = target == ignore_index;
  at::Tensor smooth = weight.defined() ? -(input * weightView(weight, input)).sum(dim) : -input.sum(dim);
  smooth = smooth.masked_fill(ignore_mask, 0.0);
  at::Tensor divisor;
  if (reduction == at::Reduction::Mean) {
    // Normalised like nll_loss: by the weights of the non-ignored targets, or their count.
    const at::Tensor kept = ignore_mask.logical_not();
    divisor = weight.defined() ? at::where(kept, weight.index_select(0, target.masked_fill(ignore_mask, 0).reshape({-1})).view(target.sizes()), 0.0).sum()
                               : kept.sum().to(self.scalar_type());
  }
  return nll * factor(1.0 - label_smoothing, input) +
         reduce(smooth, reduction, divisor) * factor(label_smoothing / classes, input);
}

}  // namespace native
}  // namespace at_npu
