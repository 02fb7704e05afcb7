// Embedding backward and max_norm renormalisation on EmbeddingDenseGrad /
// EmbeddingRenorm (see Note [Embedding gradient order] in the simulator).
// The forward (torch.embedding) is index_select on GatherV2.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void checkIndices(const char* op, const at::Tensor& indices) {
  TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt, op,
              ": expected indices of dtype Long or Int, but got ", indices.scalar_type());
}

}  // namespace

at::Tensor NPUNativeFunctions::embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices,
                                                        int64_t num_weights, int64_t padding_idx,
                                                        bool scale_grad_by_freq) {
  checkIndices("embedding_backward", indices);
  TORCH_CHECK(num_weights >= 0, "embedding_backward: num_weights must be non-negative, got ", num_weights);
  const int64_t d = grad_output.dim() == 0 ? 1 : grad_output.size(-1);
  TORCH_CHECK(grad_output.numel() == indices.numel() * d, "embedding_backward: grad_output of shape ",
              grad_output.sizes(), " does not match indices of shape ", indices.sizes(), " and embedding dim ", d);
  at::Tensor result = torch_npu::emptyNpu({num_weights, d}, grad_output.scalar_type(), grad_output.device());
  if (indices.numel() == 0 || result.numel() == 0) return result.zero_();
  torch_npu::OpCommand cmd("EmbeddingDenseGrad");
  cmd.Input(grad_output.reshape({indices.numel(), d}))
      .Input(indices.reshape({-1}))
      .Output(result)
      .Attr("num_weights", num_weights)
      .Attr("padding_idx", padding_idx)
      .Attr("scale_grad_by_freq", scale_grad_by_freq)
      .Run();
  return result;
}

at::Tensor& NPUNativeFunctions::embedding_renorm_(at::Tensor& self, const at::Tensor& indices, double max_norm,
                                                  double norm_type) {
  TORCH_CHECK(self.dim() == 2, "embedding_renorm_(): input must be 2-D, got ", self.dim(), "-D");
  checkIndices("embedding_renorm_", indices);
  if (indices.numel() == 0 || self.numel() == 0) return self;
  return torch_npu::runInto("EmbeddingRenorm", self, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self)
        .Input(indices.reshape({-1}))
        .Attr("max_norm", static_cast<float>(max_norm))
        .Attr("norm_type", static_cast<float>(norm_type));
  });
}

}  // namespace native
}  // namespace at_npu
