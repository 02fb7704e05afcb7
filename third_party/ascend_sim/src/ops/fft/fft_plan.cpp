#include "ops/fft/fft_plan.h"

#include <cmath>
#include <utility>

namespace ascend_sim {

namespace {

constexpr double kPi = 3.14159265358979323846;

bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The plain product (std::complex's operator* adds C99's inf / NaN recovery,
// a library call per product).
ComplexDouble times(ComplexDouble a, ComplexDouble b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// exp(i * pi * numerator / denominator).
ComplexDouble rootOfUnity(double numerator, double denominator) {
  const double angle = kPi * numerator / denominator;
  return {std::cos(angle), std::sin(angle)};
}

}  // namespace

void FftPlan::Radix2::init(int64_t length, int sign) {
  len = length;
  twiddles.resize(static_cast<size_t>(len / 2));
  for (int64_t k = 0; k < len / 2; ++k)
    twiddles[static_cast<size_t>(k)] = rootOfUnity(2.0 * sign * static_cast<double>(k), static_cast<double>(len));
}

void FftPlan::Radix2::run(ComplexDouble* a) const {
  for (int64_t i = 1, j = 0; i < len; ++i) {  // bit-reversal permutation
    int64_t bit = len >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (int64_t half = 1; half < len; half <<= 1) {  // butterflies of spans 2, 4, ..., len
    const int64_t step = len / (2 * half);
    for (int64_t start = 0; start < len; start += 2 * half)
      for (int64_t k = 0; k < half; ++k) {
        const ComplexDouble u = a[start + k];
        const ComplexDouble v = times(a[start + k + half], twiddles[static_cast<size_t>(k * step)]);
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
  }
}

FftPlan::FftPlan(int64_t n, int sign) : n_(n) {
  if (isPowerOfTwo(n)) {
    direct_.init(n, sign);
    return;
  }
  bluestein_ = true;
  m_ = 1;
  while (m_ < 2 * n - 1) m_ <<= 1;
  forward_m_.init(m_, -1);
  backward_m_.init(m_, +1);
  chirp_.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)  // w[k] = exp(sign*pi*i * k^2 / n), and k^2 / n matters mod 2
    chirp_[static_cast<size_t>(k)] = rootOfUnity(static_cast<double>(sign * ((k * k) % (2 * n))), static_cast<double>(n));
  kernel_spectrum_.assign(static_cast<size_t>(m_), ComplexDouble(0.0, 0.0));
  for (int64_t k = 0; k < n; ++k) {  // conj(w[t]) for t in (-n, n), circularly
    const ComplexDouble c = std::conj(chirp_[static_cast<size_t>(k)]);
    kernel_spectrum_[static_cast<size_t>(k)] = c;
    if (k > 0) kernel_spectrum_[static_cast<size_t>(m_ - k)] = c;
  }
  forward_m_.run(kernel_spectrum_.data());
  const double inverse_m = 1.0 / static_cast<double>(m_);  // a power of two: exact
  for (ComplexDouble& v : kernel_spectrum_) v *= inverse_m;
}

void FftPlan::transform(ComplexDouble* line, ComplexDouble* scratch) const {
  if (!bluestein_) return direct_.run(line);
  for (int64_t k = 0; k < n_; ++k) scratch[k] = times(line[k], chirp_[static_cast<size_t>(k)]);
  for (int64_t k = n_; k < m_; ++k) scratch[k] = ComplexDouble(0.0, 0.0);
  forward_m_.run(scratch);
  for (int64_t k = 0; k < m_; ++k) scratch[k] = times(scratch[k], kernel_spectrum_[static_cast<size_t>(k)]);
  backward_m_.run(scratch);
  for (int64_t j = 0; j < n_; ++j) line[j] = times(scratch[j], chirp_[static_cast<size_t>(j)]);
}

}  // namespace ascend_sim
