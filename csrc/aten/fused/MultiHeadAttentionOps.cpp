// npu_multi_head_attention (+ _backward): torch_npu's whole-layer fused
// multi-head attention on the simulator's MultiHeadAttention /
// MultiHeadAttentionGrad, one kernel per direction (Note
// [MultiHeadAttention] in the simulator's ops/fused/multi_head_attention.cpp).
//
// Note [npu_multi_head_attention]
// query [B * tgt_len, E], key / value [B * src_len, E], the four weights
// [E, E] as nn.Linear stores them, attn_mask additive [B, H, tgt_len,
// src_len] (broadcastable), E = attn_head_num * attn_dim_per_head. As in
// torch_npu: float16 only, and tgt_len, src_len, attn_head_num and
// attn_dim_per_head positive multiples of 16. Returns
//   (y, dropout_mask, query_res, key_res, value_res, attn_scores, attn_res, context)
// dropout_mask is the bit mask of [B, H, tgt_len, src_len] (npu_dropout_gen_mask's
// format): the one given, or drawn from the device generator when
// dropout_prob > 0 (all bits set otherwise). Autograd: only y is
// differentiable, in every input but attn_mask (no gradient, as torch_npu's);
// its backward is ONE npu_multi_head_attention_backward, whose bias
// gradients are [1, E] (reshaped to the biases' [E]).
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <c10/core/DeviceGuard.h>

#include "Fp16AttentionChecks.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/aten/random/DropoutOps.h"
#include "csrc/core/NPUGenerator.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

constexpr int64_t kAlign = 16;

struct MhaShape {
  int64_t b, e, heads, head_dim, src, tgt;
};

// The four weights [E, E] as nn.Linear stores them, in torch_npu's order.
struct MhaWeights {
  const at::Tensor &query, &key, &value, &out_proj;
};

// Checks query / key / value, the weights and `others` (device, fp16, shapes)
// and the sizes as torch_npu does, and returns the problem's shape.
MhaShape checkMha(const char* op, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                  const MhaWeights& weights, std::initializer_list<std::pair<const char*, const at::Tensor*>> others,
                  int64_t heads, int64_t head_dim, int64_t src_len, int64_t tgt_len) {
  TORCH_CHECK(query.device().type() == c10::DeviceType::PrivateUse1, op, ": query must be an NPU tensor, got ",
              query.device());
  TORCH_CHECK(tgt_len > 0 && src_len > 0 && heads > 0 && head_dim > 0, op,
              ": tgt_len, src_len, attn_head_num and attn_dim_per_head must be positive, got ", tgt_len, ", ", src_len,
              ", ", heads, ", ", head_dim);
  TORCH_CHECK(tgt_len % kAlign == 0 && src_len % kAlign == 0 && heads % kAlign == 0 && head_dim % kAlign == 0, op,
              ": tgt_len, src_len, attn_head_num and attn_dim_per_head must be multiples of 16 (as torch_npu's), got ",
              tgt_len, ", ", src_len, ", ", heads, ", ", head_dim);
  const int64_t e = heads * head_dim;
  auto check = [&](const char* name, const at::Tensor& t) { checkFp16Operand(op, name, t, query); };
  check("query", query);
  check("key", key);
  check("value", value);
  for (const auto& [name, t] : others) check(name, *t);
  TORCH_CHECK(query.dim() == 2 && query.size(1) == e && query.size(0) % tgt_len == 0, op,
              ": query must be [B * tgt_len, attn_head_num * attn_dim_per_head] with tgt_len ", tgt_len, " and E ", e,
              ", got ", query.sizes());
  const int64_t b = query.size(0) / tgt_len;
  for (const auto& [name, t] : {std::pair<const char*, const at::Tensor*>{"key", &key}, {"value", &value}})
    TORCH_CHECK(t->dim() == 2 && t->size(0) == b * src_len && t->size(1) == e, op, ": ", name,
                " must be [B * src_len, E] = [", b * src_len, ", ", e, "], got ", t->sizes());
  for (const auto& [name, w] : {std::pair<const char*, const at::Tensor*>{"query_weight", &weights.query},
                                {"key_weight", &weights.key},
                                {"value_weight", &weights.value},
                                {"out_proj_weight", &weights.out_proj}}) {
    check(name, *w);
    TORCH_CHECK(w->sizes() == at::IntArrayRef({e, e}), op, ": ", name, " must be [E, E] = [", e, ", ", e, "], got ",
                w->sizes());
  }
  return {b, e, heads, head_dim, src_len, tgt_len};
}

// The dropout bit mask of the [B, H, tgt_len, src_len] scores (npu_dropout_gen_mask's format).
void checkDropoutMask(const char* op, const at::Tensor& mask, const at::Tensor& query, const MhaShape& m) {
  const int64_t bytes = dropoutMaskBytes(m.b * m.heads * m.tgt * m.src);
  TORCH_CHECK(mask.device() == query.device() && mask.scalar_type() == at::kByte && mask.numel() == bytes, op,
              ": dropout_mask must be the uint8 bit mask of [B, H, tgt_len, src_len] (", bytes,
              " bytes on the query's device, as _npu_dropout / npu_dropout_gen_mask make), got ", mask.scalar_type(),
              " ", mask.sizes(), " on ", mask.device());
}

float mhaKeepProb(const char* op, double dropout_prob) {
  TORCH_CHECK(dropout_prob >= 0.0 && dropout_prob < 1.0, op, ": dropout_prob must be in [0, 1), got ", dropout_prob);
  return static_cast<float>(1.0 - dropout_prob);
}

// Adds the optional biases with their has_* attributes.
void addBiases(torch_npu::OpCommand& cmd,
               std::initializer_list<std::pair<const char*, const c10::optional<at::Tensor>*>> biases) {
  for (const auto& [attr, bias] : biases) {
    cmd.Attr(attr, torch_npu::given(*bias));
    if (torch_npu::given(*bias)) cmd.Input(**bias);
  }
}

void addShapeAttrs(torch_npu::OpCommand& cmd, int64_t heads, int64_t head_dim, int64_t src_len, int64_t tgt_len,
                   float keep, bool softmax_use_float) {
  cmd.Attr("attn_head_num", heads)
      .Attr("attn_dim_per_head", head_dim)
      .Attr("src_len", src_len)
      .Attr("tgt_len", tgt_len)
      .Attr("keep_prob", keep)
      .Attr("softmax_use_float", softmax_use_float);
}

using MhaOutputs =
    std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

class MultiHeadAttentionFunction : public torch::autograd::Function<MultiHeadAttentionFunction> {
 public:
  static torch::autograd::variable_list forward(
      torch::autograd::AutogradContext* ctx, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
      const at::Tensor& query_weight, const at::Tensor& key_weight, const at::Tensor& value_weight,
      const at::Tensor& attn_mask, const at::Tensor& out_proj_weight, const c10::optional<at::Tensor>& query_bias,
      const c10::optional<at::Tensor>& key_bias, const c10::optional<at::Tensor>& value_bias,
      const c10::optional<at::Tensor>& out_proj_bias, const c10::optional<at::Tensor>& dropout_mask,
      int64_t attn_head_num, int64_t attn_dim_per_head, int64_t src_len, int64_t tgt_len, double dropout_prob,
      bool softmax_use_float) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [y, mask, q_res, k_res, v_res, scores, res, context] = NPUCustomFunctions::npu_multi_head_attention(
        query, key, value, query_weight, key_weight, value_weight, attn_mask, out_proj_weight, query_bias, key_bias,
        value_bias, out_proj_bias, dropout_mask, attn_head_num, attn_dim_per_head, src_len, tgt_len, dropout_prob,
        softmax_use_float);
    ctx->mark_non_differentiable({mask, q_res, k_res, v_res, scores, res, context});
    ctx->set_materialize_grads(false);
    auto opt = [](const c10::optional<at::Tensor>& t) { return t.value_or(at::Tensor()); };
    ctx->save_for_backward({query, key, value, query_weight, key_weight, value_weight, out_proj_weight, opt(query_bias),
                            opt(key_bias), opt(value_bias), opt(out_proj_bias), q_res, k_res, v_res, scores, res,
                            context, mask});
    auto& saved = ctx->saved_data;
    saved["heads"] = attn_head_num;
    saved["head_dim"] = attn_dim_per_head;
    saved["src_len"] = src_len;
    saved["tgt_len"] = tgt_len;
    saved["dropout_prob"] = dropout_prob;
    saved["softmax_use_float"] = softmax_use_float;
    return {y, mask, q_res, k_res, v_res, scores, res, context};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    torch::autograd::variable_list result(19);  // every argument of forward after ctx
    if (!grads[0].defined()) return result;     // y was not used
    const auto s = ctx->get_saved_variables();
    const auto& saved = ctx->saved_data;
    auto opt = [](const at::Tensor& t) { return t.defined() ? c10::optional<at::Tensor>(t) : c10::nullopt; };
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto g = NPUCustomFunctions::npu_multi_head_attention_backward(
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], opt(s[7]), opt(s[8]), opt(s[9]), opt(s[10]), s[11], s[12], s[13],
        s[14], s[15], s[16], grads[0], s[17], saved.at("heads").toInt(), saved.at("head_dim").toInt(),
        saved.at("src_len").toInt(), saved.at("tgt_len").toInt(), saved.at("dropout_prob").toDouble(),
        saved.at("softmax_use_float").toBool());
    // Forward's arguments: query, key, value, the q/k/v weights, attn_mask, out_proj_weight, the four biases, ...
    result[0] = std::get<4>(g), result[1] = std::get<5>(g), result[2] = std::get<6>(g);
    result[3] = std::get<0>(g), result[4] = std::get<1>(g), result[5] = std::get<2>(g), result[7] = std::get<3>(g);
    const at::Tensor bias_grads[] = {std::get<7>(g), std::get<8>(g), std::get<9>(g), std::get<10>(g)};
    for (size_t i = 0; i < 4; ++i)
      if (s[7 + i].defined()) result[8 + i] = bias_grads[i].view({-1});
    return result;
  }
};

MhaOutputs multiHeadAttentionWithAutograd(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const at::Tensor& query_weight,
    const at::Tensor& key_weight, const at::Tensor& value_weight, const at::Tensor& attn_mask,
    const at::Tensor& out_proj_weight, const c10::optional<at::Tensor>& query_bias,
    const c10::optional<at::Tensor>& key_bias, const c10::optional<at::Tensor>& value_bias,
    const c10::optional<at::Tensor>& out_proj_bias, const c10::optional<at::Tensor>& dropout_mask,
    int64_t attn_head_num, int64_t attn_dim_per_head, int64_t src_len, int64_t tgt_len, double dropout_prob,
    bool softmax_use_float) {
  const auto o = MultiHeadAttentionFunction::apply(query, key, value, query_weight, key_weight, value_weight, attn_mask,
                                                   out_proj_weight, query_bias, key_bias, value_bias, out_proj_bias,
                                                   dropout_mask, attn_head_num, attn_dim_per_head, src_len, tgt_len,
                                                   dropout_prob, softmax_use_float);
  return {o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]};
}

}  // namespace

MhaOutputs NPUCustomFunctions::npu_multi_head_attention(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const at::Tensor& query_weight,
    const at::Tensor& key_weight, const at::Tensor& value_weight, const at::Tensor& attn_mask,
    const at::Tensor& out_proj_weight, const c10::optional<at::Tensor>& query_bias,
    const c10::optional<at::Tensor>& key_bias, const c10::optional<at::Tensor>& value_bias,
    const c10::optional<at::Tensor>& out_proj_bias, const c10::optional<at::Tensor>& dropout_mask,
    int64_t attn_head_num, int64_t attn_dim_per_head, int64_t src_len, int64_t tgt_len, double dropout_prob,
    bool softmax_use_float) {
  constexpr const char* op = "npu_multi_head_attention";
  const MhaShape m = checkMha(op, query, key, value, {query_weight, key_weight, value_weight, out_proj_weight},
                              {{"attn_mask", &attn_mask}}, attn_head_num, attn_dim_per_head, src_len, tgt_len);
  const float keep = mhaKeepProb(op, dropout_prob);
  checkMaskBroadcasts(op, "attn_mask", attn_mask, {m.b, m.heads, m.tgt, m.src});
  const int64_t scores = m.b * m.heads * m.tgt * m.src;
  if (torch_npu::given(dropout_mask)) checkDropoutMask(op, *dropout_mask, query, m);
  const c10::DeviceGuard guard(query.device());
  const c10::Device device = query.device();
  const auto half = at::kHalf;
  at::Tensor y = torch_npu::emptyNpu({m.b * m.tgt, m.e}, half, device);
  at::Tensor mask = torch_npu::emptyNpu({dropoutMaskBytes(scores)}, at::kByte, device);
  at::Tensor q_res = torch_npu::emptyNpu({m.b, m.heads, m.tgt, m.head_dim}, half, device);
  at::Tensor k_res = torch_npu::emptyNpu({m.b, m.heads, m.src, m.head_dim}, half, device);
  at::Tensor v_res = torch_npu::emptyNpu({m.b, m.heads, m.src, m.head_dim}, half, device);
  at::Tensor attn_scores =
      torch_npu::emptyNpu({m.b, m.heads, m.tgt, m.src}, softmax_use_float ? at::kFloat : half, device);
  at::Tensor attn_res = torch_npu::emptyNpu({m.b, m.heads, m.tgt, m.src}, half, device);
  at::Tensor context = torch_npu::emptyNpu({m.b * m.tgt, m.e}, half, device);
  if (m.b == 0) return {y, mask, q_res, k_res, v_res, attn_scores, attn_res, context};
  int64_t seed = 0, offset = 0;
  if (keep < 1.0f && !torch_npu::given(dropout_mask)) {
    const auto stream = torch_npu::NPUGenerator::forDevice(device.index()).reserve(static_cast<uint64_t>(scores));
    seed = static_cast<int64_t>(stream.first), offset = static_cast<int64_t>(stream.second);
  }
  torch_npu::OpCommand cmd("MultiHeadAttention");
  cmd.Input(query).Input(key).Input(value).Input(query_weight).Input(key_weight).Input(value_weight);
  cmd.Input(attn_mask).Input(out_proj_weight);
  addBiases(cmd, {{"has_query_bias", &query_bias},
                  {"has_key_bias", &key_bias},
                  {"has_value_bias", &value_bias},
                  {"has_out_proj_bias", &out_proj_bias}});
  cmd.Attr("has_dropout_mask", torch_npu::given(dropout_mask));
  if (torch_npu::given(dropout_mask)) cmd.Input(*dropout_mask);
  addShapeAttrs(cmd, attn_head_num, attn_dim_per_head, src_len, tgt_len, keep, softmax_use_float);
  cmd.Attr("seed", seed).Attr("offset", offset);
  cmd.Output(y).Output(mask).Output(q_res).Output(k_res).Output(v_res).Output(attn_scores).Output(attn_res);
  cmd.Output(context).Run();
  return {y, mask, q_res, k_res, v_res, attn_scores, attn_res, context};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor,
           at::Tensor, at::Tensor>
NPUCustomFunctions::npu_multi_head_attention_backward(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const at::Tensor& query_weight,
    const at::Tensor& key_weight, const at::Tensor& value_weight, const at::Tensor& out_proj_weight,
    const c10::optional<at::Tensor>& query_bias, const c10::optional<at::Tensor>& key_bias,
    const c10::optional<at::Tensor>& value_bias, const c10::optional<at::Tensor>& out_proj_bias,
    const at::Tensor& query_res, const at::Tensor& key_res, const at::Tensor& value_res, const at::Tensor& attn_scores,
    const at::Tensor& attn_res, const at::Tensor& context, const at::Tensor& y_grad, const at::Tensor& dropout_mask,
    int64_t attn_head_num, int64_t attn_dim_per_head, int64_t src_len, int64_t tgt_len, double dropout_prob,
    bool softmax_use_float) {
  (void)query_bias, (void)key_bias, (void)value_bias, (void)out_proj_bias;  // every bias gradient is computed
  constexpr const char* op = "npu_multi_head_attention_backward";
  const MhaShape m = checkMha(op, query, key, value, {query_weight, key_weight, value_weight, out_proj_weight},
                              {{"query_res", &query_res},
                               {"key_res", &key_res},
                               {"value_res", &value_res},
                               {"attn_res", &attn_res},
                               {"context", &context},
                               {"y_grad", &y_grad}},
                              attn_head_num, attn_dim_per_head, src_len, tgt_len);
  const float keep = mhaKeepProb(op, dropout_prob);
  const std::vector<int64_t> q_heads = {m.b, m.heads, m.tgt, m.head_dim}, kv_heads = {m.b, m.heads, m.src, m.head_dim},
                             scores = {m.b, m.heads, m.tgt, m.src}, rows = {m.b * m.tgt, m.e};
  for (const auto& [name, t, want] :
       {std::tuple<const char*, const at::Tensor*, const std::vector<int64_t>*>{"query_res", &query_res, &q_heads},
        {"key_res", &key_res, &kv_heads},
        {"value_res", &value_res, &kv_heads},
        {"attn_scores", &attn_scores, &scores},
        {"attn_res", &attn_res, &scores},
        {"context", &context, &rows},
        {"y_grad", &y_grad, &rows}})
    TORCH_CHECK(t->sizes() == at::IntArrayRef(*want), op, ": ", name, " must be ", at::IntArrayRef(*want),
                " (what npu_multi_head_attention returned), got ", t->sizes());
  if (keep < 1.0f) checkDropoutMask(op, dropout_mask, query, m);
  TORCH_CHECK(attn_scores.scalar_type() == (softmax_use_float ? at::kFloat : at::kHalf), op, ": attn_scores must be ",
              softmax_use_float ? "float32" : "float16", " (softmax_use_float=", softmax_use_float, "), got ",
              attn_scores.scalar_type());
  const c10::DeviceGuard guard(query.device());
  const c10::Device device = query.device();
  std::vector<at::Tensor> g;
  for (int i = 0; i < 4; ++i) g.push_back(torch_npu::emptyNpu({m.e, m.e}, at::kHalf, device));
  g.push_back(torch_npu::emptyNpu({m.b * m.tgt, m.e}, at::kHalf, device));
  for (int i = 0; i < 2; ++i) g.push_back(torch_npu::emptyNpu({m.b * m.src, m.e}, at::kHalf, device));
  for (int i = 0; i < 4; ++i) g.push_back(torch_npu::emptyNpu({1, m.e}, at::kHalf, device));
  if (m.b == 0) {
    for (at::Tensor& t : g) t.zero_();
  } else {
    torch_npu::OpCommand cmd("MultiHeadAttentionGrad");
    for (const at::Tensor* t : {&query, &key, &value, &query_weight, &key_weight, &value_weight, &out_proj_weight,
                                &query_res, &key_res, &value_res, &attn_scores, &attn_res, &context, &y_grad})
      cmd.Input(*t);
    if (keep < 1.0f) cmd.Input(dropout_mask);
    addShapeAttrs(cmd, attn_head_num, attn_dim_per_head, src_len, tgt_len, keep, softmax_use_float);
    for (const at::Tensor& t : g) cmd.Output(t);
    cmd.Run();
  }
  return {g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10]};
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_multi_head_attention", TORCH_FN(multiHeadAttentionWithAutograd));
  m.impl("npu_multi_head_attention_backward", torch::autograd::autogradNotImplementedFallback());
}

}  // namespace native
}  // namespace at_npu
