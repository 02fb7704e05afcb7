// im2col / col2im (nn.functional.unfold / fold, and each other's backward)
// on the simulator's Im2col / Col2im (Note [Im2col layout]). PyTorch's own
// shape checks (im2col_shape_check.h) run first; unbatched inputs get a
// batch of one.
#include <ATen/ATen.h>
#include <ATen/div_rtn.h>  // needed by im2col_shape_check.h
#include <ATen/native/im2col_shape_check.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void checkPairs(at::IntArrayRef kernel_size, at::IntArrayRef dilation, at::IntArrayRef padding,
                at::IntArrayRef stride) {
  TORCH_CHECK(kernel_size.size() == 2, "It is expected kernel_size equals to 2, but got size ", kernel_size.size());
  TORCH_CHECK(dilation.size() == 2, "It is expected dilation equals to 2, but got size ", dilation.size());
  TORCH_CHECK(padding.size() == 2, "It is expected padding equals to 2, but got size ", padding.size());
  TORCH_CHECK(stride.size() == 2, "It is expected stride equals to 2, but got size ", stride.size());
}

// Runs `op` from `input` (batched to rank `batched_rank` if needed) into `out`
// of `sizes` (the unbatched sizes when the input was unbatched).
template <typename Attrs>
at::Tensor& runBatched(const char* op, const at::Tensor& input, int64_t batched_rank, std::vector<int64_t> sizes,
                       at::Tensor& out, Attrs&& attrs) {
  const bool unbatched = input.dim() == batched_rank - 1;
  if (unbatched) sizes.erase(sizes.begin());
  at::Tensor result = torch_npu::prepareOut(op, out, sizes, input.scalar_type());
  torch_npu::OpCommand cmd(op);
  cmd.Input(unbatched ? input.unsqueeze(0) : input).Output(unbatched ? result.unsqueeze(0) : result);
  attrs(cmd);
  cmd.Run();
  return torch_npu::finishOut(out, result);
}

}  // namespace

at::Tensor& NPUNativeFunctions::im2col_out(const at::Tensor& self, at::IntArrayRef kernel_size,
                                           at::IntArrayRef dilation, at::IntArrayRef padding, at::IntArrayRef stride,
                                           at::Tensor& out) {
  checkPairs(kernel_size, dilation, padding, stride);
  at::native::im2col_shape_check(self, at::Tensor(), kernel_size[0], kernel_size[1], dilation[0], dilation[1],
                                 padding[0], padding[1], stride[0], stride[1]);
  const at::Tensor x = self.dim() == 3 ? self.unsqueeze(0) : self;
  const int64_t oh = (x.size(2) + 2 * padding[0] - (dilation[0] * (kernel_size[0] - 1) + 1)) / stride[0] + 1;
  const int64_t ow = (x.size(3) + 2 * padding[1] - (dilation[1] * (kernel_size[1] - 1) + 1)) / stride[1] + 1;
  const std::vector<int64_t> sizes = {x.size(0), x.size(1) * kernel_size[0] * kernel_size[1], oh * ow};
  return runBatched("Im2col", self, 4, sizes, out, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("ksizes", kernel_size).Attr("strides", stride).Attr("dilations", dilation).Attr("pads", padding);
  });
}
at::Tensor NPUNativeFunctions::im2col(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef dilation,
                                      at::IntArrayRef padding, at::IntArrayRef stride) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return im2col_out(self, kernel_size, dilation, padding, stride, out);
}

at::Tensor& NPUNativeFunctions::col2im_out(const at::Tensor& self, at::IntArrayRef output_size,
                                           at::IntArrayRef kernel_size, at::IntArrayRef dilation,
                                           at::IntArrayRef padding, at::IntArrayRef stride, at::Tensor& out) {
  checkPairs(kernel_size, dilation, padding, stride);
  TORCH_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ", output_size.size());
  at::native::col2im_shape_check(self, at::Tensor(), output_size[0], output_size[1], kernel_size[0], kernel_size[1],
                                 dilation[0], dilation[1], padding[0], padding[1], stride[0], stride[1]);
  const at::Tensor cols = self.dim() == 2 ? self.unsqueeze(0) : self;
  const int64_t channels = cols.size(1) / (kernel_size[0] * kernel_size[1]);
  const std::vector<int64_t> sizes = {cols.size(0), channels, output_size[0], output_size[1]};
  return runBatched("Col2im", self, 3, sizes, out, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("output_size", output_size).Attr("kernel_size", kernel_size).Attr("dilation", dilation);
    cmd.Attr("padding", padding).Attr("stride", stride);
  });
}
at::Tensor NPUNativeFunctions::col2im(const at::Tensor& self, at::IntArrayRef output_size,
                                      at::IntArrayRef kernel_size, at::IntArrayRef dilation, at::IntArrayRef padding,
                                      at::IntArrayRef stride) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return col2im_out(self, output_size, kernel_size, dilation, padding, stride, out);
}

}  // namespace native
}  // namespace at_npu
