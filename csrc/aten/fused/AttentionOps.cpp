// Helpers PyTorch's transformer modules call on their device.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {

// Whether every row of a [N, S] bool mask is a run of trues followed by
// falses (nn.TransformerEncoder asks before its nested-tensor fast path,
// which it then skips on the NPU: "src is neither CUDA nor CPU"). Computed
// on the device: no row may step from false back to true.
bool NPUNativeFunctions::_nested_tensor_from_mask_left_aligned(const at::Tensor& t, const at::Tensor& mask) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "Expected mask to be of type bool, got ", mask.scalar_type());
  TORCH_CHECK(mask.dim() == 2, "Padding mask should be 2D, got ", mask.dim(), "-D");
  TORCH_CHECK(t.dim() == 3 && t.size(0) == mask.size(0) && t.size(1) == mask.size(1),
              "Size of padding mask ", mask.sizes(), " does not match the first two dims of the input ", t.sizes());
  if (mask.size(1) < 2 || mask.size(0) == 0) return true;
  at::Tensor rises = mask.slice(1, 1).logical_and(mask.slice(1, 0, -1).logical_not());
  return !rises.any().item<bool>();
}

// Scaled dot-product attention (nn.functional._scaled_dot_product_attention):
// PyTorch's math formulation — scores q k^T / sqrt(d) with the mask or causal
// mask, softmax, dropout, times v — run as NPU ops (BatchMatMul, SoftmaxV2...).
std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::_scaled_dot_product_attention_forward(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const c10::optional<at::Tensor>& attn_mask,
    double dropout_p, bool need_attn_weights, bool is_causal) {
  return at::_scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, need_attn_weights, is_causal);
}

}  // namespace native
}  // namespace at_npu
