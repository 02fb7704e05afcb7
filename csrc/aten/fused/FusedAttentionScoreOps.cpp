// npu_fused_attention_score (+ _fwd, _backward): torch_npu's fused BERT
// attention on the simulator's AttentionScore / AttentionScoreGrad (Note
// [AttentionScore] in the simulator's ops/fused/attention_score.cpp).
//
// Note [Fused attention score]
// query/key/value_layer are [B, N, S, D] float16 (torch_npu takes fp16
// only), attention_mask an additive fp16 mask broadcast to [B, N, Sq, Skv].
// The forward runs two kernels, as torch_npu does: DropOutGenMaskV3 draws
// the byte drop mask [B * N * Sq * Skv] (1 = kept; every byte 1 when
// keep_prob is 1) from the device generator, then ONE AttentionScore returns
//   attention_score [B * Sq, N * D]  (context with the heads merged back)
//   softmax_output  [B, N, Sq, Skv]
// npu_fused_attention_score_fwd returns (attention_score, softmax_output,
// drop_mask); npu_fused_attention_score returns attention_score and is
// differentiable in query, key and value through ONE AttentionScoreGrad,
// whose gradients come back as [B, N, S, D] views of [B, S, N, D] storage,
// like torch_npu's. The transpose flags select stored-transposed operand
// layouts of CANN's kernel; only their defaults (False) are supported.
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <array>

#include "Fp16AttentionChecks.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUGenerator.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

constexpr const char* kForward = "npu_fused_attention_score";

void checkTransposeFlags(const char* op, std::initializer_list<std::pair<const char*, bool>> flags) {
  for (const auto& [name, on] : flags)
    TORCH_CHECK(!on, op, ": ", name,
                "=True is not supported by the NPU backend (its AttentionScore takes query, key and value as "
                "[B, N, S, D]; transpose them before the call)");
}

void checkLayer(const char* op, const char* name, const at::Tensor& t, const at::Tensor& query) {
  checkFp16Operand(op, name, t, query);
  TORCH_CHECK(t.dim() == 4, op, ": ", name, " must be 4-D [B, N, S, D], got shape ", t.sizes());
}

// Checks the layers and returns (B, N, Sq, Skv, D).
std::array<int64_t, 5> checkLayers(const char* op, const at::Tensor& query, const at::Tensor& key,
                                   const at::Tensor& value) {
  TORCH_CHECK(query.device().type() == c10::DeviceType::PrivateUse1, op, ": query_layer must be an NPU tensor, got ",
              query.device());
  checkLayer(op, "query_layer", query, query);
  checkLayer(op, "key_layer", key, query);
  checkLayer(op, "value_layer", value, query);
  TORCH_CHECK(key.size(0) == query.size(0) && key.size(1) == query.size(1) && key.size(3) == query.size(3), op,
              ": key_layer ", key.sizes(), " must match query_layer ", query.sizes(), " in B, N and D");
  TORCH_CHECK(value.sizes() == key.sizes(), op, ": value_layer ", value.sizes(), " must have key_layer's shape ",
              key.sizes());
  TORCH_CHECK(query.size(3) > 0, op, ": the head size D of query_layer ", query.sizes(), " must be positive");
  return {query.size(0), query.size(1), query.size(2), key.size(2), query.size(3)};
}

float scoreKeepProb(const char* op, double keep_prob) {
  TORCH_CHECK(keep_prob > 0.0 && keep_prob <= 1.0, op, ": keep_prob must be in (0, 1], got ", keep_prob);
  return static_cast<float>(keep_prob);
}

at::Tensor byteDropMask(const std::array<int64_t, 5>& g, float keep, c10::Device device) {
  const int64_t numel = g[0] * g[1] * g[2] * g[3];
  at::Tensor mask = torch_npu::emptyNpu({numel}, at::kByte, device);
  if (numel == 0) return mask;
  const auto [seed, offset] = torch_npu::NPUGenerator::forDevice(device.index()).reserve(static_cast<uint64_t>(numel));
  torch_npu::OpCommand cmd("DropOutGenMaskV3");
  cmd.Output(mask)
      .Attr("shape", std::vector<int64_t>{g[0], g[1], g[2], g[3]})
      .Attr("keep_prob", keep)
      .Attr("seed", static_cast<int64_t>(seed))
      .Attr("offset", static_cast<int64_t>(offset))
      .Run();
  return mask;
}

// No score to compute (B, N, Sq or Skv is 0; D > 0 is checked).
bool anyEmpty(const std::array<int64_t, 5>& g) {
  return std::any_of(g.begin(), g.begin() + 4, [](int64_t d) { return d == 0; });
}

class FusedAttentionScoreFunction : public torch::autograd::Function<FusedAttentionScoreFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const at::Tensor& query,
                                                const at::Tensor& key, const at::Tensor& value,
                                                const at::Tensor& attention_mask, const at::Scalar& scale,
                                                double keep_prob, bool query_transpose, bool key_transpose,
                                                bool bmm_score_transpose_a, bool bmm_score_transpose_b,
                                                bool value_transpose, bool dx_transpose) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [score, softmax, drop_mask] = NPUCustomFunctions::npu_fused_attention_score_fwd(
        query, key, value, attention_mask, scale, keep_prob, query_transpose, key_transpose, bmm_score_transpose_a,
        bmm_score_transpose_b, value_transpose, dx_transpose);
    ctx->save_for_backward({softmax, query, key, value, drop_mask});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["keep_prob"] = keep_prob;
    return {score};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto s = ctx->get_saved_variables();
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [dq, dk, dv] = NPUCustomFunctions::npu_fused_attention_score_backward(
        grads[0], s[0], s[1], s[2], s[3], s[4], ctx->saved_data.at("scale").toScalar(),
        ctx->saved_data.at("keep_prob").toDouble(), false, false, false, false);
    torch::autograd::variable_list result(12);  // every argument of forward after ctx
    result[0] = dq, result[1] = dk, result[2] = dv;
    return result;
  }
};

at::Tensor fusedAttentionScoreWithAutograd(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                           const at::Tensor& attention_mask, const at::Scalar& scale, double keep_prob,
                                           bool query_transpose, bool key_transpose, bool bmm_score_transpose_a,
                                           bool bmm_score_transpose_b, bool value_transpose, bool dx_transpose) {
  return FusedAttentionScoreFunction::apply(query, key, value, attention_mask, scale, keep_prob, query_transpose,
                                            key_transpose, bmm_score_transpose_a, bmm_score_transpose_b,
                                            value_transpose, dx_transpose)[0];
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_fused_attention_score_fwd(
    const at::Tensor& query_layer, const at::Tensor& key_layer, const at::Tensor& value_layer,
    const at::Tensor& attention_mask, const at::Scalar& scale, double keep_prob, bool query_transpose,
    bool key_transpose, bool bmm_score_transpose_a, bool bmm_score_transpose_b, bool value_transpose,
    bool dx_transpose) {
  constexpr const char* op = "npu_fused_attention_score_fwd";
  checkTransposeFlags(op, {{"query_transpose", query_transpose},
                           {"key_transpose", key_transpose},
                           {"bmm_score_transpose_a", bmm_score_transpose_a},
                           {"bmm_score_transpose_b", bmm_score_transpose_b},
                           {"value_transpose", value_transpose},
                           {"dx_transpose", dx_transpose}});
  const auto g = checkLayers(op, query_layer, key_layer, value_layer);
  const float keep = scoreKeepProb(op, keep_prob);
  checkLayer(op, "attention_mask", attention_mask, query_layer);
  checkMaskBroadcasts(op, "attention_mask", attention_mask, {g[0], g[1], g[2], g[3]});
  const c10::DeviceGuard guard(query_layer.device());
  const c10::Device device = query_layer.device();
  at::Tensor drop_mask = byteDropMask(g, keep, device);  // all 1 when keep_prob is 1
  at::Tensor score = torch_npu::emptyNpu({g[0], g[2], g[1], g[4]}, at::kHalf, device);
  at::Tensor softmax = torch_npu::emptyNpu({g[0], g[1], g[2], g[3]}, at::kHalf, device);
  if (anyEmpty(g)) {
    score.zero_();  // nothing attended (or nothing to attend with)
  } else {
    torch_npu::OpCommand cmd("AttentionScore");
    cmd.Input(query_layer).Input(key_layer).Input(value_layer).Input(attention_mask).Input(drop_mask);
    cmd.Output(score).Output(softmax).Attr("scale", static_cast<float>(scale.toDouble())).Attr("keep_prob", keep).Run();
  }
  return {score.view({g[0] * g[2], g[1] * g[4]}), softmax, drop_mask};
}

at::Tensor NPUCustomFunctions::npu_fused_attention_score(const at::Tensor& query_layer, const at::Tensor& key_layer,
                                                         const at::Tensor& value_layer,
                                                         const at::Tensor& attention_mask, const at::Scalar& scale,
                                                         double keep_prob, bool query_transpose, bool key_transpose,
                                                         bool bmm_score_transpose_a, bool bmm_score_transpose_b,
                                                         bool value_transpose, bool dx_transpose) {
  return std::get<0>(npu_fused_attention_score_fwd(query_layer, key_layer, value_layer, attention_mask, scale,
                                                   keep_prob, query_transpose, key_transpose, bmm_score_transpose_a,
                                                   bmm_score_transpose_b, value_transpose, dx_transpose));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_fused_attention_score_backward(
    const at::Tensor& grad_output, const at::Tensor& softmax_output, const at::Tensor& query_layer,
    const at::Tensor& key_layer, const at::Tensor& value_layer, const at::Tensor& mask, const at::Scalar& scale,
    double keep_prob, bool query_transpose, bool key_transpose, bool value_transpose, bool dx_transpose) {
  constexpr const char* op = "npu_fused_attention_score_backward";
  checkTransposeFlags(op, {{"query_transpose", query_transpose},
                           {"key_transpose", key_transpose},
                           {"value_transpose", value_transpose},
                           {"dx_transpose", dx_transpose}});
  const auto g = checkLayers(op, query_layer, key_layer, value_layer);
  const float keep = scoreKeepProb(op, keep_prob);
  const int64_t b = g[0], n = g[1], sq = g[2], skv = g[3], d = g[4];
  checkLayer(op, "softmax_output", softmax_output, query_layer);
  TORCH_CHECK(softmax_output.sizes() == at::IntArrayRef({b, n, sq, skv}), op,
              ": softmax_output must be [B, N, Sq, Skv] = ", at::IntArrayRef({b, n, sq, skv}), ", got ",
              softmax_output.sizes());
  TORCH_CHECK(grad_output.device() == query_layer.device() && grad_output.scalar_type() == at::kHalf &&
                  grad_output.numel() == b * sq * n * d,
              op, ": grad_output must be a float16 NPU tensor of attention_score's shape [B * Sq, N * D] = [", b * sq,
              ", ", n * d, "], got ", grad_output.scalar_type(), " ", grad_output.sizes(), " on ",
              grad_output.device());
  TORCH_CHECK(
      mask.device() == query_layer.device() && mask.scalar_type() == at::kByte && mask.numel() == b * n * sq * skv, op,
      ": mask must be the uint8 drop mask of npu_fused_attention_score_fwd (", b * n * sq * skv, " bytes), got ",
      mask.scalar_type(), " ", mask.sizes());
  const c10::DeviceGuard guard(query_layer.device());
  const c10::Device device = query_layer.device();
  at::Tensor dv = torch_npu::emptyNpu({b, skv, n, d}, at::kHalf, device);
  at::Tensor dq = torch_npu::emptyNpu({b, sq, n, d}, at::kHalf, device);
  at::Tensor dk = torch_npu::emptyNpu({b, skv, n, d}, at::kHalf, device);
  if (anyEmpty(g)) {
    dv.zero_(), dq.zero_(), dk.zero_();
  } else {
    torch_npu::OpCommand cmd("AttentionScoreGrad");
    cmd.Input(softmax_output).Input(grad_output.reshape({b, sq, n, d})).Input(value_layer).Input(key_layer);
    cmd.Input(query_layer).Input(mask.reshape({-1})).Output(dv).Output(dq).Output(dk);
    cmd.Attr("scale", static_cast<float>(scale.toDouble())).Attr("keep_prob", keep).Run();
  }
  return {dq.permute({0, 2, 1, 3}), dk.permute({0, 2, 1, 3}), dv.permute({0, 2, 1, 3})};
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl(kForward, TORCH_FN(fusedAttentionScoreWithAutograd));
  m.impl("npu_fused_attention_score_fwd", torch::autograd::autogradNotImplementedFallback());
  m.impl("npu_fused_attention_score_backward", torch::autograd::autogradNotImplementedFallback());
}

}  // namespace native
}  // namespace at_npu
