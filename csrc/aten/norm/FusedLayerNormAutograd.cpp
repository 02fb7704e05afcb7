// Autograd of the fused residual layer norms (FusedLayerNormOps.cpp):
// AutogradPrivateUse1 kernels whose backward is ONE fused gradient kernel.
//   npu_add_layer_norm  -> AddLayerNormGrad on x1, x2 (the gradient of output x
//                          rides along as dsum), the same dx to both addends
//   npu_deep_norm       -> DeepNormGrad: dx = alpha * dx', dgx = dx'
// mean and rstd are outputs, not differentiable; dgamma and dbeta (fp32 from
// the kernels) return in the parameters' dtypes.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "FusedLayerNormOps.h"
#include "NPUCustomFunctions.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class AddLayerNormFunction : public torch::autograd::Function<AddLayerNormFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x1, const at::Tensor& x2,
                               const at::Tensor& gamma, const at::Tensor& beta, double epsilon,
                               bool additional_output) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [y, mean, rstd, x] = NPUCustomFunctions::npu_add_layer_norm(x1, x2, gamma, beta, epsilon, additional_output);
    ctx->save_for_backward({x1, x2, gamma, mean, rstd});
    ctx->saved_data["beta_dtype"] = beta.scalar_type();
    ctx->mark_non_differentiable({mean, rstd});
    ctx->set_materialize_grads(false);
    return {y, mean, rstd, x};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x1 = saved[0], &x2 = saved[1], &gamma = saved[2];
    const at::Tensor &dy = grads[0], &dsum = grads[3];
    if (!dy.defined()) return {dsum, dsum, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    auto [dx, dgamma, dbeta] = addLayerNormGradients(dy, x1, x2, saved[4], saved[3], gamma,
                                                     dsum.defined() ? c10::optional<at::Tensor>(dsum) : c10::nullopt);
    return {dx,
            dx,
            dgamma.to(gamma.scalar_type()),
            dbeta.to(ctx->saved_data["beta_dtype"].toScalarType()),
            at::Tensor(),
            at::Tensor()};
  }
};

class DeepNormFunction : public torch::autograd::Function<DeepNormFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& gx, const at::Tensor& beta,
                               const at::Tensor& gamma, double alpha, double epsilon) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [mean, rstd, y] = NPUCustomFunctions::npu_deep_norm(x, gx, beta, gamma, alpha, epsilon);
    ctx->save_for_backward({x, gx, gamma, mean, rstd});
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["beta_dtype"] = beta.scalar_type();
    ctx->mark_non_differentiable({mean, rstd});
    return {mean, rstd, y};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& gamma = saved[2];
    auto [dx, dgx, dbeta, dgamma] = NPUCustomFunctions::npu_deep_norm_backward(
        grads[2], saved[0], saved[1], gamma, saved[3], saved[4], ctx->saved_data["alpha"].toDouble());
    return {dx,
            dgx,
            dbeta.to(ctx->saved_data["beta_dtype"].toScalarType()),
            dgamma.to(gamma.scalar_type()),
            at::Tensor(),
            at::Tensor()};
  }
};

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> addLayerNormWithAutograd(
    const at::Tensor& x1, const at::Tensor& x2, const at::Tensor& gamma, const at::Tensor& beta, double epsilon,
    bool additional_output) {
  auto outs = AddLayerNormFunction::apply(x1, x2, gamma, beta, epsilon, additional_output);
  return {outs[0], outs[1], outs[2], outs[3]};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> deepNormWithAutograd(const at::Tensor& x, const at::Tensor& gx,
                                                                    const at::Tensor& beta, const at::Tensor& gamma,
                                                                    double alpha, double epsilon) {
  auto outs = DeepNormFunction::apply(x, gx, beta, gamma, alpha, epsilon);
  return {outs[0], outs[1], outs[2]};
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_add_layer_norm", TORCH_FN(addLayerNormWithAutograd));
  m.impl("npu_deep_norm", TORCH_FN(deepNormWithAutograd));
}

}  // namespace native
}  // namespace at_npu
