// npu_fusion_attention / npu_fusion_attention_grad: torch_npu's fused
// attention on the simulator's FlashAttentionScore(Grad).
//
// Note [Fused attention]
// Unlike the composite custom ops (Note [Composite custom ops]), these are
// real fused kernels: the forward is ONE op, FlashAttentionScore, which
// computes Dropout(Softmax(Mask(scale * (q k^T + pse)))) v on the AI Core
// (two Cube products, the softmax on the Vector unit) without writing the
// [Sq, Skv] scores to HBM, and returns the row max / sum of the softmax
// ([B, N, Sq, 8] float32, as torch_npu). The backward is ONE op too,
// FlashAttentionScoreGrad, recomputing the probabilities from those stats
// (OPS.md "Fused attention"). Returned like torch_npu's:
//   (attention_out, softmax_max, softmax_sum, softmax_out (empty), seed, offset, numels)
// With keep_prob < 1 the dropout mask is element i < numels = B*N*Sq*Skv of
// the device generator's Philox stream (seed, offset), reserved here like any
// random op's (Note [NPU random numbers]); the gradient regenerates it from
// the same (seed, offset), so nothing of the mask is kept. keep_prob == 1
// draws nothing and returns (0, 0, 0). Autograd: FusionAttentionAutograd.cpp.
#include <c10/core/DeviceGuard.h>

#include "FusionAttention.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUGenerator.h"

namespace at_npu {
namespace native {
namespace {

constexpr int64_t kStatsLanes = 8;

FusionAttentionArgs argsOf(int64_t head_num, c10::string_view input_layout, double scale, double keep_prob,
                           int64_t pre_tockens, int64_t next_tockens, int64_t inner_precise, int64_t sparse_mode) {
  FusionAttentionArgs a;
  a.head_num = head_num;
  a.input_layout = std::string(input_layout);
  a.scale = scale;
  a.keep_prob = keep_prob;
  a.pre_tockens = pre_tockens;
  a.next_tockens = next_tockens;
  a.inner_precise = inner_precise;
  a.sparse_mode = sparse_mode;
  return a;
}

const at::Tensor& required(const c10::optional<at::Tensor>& t, const char* name) {
  TORCH_CHECK(given(t), "npu_fusion_attention_grad: ", name,
              " is required (softmax_max, softmax_sum and attention_in are outputs of npu_fusion_attention)");
  return *t;
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, int64_t, int64_t, int64_t>
NPUCustomFunctions::npu_fusion_attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                         int64_t head_num, c10::string_view input_layout,
                                         const c10::optional<at::Tensor>& pse,
                                         const c10::optional<at::Tensor>& padding_mask,
                                         const c10::optional<at::Tensor>& atten_mask, double scale, double keep_prob,
                                         int64_t pre_tockens, int64_t next_tockens, int64_t inner_precise,
                                         at::OptionalIntArrayRef prefix, int64_t sparse_mode, bool gen_mask_parallel,
                                         bool sync) {
  (void)gen_mask_parallel;  // how CANN generates the mask; one Philox stream here
  (void)sync;
  FusionAttentionArgs args =
      argsOf(head_num, input_layout, scale, keep_prob, pre_tockens, next_tockens, inner_precise, sparse_mode);
  const FusionAttentionDims g =
      checkFusionAttention("npu_fusion_attention", query, key, value, args, pse, padding_mask, atten_mask, prefix);
  const c10::DeviceGuard guard(query.device());
  int64_t numels = 0;
  if (keep_prob < 1.0) {
    numels = g.b * g.n * g.sq * g.skv;
    const auto [seed, offset] =
        torch_npu::NPUGenerator::forDevice(query.device().index()).reserve(static_cast<uint64_t>(numels));
    args.seed = static_cast<int64_t>(seed);
    args.offset = static_cast<int64_t>(offset);
  }
  at::Tensor out = torch_npu::emptyNpuLike(query);
  at::Tensor softmax_max = torch_npu::emptyNpu({g.b, g.n, g.sq, kStatsLanes}, at::kFloat, query.device());
  at::Tensor softmax_sum = torch_npu::emptyNpuLike(softmax_max);
  at::Tensor softmax_out = torch_npu::emptyNpu({0}, query.scalar_type(), query.device());
  torch_npu::OpCommand cmd("FlashAttentionScore");
  cmd.Input(query).Input(key).Input(value);
  addFusionAttentionOperands(cmd, args, pse, atten_mask);
  cmd.Output(softmax_max).Output(softmax_sum).Output(out).Run();
  return {out, softmax_max, softmax_sum, softmax_out, args.seed, args.offset, numels};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_fusion_attention_grad(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const at::Tensor& dy, int64_t head_num,
    c10::string_view input_layout, const c10::optional<at::Tensor>& pse, const c10::optional<at::Tensor>& padding_mask,
    const c10::optional<at::Tensor>& atten_mask, const c10::optional<at::Tensor>& softmax_max,
    const c10::optional<at::Tensor>& softmax_sum, const c10::optional<at::Tensor>& softmax_in,
    const c10::optional<at::Tensor>& attention_in, double scale_value, double keep_prob, int64_t pre_tockens,
    int64_t next_tockens, int64_t inner_precise, int64_t seed, int64_t offset, int64_t numels,
    at::OptionalIntArrayRef prefix, int64_t sparse_mode, bool gen_mask_parallel, bool sync) {
  (void)softmax_in;  // torch_npu's softmax_out is always empty: the probabilities are recomputed
  (void)numels, (void)gen_mask_parallel, (void)sync;
  constexpr const char* op = "npu_fusion_attention_grad";
  FusionAttentionArgs args =
      argsOf(head_num, input_layout, scale_value, keep_prob, pre_tockens, next_tockens, inner_precise, sparse_mode);
  args.seed = seed;
  args.offset = offset;
  const FusionAttentionDims g = checkFusionAttention(op, query, key, value, args, pse, padding_mask, atten_mask, prefix);
  const at::Tensor& stats_max = required(softmax_max, "softmax_max");
  const at::Tensor& stats_sum = required(softmax_sum, "softmax_sum");
  const at::Tensor& out = required(attention_in, "attention_in");
  for (const at::Tensor* t : {&dy, &out})
    TORCH_CHECK(t->sizes() == query.sizes() && t->scalar_type() == query.scalar_type() &&
                    t->device() == query.device(),
                op, ": dy and attention_in must be ", query.scalar_type(), " tensors of query's shape ", query.sizes(),
                " on ", query.device(), ", got a ", t->scalar_type(), " tensor of shape ", t->sizes(), " on ",
                t->device());
  const std::vector<int64_t> stats = {g.b, g.n, g.sq, kStatsLanes};
  for (const at::Tensor* t : {&stats_max, &stats_sum})
    TORCH_CHECK(t->sizes() == stats && t->scalar_type() == at::kFloat && t->device() == query.device(), op,
                ": softmax_max and softmax_sum must be float32 tensors of shape ", at::IntArrayRef(stats), " on ",
                query.device(), ", got a ", t->scalar_type(), " tensor of shape ", t->sizes());
  const c10::DeviceGuard guard(query.device());
  at::Tensor dpse = given(pse) ? torch_npu::emptyNpuLike(*pse) : torch_npu::emptyNpu({0}, query.scalar_type(), query.device());
  if (query.numel() == 0 || key.numel() == 0) {  // nothing attended: every gradient is 0
    return {at::zeros_like(query), at::zeros_like(key), at::zeros_like(value), dpse.zero_()};
  }
  at::Tensor dq = torch_npu::emptyNpuLike(query), dk = torch_npu::emptyNpuLike(key), dv = torch_npu::emptyNpuLike(value);
  torch_npu::OpCommand cmd("FlashAttentionScoreGrad");
  cmd.Input(query).Input(key).Input(value).Input(dy);
  addFusionAttentionOperands(cmd, args, pse, atten_mask);
  cmd.Input(stats_max).Input(stats_sum).Input(out).Output(dq).Output(dk).Output(dv);
  if (given(pse)) cmd.Output(dpse);
  cmd.Run();
  return {dq, dk, dv, dpse};
}

}  // namespace native
}  // namespace at_npu
