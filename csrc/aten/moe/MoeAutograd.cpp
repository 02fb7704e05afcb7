// Autograd of the mixture-of-experts routing ops (MoeOps.cpp), so that a MoE
// layer written on them trains; torch_npu documents them for inference only.
//   npu_moe_init_routing      -> MoeInitRoutingV2Grad (x's gradient: each token's
//                                K expanded rows summed back)
//   npu_moe_finalize_routing  -> MoeFinalizeRoutingV2Grad (expanded rows and scales);
//                                skips get the output gradient itself, bias the
//                                expanded rows' gradients summed per expert (IndexAdd)
//   npu_moe_gating_top_k_softmax -> the gradient of y through the softmax:
//                                dx = p * (g - sum(g * p)), g = dy scattered to the
//                                chosen experts; CANN has no fused gradient of this
//                                router, so it runs as SoftmaxV2, ScatterElements and
//                                SoftmaxGrad (plus one more gating launch for the
//                                true experts of finished rows)
// Index outputs are not differentiable.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "MoeOps.h"
#include "NPUCustomFunctions.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class MoeGatingFunction : public torch::autograd::Function<MoeGatingFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const c10::optional<at::Tensor>& finished,
                               int64_t k) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [y, expert_idx, row_idx] = NPUCustomFunctions::npu_moe_gating_top_k_softmax(x, finished, k);
    ctx->save_for_backward({x, expert_idx});
    ctx->saved_data["k"] = k;
    ctx->saved_data["finished"] = finished.has_value() && finished->defined();
    ctx->mark_non_differentiable({expert_idx, row_idx});
    ctx->set_materialize_grads(false);
    return {y, expert_idx, row_idx};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) return {at::Tensor(), at::Tensor(), at::Tensor()};
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& x = saved[0];
    at::Tensor experts = saved[1];
    if (ctx->saved_data["finished"].toBool())  // finished rows name no expert: take the unfinished choice
      experts =
          std::get<1>(NPUCustomFunctions::npu_moe_gating_top_k_softmax(x, c10::nullopt, ctx->saved_data["k"].toInt()));
    const at::Tensor p = at::_softmax(x.to(at::kFloat), -1, false);
    const at::Tensor g = at::zeros_like(p).scatter_(-1, experts.to(at::kLong), grads[0].to(at::kFloat));
    const at::Tensor dx = at::_softmax_backward_data(g, p, -1, at::kFloat);
    return {dx.to(x.scalar_type()), at::Tensor(), at::Tensor()};
  }
};

class MoeInitRoutingFunction : public torch::autograd::Function<MoeInitRoutingFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& row_idx,
                               const at::Tensor& expert_idx, int64_t active_num) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [expanded_x, expanded_row_idx, expanded_expert_idx] =
        NPUCustomFunctions::npu_moe_init_routing(x, row_idx, expert_idx, active_num);
    ctx->save_for_backward({expanded_row_idx});
    ctx->saved_data["k"] = expert_idx.size(1);
    ctx->saved_data["active_num"] = active_num;
    ctx->mark_non_differentiable({expanded_row_idx, expanded_expert_idx});
    ctx->set_materialize_grads(false);
    return {expanded_x, expanded_row_idx, expanded_expert_idx};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) return {at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    const at::Tensor dx = moeInitRoutingGrad(grads[0].contiguous(), ctx->get_saved_variables()[0],
                                             ctx->saved_data["k"].toInt(), ctx->saved_data["active_num"].toInt());
    return {dx, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

at::Tensor valueOr(const c10::optional<at::Tensor>& t) { return t.has_value() ? *t : at::Tensor(); }

class MoeFinalizeRoutingFunction : public torch::autograd::Function<MoeFinalizeRoutingFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& expanded, const c10::optional<at::Tensor>& skip1,
                            const c10::optional<at::Tensor>& skip2, const c10::optional<at::Tensor>& bias,
                            const c10::optional<at::Tensor>& scales, const at::Tensor& src_to_dst,
                            const c10::optional<at::Tensor>& expert_idx, c10::optional<int64_t> drop_pad_mode) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    ctx->save_for_backward({expanded, valueOr(bias), valueOr(scales), src_to_dst, valueOr(expert_idx)});
    ctx->saved_data["skip1"] = skip1.has_value() && skip1->defined();
    ctx->saved_data["skip2"] = skip2.has_value() && skip2->defined();
    return NPUCustomFunctions::npu_moe_finalize_routing(expanded, skip1, skip2, bias, scales, src_to_dst, expert_idx,
                                                        drop_pad_mode);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor &expanded = saved[0], &bias = saved[1], &scales = saved[2], &expert_idx = saved[4];
    const at::Tensor gy = grads[0].contiguous();
    auto [d_expanded, d_scales] = moeFinalizeRoutingGrad(gy, saved[3], expanded, scales, expert_idx, bias);
    at::Tensor d_bias;
    if (bias.defined() && ctx->needs_input_grad(3)) {
      // every choice adds its expert's bias row with its scale: sum those choices' expanded-row gradients per expert
      const int64_t n = gy.size(0), k = saved[3].numel() / n;
      const at::Tensor dst = saved[3].to(at::kLong).view({k, n}).t();  // [n, k]: choice (i, c)'s expanded row
      const at::Tensor live = dst < expanded.size(0);
      const at::Tensor rows = d_expanded.index_select(0, dst.clamp_max(expanded.size(0) - 1).reshape(-1)) *
                              live.reshape({-1, 1}).to(d_expanded.scalar_type());
      d_bias = at::zeros_like(bias).index_add_(0, expert_idx.to(at::kLong).reshape(-1), rows);
    }
    const bool skip1 = ctx->saved_data["skip1"].toBool(), skip2 = ctx->saved_data["skip2"].toBool();
    return {d_expanded,
            skip1 ? gy : at::Tensor(),
            skip2 ? gy : at::Tensor(),
            d_bias,
            scales.defined() ? d_scales : at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor()};
  }
};

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_moe_gating_top_k_softmax", [](const at::Tensor& x, const c10::optional<at::Tensor>& finished, int64_t k) {
    const variable_list outs = MoeGatingFunction::apply(x, finished, k);
    return std::make_tuple(outs[0], outs[1], outs[2]);
  });
  m.impl("npu_moe_init_routing",
         [](const at::Tensor& x, const at::Tensor& row_idx, const at::Tensor& expert_idx, int64_t active_num) {
           const variable_list outs = MoeInitRoutingFunction::apply(x, row_idx, expert_idx, active_num);
           return std::make_tuple(outs[0], outs[1], outs[2]);
         });
  m.impl(
      "npu_moe_finalize_routing",
      [](const at::Tensor& expanded, const c10::optional<at::Tensor>& skip1, const c10::optional<at::Tensor>& skip2,
         const c10::optional<at::Tensor>& bias, const c10::optional<at::Tensor>& scales, const at::Tensor& src_to_dst,
         const c10::optional<at::Tensor>& expert_idx, c10::optional<int64_t> drop_pad_mode) {
        return MoeFinalizeRoutingFunction::apply(expanded, skip1, skip2, bias, scales, src_to_dst, expert_idx,
                                                 drop_pad_mode);
      });
}

}  // namespace native
}  // namespace at_npu
