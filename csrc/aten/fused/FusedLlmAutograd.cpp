// Autograd of the fused LLM custom ops (FusedLlmOps.cpp): AutogradPrivateUse1
// kernels whose backward is ONE fused gradient kernel each.
//   fast_gelu, npu_fast_gelu      -> FastGeluGrad
//   npu_rms_norm                  -> RmsNormGrad (rstd is an output, not differentiable)
//   npu_add_rms_norm              -> RmsNormGrad on the sum x, plus x's own gradient, to both
//                                    addends (rstd not differentiable)
//   npu_rotary_mul                -> RotaryMulGrad (dr1/dr2 only when a table requires grad;
//                                    summed back to each table's own shape)
//   npu_softmax_cross_entropy_with_logits -> a Mul of the saved backprop (the forward
//                                    kernel's second output); labels, when they require
//                                    grad, get -grad * log_softmax(logits)
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "FusedLlmOps.h"
#include "NPUCustomFunctions.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <at::Tensor (*Forward)(const at::Tensor&)>
class FastGeluFunction : public torch::autograd::Function<FastGeluFunction<Forward>> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    ctx->save_for_backward({self});
    return Forward(self);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {NPUCustomFunctions::npu_fast_gelu_backward(grads[0], ctx->get_saved_variables()[0])};
  }
};

class RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& self, const at::Tensor& gamma,
                               double epsilon) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [y, rstd] = NPUCustomFunctions::npu_rms_norm(self, gamma, epsilon);
    ctx->save_for_backward({self, gamma, rstd});
    ctx->mark_non_differentiable({rstd});
    ctx->set_materialize_grads(false);  // rstd's gradient is never used: no Fill of zeros for it
    return {y, rstd};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &self = saved[0], &gamma = saved[1];
    if (!grads[0].defined()) return {at::Tensor(), at::Tensor(), at::Tensor()};
    auto [dx, dgamma] = NPUCustomFunctions::npu_rms_norm_backward(grads[0], self, gamma, saved[2]);
    return {dx, dgamma.to(gamma.scalar_type()), at::Tensor()};
  }
};

class AddRmsNormFunction : public torch::autograd::Function<AddRmsNormFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x1, const at::Tensor& x2,
                               const at::Tensor& gamma, double epsilon) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [y, rstd, x] = NPUCustomFunctions::npu_add_rms_norm(x1, x2, gamma, epsilon);
    ctx->save_for_backward({x, gamma, rstd});
    ctx->mark_non_differentiable({rstd});
    ctx->set_materialize_grads(false);
    return {y, rstd, x};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &gamma = saved[1];
    at::Tensor dx = grads[2], dgamma;
    if (grads[0].defined()) {
      auto [dx_norm, dgamma_norm] = NPUCustomFunctions::npu_rms_norm_backward(grads[0], x, gamma, saved[2]);
      dx = dx.defined() ? dx_norm + dx : dx_norm;
      dgamma = dgamma_norm.to(gamma.scalar_type());
    }
    return {dx, dx, dgamma, at::Tensor()};
  }
};

class RotaryMulFunction : public torch::autograd::Function<RotaryMulFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self, const at::Tensor& r1,
                            const at::Tensor& r2) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    ctx->save_for_backward({self, r1, r2});
    return NPUCustomFunctions::npu_rotary_mul(self, r1, r2);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &self = saved[0], &r1 = saved[1], &r2 = saved[2];
    const bool need_tables = ctx->needs_input_grad(1) || ctx->needs_input_grad(2);
    auto [dx, dr1, dr2] = rotaryMulGradients(grads[0], self, r1, r2, need_tables);
    return {dx.to(self.scalar_type()), dr1, dr2};
  }
};

class SoftmaxCrossEntropyFunction : public torch::autograd::Function<SoftmaxCrossEntropyFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self, const at::Tensor& labels) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [loss, backprop] = softmaxCrossEntropyWithLogits(self, labels);
    ctx->save_for_backward({backprop, self});
    ctx->saved_data["labels_dtype"] = labels.scalar_type();
    return loss;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &backprop = saved[0], &self = saved[1];
    const at::Tensor grad = grads[0].unsqueeze(-1);
    at::Tensor grad_self, grad_labels;
    if (ctx->needs_input_grad(0)) grad_self = (grad * backprop).to(self.scalar_type());
    if (ctx->needs_input_grad(1))
      grad_labels = (-grad * at::log_softmax(self.to(backprop.scalar_type()), -1))
                        .to(ctx->saved_data["labels_dtype"].toScalarType());
    return {grad_self, grad_labels};
  }
};

at::Tensor fastGeluV1(const at::Tensor& self) { return NPUCustomFunctions::fast_gelu(self); }
at::Tensor fastGeluV2(const at::Tensor& self) { return NPUCustomFunctions::npu_fast_gelu(self); }

std::tuple<at::Tensor, at::Tensor> rmsNormWithAutograd(const at::Tensor& self, const at::Tensor& gamma,
                                                       double epsilon) {
  auto outs = RmsNormFunction::apply(self, gamma, epsilon);
  return {outs[0], outs[1]};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> addRmsNormWithAutograd(const at::Tensor& x1, const at::Tensor& x2,
                                                                      const at::Tensor& gamma, double epsilon) {
  auto outs = AddRmsNormFunction::apply(x1, x2, gamma, epsilon);
  return {outs[0], outs[1], outs[2]};
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("fast_gelu", [](const at::Tensor& self) { return FastGeluFunction<fastGeluV1>::apply(self); });
  m.impl("npu_fast_gelu", [](const at::Tensor& self) { return FastGeluFunction<fastGeluV2>::apply(self); });
  m.impl("npu_rms_norm", TORCH_FN(rmsNormWithAutograd));
  m.impl("npu_add_rms_norm", TORCH_FN(addRmsNormWithAutograd));
  m.impl("npu_rotary_mul", [](const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2) {
    return RotaryMulFunction::apply(self, r1, r2);
  });
  m.impl("npu_softmax_cross_entropy_with_logits", [](const at::Tensor& self, const at::Tensor& labels) {
    return SoftmaxCrossEntropyFunction::apply(self, labels);
  });
}

}  // namespace native
}  // namespace at_npu
