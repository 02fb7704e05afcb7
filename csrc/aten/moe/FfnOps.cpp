// npu_ffn(x, weight1, weight2, activation, *, expert_tokens, expert_tokens_index,
// bias1, bias2, ..., inner_precise, output_dtype): torch_npu's feed-forward
// block / mixture-of-experts experts, out = activation(x · W1 + b1) · W2 + b2,
// one FFN kernel (Note [FFN] in third_party/ascend_sim/src/ops/moe/ffn.cpp).
//
// expert_tokens gives each expert's token count, expert_tokens_index the
// cumulative ends (torch_npu's two spellings); the kernel takes counts. The
// quantised forms (int8 x and weights with scale/offset/deq_scale, or int8
// weights with antiquant_*) are not modelled and raise. torch_npu defines no
// backward: autograd raises "not implemented" if a backward reaches it.
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

constexpr const char* kFfnOp = "npu_ffn";

// Counts per expert from either spelling (none: no experts).
std::vector<int64_t> expertCounts(at::OptionalIntArrayRef expert_tokens, at::OptionalIntArrayRef expert_tokens_index,
                                  int64_t rows) {
  TORCH_CHECK(!(expert_tokens.has_value() && expert_tokens_index.has_value()), kFfnOp,
              ": give expert_tokens or expert_tokens_index, not both");
  std::vector<int64_t> counts;
  if (expert_tokens.has_value()) counts = expert_tokens->vec();
  if (expert_tokens_index.has_value()) {
    int64_t prev = 0;
    for (int64_t end : *expert_tokens_index) {
      TORCH_CHECK(end >= prev, kFfnOp, ": expert_tokens_index must be non-decreasing token ends, got ",
                  *expert_tokens_index);
      counts.push_back(end - prev);
      prev = end;
    }
  }
  TORCH_CHECK(counts.size() <= 256, kFfnOp, ": at most 256 experts, got ", counts.size());
  int64_t sum = 0;
  for (int64_t c : counts) {
    TORCH_CHECK(c >= 0, kFfnOp, ": expert_tokens must be token counts (>= 0), got ", at::IntArrayRef(counts));
    sum += c;
  }
  TORCH_CHECK(counts.empty() || sum == rows, kFfnOp, ": the experts' tokens add up to ", sum, ", x has ", rows,
              " token rows");
  return counts;
}

void checkFfnOperands(const at::Tensor& x, const at::Tensor& weight1, const at::Tensor& weight2, bool gated,
                      int64_t experts) {
  TORCH_CHECK(x.device().type() == c10::DeviceType::PrivateUse1, kFfnOp, ": expected an NPU x, got ", x.device());
  for (const at::Tensor* w : {&weight1, &weight2}) {
    TORCH_CHECK(w->device() == x.device(), kFfnOp, ": x and the weights must be on one device, got ", x.device(),
                " and ", w->device());
    TORCH_CHECK(w->scalar_type() == x.scalar_type(), kFfnOp, ": x and the weights must have one dtype, got ",
                x.scalar_type(), " and ", w->scalar_type());
  }
  TORCH_CHECK(at::isFloatingType(x.scalar_type()) && x.scalar_type() != at::kDouble, kFfnOp,
              ": expected float16, bfloat16 or float32 x (int8 is the quantised form, not modelled), got ",
              x.scalar_type());
  TORCH_CHECK(x.dim() >= 2 && x.dim() <= 8, kFfnOp, ": x must have 2 to 8 dims, got ", x.sizes());
  const int64_t rank = experts > 0 ? 3 : 2;
  TORCH_CHECK(weight1.dim() == rank && weight2.dim() == rank &&
                  (experts == 0 || (weight1.size(0) == experts && weight2.size(0) == experts)),
              kFfnOp, ": weight1 and weight2 must be ", experts > 0 ? "[E, K, N] for E = " : "[K, N]",
              experts > 0 ? std::to_string(experts) + " experts" : std::string(), ", got ", weight1.sizes(), " and ",
              weight2.sizes());
  TORCH_CHECK(weight1.size(-2) == x.size(-1), kFfnOp, ": weight1 of shape ", weight1.sizes(),
              " does not multiply x rows of length ", x.size(-1));
  const int64_t n1 = weight1.size(-1), h = gated ? n1 / 2 : n1;
  TORCH_CHECK((!gated || n1 % 2 == 0) && weight2.size(-2) == h, kFfnOp, ": weight2 of shape ", weight2.sizes(),
              " must take the activation's ", h, " columns (N1 = ", n1,
              gated ? ", halved by the gated activation)" : ")");
}

void checkFfnBias(const c10::optional<at::Tensor>& bias, const char* name, const at::Tensor& x,
                  const at::Tensor& weight, int64_t experts) {
  if (!torch_npu::given(bias)) return;
  std::vector<int64_t> want{weight.size(-1)};
  if (experts > 0) want.insert(want.begin(), experts);
  TORCH_CHECK(bias->sizes() == at::IntArrayRef(want), kFfnOp, ": ", name, " of shape ", bias->sizes(), " must be ",
              at::IntArrayRef(want));
  TORCH_CHECK(bias->device() == x.device(), kFfnOp, ": ", name, " must be on ", x.device(), ", got ", bias->device());
  TORCH_CHECK(at::isFloatingType(bias->scalar_type()), kFfnOp, ": ", name,
              " must be float32 or x's dtype (int32 is the quantised form, not modelled), got ", bias->scalar_type());
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_ffn(
    const at::Tensor& x, const at::Tensor& weight1, const at::Tensor& weight2, c10::string_view activation,
    at::OptionalIntArrayRef expert_tokens, at::OptionalIntArrayRef expert_tokens_index,
    const c10::optional<at::Tensor>& bias1, const c10::optional<at::Tensor>& bias2,
    const c10::optional<at::Tensor>& scale, const c10::optional<at::Tensor>& offset,
    const c10::optional<at::Tensor>& deq_scale1, const c10::optional<at::Tensor>& deq_scale2,
    const c10::optional<at::Tensor>& antiquant_scale1, const c10::optional<at::Tensor>& antiquant_scale2,
    const c10::optional<at::Tensor>& antiquant_offset1, const c10::optional<at::Tensor>& antiquant_offset2,
    c10::optional<int64_t> inner_precise, c10::optional<at::ScalarType> output_dtype) {
  const std::string act(activation);
  static const std::vector<std::string> kActivations = {"fastgelu", "gelu", "relu", "silu", "geglu", "swiglu", "reglu"};
  TORCH_CHECK(std::find(kActivations.begin(), kActivations.end(), act) != kActivations.end(), kFfnOp,
              ": activation must be one of fastgelu, gelu, relu, silu, geglu, swiglu, reglu, got \"", act, "\"");
  for (const auto* q : {&scale, &offset, &deq_scale1, &deq_scale2, &antiquant_scale1, &antiquant_scale2,
                        &antiquant_offset1, &antiquant_offset2})
    TORCH_CHECK(!torch_npu::given(*q), kFfnOp,
                ": the quantised FFN (scale, offset, deq_scale*, antiquant_*) is not supported by the NPU backend "
                "(the simulator models the float16/bfloat16/float32 FFN)");
  TORCH_CHECK(!output_dtype.has_value() || *output_dtype == x.scalar_type(), kFfnOp,
              ": output_dtype is for the quantised FFN; the float FFN returns x's dtype ", x.scalar_type());
  const int64_t precise = inner_precise.value_or(0);
  TORCH_CHECK(precise == 0 || precise == 1, kFfnOp,
              ": inner_precise must be 0 (high precision) or 1 (high performance), got ", precise);
  const bool gated = act == "geglu" || act == "swiglu" || act == "reglu";
  // Token rows: the product of x's leading dims (0 for an x too small, which checkFfnOperands names).
  const int64_t rows = x.dim() >= 2 ? c10::multiply_integers(x.sizes().slice(0, x.dim() - 1)) : 0;
  const std::vector<int64_t> counts = expertCounts(expert_tokens, expert_tokens_index, rows);
  const int64_t experts = static_cast<int64_t>(counts.size());
  checkFfnOperands(x, weight1, weight2, gated, experts);
  checkFfnBias(bias1, "bias1", x, weight1, experts);
  checkFfnBias(bias2, "bias2", x, weight2, experts);
  std::vector<int64_t> out_shape = x.sizes().vec();
  out_shape.back() = weight2.size(-1);
  at::Tensor y = torch_npu::emptyNpu(out_shape, x.scalar_type(), x.device());
  if (y.numel() == 0) return y;  // no token rows or N2 = 0 (K1 = 0 still runs: y = act(b1)·W2 + b2)
  torch_npu::OpCommand cmd("FFN");
  cmd.Input(x).Input(weight1).Input(weight2);
  if (torch_npu::given(bias1)) cmd.Input(torch_npu::kernelParam(*bias1, x));
  if (torch_npu::given(bias2)) cmd.Input(torch_npu::kernelParam(*bias2, x));
  cmd.Output(y)
      .Attr("activation", act)
      .Attr("has_bias1", torch_npu::given(bias1))
      .Attr("has_bias2", torch_npu::given(bias2))
      .Attr("inner_precise", precise);
  if (experts > 0) cmd.Attr("expert_tokens", at::IntArrayRef(counts));
  cmd.Run();
  return y;
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_ffn", torch::autograd::autogradNotImplementedFallback());
}

}  // namespace native
}  // namespace at_npu
