// Pointwise losses: smooth_l1_loss, huber_loss and soft_margin_loss, forward and backward.
// The Vector op computes the per-element loss (or gradient); a "mean" or
// "sum" reduction then runs as ReduceMean/ReduceSum, so it follows OPS.md's
// reduction rule. The backward scales grad_output by 1/numel for "mean"
// before the op, which broadcasts the 0-d result over the elements.
// The margin losses (multi_margin_loss, multilabel_margin_loss) are one
// kernel each that reduces itself (attr `reduction`).
#include <ATen/core/Reduction.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/PointwiseMath.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

// The kernels' `reduction` attribute; also validates the enum.
const char* reductionAttr(int64_t reduction) {
  switch (reduction) {
    case at::Reduction::None: return "none";
    case at::Reduction::Sum: return "sum";
    case at::Reduction::Mean: return "mean";
    default: TORCH_CHECK(false, "invalid loss reduction ", reduction, " (expected 0 none, 1 mean or 2 sum)");
  }
}
void checkReduction(int64_t reduction) { (void)reductionAttr(reduction); }

// op(self, target) per element, then the reduction, into out. attr (may be
// nullptr: none) is the op's float parameter.
at::Tensor& lossInto(const char* op, const char* attr, double param, const at::Tensor& self,
                     const at::Tensor& target, int64_t reduction, at::Tensor& out) {
  checkReduction(reduction);
  torch_npu::checkFloatingInput(op, self);
  const auto dtype = torch_npu::commonDtype({self, target}, false);
  const float p = static_cast<float>(param);
  const torch_npu::AttrSetter attrs = [attr, p](OpCommand& cmd) {
    if (attr != nullptr) cmd.Attr(attr, p);
  };
  if (reduction == at::Reduction::None) return torch_npu::pointwiseInto(op, {self, target}, dtype, dtype, out, attrs);
  at::Tensor per_element = torch_npu::pointwiseResult({self, target}, dtype);
  torch_npu::pointwiseInto(op, {self, target}, dtype, dtype, per_element, attrs);
  at::Tensor reduced = reduction == at::Reduction::Mean ? at::mean(per_element) : at::sum(per_element);
  at::native::resize_output(out, {});
  return torch_npu::finishOut(out, reduced);
}

at::Tensor& lossGradInto(const char* op, const char* attr, double param, const at::Tensor& grad_output,
                         const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                         at::Tensor& grad_input) {
  checkReduction(reduction);
  const auto dtype = torch_npu::commonDtype({self, target}, false);
  at::Tensor dout = grad_output;
  if (reduction == at::Reduction::Mean && self.numel() > 0) dout = at::div(grad_output, self.numel());
  const float p = static_cast<float>(param);
  at::native::resize_output(grad_input, self.sizes());
  return torch_npu::pointwiseInto(op, {self, target, dout}, dtype, dtype, grad_input, [attr, p](OpCommand& cmd) {
    if (attr != nullptr) cmd.Attr(attr, p);
  });
}

}  // namespace

// ---- smooth_l1_loss (beta = 0 is the L1 loss: the formula needs no special case) --------------
at::Tensor& NPUNativeFunctions::smooth_l1_loss_out(const at::Tensor& self, const at::Tensor& target,
                                                   int64_t reduction, double beta, at::Tensor& out) {
  TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  return lossInto("SmoothL1LossV2", "sigma", beta, self, target, reduction, out);
}
at::Tensor& NPUNativeFunctions::smooth_l1_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                            const at::Tensor& target, int64_t reduction, double beta,
                                                            at::Tensor& grad_input) {
  return lossGradInto("SmoothL1LossGradV2", "sigma", beta, grad_output, self, target, reduction, grad_input);
}

// ---- huber_loss ----------------------------------------------------------------------------------
at::Tensor& NPUNativeFunctions::huber_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                                               double delta, at::Tensor& out) {
  TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  return lossInto("HuberLoss", "delta", delta, self, target, reduction, out);
}
at::Tensor NPUNativeFunctions::huber_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                                          double delta) {
  at::Tensor out = torch_npu::emptyNpu({0}, torch_npu::commonDtype({self, target}, false), self.device());
  return huber_loss_out(self, target, reduction, delta, out);
}
at::Tensor& NPUNativeFunctions::huber_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                        const at::Tensor& target, int64_t reduction, double delta,
                                                        at::Tensor& grad_input) {
  return lossGradInto("HuberLossGrad", "delta", delta, grad_output, self, target, reduction, grad_input);
}

// ---- soft_margin_loss: log(1 + exp(-target * self)) ---------------------------------------------
at::Tensor& NPUNativeFunctions::soft_margin_loss_out(const at::Tensor& self, const at::Tensor& target,
                                                     int64_t reduction, at::Tensor& out) {
  return lossInto("SoftMarginLoss", nullptr, 0.0, self, target, reduction, out);
}
at::Tensor NPUNativeFunctions::soft_margin_loss(const at::Tensor& self, const at::Tensor& target,
                                                int64_t reduction) {
  at::Tensor out = torch_npu::emptyNpu({0}, torch_npu::commonDtype({self, target}, false), self.device());
  return soft_margin_loss_out(self, target, reduction, out);
}
at::Tensor& NPUNativeFunctions::soft_margin_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                              const at::Tensor& target, int64_t reduction,
                                                              at::Tensor& grad_input) {
  return lossGradInto("SoftMarginLossGrad", nullptr, 0.0, grad_output, self, target, reduction, grad_input);
}
at::Tensor NPUNativeFunctions::soft_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                         const at::Tensor& target, int64_t reduction) {
  at::Tensor grad_input = torch_npu::emptyNpu(self.sizes(), torch_npu::commonDtype({self, target}, false),
                                              self.device());
  return soft_margin_loss_backward_out(grad_output, self, target, reduction, grad_input);
}

// ---- multi_margin_loss ------------------------------------------------------------------------
namespace {
// The margin losses take a 0-d, [C] or [N, C] input with C > 0 (N may be 0).
void checkMarginInput(const char* op, const at::Tensor& self) {
  torch_npu::checkFloatingInput(op, self);
  const int64_t d = self.dim();
  TORCH_CHECK(d == 0 || ((d == 1 || d == 2) && self.size(-1) != 0), op, ": Expected non-empty vector or matrix with "
              "optional 0-dim batch size, but got: ", self.sizes());
}

struct MarginOperands {
  at::Tensor x, target, weight;  // x [N, C] or [C] contiguous, target [N] int64, weight [C]
};

MarginOperands multiMarginOperands(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                                   const c10::optional<at::Tensor>& weight) {
  TORCH_CHECK(p.equal(1) || p.equal(2), "only p == 1 and p == 2 supported");
  checkMarginInput("multi_margin_loss", self);
  const at::Tensor x = self.dim() == 0 ? self.reshape({1}) : self.contiguous();
  const int64_t n = x.dim() == 2 ? x.size(0) : 1, c = x.size(-1);
  TORCH_CHECK(target.numel() == n && target.dim() <= 1, "inconsistent target size, expected ", n, " but got ",
              target.sizes());
  at::Tensor w = weight.has_value() && weight->defined() ? weight->contiguous() : at::ones({c}, x.options());
  TORCH_CHECK(w.numel() == c, "inconsistent weight size, expected ", c, " but got ", w.sizes());
  return {x, target.to(at::kLong).contiguous(), w.to(x.scalar_type())};
}

std::vector<int64_t> perSampleSizes(int64_t reduction, const at::Tensor& target, int64_t n) {
  if (reduction != at::Reduction::None || target.dim() == 0) return {};
  return {n};
}
}  // namespace

at::Tensor& NPUNativeFunctions::multi_margin_loss_out(const at::Tensor& self, const at::Tensor& target,
                                                      const at::Scalar& p, const at::Scalar& margin,
                                                      const c10::optional<at::Tensor>& weight, int64_t reduction,
                                                      at::Tensor& out) {
  const char* red = reductionAttr(reduction);
  const MarginOperands o = multiMarginOperands(self, target, p, weight);
  const auto sizes = perSampleSizes(reduction, target, o.target.numel());
  return torch_npu::runInto("MultiMarginLoss", out, sizes, o.x.scalar_type(), [&](OpCommand& cmd) {
    cmd.Input(o.x).Input(o.target).Input(o.weight);
    cmd.Attr("p", p.to<int64_t>()).Attr("margin", margin.to<float>()).Attr("reduction", std::string(red));
  });
}
at::Tensor NPUNativeFunctions::multi_margin_loss(const at::Tensor& self, const at::Tensor& target,
                                                 const at::Scalar& p, const at::Scalar& margin,
                                                 const c10::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return multi_margin_loss_out(self, target, p, margin, weight, reduction, out);
}
at::Tensor& NPUNativeFunctions::multi_margin_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                               const at::Tensor& target, const at::Scalar& p,
                                                               const at::Scalar& margin,
                                                               const c10::optional<at::Tensor>& weight,
                                                               int64_t reduction, at::Tensor& grad_input) {
  const char* red = reductionAttr(reduction);
  const MarginOperands o = multiMarginOperands(self, target, p, weight);
  const at::Tensor g = grad_output.to(o.x.scalar_type()).contiguous();
  at::Tensor& result = torch_npu::runInto("MultiMarginLossGrad", grad_input, o.x.sizes(), o.x.scalar_type(),
                                          [&](OpCommand& cmd) {
    cmd.Input(o.x).Input(g).Input(o.target).Input(o.weight);
    cmd.Attr("p", p.to<int64_t>()).Attr("margin", margin.to<float>()).Attr("reduction", std::string(red));
  });
  if (self.dim() == 0) result.resize_({});
  return result;
}
at::Tensor NPUNativeFunctions::multi_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                          const at::Tensor& target, const at::Scalar& p,
                                                          const at::Scalar& margin,
                                                          const c10::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor grad_input = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return multi_margin_loss_backward_out(grad_output, self, target, p, margin, weight, reduction, grad_input);
}

// ---- multilabel_margin_loss -------------------------------------------------------------------
namespace {
// x [N, C] or [C] and target of the same shape (int64), both contiguous.
std::pair<at::Tensor, at::Tensor> multilabelOperands(const at::Tensor& self, const at::Tensor& target) {
  checkMarginInput("multilabel_margin_loss", self);
  TORCH_CHECK(target.sizes() == self.sizes(), "inconsistent target size: ", target.sizes(), " for input of size: ",
              self.sizes());
  const at::Tensor x = self.dim() == 0 ? self.reshape({1}) : self.contiguous();
  return {x, target.reshape(x.sizes()).to(at::kLong).contiguous()};
}
}  // namespace

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::multilabel_margin_loss_forward_out(
    const at::Tensor& self, const at::Tensor& target, int64_t reduction, at::Tensor& output, at::Tensor& is_target) {
  const char* red = reductionAttr(reduction);
  const auto xt = multilabelOperands(self, target);
  const int64_t n = xt.first.dim() == 2 ? xt.first.size(0) : 1;
  const std::vector<int64_t> sizes =
      reduction == at::Reduction::None && self.dim() == 2 ? std::vector<int64_t>{n} : std::vector<int64_t>{};
  at::native::resize_output(output, sizes);
  at::native::resize_output(is_target, xt.first.sizes());
  OpCommand cmd("MultilabelMarginLoss");
  cmd.Input(xt.first).Input(xt.second).Output(output).Output(is_target).Attr("reduction", std::string(red)).Run();
  is_target.resize_(self.sizes());
  return {output, is_target};
}
::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::multilabel_margin_loss_forward(const at::Tensor& self,
                                                                                       const at::Tensor& target,
                                                                                       int64_t reduction) {
  at::Tensor output = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  at::Tensor is_target = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  multilabel_margin_loss_forward_out(self, target, reduction, output, is_target);
  return {output, is_target};
}
at::Tensor& NPUNativeFunctions::multilabel_margin_loss_backward_out(const at::Tensor& grad_output,
                                                                    const at::Tensor& self, const at::Tensor& target,
                                                                    int64_t reduction, const at::Tensor& is_target,
                                                                    at::Tensor& grad_input) {
  const char* red = reductionAttr(reduction);
  const auto xt = multilabelOperands(self, target);
  const at::Tensor g = grad_output.to(xt.first.scalar_type()).contiguous();
  const at::Tensor mark = is_target.reshape(xt.first.sizes()).to(xt.first.scalar_type()).contiguous();
  at::Tensor& result = torch_npu::runInto("MultilabelMarginLossGrad", grad_input, xt.first.sizes(),
                                          xt.first.scalar_type(), [&](OpCommand& cmd) {
    cmd.Input(xt.first).Input(g).Input(xt.second).Input(mark).Attr("reduction", std::string(red));
  });
  result.resize_(self.sizes());
  return result;
}
at::Tensor NPUNativeFunctions::multilabel_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                               const at::Tensor& target, int64_t reduction,
                                                               const at::Tensor& is_target) {
  at::Tensor grad_input = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return multilabel_margin_loss_backward_out(grad_output, self, target, reduction, is_target, grad_input);
}

}  // namespace native
}  // namespace at_npu
