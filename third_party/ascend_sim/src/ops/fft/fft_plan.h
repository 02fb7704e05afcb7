// One-dimensional discrete Fourier transforms of any length in double
// precision: the arithmetic under the FFT kernels (fft.cpp).
//
// Note [FFT of any length]
// A plan transforms lines of n complex doubles in place:
//   X[j] = sum_k x[k] * exp(sign * 2*pi*i * j*k / n),  j = 0..n-1,
// sign -1 forward, +1 backward, unscaled. A power-of-two n runs an iterative
// radix-2 FFT (decimation in time after a bit-reversal permutation). Any
// other n uses Bluestein's algorithm: with w[k] = exp(sign*pi*i * k^2 / n),
// jk = (j^2 + k^2 - (j-k)^2) / 2 makes the sum a convolution,
//   X[j] = w[j] * sum_k (x[k] w[k]) * conj(w[j-k]),
// computed as a circular convolution of length m, the first power of two
// >= 2n - 1, by two radix-2 FFTs of length m and the stored spectrum of
// conj(w) (with the 1/m of the inverse folded in). Twiddles and chirps are
// evaluated directly from their angle (k^2 reduced mod 2n first, so the angle
// stays small and exact), never by recurrence. All in double: the error is
// a few units of 2^-53 times log2(m) relative to the largest input, so the
// single rounding to float32 the kernels do afterwards dominates.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace ascend_sim {

using ComplexDouble = std::complex<double>;

class FftPlan {
 public:
  FftPlan(int64_t n, int sign);

  int64_t size() const { return n_; }
  // Complex doubles of scratch transform() needs.
  int64_t scratchSize() const { return bluestein_ ? m_ : 0; }
  // Transforms line[0..n) in place; scratch holds scratchSize() elements.
  // Const: one plan serves several threads, each with its own scratch.
  void transform(ComplexDouble* line, ComplexDouble* scratch) const;

 private:
  // A radix-2 transform of length len (a power of two) with the given sign.
  struct Radix2 {
    int64_t len = 1;
    std::vector<ComplexDouble> twiddles;  // exp(sign*2*pi*i * k / len), k < len / 2
    void init(int64_t length, int sign);
    void run(ComplexDouble* a) const;
  };

  int64_t n_;
  bool bluestein_ = false;
  int64_t m_ = 0;                           // Bluestein's convolution length
  Radix2 direct_;                           // n a power of two: the whole transform
  Radix2 forward_m_, backward_m_;           // Bluestein: the two length-m FFTs
  std::vector<ComplexDouble> chirp_;        // w[k], k < n
  std::vector<ComplexDouble> kernel_spectrum_;  // FFT_m of conj(w) wrapped circularly, times 1/m
};

}  // namespace ascend_sim
