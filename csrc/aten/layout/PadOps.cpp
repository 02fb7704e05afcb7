// Reflection and replication padding (1-3 D) and their backward on PadV3 /
// PadV3Grad (OPS.md "Dense prediction, padding, layout and indexing", Note
// [Pad index maps]). Most forms are structured upstream (PyTorch's meta
// function checks and sizes); reflection_pad2d and the 2-D / 3-D
// replication backward are not, and check their arguments here as the CPU
// does. constant_pad_nd and circular padding are composite in PyTorch.
#include <ATen/ATen.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// PyTorch's padding (last dim first: [left, right, top, bottom, ...]) as
// PadV3's begin/end pair per dim of a tensor of rank `rank`.
std::vector<int64_t> padPairs(int64_t rank, at::IntArrayRef padding) {
  std::vector<int64_t> pairs(static_cast<size_t>(2 * rank), 0);
  const int64_t n = static_cast<int64_t>(padding.size()) / 2;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = rank - 1 - i;
    pairs[static_cast<size_t>(2 * d)] = padding[static_cast<size_t>(2 * i)];
    pairs[static_cast<size_t>(2 * d + 1)] = padding[static_cast<size_t>(2 * i + 1)];
  }
  return pairs;
}

std::vector<int64_t> paddedSizes(const at::Tensor& self, at::IntArrayRef padding) {
  std::vector<int64_t> sizes = self.sizes().vec();
  const std::vector<int64_t> pairs = padPairs(self.dim(), padding);
  for (size_t d = 0; d < sizes.size(); ++d) sizes[d] += pairs[2 * d] + pairs[2 * d + 1];
  return sizes;
}

at::Tensor& padForward(const char* mode, const at::Tensor& self, at::IntArrayRef padding, at::Tensor& out) {
  return torch_npu::runInto("PadV3", out, paddedSizes(self, padding), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Input(self).Attr("paddings", at::IntArrayRef(padPairs(self.dim(), padding)));
                              cmd.Attr("mode", mode);
                            });
}

at::Tensor& padBackward(const char* mode, const at::Tensor& grad_output, const at::Tensor& self,
                        at::IntArrayRef padding, at::Tensor& grad_input) {
  return torch_npu::runInto("PadV3Grad", grad_input, self.sizes(), grad_output.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Input(grad_output).Attr("paddings", at::IntArrayRef(padPairs(self.dim(), padding)));
                              cmd.Attr("mode", mode);
                            });
}

// The checks of the hand-written (non-structured) forms: `spatial` padded
// dims of an input with spatial + 1 or spatial + 2 dims, each non-empty
// (batch excepted), reflection pads smaller than their dim, a non-empty
// result, and for backward grad_output of the padded size.
void checkPad(const char* op, int64_t spatial, const at::Tensor& self, at::IntArrayRef padding, bool reflect) {
  TORCH_CHECK(static_cast<int64_t>(padding.size()) == 2 * spatial, op, ": padding size is expected to be ", 2 * spatial,
              ", got ", padding.size());
  const int64_t rank = self.dim();
  bool valid = rank == spatial + 1 || rank == spatial + 2;
  for (int64_t d = 1; valid && d < rank; ++d) valid = self.size(d) != 0;
  TORCH_CHECK(valid, op, ": ", spatial + 1, "D or ", spatial + 2,
              "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions expected for input, but "
              "got: ", self.sizes());
  const std::vector<int64_t> out = paddedSizes(self, padding);
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t d = rank - 1 - i;
    const int64_t l = padding[static_cast<size_t>(2 * i)], r = padding[static_cast<size_t>(2 * i + 1)];
    TORCH_CHECK(!reflect || (l < self.size(d) && r < self.size(d)), op,
                ": Padding size should be less than the corresponding input dimension, but got: padding (", l, ", ",
                r, ") at dimension ", d, " of input ", self.sizes());
    TORCH_CHECK(out[static_cast<size_t>(d)] >= 1, op, ": input ", self.sizes(), " is too small for padding ", padding,
                ": calculated output ", at::IntArrayRef(out));
  }
}

void checkPadGrad(const char* op, int64_t spatial, const at::Tensor& grad_output, const at::Tensor& self,
                  at::IntArrayRef padding, bool reflect) {
  checkPad(op, spatial, self, padding, reflect);
  const std::vector<int64_t> out = paddedSizes(self, padding);
  TORCH_CHECK(grad_output.sizes().equals(out), op, ": grad_output size unexpected: expected ", at::IntArrayRef(out),
              ", got ", grad_output.sizes());
}

}  // namespace

// ---- structured upstream ----------------------------------------------------------------------

at::Tensor& NPUNativeFunctions::reflection_pad1d_out(const at::Tensor& self, at::IntArrayRef padding,
                                                     at::Tensor& out) {
  return padForward("reflect", self, padding, out);
}
at::Tensor& NPUNativeFunctions::reflection_pad1d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                              at::IntArrayRef padding, at::Tensor& grad_input) {
  return padBackward("reflect", grad_output, self, padding, grad_input);
}
at::Tensor& NPUNativeFunctions::reflection_pad3d_out(const at::Tensor& self, at::IntArrayRef padding,
                                                     at::Tensor& out) {
  return padForward("reflect", self, padding, out);
}
at::Tensor& NPUNativeFunctions::reflection_pad3d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                              at::IntArrayRef padding, at::Tensor& grad_input) {
  return padBackward("reflect", grad_output, self, padding, grad_input);
}
at::Tensor& NPUNativeFunctions::replication_pad1d_out(const at::Tensor& self, at::IntArrayRef padding,
                                                      at::Tensor& out) {
  return padForward("edge", self, padding, out);
}
at::Tensor& NPUNativeFunctions::replication_pad1d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                               at::IntArrayRef padding, at::Tensor& grad_input) {
  return padBackward("edge", grad_output, self, padding, grad_input);
}
at::Tensor& NPUNativeFunctions::replication_pad2d_out(const at::Tensor& self, at::IntArrayRef padding,
                                                      at::Tensor& out) {
  return padForward("edge", self, padding, out);
}
at::Tensor& NPUNativeFunctions::replication_pad3d_out(const at::Tensor& self, at::IntArrayRef padding,
                                                      at::Tensor& out) {
  return padForward("edge", self, padding, out);
}

// ---- hand-written forms -----------------------------------------------------------------------

at::Tensor& NPUNativeFunctions::reflection_pad2d_out(const at::Tensor& self, at::IntArrayRef padding,
                                                     at::Tensor& out) {
  checkPad("reflection_pad2d", 2, self, padding, true);
  return padForward("reflect", self, padding, out);
}
at::Tensor NPUNativeFunctions::reflection_pad2d(const at::Tensor& self, at::IntArrayRef padding) {
  at::Tensor out = torch_npu::emptyNpuToResize(self);
  return reflection_pad2d_out(self, padding, out);
}
at::Tensor& NPUNativeFunctions::reflection_pad2d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                              at::IntArrayRef padding, at::Tensor& grad_input) {
  checkPadGrad("reflection_pad2d_backward", 2, grad_output, self, padding, true);
  return padBackward("reflect", grad_output, self, padding, grad_input);
}
at::Tensor NPUNativeFunctions::reflection_pad2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                         at::IntArrayRef padding) {
  at::Tensor grad_input = torch_npu::emptyNpuToResize(grad_output);
  return reflection_pad2d_backward_out(grad_output, self, padding, grad_input);
}
at::Tensor& NPUNativeFunctions::replication_pad2d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                               at::IntArrayRef padding, at::Tensor& grad_input) {
  checkPadGrad("replication_pad2d_backward", 2, grad_output, self, padding, false);
  return padBackward("edge", grad_output, self, padding, grad_input);
}
at::Tensor NPUNativeFunctions::replication_pad2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                          at::IntArrayRef padding) {
  at::Tensor grad_input = torch_npu::emptyNpuToResize(grad_output);
  return replication_pad2d_backward_out(grad_output, self, padding, grad_input);
}
at::Tensor& NPUNativeFunctions::replication_pad3d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                               at::IntArrayRef padding, at::Tensor& grad_input) {
  checkPadGrad("replication_pad3d_backward", 3, grad_output, self, padding, false);
  return padBackward("edge", grad_output, self, padding, grad_input);
}
at::Tensor NPUNativeFunctions::replication_pad3d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                          at::IntArrayRef padding) {
  at::Tensor grad_input = torch_npu::emptyNpuToResize(grad_output);
  return replication_pad3d_backward_out(grad_output, self, padding, grad_input);
}

}  // namespace native
}  // namespace at_npu
