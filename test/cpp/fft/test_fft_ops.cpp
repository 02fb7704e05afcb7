// torch.fft on the NPU (Note [FFTs on the NPU]): _fft_r2c / _fft_c2r / _fft_c2c through the torch.fft
// functions, stft / istft, against the CPU (pocketfft), forward and backward, every normalization,
// lengths that are not powers of two, multi-dim transforms, out=, errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

constexpr double kFftRtol = 1e-4;
constexpr double kFftAtol = 1e-4;  // sums of n float32 terms: absolute error grows with n * max|x|

at::Tensor complexRandn(at::IntArrayRef sizes) { return at::randn(sizes, at::kComplexFloat); }

void expectComplexClose(const at::Tensor& npu_out, const at::Tensor& cpu_out, double rtol = kFftRtol,
                        double atol = kFftAtol) {
  ASSERT_EQ(npu_out.scalar_type(), cpu_out.scalar_type());
  expectClose(at::view_as_real(npu_out.cpu().resolve_conj()), at::view_as_real(cpu_out.resolve_conj()), rtol, atol);
}

}  // namespace

TEST(NpuFft, RealToComplexAndBackMatchTheCpu) {
  for (int64_t n : {1, 2, 5, 8, 64, 400, 401}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const at::Tensor x = at::randn({3, n});
    for (const char* norm : {"backward", "forward", "ortho"}) {
      SCOPED_TRACE(norm);
      const at::Tensor spectrum = torch::fft::rfft(x.to(npu()), c10::nullopt, -1, norm);
      expectComplexClose(spectrum, torch::fft::rfft(x, c10::nullopt, -1, norm));
      expectClose(torch::fft::irfft(spectrum, n, -1, norm), torch::fft::irfft(torch::fft::rfft(x, c10::nullopt, -1, norm), n, -1, norm),
                  kFftRtol, kFftAtol);
    }
    expectClose(torch::fft::irfft(torch::fft::rfft(x.to(npu())), n), x, kFftRtol, kFftAtol);  // round trip
  }
}

TEST(NpuFft, ComplexTransformsAndMultiDimMatchTheCpu) {
  const at::Tensor z = complexRandn({4, 6, 10});
  expectComplexClose(torch::fft::fft(z.to(npu())), torch::fft::fft(z));
  expectComplexClose(torch::fft::ifft(z.to(npu()), c10::nullopt, 1), torch::fft::ifft(z, c10::nullopt, 1));
  expectComplexClose(torch::fft::fftn(z.to(npu()), c10::nullopt, at::IntArrayRef{0, 2}, "ortho"),
                     torch::fft::fftn(z, c10::nullopt, at::IntArrayRef{0, 2}, "ortho"));
  expectComplexClose(torch::fft::fft2(z.to(npu())), torch::fft::fft2(z));
  const at::Tensor x = at::randn({5, 6, 7});
  expectComplexClose(torch::fft::rfftn(x.to(npu())), torch::fft::rfftn(x));
  expectClose(torch::fft::irfftn(torch::fft::rfftn(x.to(npu())), at::IntArrayRef{5, 6, 7}), x, kFftRtol, kFftAtol);
  expectClose(torch::fft::hfft(z.to(npu()), 12), torch::fft::hfft(z, 12), kFftRtol, kFftAtol);
  expectComplexClose(torch::fft::fft(z.to(npu()), 16), torch::fft::fft(z, 16));  // zero-padded
  expectComplexClose(torch::fft::fft(z.to(npu()), 4), torch::fft::fft(z, 4));    // trimmed
}

TEST(NpuFft, GradientsMatchTheCpu) {
  AutogradCheck check;
  check.rtol = kFftRtol;
  check.atol = kFftAtol;
  expectSameAutogradWith([](const auto& in) { return at::view_as_real(torch::fft::rfft(in[0])).square().sum(-1); },
                         {at::randn({3, 20})}, check);
  expectSameAutogradWith([](const auto& in) { return torch::fft::irfft(at::view_as_complex(in[0]), 18); },
                         {at::randn({3, 10, 2})}, check);
  expectSameAutogradWith([](const auto& in) { return at::abs(torch::fft::fft(at::view_as_complex(in[0]))); },
                         {at::randn({2, 9, 2})}, check);
}

TEST(NpuFft, StftAndIstftMatchTheCpu) {
  const at::Tensor signal = at::randn({2, 400});
  const at::Tensor window = at::hann_window(64);
  const auto stft = [&](const at::Tensor& s, const at::Tensor& w) {
    return at::stft(s, 64, 16, 64, w, /*center=*/true, "reflect", false, c10::nullopt, /*return_complex=*/true);
  };
  const at::Tensor spec_cpu = stft(signal, window);
  const at::Tensor spec_npu = stft(signal.to(npu()), window.to(npu()));
  expectComplexClose(spec_npu, spec_cpu);
  const at::Tensor back = at::istft(spec_npu, 64, 16, 64, window.to(npu()), true, false, c10::nullopt, 400);
  expectClose(back, signal, kFftRtol, kFftAtol);
}

TEST(NpuFft, OutFormsAndErrors) {
  const at::Tensor x = at::randn({4, 8});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()).dtype(at::kComplexFloat));
  at::_fft_r2c_out(out, x.to(npu()), {1}, 0, true);
  expectComplexClose(out, at::_fft_r2c(x, {1}, 0, true));
  const at::Tensor empty = at::empty({0, 8}, at::TensorOptions().device(npu()));
  EXPECT_EQ(torch::fft::rfft(empty).sizes(), (std::vector<int64_t>{0, 5}));
  // torch.fft rejects half before dispatch ("Unsupported dtype Half"); the NPU kernel names its own limit.
  EXPECT_THROW_WITH(at::_fft_r2c(x.to(npu()).to(at::kHalf), {1}, 0, true), "the NPU computes FFTs of float32");
  EXPECT_THROW_WITH(at::_fft_c2r(complexRandn({4, 5}).to(npu()), {1}, 0, 0), "invalid number of data points");
}
