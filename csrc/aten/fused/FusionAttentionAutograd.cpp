// Autograd of npu_fusion_attention (Note [Fused attention] in
// FusionAttentionOps.cpp): an AutogradPrivateUse1 kernel, as FormatOps.cpp
// registers one for npu_format_cast, whose backward is ONE
// npu_fusion_attention_grad (FlashAttentionScoreGrad) call.
//
// Note [Fused attention autograd]
// Only attention_out is differentiable; softmax_max / softmax_sum /
// softmax_out are marked non-differentiable. The node saves q, k, v, pse,
// atten_mask, attention_out and the two stats (no [Sq, Skv] tensor), plus the
// arguments and the dropout's (seed, offset, numels), so the backward
// regenerates the same dropout mask. Gradients are not materialised, so the
// unused stats cost no Fill ops. torch::autograd::Function outputs are
// tensors only: the forward hands the three integers back to the caller
// through `rng`, a plain argument of apply.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "FusionAttention.h"
#include "NPUCustomFunctions.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct DropoutStream {
  int64_t seed = 0, offset = 0, numels = 0;
};

class FusionAttentionFunction : public torch::autograd::Function<FusionAttentionFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& query, const at::Tensor& key,
                               const at::Tensor& value, int64_t head_num, c10::string_view input_layout,
                               const c10::optional<at::Tensor>& pse, const c10::optional<at::Tensor>& padding_mask,
                               const c10::optional<at::Tensor>& atten_mask, double scale, double keep_prob,
                               int64_t pre_tockens, int64_t next_tockens, int64_t inner_precise,
                               at::OptionalIntArrayRef prefix, int64_t sparse_mode, bool gen_mask_parallel, bool sync,
                               DropoutStream* rng) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [out, softmax_max, softmax_sum, softmax_out, seed, offset, numels] = NPUCustomFunctions::npu_fusion_attention(
        query, key, value, head_num, input_layout, pse, padding_mask, atten_mask, scale, keep_prob, pre_tockens,
        next_tockens, inner_precise, prefix, sparse_mode, gen_mask_parallel, sync);
    *rng = {seed, offset, numels};
    ctx->mark_non_differentiable({softmax_max, softmax_sum, softmax_out});
    ctx->set_materialize_grads(false);  // no zero gradients for the stats: they are never used
    ctx->save_for_backward({query, key, value, pse.value_or(at::Tensor()), atten_mask.value_or(at::Tensor()), out,
                            softmax_max, softmax_sum});
    auto& saved = ctx->saved_data;
    saved["head_num"] = head_num;
    saved["input_layout"] = std::string(input_layout);
    saved["scale"] = scale;
    saved["keep_prob"] = keep_prob;
    saved["pre_tockens"] = pre_tockens;
    saved["next_tockens"] = next_tockens;
    saved["inner_precise"] = inner_precise;
    saved["sparse_mode"] = sparse_mode;
    saved["seed"] = seed;
    saved["offset"] = offset;
    saved["numels"] = numels;
    return {out, softmax_max, softmax_sum, softmax_out};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    constexpr size_t kForwardArgs = 18;  // every argument of forward after ctx
    variable_list result(kForwardArgs);
    if (!grads[0].defined()) return result;  // attention_out was not used
    const variable_list s = ctx->get_saved_variables();
    const auto& saved = ctx->saved_data;
    auto optional = [](const at::Tensor& t) { return t.defined() ? c10::optional<at::Tensor>(t) : c10::nullopt; };
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    const std::string layout = saved.at("input_layout").toStringRef();
    auto [dq, dk, dv, dpse] = NPUCustomFunctions::npu_fusion_attention_grad(
        s[0], s[1], s[2], grads[0].contiguous(), saved.at("head_num").toInt(), layout, optional(s[3]), c10::nullopt,
        optional(s[4]), s[6], s[7], c10::nullopt, s[5], saved.at("scale").toDouble(), saved.at("keep_prob").toDouble(),
        saved.at("pre_tockens").toInt(), saved.at("next_tockens").toInt(), saved.at("inner_precise").toInt(),
        saved.at("seed").toInt(), saved.at("offset").toInt(), saved.at("numels").toInt(), c10::nullopt,
        saved.at("sparse_mode").toInt(), true, false);
    result[0] = dq;
    result[1] = dk;
    result[2] = dv;
    if (s[3].defined()) result[5] = dpse;
    return result;
  }
};

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, int64_t, int64_t, int64_t> fusionAttentionWithAutograd(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, int64_t head_num,
    c10::string_view input_layout, const c10::optional<at::Tensor>& pse,
    const c10::optional<at::Tensor>& padding_mask, const c10::optional<at::Tensor>& atten_mask, double scale,
    double keep_prob, int64_t pre_tockens, int64_t next_tockens, int64_t inner_precise, at::OptionalIntArrayRef prefix,
    int64_t sparse_mode, bool gen_mask_parallel, bool sync) {
  DropoutStream rng;
  const variable_list out = FusionAttentionFunction::apply(
      query, key, value, head_num, input_layout, pse, padding_mask, atten_mask, scale, keep_prob, pre_tockens,
      next_tockens, inner_precise, prefix, sparse_mode, gen_mask_parallel, sync, &rng);
  return {out[0], out[1], out[2], out[3], rng.seed, rng.offset, rng.numels};
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_fusion_attention", TORCH_FN(fusionAttentionWithAutograd));
}

}  // namespace native
}  // namespace at_npu
