// FFT, IFFT, RFFT and IRFFT (OPS.md "Complex numbers"): the discrete Fourier
// transforms under torch.fft, torch.stft / istft and torchaudio's
// spectrograms, on the AI CPU (CANN's AI CPU library carries its FFT kernels).
//
// Note [FFT kernels]
// PyTorch lowers every transform to three primitives, one kernel each (the
// plugin picks FFT or IFFT by direction):
//   _fft_c2c(x, dim, normalization, forward)       FFT / IFFT  complex64 -> complex64
//   _fft_r2c(x, dim, normalization, onesided)      RFFT        float32   -> complex64
//   _fft_c2r(x, dim, normalization, last_dim_size) IRFFT       complex64 -> float32
// `dims` lists the transformed axes (negative allowed, no repeats); they are
// transformed one after another. FFT computes X[j] = sum_k x[k] e^(-2 pi i jk/n)
// along each, IFFT the same with e^(+2 pi i jk/n) and no 1/n: all scaling is
// `normalization` (PyTorch's fft_norm_mode, passed explicitly for either
// direction): 0 none, 1 1/sqrt(N), 2 1/N, N the product of the signal
// lengths of the transformed axes (IRFFT: of its output).
// RFFT: the last entry of dims is the real axis. The real signal is
// transformed along it, bins 0..n/2 are kept (`onesided`, default true) or
// all n (then the second half is the Hermitian mirror of the first: the
// full transform of a real signal), then the other dims get complex forward
// transforms.
// IRFFT: n = `last_dim_size` is the output's length along the last entry of
// dims; the input must have at least n/2 + 1 bins there and further bins are
// ignored. The other dims get complex backward transforms (on bins 0..n/2),
// then each line along the last one is extended to n bins by Hermitian
// symmetry, X[n-k] = conj(X[k]), with the imaginary parts of bin 0 and (n
// even) bin n/2 taken as 0, as pocketfft and cuFFT do, and the real part of
// its backward transform is the output.
// Numerics: the float32 input is widened to double, every transform runs in
// double (Note [FFT of any length]), the scale is applied in double and each
// output component is rounded to float32 once. The lines along an axis are
// independent and split over host threads; each is computed the same way
// whatever the split, so the bits do not depend on the thread count.
// Cost (Note [Op cost]): the AI CPU's, every operand's bytes once, and
// 5 n log2 n FLOPs per complex line of length n, half that for the real
// line of RFFT / IRFFT (the counts FFT benchmarks use), summed over the passes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/aicpu_kernel.h"
#include "ops/pointwise/complex_elementwise.h"
#include "ops/fft/fft_plan.h"

namespace ascend_sim {
namespace {

enum class FftKind { kComplex, kRealToComplex, kComplexToReal };

struct FftGeometry {
  FftKind kind = FftKind::kComplex;
  int sign = -1;              // -1 forward (FFT, RFFT), +1 backward (IFFT, IRFFT)
  std::vector<int64_t> dims;  // normalised, in the order given
  bool onesided = true;       // RFFT
  int64_t real_length = 0;    // RFFT / IRFFT: the signal length along dims.back()
  double scale = 1.0;
  Shape out;                  // the output shape
};

FftKind kindOf(const OpCall& call) {
  if (call.op_type == "RFFT") return FftKind::kRealToComplex;
  if (call.op_type == "IRFFT") return FftKind::kComplexToReal;
  return FftKind::kComplex;
}

std::vector<int64_t> checkedDims(const OpCall& call, const Shape& x) {
  std::vector<int64_t> dims;
  for (int64_t d : attrInts(call, "dims")) {
    if (x.empty())
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "input x is 0-d: it has no dim " + std::to_string(d) + " to transform");
    const int64_t axis = normalizeAxis(call, d, x.size(), "dims");
    if (std::find(dims.begin(), dims.end(), axis) != dims.end())
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'dims' lists dim " + std::to_string(axis) + " twice");
    dims.push_back(axis);
  }
  if (dims.empty() && kindOf(call) != FftKind::kComplex)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'dims' is empty; " + call.op_type + " needs at least its real axis (the last entry)");
  return dims;
}

// Validates the call (dtypes, attributes, shapes) and derives what compute and cost need.
FftGeometry geometryOf(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  FftGeometry g;
  g.kind = kindOf(call);
  g.sign = call.op_type == "FFT" || call.op_type == "RFFT" ? -1 : +1;
  checkDtype(call, x, "input x", g.kind == FftKind::kRealToComplex ? dtBit(ACL_FLOAT) : kComplexTypes);
  checkDtype(call, y, "output y", g.kind == FftKind::kComplexToReal ? dtBit(ACL_FLOAT) : kComplexTypes);
  g.dims = checkedDims(call, x.shape);
  const int64_t norm = attrInt(call, "normalization", 0);
  if (norm < 0 || norm > 2)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'normalization' is " + std::to_string(norm) + "; expected 0 (none), 1 (1/sqrt(n)) or 2 (1/n)");
  g.out = x.shape;
  for (int64_t d : g.dims)
    if (x.shape[d] == 0 && !(g.kind == FftKind::kComplexToReal && d == g.dims.back()))
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "input x shape " + shapeToString(x.shape) + " has size 0 along transformed dim " + std::to_string(d) +
               "; a transform needs at least one point");
  if (g.kind == FftKind::kRealToComplex) {
    const int64_t last = g.dims.back();
    g.onesided = attrBool(call, "onesided", true);
    g.real_length = x.shape[last];
    if (g.onesided) g.out[last] = g.real_length / 2 + 1;
  } else if (g.kind == FftKind::kComplexToReal) {
    const int64_t last = g.dims.back();
    g.real_length = attrInt(call, "last_dim_size");
    if (g.real_length < 1)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attribute 'last_dim_size' is " + std::to_string(g.real_length) + "; the output needs at least one point");
    const int64_t bins = g.real_length / 2 + 1;
    if (x.shape[last] < bins)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "input x shape " + shapeToString(x.shape) + " has " + std::to_string(x.shape[last]) + " bins along dim " +
               std::to_string(last) + ", fewer than last_dim_size / 2 + 1 = " + std::to_string(bins));
    g.out[last] = g.real_length;
  }
  checkShapeEq(call, y, "output y", g.out, "the transformed shape");
  double signal_points = 1;  // N of the normalization: the signal lengths (IRFFT: its output's)
  for (int64_t d : g.dims) signal_points *= static_cast<double>(g.kind == FftKind::kComplexToReal ? g.out[d] : x.shape[d]);
  g.scale = norm == 0 ? 1.0 : norm == 1 ? 1.0 / std::sqrt(signal_points) : 1.0 / signal_points;
  return g;
}

// A tensor of complex doubles being transformed, row-major.
struct Signal {
  Shape shape;
  std::vector<ComplexDouble> data;
};

// The lines along `axis`: line l starts at offset (l / inner) * n * inner + l % inner, stride inner.
struct Lines {
  int64_t count = 0, n = 1, inner = 1;
  Lines(const Shape& shape, int64_t axis) : n(shape[axis]) {
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    count = n == 0 ? 0 : numelOf(shape) / n;
  }
  int64_t start(int64_t l) const { return (l / inner) * n * inner + l % inner; }
};

// fn(first, last) over ranges of `lines` lines, on the host pool.
template <typename Fn>
void splitLines(int64_t lines, int64_t elements, Fn fn) {
  if (lines <= 0) return;
  const int64_t blocks = std::min<int64_t>(lines, 64);
  parallelFor(blocks, elements, [&](int64_t b) { fn(b * lines / blocks, (b + 1) * lines / blocks); });
}

// A complex transform along `axis` of s, in place.
void transformAxis(Signal* s, int64_t axis, int sign) {
  const Lines lines(s->shape, axis);
  const FftPlan plan(lines.n, sign);
  splitLines(lines.count, static_cast<int64_t>(s->data.size()), [&](int64_t first, int64_t last) {
    std::vector<ComplexDouble> line(static_cast<size_t>(lines.n)), scratch(static_cast<size_t>(plan.scratchSize()));
    for (int64_t l = first; l < last; ++l) {
      ComplexDouble* base = s->data.data() + lines.start(l);
      for (int64_t k = 0; k < lines.n; ++k) line[static_cast<size_t>(k)] = base[k * lines.inner];
      plan.transform(line.data(), scratch.data());
      for (int64_t k = 0; k < lines.n; ++k) base[k * lines.inner] = line[static_cast<size_t>(k)];
    }
  });
}

// Keeps the first `count` entries of s along `axis`.
void keepFirst(Signal* s, int64_t axis, int64_t count) {
  if (s->shape[axis] == count) return;
  Shape shape = s->shape;
  shape[axis] = count;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis) outer *= shape[d];
    if (d > axis) inner *= shape[d];
  }
  std::vector<ComplexDouble> kept(static_cast<size_t>(numelOf(shape)));
  const int64_t old_n = s->shape[axis];
  for (int64_t o = 0; o < outer; ++o)
    std::copy_n(s->data.begin() + o * old_n * inner, count * inner, kept.begin() + o * count * inner);
  s->shape = shape;
  s->data = std::move(kept);
}

// IRFFT's last pass: every line along `axis` of s (at least n/2 + 1 bins) as
// the half spectrum of a real signal of length n; the real parts of the
// backward transforms go to `out` (s's shape with n along axis).
void halfSpectrumToReal(const Signal& s, int64_t axis, int64_t n, std::vector<double>* out) {
  Shape out_shape = s.shape;
  out_shape[axis] = n;
  const Lines in_lines(s.shape, axis), out_lines(out_shape, axis);
  const FftPlan plan(n, +1);
  const int64_t bins = n / 2 + 1;
  splitLines(out_lines.count, static_cast<int64_t>(out->size()), [&](int64_t first, int64_t last) {
    std::vector<ComplexDouble> line(static_cast<size_t>(n)), scratch(static_cast<size_t>(plan.scratchSize()));
    for (int64_t l = first; l < last; ++l) {
      const ComplexDouble* spectrum = s.data.data() + in_lines.start(l);
      for (int64_t k = 0; k < bins; ++k) line[static_cast<size_t>(k)] = spectrum[k * in_lines.inner];
      // The imaginary parts of bins 0 and n/2 would only reach the imaginary part of the result,
      // which is dropped; zeroing them keeps them out of its roundings as well.
      line[0].imag(0.0);
      if (n % 2 == 0) line[static_cast<size_t>(n / 2)].imag(0.0);
      for (int64_t k = bins; k < n; ++k) line[static_cast<size_t>(k)] = std::conj(line[static_cast<size_t>(n - k)]);
      plan.transform(line.data(), scratch.data());
      double* real = out->data() + out_lines.start(l);
      for (int64_t k = 0; k < n; ++k) real[k * out_lines.inner] = line[static_cast<size_t>(k)].real();
    }
  });
}

Signal loadSignal(const TensorArg& x) {
  Signal s{x.shape, std::vector<ComplexDouble>(static_cast<size_t>(x.numel()))};
  if (isComplexDtype(x.dtype)) {
    const Complex64* v = static_cast<const Complex64*>(x.data);
    for (size_t i = 0; i < s.data.size(); ++i) s.data[i] = ComplexDouble(v[i].real(), v[i].imag());
  } else {
    const float* v = static_cast<const float*>(x.data);
    for (size_t i = 0; i < s.data.size(); ++i) s.data[i] = ComplexDouble(v[i], 0.0);
  }
  return s;
}

void storeComplex(const Signal& s, double scale, const TensorArg& y) {
  Complex64* out = static_cast<Complex64*>(y.data);
  for (size_t i = 0; i < s.data.size(); ++i)
    out[i] = Complex64(static_cast<float>(s.data[i].real() * scale), static_cast<float>(s.data[i].imag() * scale));
}

void validateFft(const OpCall& call) { geometryOf(call); }

void computeFft(const OpCall& call) {
  const FftGeometry g = geometryOf(call);
  const TensorArg& y = call.outputs[0];
  Signal s = loadSignal(call.inputs[0]);
  const std::vector<int64_t> complex_dims(g.dims.begin(), g.dims.end() - (g.kind == FftKind::kComplex ? 0 : 1));
  switch (g.kind) {
    case FftKind::kComplex:
      for (int64_t d : complex_dims) transformAxis(&s, d, g.sign);
      return storeComplex(s, g.scale, y);
    case FftKind::kRealToComplex:
      transformAxis(&s, g.dims.back(), g.sign);
      keepFirst(&s, g.dims.back(), g.out[g.dims.back()]);
      for (int64_t d : complex_dims) transformAxis(&s, d, g.sign);
      return storeComplex(s, g.scale, y);
    case FftKind::kComplexToReal: {
      keepFirst(&s, g.dims.back(), g.real_length / 2 + 1);
      for (int64_t d : complex_dims) transformAxis(&s, d, g.sign);
      std::vector<double> real(static_cast<size_t>(y.numel()));
      halfSpectrumToReal(s, g.dims.back(), g.real_length, &real);
      float* out = static_cast<float*>(y.data);
      for (size_t i = 0; i < real.size(); ++i) out[i] = static_cast<float>(real[i] * g.scale);
      return;
    }
  }
}

double nLog2n(int64_t n) { return n <= 1 ? 0.0 : static_cast<double>(n) * std::log2(static_cast<double>(n)); }

KernelCost costFft(const OpCall& call) {
  const FftGeometry g = geometryOf(call);
  KernelCost c = aiCpuCost(call);
  Shape shape = call.inputs[0].shape;  // the working shape, pass by pass
  auto complexPass = [&](int64_t d) {
    c.flops += shape[d] == 0 ? 0.0 : 5.0 * nLog2n(shape[d]) * static_cast<double>(numelOf(shape) / shape[d]);
  };
  auto realPass = [&](int64_t n, const Shape& real_shape) {
    c.flops += 2.5 * nLog2n(n) * static_cast<double>(numelOf(real_shape) / n);
  };
  c.flops = 0;
  const int64_t last = g.dims.empty() ? 0 : g.dims.back();
  switch (g.kind) {
    case FftKind::kComplex:
      for (int64_t d : g.dims) complexPass(d);
      break;
    case FftKind::kRealToComplex:
      realPass(g.real_length, shape);
      shape[last] = g.out[last];
      for (size_t i = 0; i + 1 < g.dims.size(); ++i) complexPass(g.dims[i]);
      break;
    case FftKind::kComplexToReal:
      shape[last] = g.real_length / 2 + 1;
      for (size_t i = 0; i + 1 < g.dims.size(); ++i) complexPass(g.dims[i]);
      realPass(g.real_length, g.out);
      break;
  }
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"FFT", &validateFft, &computeFft, &costFft});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"IFFT", &validateFft, &computeFft, &costFft});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RFFT", &validateFft, &computeFft, &costFft});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"IRFFT", &validateFft, &computeFft, &costFft});

}  // namespace
}  // namespace ascend_sim
