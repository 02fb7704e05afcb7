// Layout ops of the dense family: flip (ReverseV2), roll (Roll),
// repeat_interleave.Tensor (RepeatInterleave), channel_shuffle (a permuted
// copy, as PyTorch's CPU kernel), Tensor.unfold (a view:
// metadata only) and its backward (an accumulating index_put_ of every
// window element back to its source).
#include <ATen/ATen.h>
#include <ATen/NativeFunctions.h>
#include <ATen/WrapDimUtilsMulti.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

at::Tensor copyOp(const char* op, const at::Tensor& self, const std::function<void(torch_npu::OpCommand&)>& attrs) {
  at::Tensor out = torch_npu::emptyNpu(self.sizes(), self.scalar_type(), self.device());
  torch_npu::OpCommand cmd(op);
  cmd.Input(self).Output(out);
  attrs(cmd);
  cmd.Run();
  return out;
}

}  // namespace

at::Tensor NPUNativeFunctions::flip(const at::Tensor& self, at::IntArrayRef dims) {
  const auto flags = at::dim_list_to_bitset(dims, self.dim());  // PyTorch's range / repeat checks
  std::vector<int64_t> axis;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (flags[static_cast<size_t>(d)]) axis.push_back(d);
  return copyOp("ReverseV2", self, [&](torch_npu::OpCommand& cmd) { cmd.Attr("axis", at::IntArrayRef(axis)); });
}

at::Tensor NPUNativeFunctions::roll(const at::Tensor& self, at::IntArrayRef shifts, at::IntArrayRef dims) {
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {  // roll the flattened tensor
    return roll(self.reshape({self.numel()}), shifts, {0}).view(self.sizes());
  }
  TORCH_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  std::vector<int64_t> wrapped;
  for (int64_t d : dims) wrapped.push_back(at::maybe_wrap_dim(d, self.dim(), /*wrap_scalar=*/false));  // as the CPU
  return copyOp("Roll", self, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("shifts", shifts).Attr("dims", at::IntArrayRef(wrapped));
  });
}

at::Tensor NPUNativeFunctions::unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return at::native::unfold(self, dimension, size, step);
}

at::Tensor NPUNativeFunctions::unfold_backward(const at::Tensor& grad_in, at::IntArrayRef input_sizes, int64_t dim,
                                               int64_t size, int64_t step) {
  if (input_sizes.empty()) return grad_in.reshape({}).clone();  // 0-d input: one window of one element
  dim = at::maybe_wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  at::Tensor grad = at::zeros(input_sizes, grad_in.options());
  const int64_t windows = grad_in.size(dim);
  if (windows == 0 || size == 0) return grad;
  // Window w, element k comes from index w·step + k along `dim`.
  const auto longs = grad_in.options().dtype(at::kLong);
  const at::Tensor index = at::arange(windows, longs).mul_(step).unsqueeze(1).add(at::arange(size, longs));
  c10::List<c10::optional<at::Tensor>> indices;
  for (int64_t d = 0; d < dim; ++d) indices.push_back(c10::nullopt);
  indices.push_back(index);
  return grad.index_put_(indices, grad_in.movedim(-1, dim + 1), /*accumulate=*/true);
}

// The output size is the sum of the repeats: a host sync unless the caller
// passes output_size (Note [Ops whose output size depends on the data]).
at::Tensor NPUNativeFunctions::repeat_interleave(const at::Tensor& repeats, c10::optional<int64_t> output_size) {
  TORCH_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  TORCH_CHECK(repeats.scalar_type() == at::kLong || repeats.scalar_type() == at::kInt,
              "repeats has to be Long or Int tensor");
  if (repeats.numel() == 0) return torch_npu::emptyNpu({0}, repeats.scalar_type(), repeats.device());
  int64_t total = 0;
  if (output_size.has_value()) {
    total = *output_size;
  } else {
    TORCH_CHECK(repeats.min().item<int64_t>() >= 0, "repeats can not be negative");
    total = repeats.sum().item<int64_t>();
  }
  const at::Tensor index = at::arange(repeats.numel(), repeats.options());
  at::Tensor out = torch_npu::emptyNpu({total}, repeats.scalar_type(), repeats.device());
  torch_npu::OpCommand("RepeatInterleave").Input(index).Input(repeats).Output(out).Attr("axis", int64_t{0}).Run();
  return out;
}

at::Tensor NPUNativeFunctions::channel_shuffle(const at::Tensor& self, int64_t groups) {
  TORCH_CHECK(self.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes ",
              self.sizes());
  TORCH_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:", groups);
  const int64_t c = self.size(1);
  TORCH_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ", groups,
              " groups.");
  if (self.numel() == 0) return self.clone();
  return self.reshape({self.size(0), groups, c / groups, -1}).permute({0, 2, 1, 3}).contiguous().view(self.sizes());
}

}  // namespace native
}  // namespace at_npu
