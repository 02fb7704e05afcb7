// What npu_fusion_attention, npu_fusion_attention_grad and their autograd
// share: the checked problem and the attributes of the simulator's
// FlashAttentionScore / FlashAttentionScoreGrad. See Note [Fused attention]
// in FusionAttentionOps.cpp.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {

// The arguments both passes take, as torch_npu names them.
struct FusionAttentionArgs {
  int64_t head_num = 1;
  const char* heads_name = "head_num";  // what the op calls head_num in errors (num_heads)
  std::string input_layout;
  double scale = 1.0, keep_prob = 1.0;
  int64_t pre_tockens = 2147483647, next_tockens = 2147483647, inner_precise = 0, sparse_mode = 0;
  int64_t seed = 0, offset = 0;  // the dropout's Philox stream (keep_prob < 1)
};

// Batch, heads of query and of key/value, sequence lengths and head size.
struct FusionAttentionDims {
  int64_t b = 0, n = 0, n_kv = 0, sq = 0, skv = 0, d = 0;
};

// Checks query/key/value, the optional pse / padding_mask / atten_mask /
// prefix and the arguments as torch_npu documents them (layouts BSH, SBH,
// BNSD, BSND; grouped-query key/value heads; sparse_mode 0 or 1), with
// errors that start with `op`. Returns the problem's dims.
FusionAttentionDims checkFusionAttention(const char* op, const at::Tensor& query, const at::Tensor& key,
                                         const at::Tensor& value, const FusionAttentionArgs& args,
                                         const c10::optional<at::Tensor>& pse,
                                         const c10::optional<at::Tensor>& padding_mask,
                                         const c10::optional<at::Tensor>& atten_mask, at::OptionalIntArrayRef prefix);

// Adds pse / atten_mask (when given) as inputs and the attributes of
// FlashAttentionScore(Grad) (OPS.md "Fused attention").
void addFusionAttentionOperands(torch_npu::OpCommand& cmd, const FusionAttentionArgs& args,
                                const c10::optional<at::Tensor>& pse, const c10::optional<at::Tensor>& atten_mask);

// A present (defined) optional tensor.
using torch_npu::given;

}  // namespace native
}  // namespace at_npu
