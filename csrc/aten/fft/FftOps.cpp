// torch.fft on the NPU: _fft_r2c, _fft_c2r and _fft_c2c (and their out= forms), the three ops every
// torch.fft function, torch.stft / torch.istft and their backwards reduce to, on the AI CPU's
// RFFT, IRFFT, FFT and IFFT kernels.
//
// Note [FFTs on the NPU]
// One launch transforms every axis in `dim` (the kernels apply one axis at a time, the real <->
// half-spectrum axis last), with PyTorch's normalization codes passed through (0 none, 1 by
// 1/sqrt(n), 2 by 1/n, n the product of the transformed lengths). The NPU computes FFTs of float32
// and complex64 tensors; inputs must be on the NPU and are made contiguous first. fp16 / float64
// inputs raise (CUDA's cuFFT path takes fp16 for powers of two only; float64 is storage-only on
// the NPU).
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>

#include <functional>
#include <vector>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

std::vector<int64_t> wrappedDims(const at::Tensor& self, at::IntArrayRef dim, const char* op) {
  TORCH_CHECK(!dim.empty(), op, ": expected at least one dim to transform");
  std::vector<int64_t> dims;
  for (int64_t d : dim) dims.push_back(c10::maybe_wrap_dim(d, self.dim()));
  return dims;
}

void checkDtype(const at::Tensor& self, at::ScalarType expected, const char* op) {
  TORCH_CHECK(self.scalar_type() == expected, op, ": the NPU computes FFTs of ",
              expected == at::kFloat ? "float32" : "complex64", " tensors here, got ", self.scalar_type(),
              "; convert with .float() / .to(torch.complex64) first");
}

at::Tensor& fftInto(const char* acl_op, const at::Tensor& self, std::vector<int64_t> out_sizes,
                    at::ScalarType out_dtype, at::Tensor& out,
                    const std::function<void(torch_npu::OpCommand&)>& attrs) {
  const at::Tensor input = self.contiguous();
  return torch_npu::runInto(acl_op, out, out_sizes, out_dtype, [&](torch_npu::OpCommand& cmd) {
    cmd.Input(input);
    attrs(cmd);
  });
}

}  // namespace

at::Tensor& NPUNativeFunctions::_fft_r2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                             bool onesided, at::Tensor& out) {
  checkDtype(self, at::kFloat, "_fft_r2c");
  const auto dims = wrappedDims(self, dim, "_fft_r2c");
  std::vector<int64_t> sizes = self.sizes().vec();
  if (onesided) sizes[dims.back()] = sizes[dims.back()] / 2 + 1;
  return fftInto("RFFT", self, sizes, at::kComplexFloat, out, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("dims", at::IntArrayRef(dims)).Attr("normalization", normalization).Attr("onesided", onesided);
  });
}

at::Tensor NPUNativeFunctions::_fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                        bool onesided) {
  at::Tensor out = at::empty({0}, self.options().dtype(at::kComplexFloat));
  return _fft_r2c_out(self, dim, normalization, onesided, out);
}

at::Tensor& NPUNativeFunctions::_fft_c2r_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                             int64_t last_dim_size, at::Tensor& out) {
  checkDtype(self, at::kComplexFloat, "_fft_c2r");
  const auto dims = wrappedDims(self, dim, "_fft_c2r");
  TORCH_CHECK(last_dim_size >= 1, "_fft_c2r: invalid number of data points (", last_dim_size, ") specified");
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes[dims.back()] = last_dim_size;
  return fftInto("IRFFT", self, sizes, at::kFloat, out, [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("dims", at::IntArrayRef(dims)).Attr("normalization", normalization).Attr("last_dim_size", last_dim_size);
  });
}

at::Tensor NPUNativeFunctions::_fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                        int64_t last_dim_size) {
  at::Tensor out = at::empty({0}, self.options().dtype(at::kFloat));
  return _fft_c2r_out(self, dim, normalization, last_dim_size, out);
}

at::Tensor& NPUNativeFunctions::_fft_c2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                             bool forward, at::Tensor& out) {
  checkDtype(self, at::kComplexFloat, "_fft_c2c");
  const auto dims = wrappedDims(self, dim, "_fft_c2c");
  return fftInto(forward ? "FFT" : "IFFT", self, self.sizes().vec(), at::kComplexFloat, out,
                 [&](torch_npu::OpCommand& cmd) {
                   cmd.Attr("dims", at::IntArrayRef(dims)).Attr("normalization", normalization);
                 });
}

at::Tensor NPUNativeFunctions::_fft_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                        bool forward) {
  at::Tensor out = at::empty({0}, self.options());
  return _fft_c2c_out(self, dim, normalization, forward, out);
}

}  // namespace native
}  // namespace at_npu
