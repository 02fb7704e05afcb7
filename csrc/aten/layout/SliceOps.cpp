// torch_npu's npu_slice(self, offsets, size): the block of `size` (-1: to the
// end of the dim) at `offsets`, copied by ONE SliceD kernel (OPS.md "Layout").
// Differentiable: the gradient is zeros of self's shape with the output's
// gradient copied into the block (an AutogradPrivateUse1 kernel).
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// The block's sizes, with -1 resolved; TORCH_CHECKs that it lies inside self.
std::vector<int64_t> sliceSizes(const at::Tensor& self, at::IntArrayRef offsets, at::IntArrayRef size) {
  TORCH_CHECK(static_cast<int64_t>(offsets.size()) == self.dim() && static_cast<int64_t>(size.size()) == self.dim(),
              "npu_slice: offsets ", offsets, " and size ", size, " must each have one value per dim of self (shape ",
              self.sizes(), ")");
  std::vector<int64_t> out(size.begin(), size.end());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (out[d] == -1) out[d] = self.size(d) - offsets[d];
    TORCH_CHECK(offsets[d] >= 0 && out[d] >= 0 && offsets[d] + out[d] <= self.size(d), "npu_slice: dim ", d,
                ": offset ", offsets[d], " and size ", size[d], " do not lie inside its ", self.size(d),
                " elements (size -1 means to the end)");
  }
  return out;
}

// The block of `t` that npu_slice(offsets, sizes) reads, as a view.
at::Tensor blockOf(const at::Tensor& t, at::IntArrayRef offsets, at::IntArrayRef sizes) {
  at::Tensor v = t;
  for (int64_t d = 0; d < t.dim(); ++d) v = v.narrow(d, offsets[d], sizes[d]);
  return v;
}

class SliceFunction : public torch::autograd::Function<SliceFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self, at::IntArrayRef offsets,
                            at::IntArrayRef size) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    at::Tensor out = NPUCustomFunctions::npu_slice(self, offsets, size);
    ctx->saved_data["self_sizes"] = self.sizes();
    ctx->saved_data["offsets"] = offsets;
    ctx->saved_data["sizes"] = out.sizes();  // the block's sizes, -1 resolved
    return out;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor& grad = grads[0];
    at::Tensor grad_self = at::zeros(ctx->saved_data["self_sizes"].toIntVector(), grad.options());
    blockOf(grad_self, ctx->saved_data["offsets"].toIntVector(), ctx->saved_data["sizes"].toIntVector()).copy_(grad);
    return {grad_self, at::Tensor(), at::Tensor()};
  }
};

at::Tensor sliceWithAutograd(const at::Tensor& self, at::IntArrayRef offsets, at::IntArrayRef size) {
  return SliceFunction::apply(self, offsets, size);
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_slice(const at::Tensor& self, at::IntArrayRef offsets, at::IntArrayRef size) {
  const std::vector<int64_t> sizes = sliceSizes(self, offsets, size);
  at::Tensor out = torch_npu::emptyNpu(sizes, self.scalar_type(), self.device());
  if (out.numel() == 0) return out;
  torch_npu::OpCommand("SliceD").Input(self).Output(out).Attr("offsets", offsets).Attr("size", at::IntArrayRef(sizes)).Run();
  return out;
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) { m.impl("npu_slice", TORCH_FN(sliceWithAutograd)); }

}  // namespace native
}  // namespace at_npu
