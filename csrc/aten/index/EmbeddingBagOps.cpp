// nn.EmbeddingBag / F.embedding_bag: the forward on the EmbeddingBag kernel
// (Note [Embedding bags] in the simulator); the backward composed of NPU ops:
//   sum / mean  each position's bag gradient (GatherV2 by offset2bag), divided
//               by the bag's count (mean) or times its per-sample weight, is
//               added into its weight row by EmbeddingDenseGrad (padding_idx
//               and scale_grad_by_freq as for nn.Embedding);
//   max         each bag's gradient goes to the row its maximum came from
//               (ScatterElements add; empty bags, max_indices −1, add nothing);
//   per_sample_weights  the dot product of each position's bag gradient with
//               its weight row (0 at padding_idx).
// Sparse gradients (sparse=True) are not supported, as in torch_npu.
#include <ATen/ATen.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

constexpr int64_t kModeSum = 0, kModeMean = 1, kModeMax = 2;

const char* modeName(int64_t mode) {
  switch (mode) {
    case kModeSum: return "sum";
    case kModeMean: return "mean";
    case kModeMax: return "max";
    default: TORCH_CHECK(false, "embedding_bag: unknown mode ", mode, " (expected 0 sum, 1 mean or 2 max)");
  }
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> embeddingBag(
    const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets, int64_t mode,
    const c10::optional<at::Tensor>& per_sample_weights, bool include_last_offset, int64_t padding_idx) {
  const char* mode_name = modeName(mode);
  TORCH_CHECK(weight.dim() == 2, "embedding_bag: weight must be 2-D [num_embeddings, embedding_dim], got ",
              weight.sizes());
  TORCH_CHECK(indices.dim() == 1 && offsets.dim() == 1, "embedding_bag: expected 1-D indices and offsets, got ",
              indices.sizes(), " and ", offsets.sizes());
  TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt,
              "embedding_bag: indices must be int32 or int64, got ", indices.scalar_type());
  TORCH_CHECK(offsets.scalar_type() == indices.scalar_type(), "embedding_bag: expected offsets of the indices' dtype ",
              indices.scalar_type(), ", got ", offsets.scalar_type());
  TORCH_CHECK(at::isFloatingType(weight.scalar_type()), "embedding_bag: weight must be floating point, got ",
              weight.scalar_type());
  const bool has_psw = per_sample_weights.has_value() && per_sample_weights->defined();
  TORCH_CHECK(!has_psw || mode == kModeSum, "embedding_bag: per_sample_weights was not None. per_sample_weights is ",
              "only supported for mode='sum' (got mode='", mode_name, "')");
  TORCH_CHECK(!include_last_offset || offsets.numel() >= 1, "include_last_offset: number of offset should be at ",
              "least 1");
  const int64_t bags = include_last_offset ? offsets.numel() - 1 : offsets.numel(), dim = weight.size(1);
  const auto index_type = indices.scalar_type();
  at::Tensor y = torch_npu::emptyNpu({bags, dim}, weight.scalar_type(), weight.device());
  at::Tensor offset2bag = torch_npu::emptyNpu({indices.numel()}, index_type, weight.device());
  at::Tensor bag_size = torch_npu::emptyNpu({bags}, index_type, weight.device());
  at::Tensor max_indices = mode == kModeMax ? torch_npu::emptyNpu({bags, dim}, index_type, weight.device())
                                            : torch_npu::emptyNpu({bags}, index_type, weight.device());
  if (bags == 0) return {y, offset2bag, bag_size, max_indices};
  if (indices.numel() == 0) {  // only empty bags (the kernel would see an empty offset2bag and not run)
    y.zero_();
    bag_size.zero_();
    max_indices.fill_(mode == kModeMax ? -1 : 0);
    return {y, offset2bag, bag_size, max_indices};
  }
  torch_npu::OpCommand cmd("EmbeddingBag");
  cmd.Input(weight).Input(indices).Input(offsets);
  if (has_psw) {
    TORCH_CHECK(per_sample_weights->sizes() == indices.sizes(), "embedding_bag: per_sample_weights of shape ",
                per_sample_weights->sizes(), " must have the indices' shape ", indices.sizes());
    cmd.Input(per_sample_weights->to(weight.scalar_type()));
  }
  cmd.Output(y).Output(offset2bag).Output(bag_size).Output(max_indices);
  cmd.Attr("mode", std::string(mode_name))
      .Attr("include_last_offset", include_last_offset)
      .Attr("padding_idx", padding_idx)
      .Run();
  return {y, offset2bag, bag_size, max_indices};
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::_embedding_bag_forward_only(
    const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets, bool /*scale_grad_by_freq*/,
    int64_t mode, bool /*sparse*/, const c10::optional<at::Tensor>& per_sample_weights, bool include_last_offset,
    int64_t padding_idx) {
  return embeddingBag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::_embedding_bag(
    const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets, bool /*scale_grad_by_freq*/,
    int64_t mode, bool sparse, const c10::optional<at::Tensor>& per_sample_weights, bool include_last_offset,
    int64_t padding_idx) {
  TORCH_CHECK(!sparse, "embedding_bag: sparse gradients (sparse=True) are not supported by the NPU backend; use ",
              "sparse=False");
  return embeddingBag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx);
}

at::Tensor NPUNativeFunctions::_embedding_bag_dense_backward(
    const at::Tensor& grad, const at::Tensor& indices, const at::Tensor& offset2bag, const at::Tensor& bag_size,
    const at::Tensor& maximum_indices, int64_t num_weights, bool scale_grad_by_freq, int64_t mode,
    const c10::optional<at::Tensor>& per_sample_weights, int64_t padding_idx) {
  modeName(mode);
  TORCH_CHECK(grad.dim() == 2, "embedding_bag backward: grad must be [bags, embedding_dim], got ", grad.sizes());
  if (mode == kModeMax) {
    TORCH_CHECK(!scale_grad_by_freq, "max mode does not support scaling the gradient by the frequency");
    at::Tensor result = at::zeros({num_weights, grad.size(1)}, grad.options());
    if (grad.numel() == 0) return result;
    const at::Tensor empty_bag = maximum_indices.lt(0);
    return result.scatter_add_(0, maximum_indices.masked_fill(empty_bag, 0).to(at::kLong),
                               grad.masked_fill(empty_bag, 0));
  }
  at::Tensor rows = grad.index_select(0, offset2bag);  // [L, D]: each position's bag gradient
  if (mode == kModeMean) {
    rows = rows.div(bag_size.index_select(0, offset2bag).clamp_min(1).to(grad.scalar_type()).unsqueeze(1));
  }
  if (per_sample_weights.has_value() && per_sample_weights->defined()) {
    rows = rows.mul(per_sample_weights->to(grad.scalar_type()).unsqueeze(1));
  }
  return at::embedding_dense_backward(rows, indices, num_weights, padding_idx, scale_grad_by_freq);
}

at::Tensor NPUNativeFunctions::_embedding_bag_per_sample_weights_backward(
    const at::Tensor& grad, const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& /*offsets*/,
    const at::Tensor& offset2bag, int64_t mode, int64_t padding_idx) {
  TORCH_CHECK(mode == kModeSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  const at::Tensor products = grad.index_select(0, offset2bag).mul(weight.index_select(0, indices));
  at::Tensor result = products.sum(1);
  return padding_idx >= 0 ? result.masked_fill_(indices.eq(padding_idx), 0) : result;
}

}  // namespace native
}  // namespace at_npu
