// Pooling beyond the 2-D max / avg / adaptive-avg pools of PoolingOps.cpp:
// adaptive_max_pool2d / 3d, _adaptive_avg_pool3d, avg_pool3d,
// max_pool3d_with_indices and their backward on the simulator's N-d pools
// (Note [N-d pooling numerics]), and max_unpool2d / 3d as a scatter of the
// values into a zero plane (ScatterElements). Unbatched inputs get a batch
// of one. Structured forms rely on PyTorch's meta functions for the checks
// and sizes; the others run PyTorch's shape checks (Pool.h).
#include <ATen/ATen.h>
#include <ATen/div_rtn.h>  // needed by Pool.h
#include <ATen/native/Pool.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

at::Tensor withBatchDim(const at::Tensor& t, bool unbatched) { return unbatched ? t.unsqueeze(0) : t; }

// `op` from `inputs` into `outputs` (any strides / dtypes, prepared and
// finished here); every operand gets a batch of one when `unbatched`.
template <typename Attrs>
void runPool(const char* op, std::initializer_list<at::Tensor> inputs, std::initializer_list<at::Tensor*> outputs,
             std::initializer_list<c10::ScalarType> out_dtypes, bool unbatched, Attrs&& attrs) {
  std::vector<at::Tensor> results;
  auto dtype = out_dtypes.begin();
  for (at::Tensor* out : outputs) results.push_back(torch_npu::prepareOut(op, *out, out->sizes(), *dtype++));
  torch_npu::OpCommand cmd(op);
  for (const at::Tensor& in : inputs) cmd.Input(withBatchDim(in, unbatched));
  for (const at::Tensor& r : results) cmd.Output(withBatchDim(r, unbatched));
  attrs(cmd);
  cmd.Run();
  size_t i = 0;
  for (at::Tensor* out : outputs) torch_npu::finishOut(*out, results[i++]);
}

// A pooling window parameter of 3 values: given as 1 or 3, or `fallback` when empty.
std::vector<int64_t> triple(at::IntArrayRef v, at::IntArrayRef fallback) {
  if (v.empty()) return fallback.vec();
  return v.size() == 1 ? std::vector<int64_t>(3, v[0]) : v.vec();
}

struct Window3d {
  std::vector<int64_t> k, s, p, d;
};

Window3d window3d(const char* fn, at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
                  at::IntArrayRef dilation) {
  TORCH_CHECK(kernel_size.size() == 1 || kernel_size.size() == 3, fn,
              ": kernel_size must either be a single int, or a tuple of three ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3, fn,
              ": stride must either be omitted, a single int, or a tuple of three ints");
  TORCH_CHECK(padding.size() == 1 || padding.size() == 3, fn,
              ": padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dilation.size() == 1 || dilation.size() == 3, fn,
              ": dilation must be either a single int, or a tuple of three ints");
  Window3d w;
  w.k = triple(kernel_size, {});
  w.s = triple(stride, w.k);
  w.p = triple(padding, {});
  w.d = triple(dilation, {});
  return w;
}

std::vector<int64_t> maxPool3dOutput(const char* fn, const at::Tensor& self, const Window3d& w, bool ceil_mode) {
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, fn, ": Expected 4D or 5D tensor for input, but got: ", self.sizes());
  std::vector<int64_t> out;
  for (int i = 0; i < 3; ++i) {
    out.push_back(at::native::pooling_output_shape<int64_t>(self.size(-3 + i), w.k[i], w.p[i], w.s[i], w.d[i],
                                                            ceil_mode));
  }
  at::native::pool3d_shape_check(self, self.size(-4), w.k[0], w.k[1], w.k[2], w.s[0], w.s[1], w.s[2], w.p[0], w.p[1],
                                 w.p[2], w.d[0], w.d[1], w.d[2], self.size(-3), self.size(-2), self.size(-1), out[0],
                                 out[1], out[2], fn);
  return out;
}

void windowAttrs(torch_npu::OpCommand& cmd, const Window3d& w, bool ceil_mode) {
  cmd.Attr("ksize", at::IntArrayRef(w.k)).Attr("strides", at::IntArrayRef(w.s)).Attr("pads", at::IntArrayRef(w.p));
  cmd.Attr("dilations", at::IntArrayRef(w.d)).Attr("ceil_mode", ceil_mode);
}

// x scattered into a zero tensor of `spatial` sizes per (n, c) plane at the
// flat plane positions `indices` (max_unpool2d / 3d).
at::Tensor& unpoolInto(const char* fn, const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef spatial,
                       int64_t rank, at::Tensor& out) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(self.dim() == rank + 1 || self.dim() == rank + 2, "Input to ", fn, " should be a ", rank + 1, "d or ",
              rank + 2, "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  for (int64_t i = 1; i < self.dim(); ++i) {
    TORCH_CHECK(self.size(i) > 0, fn, "(): Expected input to have non-zero size for non-batch dimensions, but got ",
                self.sizes(), " with dimension ", i, " being empty.");
  }
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - rank);
  const int64_t lead = static_cast<int64_t>(sizes.size());
  sizes.insert(sizes.end(), spatial.begin(), spatial.end());
  at::native::resize_output(out, sizes);
  if (out.numel() == 0) return out;
  std::vector<int64_t> flat(sizes.begin(), sizes.begin() + lead), planes = flat;
  flat.push_back(-1);
  planes.push_back(c10::multiply_integers(spatial));
  const at::Tensor plane = at::zeros(planes, self.options()).scatter_(lead, indices.reshape(flat), self.reshape(flat));
  return out.copy_(plane.view(sizes));
}

}  // namespace

// ---- adaptive max (structured) ----------------------------------------------------------------

namespace {
void adaptiveMax(const char* op, const at::Tensor& self, at::IntArrayRef output_size, int64_t rank, at::Tensor& out,
                 at::Tensor& indices) {
  runPool(op, {self}, {&out, &indices}, {self.scalar_type(), at::kLong}, self.dim() == rank + 1,
          [&](torch_npu::OpCommand& cmd) { cmd.Attr("output_size", output_size); });
}
void adaptiveMaxGrad(const char* op, const at::Tensor& grad_output, const at::Tensor& self,
                     const at::Tensor& indices, int64_t rank, at::Tensor& grad_input) {
  const at::IntArrayRef out_size = grad_output.sizes().slice(grad_output.dim() - rank);
  runPool(op, {self, grad_output, indices}, {&grad_input}, {grad_output.scalar_type()}, self.dim() == rank + 1,
          [&](torch_npu::OpCommand& cmd) { cmd.Attr("output_size", out_size); });
}
}  // namespace

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::adaptive_max_pool2d_out(const at::Tensor& self,
                                                                                  at::IntArrayRef output_size,
                                                                                  at::Tensor& out,
                                                                                  at::Tensor& indices) {
  adaptiveMax("AdaptiveMaxPool2d", self, output_size, 2, out, indices);
  return {out, indices};
}
at::Tensor& NPUNativeFunctions::adaptive_max_pool2d_backward_out(const at::Tensor& grad_output,
                                                                 const at::Tensor& self, const at::Tensor& indices,
                                                                 at::Tensor& grad_input) {
  adaptiveMaxGrad("AdaptiveMaxPool2dGrad", grad_output, self, indices, 2, grad_input);
  return grad_input;
}
::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::adaptive_max_pool3d_out(const at::Tensor& self,
                                                                                  at::IntArrayRef output_size,
                                                                                  at::Tensor& out,
                                                                                  at::Tensor& indices) {
  adaptiveMax("AdaptiveMaxPool3d", self, output_size, 3, out, indices);
  return {out, indices};
}
at::Tensor& NPUNativeFunctions::adaptive_max_pool3d_backward_out(const at::Tensor& grad_output,
                                                                 const at::Tensor& self, const at::Tensor& indices,
                                                                 at::Tensor& grad_input) {
  adaptiveMaxGrad("AdaptiveMaxPool3dGrad", grad_output, self, indices, 3, grad_input);
  return grad_input;
}

// ---- adaptive avg 3-D -------------------------------------------------------------------------

at::Tensor NPUNativeFunctions::_adaptive_avg_pool3d(const at::Tensor& self, at::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 3, "adaptive_avg_pool3d: output_size must be 3");
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got ",
              self.sizes());
  for (int64_t i = 1; i < self.dim(); ++i) {
    TORCH_CHECK(self.size(i) > 0, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes ", self.sizes(), " with dimension ", i, " being empty");
  }
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 3);
  sizes.insert(sizes.end(), output_size.begin(), output_size.end());
  at::Tensor out = torch_npu::emptyNpu(sizes, self.scalar_type(), self.device());
  runPool("AdaptiveAvgPool3d", {self}, {&out}, {self.scalar_type()}, self.dim() == 4,
          [&](torch_npu::OpCommand& cmd) { cmd.Attr("output_size", output_size); });
  return out;
}
at::Tensor NPUNativeFunctions::_adaptive_avg_pool3d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  TORCH_CHECK(grad_output.dim() == self.dim(), "adaptive_avg_pool3d_backward(): grad_output must have the rank of "
              "the input, got ", grad_output.sizes(), " and ", self.sizes());
  at::Tensor grad_input = torch_npu::emptyNpu(self.sizes(), grad_output.scalar_type(), self.device());
  const bool unbatched = self.dim() == 4;
  const at::Tensor batched_self = withBatchDim(self, unbatched);
  runPool("AdaptiveAvgPool3dGrad", {grad_output}, {&grad_input}, {grad_output.scalar_type()}, unbatched,
          [&](torch_npu::OpCommand& cmd) {
            cmd.Attr("output_size", grad_output.sizes().slice(grad_output.dim() - 3));
            cmd.Attr("orig_input_shape", batched_self.sizes());
          });
  return grad_input;
}

// ---- avg_pool3d (structured) ------------------------------------------------------------------

namespace {
void avgAttrs(torch_npu::OpCommand& cmd, const Window3d& w, bool ceil_mode, bool count_include_pad,
              c10::optional<int64_t> divisor_override) {
  cmd.Attr("ksize", at::IntArrayRef(w.k)).Attr("strides", at::IntArrayRef(w.s)).Attr("pads", at::IntArrayRef(w.p));
  cmd.Attr("ceil_mode", ceil_mode).Attr("count_include_pad", count_include_pad);
  cmd.Attr("divisor_override", divisor_override.value_or(0));
}
}  // namespace

at::Tensor& NPUNativeFunctions::avg_pool3d_out(const at::Tensor& self, at::IntArrayRef kernel_size,
                                               at::IntArrayRef stride, at::IntArrayRef padding, bool ceil_mode,
                                               bool count_include_pad, c10::optional<int64_t> divisor_override,
                                               at::Tensor& out) {
  const Window3d w = window3d("avg_pool3d", kernel_size, stride, padding, {1});
  runPool("AvgPool3D", {self}, {&out}, {self.scalar_type()}, self.dim() == 4, [&](torch_npu::OpCommand& cmd) {
    avgAttrs(cmd, w, ceil_mode, count_include_pad, divisor_override);
  });
  return out;
}
at::Tensor& NPUNativeFunctions::avg_pool3d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                        at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                                        at::IntArrayRef padding, bool ceil_mode,
                                                        bool count_include_pad,
                                                        c10::optional<int64_t> divisor_override,
                                                        at::Tensor& grad_input) {
  const Window3d w = window3d("avg_pool3d_backward", kernel_size, stride, padding, {1});
  const bool unbatched = self.dim() == 4;
  const at::Tensor batched_self = withBatchDim(self, unbatched);
  runPool("AvgPool3DGrad", {grad_output}, {&grad_input}, {grad_output.scalar_type()}, unbatched,
          [&](torch_npu::OpCommand& cmd) {
            avgAttrs(cmd, w, ceil_mode, count_include_pad, divisor_override);
            cmd.Attr("orig_input_shape", batched_self.sizes());
          });
  return grad_input;
}

// ---- max_pool3d_with_indices ------------------------------------------------------------------

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::max_pool3d_with_indices_out(
    const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
    at::IntArrayRef dilation, bool ceil_mode, at::Tensor& out, at::Tensor& indices) {
  const Window3d w = window3d("max_pool3d_with_indices", kernel_size, stride, padding, dilation);
  const std::vector<int64_t> spatial = maxPool3dOutput("max_pool3d_with_indices_out()", self, w, ceil_mode);
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 3);
  sizes.insert(sizes.end(), spatial.begin(), spatial.end());
  at::native::resize_output(out, sizes);
  at::native::resize_output(indices, sizes);
  runPool("MaxPool3DWithArgmax", {self}, {&out, &indices}, {self.scalar_type(), at::kLong}, self.dim() == 4,
          [&](torch_npu::OpCommand& cmd) { windowAttrs(cmd, w, ceil_mode); });
  return {out, indices};
}
::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::max_pool3d_with_indices(
    const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride, at::IntArrayRef padding,
    at::IntArrayRef dilation, bool ceil_mode) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  at::Tensor indices = torch_npu::emptyNpu({0}, at::kLong, self.device());
  max_pool3d_with_indices_out(self, kernel_size, stride, padding, dilation, ceil_mode, out, indices);
  return {out, indices};
}
at::Tensor& NPUNativeFunctions::max_pool3d_with_indices_backward_out(
    const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode, const at::Tensor& indices,
    at::Tensor& grad_input) {
  const Window3d w = window3d("max_pool3d_with_indices_backward", kernel_size, stride, padding, dilation);
  const std::vector<int64_t> o = maxPool3dOutput("max_pool3d_with_indices_backward_out()", self, w, ceil_mode);
  at::native::max_pool3d_backward_shape_check(self, grad_output, indices, self.size(-4), w.k[0], w.k[1], w.k[2],
                                              w.s[0], w.s[1], w.s[2], w.p[0], w.p[1], w.p[2], w.d[0], w.d[1], w.d[2],
                                              self.size(-3), self.size(-2), self.size(-1), o[0], o[1], o[2],
                                              "max_pool3d_with_indices_backward_out()");
  at::native::resize_output(grad_input, self.sizes());
  runPool("MaxPool3DGradWithArgmax", {self, grad_output, indices}, {&grad_input}, {grad_output.scalar_type()},
          self.dim() == 4, [&](torch_npu::OpCommand& cmd) { windowAttrs(cmd, w, ceil_mode); });
  return grad_input;
}
at::Tensor NPUNativeFunctions::max_pool3d_with_indices_backward(const at::Tensor& grad_output,
                                                                const at::Tensor& self, at::IntArrayRef kernel_size,
                                                                at::IntArrayRef stride, at::IntArrayRef padding,
                                                                at::IntArrayRef dilation, bool ceil_mode,
                                                                const at::Tensor& indices) {
  at::Tensor grad_input = torch_npu::emptyNpu({0}, grad_output.scalar_type(), self.device());
  return max_pool3d_with_indices_backward_out(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                                              indices, grad_input);
}

// ---- max_unpool2d / 3d ------------------------------------------------------------------------

at::Tensor& NPUNativeFunctions::max_unpool2d_out(const at::Tensor& self, const at::Tensor& indices,
                                                 at::IntArrayRef output_size, at::Tensor& out) {
  TORCH_CHECK(output_size.size() == 2, "There should be exactly two elements (height, width) in output_size, but "
              "got ", output_size.size(), " elements.");
  return unpoolInto("max_unpooling2d_forward_out_cpu", self, indices, output_size, 2, out);
}
at::Tensor NPUNativeFunctions::max_unpool2d(const at::Tensor& self, const at::Tensor& indices,
                                            at::IntArrayRef output_size) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return max_unpool2d_out(self, indices, output_size, out);
}
at::Tensor& NPUNativeFunctions::max_unpool3d_out(const at::Tensor& self, const at::Tensor& indices,
                                                 at::IntArrayRef output_size, at::IntArrayRef stride,
                                                 at::IntArrayRef padding, at::Tensor& out) {
  TORCH_CHECK(output_size.size() == 3, "There should be exactly three elements (depth, height, width) in "
              "output_size, but got: ", output_size.size(), " elements.");
  TORCH_CHECK(stride.size() == 3, "There should be exactly three elements (depth, height, width) in stride, but "
              "got: ", stride.size(), " elements.");
  TORCH_CHECK(padding.size() == 3, "There should be exactly three elements (depth, height, width) in padding, but "
              "got: ", padding.size(), " elements.");
  TORCH_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0, "strides should be greater than zero, but got stride: ",
              stride);
  return unpoolInto("max_unpooling3d_forward_out_cpu", self, indices, output_size, 3, out);
}
at::Tensor NPUNativeFunctions::max_unpool3d(const at::Tensor& self, const at::Tensor& indices,
                                            at::IntArrayRef output_size, at::IntArrayRef stride,
                                            at::IntArrayRef padding) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return max_unpool3d_out(self, indices, output_size, stride, padding, out);
}

}  // namespace native
}  // namespace at_npu
