// npu_prompt_flash_attention / npu_incre_flash_attention: torch_npu's
// inference attention on the simulator's PromptFlashAttention and
// IncreFlashAttention.
//
// Note [Inference attention]
// A generation loop runs the prompt once through npu_prompt_flash_attention
// (every position, a causal atten_mask) and then one token at a time through
// npu_incre_flash_attention, whose key/value are the KV cache: allocated for
// the longest sequence, filled up to each sequence's length, which
// actual_seq_lengths gives per batch. Each call is ONE fused kernel on the AI
// Core (the forward of Note [Fused attention], without dropout or softmax
// stats) that reads only the valid rows of the cache — its simulated time
// grows with the lengths, not with the allocation (Note [Valid lengths of
// inference attention] in the simulator). As in torch_npu these ops are for
// inference: they have no autograd formula, and a backward that reaches one
// raises "not implemented" (PyTorch's not-implemented fallback, registered
// below) instead of leaving the gradient silently missing. Layouts BSH, BSND and BNSD;
// grouped-query key/value heads (num_key_value_heads, 0 = num_heads).
// atten_mask is bool, int8 or uint8 with 1 = masked out; the prompt's mask is
// [Sq, Skv], [B|1, Sq, Skv] or [B|1, 1|N, Sq, Skv], the incremental one [B, Skv],
// [B, 1, Skv] or [B, 1|N, 1, Skv]. With sparse_mode 0 a given mask also gets the
// band pre_tokens / next_tokens (next_tokens = 0: causal); without a mask
// nothing is masked (CANN's defaultMask mode). padding_mask is reserved in
// torch_npu and ignored; the int8 quantisation operands, block_table (paged
// attention) and kv_padding_size raise: they are not modelled.
#include <c10/core/DeviceGuard.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

#include <functional>

#include "FusionAttention.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void refuse(const char* op, const c10::optional<at::Tensor>& t, const char* name, const char* what) {
  TORCH_CHECK(!given(t), op, ": ", name, " is not supported on the simulated NPU (", what, ")");
}

// actual_seq_lengths-style lists: B values (or one for all), each within [0, limit].
void checkLengths(const char* op, at::OptionalIntArrayRef lengths, const char* name, int64_t batch, int64_t limit) {
  if (!lengths.has_value()) return;
  const auto l = *lengths;
  TORCH_CHECK(static_cast<int64_t>(l.size()) == batch || l.size() == 1, op, ": ", name, " has ", l.size(),
              " values for a batch of ", batch, " (give one per batch, or one for all)");
  for (int64_t v : l)
    TORCH_CHECK(v >= 0 && v <= limit, op, ": ", name, " value ", v, " is outside [0, ", limit,
                "], the sequence length of the tensor");
}

// The masks torch_npu takes in more shapes than the kernel's broadcast rule:
// int8 is read as uint8 (only "nonzero" matters), rank 3 gets its head dim,
// and the incremental [B, Skv] becomes [B, 1, 1, Skv].
c10::optional<at::Tensor> maskForKernel(const c10::optional<at::Tensor>& mask, bool incremental) {
  if (!given(mask)) return c10::nullopt;
  at::Tensor m = *mask;
  if (m.scalar_type() == at::kChar) m = m.view(at::kByte);
  if (incremental && m.dim() == 2) return m.view({m.size(0), 1, 1, m.size(1)});
  if (m.dim() == 3) return m.unsqueeze(incremental ? 2 : 1);
  return m;
}

FusionAttentionDims checkInference(const char* op, const at::Tensor& query, const at::Tensor& key,
                                   const at::Tensor& value, int64_t num_heads, c10::string_view input_layout,
                                   int64_t num_key_value_heads, int64_t sparse_mode,
                                   const c10::optional<at::Tensor>& pse_shift, const c10::optional<at::Tensor>& mask) {
  FusionAttentionArgs args;
  args.head_num = num_heads;
  args.heads_name = "num_heads";
  args.input_layout = std::string(input_layout);
  args.sparse_mode = sparse_mode;
  TORCH_CHECK(args.input_layout != "SBH", op, ": input_layout must be one of BSH, BSND, BNSD, got 'SBH'");
  const FusionAttentionDims g =
      checkFusionAttention(op, query, key, value, args, pse_shift, c10::nullopt, mask, c10::nullopt);
  TORCH_CHECK(num_key_value_heads == 0 || num_key_value_heads == g.n_kv, op, ": num_key_value_heads is ",
              num_key_value_heads, " but key of shape ", key.sizes(), " has ", g.n_kv, " heads");
  return g;
}

at::Tensor runInference(const char* kernel, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                        const c10::optional<at::Tensor>& pse_shift, const c10::optional<at::Tensor>& mask,
                        const std::function<void(torch_npu::OpCommand&)>& attrs) {
  const c10::DeviceGuard guard(query.device());
  at::Tensor out = torch_npu::emptyNpuLike(query);
  torch_npu::OpCommand cmd(kernel);
  cmd.Input(query).Input(key).Input(value);
  if (given(pse_shift)) cmd.Input(*pse_shift);
  if (given(mask)) cmd.Input(*mask);
  attrs(cmd);
  cmd.Attr("has_pse_shift", given(pse_shift)).Attr("has_atten_mask", given(mask)).Output(out).Run();
  return out;
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_prompt_flash_attention(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const c10::optional<at::Tensor>& pse_shift,
    const c10::optional<at::Tensor>& padding_mask, const c10::optional<at::Tensor>& atten_mask,
    at::OptionalIntArrayRef actual_seq_lengths, const c10::optional<at::Tensor>& deq_scale1,
    const c10::optional<at::Tensor>& quant_scale1, const c10::optional<at::Tensor>& deq_scale2,
    const c10::optional<at::Tensor>& quant_scale2, const c10::optional<at::Tensor>& quant_offset2, int64_t num_heads,
    double scale_value, int64_t pre_tokens, int64_t next_tokens, c10::string_view input_layout,
    int64_t num_key_value_heads, at::OptionalIntArrayRef actual_seq_lengths_kv, int64_t sparse_mode) {
  constexpr const char* op = "npu_prompt_flash_attention";
  (void)padding_mask;  // reserved in torch_npu
  for (const auto& [t, name] : {std::pair{&deq_scale1, "deq_scale1"},
                                {&quant_scale1, "quant_scale1"},
                                {&deq_scale2, "deq_scale2"},
                                {&quant_scale2, "quant_scale2"},
                                {&quant_offset2, "quant_offset2"}})
    refuse(op, *t, name, "int8 quantised attention is not modelled");
  const c10::optional<at::Tensor> mask = maskForKernel(atten_mask, false);
  const FusionAttentionDims g =
      checkInference(op, query, key, value, num_heads, input_layout, num_key_value_heads, sparse_mode, pse_shift, mask);
  checkLengths(op, actual_seq_lengths, "actual_seq_lengths", g.b, g.sq);
  checkLengths(op, actual_seq_lengths_kv, "actual_seq_lengths_kv", g.b, g.skv);
  if (query.numel() == 0) return torch_npu::emptyNpuLike(query);
  return runInference("PromptFlashAttention", query, key, value, pse_shift, mask, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("num_heads", num_heads)
        .Attr("scale_value", static_cast<float>(scale_value))
        .Attr("pre_tokens", pre_tokens)
        .Attr("next_tokens", next_tokens)
        .Attr("input_layout", std::string(input_layout))
        .Attr("num_key_value_heads", num_key_value_heads)
        .Attr("sparse_mode", sparse_mode);
    if (actual_seq_lengths.has_value()) cmd.Attr("actual_seq_lengths", *actual_seq_lengths);
    if (actual_seq_lengths_kv.has_value()) cmd.Attr("actual_seq_lengths_kv", *actual_seq_lengths_kv);
  });
}

at::Tensor NPUCustomFunctions::npu_incre_flash_attention(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const c10::optional<at::Tensor>& padding_mask, const c10::optional<at::Tensor>& atten_mask,
    const c10::optional<at::Tensor>& pse_shift, at::OptionalIntArrayRef actual_seq_lengths,
    const c10::optional<at::Tensor>& antiquant_scale, const c10::optional<at::Tensor>& antiquant_offset,
    const c10::optional<at::Tensor>& block_table, const c10::optional<at::Tensor>& dequant_scale1,
    const c10::optional<at::Tensor>& quant_scale1, const c10::optional<at::Tensor>& dequant_scale2,
    const c10::optional<at::Tensor>& quant_scale2, const c10::optional<at::Tensor>& quant_offset2,
    const c10::optional<at::Tensor>& kv_padding_size, int64_t num_heads, double scale_value,
    c10::string_view input_layout, int64_t num_key_value_heads, int64_t block_size, int64_t inner_precise) {
  constexpr const char* op = "npu_incre_flash_attention";
  (void)padding_mask;  // reserved in torch_npu
  for (const auto& [t, name] : {std::pair{&antiquant_scale, "antiquant_scale"},
                                {&antiquant_offset, "antiquant_offset"},
                                {&dequant_scale1, "dequant_scale1"},
                                {&quant_scale1, "quant_scale1"},
                                {&dequant_scale2, "dequant_scale2"},
                                {&quant_scale2, "quant_scale2"},
                                {&quant_offset2, "quant_offset2"}})
    refuse(op, *t, name, "int8 quantised attention is not modelled");
  refuse(op, block_table, "block_table", "paged attention is not modelled; pass the KV cache as key and value");
  refuse(op, kv_padding_size, "kv_padding_size", "left-padded KV caches are not modelled");
  TORCH_CHECK(block_size == 0, op, ": block_size ", block_size, " is for paged attention (block_table), which the ",
              "simulated NPU does not model");
  const c10::optional<at::Tensor> mask = maskForKernel(atten_mask, true);
  const FusionAttentionDims g =
      checkInference(op, query, key, value, num_heads, input_layout, num_key_value_heads, 0, pse_shift, mask);
  TORCH_CHECK(g.sq == 1, op, ": query of shape ", query.sizes(), " must have one position (S = 1): the incremental ",
              "step attends one new token per sequence; use npu_prompt_flash_attention for a prompt");
  checkLengths(op, actual_seq_lengths, "actual_seq_lengths", g.b, g.skv);
  if (query.numel() == 0) return torch_npu::emptyNpuLike(query);
  return runInference("IncreFlashAttention", query, key, value, pse_shift, mask, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("num_heads", num_heads)
        .Attr("scale_value", static_cast<float>(scale_value))
        .Attr("input_layout", std::string(input_layout))
        .Attr("num_key_value_heads", num_key_value_heads)
        .Attr("inner_precise", inner_precise);
    if (actual_seq_lengths.has_value()) cmd.Attr("actual_seq_lengths", *actual_seq_lengths);
  });
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_prompt_flash_attention", torch::autograd::autogradNotImplementedFallback());
  m.impl("npu_incre_flash_attention", torch::autograd::autogradNotImplementedFallback());
}

}  // namespace native
}  // namespace at_npu
