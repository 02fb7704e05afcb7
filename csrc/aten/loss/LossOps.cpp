// Softmax / log-softmax (forward and backward), nll_loss and mse_loss.
#include <ATen/ATen.h>
#include <ATen/core/Reduction.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

const char* reductionName(int64_t reduction) {
  switch (reduction) {
    case at::Reduction::None: return "none";
    case at::Reduction::Sum: return "sum";
    case at::Reduction::Mean: return "mean";
    default: TORCH_CHECK(false, "invalid loss reduction ", reduction, " (expected 0 none, 1 mean or 2 sum)");
  }
}

at::Tensor& softmaxOut(const char* op, const at::Tensor& self, int64_t dim, bool half_to_float, at::Tensor& out) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), op, ": expected a floating point input, got ",
              self.scalar_type());
  const auto dtype = half_to_float ? at::kFloat : self.scalar_type();
  const int64_t axis = c10::maybe_wrap_dim(dim, self.dim());
  if (self.dim() == 0) {  // as a one-element vector: 1 (log: 0) when finite, NaN for ±inf and NaN, as the CPU
    at::Tensor vector_out = at::empty({0}, out.options());
    softmaxOut(op, self.reshape({1}), 0, half_to_float, vector_out);
    at::native::resize_output(out, {});
    return out.copy_(vector_out.reshape({}));
  }
  return torch_npu::runInto(op, out, self.sizes(), dtype, [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, self, dtype);
    cmd.Attr("axes", at::IntArrayRef({axis}));
  });
}

// op(first, second) for the softmax gradients, in the output's dtype.
at::Tensor& softmaxGradOut(const char* op, const at::Tensor& first, const at::Tensor& second,
                           const at::Tensor& grad_output, int64_t dim, at::ScalarType input_dtype, at::Tensor& out) {
  const int64_t axis = c10::maybe_wrap_dim(dim, grad_output.dim());
  const auto compute = grad_output.scalar_type();
  at::Tensor result = torch_npu::prepareOut(op, out, grad_output.sizes(), compute);
  if (grad_output.dim() == 0) {
    result.zero_();
  } else {
    torch_npu::OpCommand(op).Input(first).Input(second).Output(result).Attr("axes", at::IntArrayRef({axis})).Run();
  }
  torch_npu::finishOut(out, result);
  if (input_dtype != compute) out.copy_(out.to(input_dtype));
  return out;
}

void checkNll(const at::Tensor& self, const at::Tensor& target, const c10::optional<at::Tensor>& weight) {
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "nll_loss: input must be 1-D or 2-D, got ", self.dim(), "-D");
  TORCH_CHECK(target.dim() <= 1, "nll_loss: 0D or 1D target tensor expected, multi-target not supported");
  const bool no_batch = self.dim() == 1 && target.dim() == 0;
  TORCH_CHECK(no_batch || self.size(0) == target.size(0), "Expected input batch_size (", self.size(0),
              ") to match target batch_size (", target.size(0), ").");
  TORCH_CHECK(target.scalar_type() == at::kLong || target.scalar_type() == at::kInt,
              "nll_loss: expected target of dtype int64 or int32, got ", target.scalar_type());
  const int64_t classes = self.size(-1);
  TORCH_CHECK(!weight || !weight->defined() || weight->numel() == classes, "weight tensor should be defined either ",
              "for all ", classes, " classes or no classes but got weight tensor of shape: ", weight->sizes());
}

at::Tensor weightOrOnes(const at::Tensor& self, const c10::optional<at::Tensor>& weight) {
  if (weight && weight->defined()) return weight->to(self.scalar_type()).contiguous();
  return at::ones({self.size(-1)}, self.options());
}

}  // namespace

at::Tensor& NPUNativeFunctions::_log_softmax_out(const at::Tensor& self, int64_t dim, bool half_to_float,
                                                 at::Tensor& out) {
  return softmaxOut("LogSoftmaxV2", self, dim, half_to_float, out);
}
at::Tensor& NPUNativeFunctions::_softmax_out(const at::Tensor& self, int64_t dim, bool half_to_float,
                                             at::Tensor& out) {
  return softmaxOut("SoftmaxV2", self, dim, half_to_float, out);
}

at::Tensor& NPUNativeFunctions::_log_softmax_backward_data_out(const at::Tensor& grad_output, const at::Tensor& output,
                                                               int64_t dim, at::ScalarType input_dtype,
                                                               at::Tensor& out) {
  return softmaxGradOut("LogSoftmaxGrad", grad_output, output, grad_output, dim, input_dtype, out);
}
at::Tensor& NPUNativeFunctions::_softmax_backward_data_out(const at::Tensor& grad_output, const at::Tensor& output,
                                                           int64_t dim, at::ScalarType input_dtype,
                                                           at::Tensor& grad_input) {
  return softmaxGradOut("SoftmaxGrad", output, grad_output, grad_output, dim, input_dtype, grad_input);
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::nll_loss_forward_out(
    const at::Tensor& self, const at::Tensor& target, const c10::optional<at::Tensor>& weight, int64_t reduction,
    int64_t ignore_index, at::Tensor& output, at::Tensor& total_weight) {
  checkNll(self, target, weight);
  const char* mode = reductionName(reduction);
  const bool per_sample = reduction == at::Reduction::None && self.dim() == 2;
  std::vector<int64_t> out_sizes;
  if (per_sample) out_sizes.push_back(self.size(0));
  at::Tensor out = torch_npu::prepareOut("NLLLoss", output, out_sizes, self.scalar_type());
  at::Tensor tw = torch_npu::prepareOut("NLLLoss", total_weight, {}, self.scalar_type());
  torch_npu::OpCommand("NLLLoss")
      .Input(self)
      .Input(target)
      .Input(weightOrOnes(self, weight))
      .Output(out)
      .Output(tw)
      .Attr("reduction", mode)
      .Attr("ignore_index", ignore_index)
      .Run();
  torch_npu::finishOut(output, out);
  torch_npu::finishOut(total_weight, tw);
  return {output, total_weight};
}

at::Tensor& NPUNativeFunctions::nll_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                      const at::Tensor& target,
                                                      const c10::optional<at::Tensor>& weight, int64_t reduction,
                                                      int64_t ignore_index, const at::Tensor& total_weight,
                                                      at::Tensor& grad_input) {
  checkNll(self, target, weight);
  return torch_npu::runInto("NLLLossGrad", grad_input, self.sizes(), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Input(self);
                              torch_npu::addInputAs(cmd, grad_output, self.scalar_type());
                              cmd.Input(target).Input(weightOrOnes(self, weight));
                              torch_npu::addInputAs(cmd, total_weight, self.scalar_type());
                              cmd.Attr("reduction", reductionName(reduction)).Attr("ignore_index", ignore_index);
                            });
}

// binary_cross_entropy(_with_logits) on BinaryCrossEntropy(Grad) and
// SigmoidCrossEntropyWithLogitsV2; autograd of the logits form uses
// PyTorch's formula (composed of NPU ops).
namespace {

std::vector<int64_t> lossSizes(const at::Tensor& self, int64_t reduction) {
  reductionName(reduction);
  return reduction == at::Reduction::None ? self.sizes().vec() : std::vector<int64_t>{};
}

void addOptional(torch_npu::OpCommand& cmd, const c10::optional<at::Tensor>& t, const at::Tensor& like,
                 const char* flag) {
  const bool present = t.has_value() && t->defined();
  if (present) torch_npu::addInputAs(cmd, t->expand(like.sizes()), like.scalar_type());
  cmd.Attr(flag, present);
}

}  // namespace

at::Tensor& NPUNativeFunctions::binary_cross_entropy_out(const at::Tensor& self, const at::Tensor& target,
                                                         const c10::optional<at::Tensor>& weight, int64_t reduction,
                                                         at::Tensor& out) {
  TORCH_CHECK(self.sizes() == target.sizes(), "Using a target size (", target.sizes(), ") that is different to the "
              "input size (", self.sizes(), ") is deprecated. Please ensure they have the same size.");
  return torch_npu::runInto("BinaryCrossEntropy", out, lossSizes(self, reduction), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Input(self);
                              torch_npu::addInputAs(cmd, target, self.scalar_type());
                              addOptional(cmd, weight, self, "has_weight");
                              cmd.Attr("reduction", reductionName(reduction));
                            });
}
at::Tensor NPUNativeFunctions::binary_cross_entropy(const at::Tensor& self, const at::Tensor& target,
                                                    const c10::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return binary_cross_entropy_out(self, target, weight, reduction, out);
}
at::Tensor& NPUNativeFunctions::binary_cross_entropy_backward_out(const at::Tensor& grad_output,
                                                                  const at::Tensor& self, const at::Tensor& target,
                                                                  const c10::optional<at::Tensor>& weight,
                                                                  int64_t reduction, at::Tensor& grad_input) {
  return torch_npu::runInto("BinaryCrossEntropyGrad", grad_input, self.sizes(), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Input(self);
                              torch_npu::addInputAs(cmd, target, self.scalar_type());
                              torch_npu::addInputAs(cmd, grad_output, self.scalar_type());
                              addOptional(cmd, weight, self, "has_weight");
                              cmd.Attr("reduction", reductionName(reduction));
                            });
}
at::Tensor NPUNativeFunctions::binary_cross_entropy_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                             const at::Tensor& target,
                                                             const c10::optional<at::Tensor>& weight,
                                                             int64_t reduction) {
  at::Tensor grad_input = torch_npu::emptyNpuLike(self);
  return binary_cross_entropy_backward_out(grad_output, self, target, weight, reduction, grad_input);
}
at::Tensor NPUNativeFunctions::binary_cross_entropy_with_logits(const at::Tensor& self, const at::Tensor& target,
                                                                const c10::optional<at::Tensor>& weight,
                                                                const c10::optional<at::Tensor>& pos_weight,
                                                                int64_t reduction) {
  TORCH_CHECK(self.sizes() == target.sizes(), "Target size (", target.sizes(), ") must be the same as input size (",
              self.sizes(), ")");
  at::Tensor out = torch_npu::emptyNpu(lossSizes(self, reduction), self.scalar_type(), self.device());
  return torch_npu::runInto("SigmoidCrossEntropyWithLogitsV2", out, out.sizes(), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Input(self);
                              torch_npu::addInputAs(cmd, target, self.scalar_type());
                              addOptional(cmd, weight, self, "has_weight");
                              addOptional(cmd, pos_weight, self, "has_pos_weight");
                              cmd.Attr("reduction", reductionName(reduction));
                            });
}

// mse_loss is composed of NPU ops: (self - target)^2, then the reduction.
at::Tensor& NPUNativeFunctions::mse_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                                             at::Tensor& out) {
  reductionName(reduction);
  at::Tensor diff = at::sub(self, target);
  at::Tensor squared = at::mul(diff, diff);
  if (reduction == at::Reduction::None) {
    at::native::resize_output(out, squared.sizes());
    return torch_npu::finishOut(out, squared);
  }
  at::Tensor reduced = reduction == at::Reduction::Mean ? at::mean(squared) : at::sum(squared);
  at::native::resize_output(out, {});
  return torch_npu::finishOut(out, reduced);
}

at::Tensor& NPUNativeFunctions::mse_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                      const at::Tensor& target, int64_t reduction,
                                                      at::Tensor& grad_input) {
  const double norm = reduction == at::Reduction::Mean ? 2.0 / static_cast<double>(self.numel()) : 2.0;
  at::Tensor grad = at::mul(at::sub(self, target), grad_output).mul_(norm);
  at::native::resize_output(grad_input, self.sizes());
  return torch_npu::finishOut(grad_input, grad);
}
at::Tensor NPUNativeFunctions::mse_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                 const at::Tensor& target, int64_t reduction) {
  at::Tensor grad_input = torch_npu::emptyNpuLike(self);
  return mse_loss_backward_out(grad_output, self, target, reduction, grad_input);
}

}  // namespace native
}  // namespace at_npu
