// FFT, IFFT, RFFT and IRFFT against a direct O(n^2) DFT computed in double
// here: every length (powers of two and not), several axes, batch dims,
// every normalization, one-sided and full RFFT, IRFFT of odd and even
// lengths, round trips, the error messages and the AI CPU cost.
#include <complex>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"
#include "runtime_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

using C = std::complex<float>;
using CD = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;

// A row-major tensor of complex doubles: the reference's working data.
struct Ref {
  Shape shape;
  std::vector<CD> v;
};

// The lines along `axis` of `shape`: line l starts at start(l), stride inner.
struct Axis {
  int64_t n, inner = 1, count;
  Axis(const Shape& shape, int64_t axis) : n(shape[axis]) {
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    count = n == 0 ? 0 : numelOf(shape) / n;
  }
  int64_t start(int64_t l) const { return (l / inner) * n * inner + l % inner; }
};

// sum_k x[k] exp(sign 2 pi i jk / n) along `axis`, directly.
Ref dft(const Ref& x, int64_t axis, int sign) {
  const Axis a(x.shape, axis);
  std::vector<CD> root(static_cast<size_t>(a.n));
  for (int64_t k = 0; k < a.n; ++k) root[static_cast<size_t>(k)] = std::polar(1.0, sign * 2 * kPi * k / a.n);
  Ref y{x.shape, std::vector<CD>(x.v.size())};
  for (int64_t l = 0; l < a.count; ++l)
    for (int64_t j = 0; j < a.n; ++j) {
      CD sum = 0;
      for (int64_t k = 0; k < a.n; ++k) sum += x.v[a.start(l) + k * a.inner] * root[static_cast<size_t>(j * k % a.n)];
      y.v[a.start(l) + j * a.inner] = sum;
    }
  return y;
}

// The first `count` entries along `axis`.
Ref keepFirst(const Ref& x, int64_t axis, int64_t count) {
  Ref y{x.shape, {}};
  y.shape[axis] = count;
  y.v.resize(static_cast<size_t>(numelOf(y.shape)));
  const Axis from(x.shape, axis), to(y.shape, axis);
  for (int64_t l = 0; l < to.count; ++l)
    for (int64_t k = 0; k < count; ++k) y.v[to.start(l) + k * to.inner] = x.v[from.start(l) + k * from.inner];
  return y;
}

// pocketfft's c2r along `axis`: bins 0..n/2 extended by Hermitian symmetry
// (imaginary parts of bin 0 and, n even, bin n/2 dropped), backward DFT, real part.
Ref halfSpectrumToReal(const Ref& x, int64_t axis, int64_t n) {
  Ref full{x.shape, {}};
  full.shape[axis] = n;
  full.v.resize(static_cast<size_t>(numelOf(full.shape)));
  const Axis from(x.shape, axis), to(full.shape, axis);
  for (int64_t l = 0; l < to.count; ++l)
    for (int64_t k = 0; k < n; ++k) {
      const int64_t bin = k <= n / 2 ? k : n - k;
      CD v = x.v[from.start(l) + bin * from.inner];
      if (bin == 0 || 2 * bin == n) v = v.real();
      full.v[to.start(l) + k * to.inner] = k <= n / 2 ? v : std::conj(v);
    }
  Ref y = dft(full, axis, +1);
  for (CD& v : y.v) v = v.real();
  return y;
}

double scaleOf(int64_t norm, double points) { return norm == 0 ? 1.0 : norm == 1 ? 1.0 / std::sqrt(points) : 1.0 / points; }

std::vector<C> randomComplexes(size_t n, uint32_t seed) {
  const std::vector<float> parts = randomFloats(2 * n, -1, 1, seed);
  std::vector<C> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = C(parts[2 * i], parts[2 * i + 1]);
  return v;
}

HostTensor complexTensor(const Shape& shape, const std::vector<C>& v) {
  HostTensor t(ACL_COMPLEX64, shape);
  std::memcpy(t.data(), v.data(), v.size() * sizeof(C));
  return t;
}

std::vector<C> complexes(HostTensor& t) {
  std::vector<C> v(static_cast<size_t>(t.numel()));
  std::memcpy(static_cast<void*>(v.data()), t.data(), v.size() * sizeof(C));
  return v;
}

Ref refOf(const Shape& shape, const std::vector<C>& v) {
  Ref r{shape, {}};
  for (const C& z : v) r.v.emplace_back(z.real(), z.imag());
  return r;
}

Ref refOfReal(const Shape& shape, const std::vector<float>& v) {
  Ref r{shape, {}};
  for (float f : v) r.v.emplace_back(f, 0.0);
  return r;
}

double l1(const Ref& r) {
  double s = 0;
  for (const CD& v : r.v) s += std::abs(v);
  return s;
}

// Each output component is the double result rounded once to float32: within
// half an ulp of it, plus the double computations' own error (far below) —
// float32 arithmetic inside the kernel would not pass.
double tolerance(double want, double input_l1, double scale) {
  return 6.0e-8 * std::fabs(want) + 1e-12 * input_l1 * scale;
}

void expectComplexNear(const std::vector<C>& got, const Ref& want, double scale, double input_l1,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.v.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const CD w = want.v[i] * scale;
    ASSERT_NEAR(got[i].real(), w.real(), tolerance(w.real(), input_l1, scale)) << what << " element " << i;
    ASSERT_NEAR(got[i].imag(), w.imag(), tolerance(w.imag(), input_l1, scale)) << what << " element " << i;
  }
}

void expectRealNear(const std::vector<float>& got, const Ref& want, double scale, double input_l1,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.v.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double w = want.v[i].real() * scale;
    ASSERT_NEAR(got[i], w, tolerance(w, input_l1, scale)) << what << " element " << i;
  }
}

AttrMap fftAttrs(std::vector<int64_t> dims, int64_t norm) {
  return attrs({{"dims", std::move(dims)}, {"normalization", norm}});
}

const int64_t kLengths[] = {1, 2, 3, 5, 8, 16, 400, 401};

TEST(KernelFft, ComplexAnyLengthEveryNormalization) {
  for (int64_t n : kLengths)
    for (const char* op : {"FFT", "IFFT"})
      for (int64_t norm : {0, 1, 2}) {
        const std::string what = std::string(op) + " n=" + std::to_string(n) + " norm=" + std::to_string(norm);
        const std::vector<C> v = randomComplexes(static_cast<size_t>(2 * n), static_cast<uint32_t>(n + norm));
        HostTensor x = complexTensor({2, n}, v), y(ACL_COMPLEX64, {2, n});
        run(makeCall(op, {&x}, {&y}, fftAttrs({-1}, norm)));
        const Ref in = refOf({2, n}, v);
        const int sign = std::string(op) == "FFT" ? -1 : +1;
        expectComplexNear(complexes(y), dft(in, 1, sign), scaleOf(norm, static_cast<double>(n)), l1(in), what);
      }
}

TEST(KernelFft, ComplexSeveralDimsAndBatchDims) {
  const Shape shape = {3, 4, 5};
  const std::vector<C> v = randomComplexes(60, 5);
  const Ref in = refOf(shape, v);
  HostTensor x = complexTensor(shape, v), y(ACL_COMPLEX64, shape);
  // Dims 2 and 0 (given as -3), dim 1 a batch dim between them.
  run(makeCall("FFT", {&x}, {&y}, fftAttrs({2, -3}, 1)));
  expectComplexNear(complexes(y), dft(dft(in, 2, -1), 0, -1), scaleOf(1, 15), l1(in), "FFT dims {2, 0}");
  // A middle axis, batch dims on both sides.
  run(makeCall("IFFT", {&x}, {&y}, fftAttrs({1}, 2)));
  expectComplexNear(complexes(y), dft(in, 1, +1), scaleOf(2, 4), l1(in), "IFFT dim 1");
  // All three.
  run(makeCall("IFFT", {&x}, {&y}, fftAttrs({0, 1, 2}, 0)));
  expectComplexNear(complexes(y), dft(dft(dft(in, 0, +1), 1, +1), 2, +1), 1.0, l1(in), "IFFT all dims");
}

TEST(KernelFft, RealToComplexOnesidedAndFull) {
  for (int64_t n : kLengths)
    for (bool onesided : {true, false})
      for (int64_t norm : {0, 1, 2}) {
        const std::string what = "RFFT n=" + std::to_string(n) + (onesided ? " onesided" : " full") +
                                 " norm=" + std::to_string(norm);
        const std::vector<float> v = randomFloats(static_cast<size_t>(3 * n), -1, 1, static_cast<uint32_t>(7 * n + norm));
        const int64_t bins = onesided ? n / 2 + 1 : n;
        HostTensor x = HostTensor::floats(ACL_FLOAT, {3, n}, v), y(ACL_COMPLEX64, {3, bins});
        AttrMap a = fftAttrs({1}, norm);
        a.set("onesided", onesided);
        run(makeCall("RFFT", {&x}, {&y}, a));
        const Ref in = refOfReal({3, n}, v);
        expectComplexNear(complexes(y), keepFirst(dft(in, 1, -1), 1, bins), scaleOf(norm, static_cast<double>(n)),
                          l1(in), what);
      }
}

TEST(KernelFft, RealToComplexSeveralDimsLastEntryIsTheRealAxis) {
  const Shape shape = {4, 6, 10};
  const std::vector<float> v = randomFloats(240, -1, 1, 9);
  const Ref in = refOfReal(shape, v);
  HostTensor x = HostTensor::floats(ACL_FLOAT, shape, v);
  HostTensor y1(ACL_COMPLEX64, {4, 6, 6});
  run(makeCall("RFFT", {&x}, {&y1}, fftAttrs({0, 2}, 2)));
  expectComplexNear(complexes(y1), dft(keepFirst(dft(in, 2, -1), 2, 6), 0, -1), scaleOf(2, 40), l1(in), "rfftn {0, 2}");
  HostTensor y2(ACL_COMPLEX64, {4, 4, 10});  // real axis 1 (the last entry), not the tensor's last dim
  run(makeCall("RFFT", {&x}, {&y2}, fftAttrs({2, 1}, 0)));
  expectComplexNear(complexes(y2), dft(keepFirst(dft(in, 1, -1), 1, 4), 2, -1), 1.0, l1(in), "rfftn {2, 1}");
  HostTensor y3(ACL_COMPLEX64, shape);
  AttrMap full = fftAttrs({0, 2}, 1);
  full.set("onesided", false);
  run(makeCall("RFFT", {&x}, {&y3}, full));
  expectComplexNear(complexes(y3), dft(dft(in, 2, -1), 0, -1), scaleOf(1, 40), l1(in), "full rfftn {0, 2}");
}

TEST(KernelFft, ComplexToRealOddAndEvenLengths) {
  for (int64_t n : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{8}, int64_t{400}, int64_t{401}})
    for (int64_t norm : {0, 1, 2}) {
      const std::string what = "IRFFT n=" + std::to_string(n) + " norm=" + std::to_string(norm);
      // Two bins more than needed (ignored); the imaginary parts of bin 0 and bin n/2 are not zero (ignored).
      const int64_t bins = n / 2 + 3;
      const std::vector<C> v = randomComplexes(static_cast<size_t>(2 * bins), static_cast<uint32_t>(3 * n + norm));
      HostTensor x = complexTensor({2, bins}, v), y(ACL_FLOAT, {2, n});
      AttrMap a = fftAttrs({-1}, norm);
      a.set("last_dim_size", n);
      run(makeCall("IRFFT", {&x}, {&y}, a));
      const Ref in = refOf({2, bins}, v);
      expectRealNear(y.toFloats(), halfSpectrumToReal(in, 1, n), scaleOf(norm, static_cast<double>(n)), 2 * l1(in), what);
    }
}

TEST(KernelFft, ComplexToRealSeveralDims) {
  const std::vector<C> v = randomComplexes(60, 21);
  const Ref in = refOf({3, 5, 4}, v);
  HostTensor x = complexTensor({3, 5, 4}, v), y(ACL_FLOAT, {3, 5, 6});
  AttrMap a = fftAttrs({0, 2}, 2);
  a.set("last_dim_size", int64_t{6});
  run(makeCall("IRFFT", {&x}, {&y}, a));
  expectRealNear(y.toFloats(), halfSpectrumToReal(dft(in, 0, +1), 2, 6), scaleOf(2, 18), 2 * l1(in), "irfftn {0, 2}");
}

TEST(KernelFft, RoundTrips) {
  for (int64_t n : {int64_t{400}, int64_t{401}}) {
    const std::vector<float> v = randomFloats(static_cast<size_t>(5 * n), -1, 1, static_cast<uint32_t>(n));
    HostTensor x = HostTensor::floats(ACL_FLOAT, {5, n}, v), spec(ACL_COMPLEX64, {5, n / 2 + 1}), back(ACL_FLOAT, {5, n});
    run(makeCall("RFFT", {&x}, {&spec}, fftAttrs({1}, 0)));
    AttrMap inverse = fftAttrs({1}, 2);
    inverse.set("last_dim_size", n);
    run(makeCall("IRFFT", {&spec}, {&back}, inverse));
    const std::vector<float> got = back.toFloats();
    for (size_t i = 0; i < v.size(); ++i) ASSERT_NEAR(got[i], v[i], 2e-6) << "n " << n << " element " << i;
    const std::vector<C> c = randomComplexes(static_cast<size_t>(3 * n), 4);
    HostTensor z = complexTensor({3, n}, c), f(ACL_COMPLEX64, {3, n}), z2(ACL_COMPLEX64, {3, n});
    run(makeCall("FFT", {&z}, {&f}, fftAttrs({1}, 1)));
    run(makeCall("IFFT", {&f}, {&z2}, fftAttrs({1}, 1)));
    const std::vector<C> zz = complexes(z2);
    for (size_t i = 0; i < c.size(); ++i) ASSERT_LT(std::abs(zz[i] - c[i]), 3e-6) << "n " << n << " element " << i;
  }
}

TEST(KernelFft, EmptyTensorsSinglePointsAndNoDims) {
  HostTensor empty(ACL_COMPLEX64, {0, 8}), empty_y(ACL_COMPLEX64, {0, 8});
  run(makeCall("FFT", {&empty}, {&empty_y}, fftAttrs({1}, 2)));
  HostTensor empty_real(ACL_FLOAT, {0, 8}), empty_spec(ACL_COMPLEX64, {0, 5});
  run(makeCall("RFFT", {&empty_real}, {&empty_spec}, fftAttrs({1}, 0)));
  // n = 1: the transform is the identity, whatever the normalization.
  HostTensor x = complexTensor({3, 1}, {C(1, 2), C(-3, 0.5f), C(0, -1)}), y(ACL_COMPLEX64, {3, 1});
  run(makeCall("IFFT", {&x}, {&y}, fftAttrs({1}, 2)));
  EXPECT_EQ(complexes(y), complexes(x));
  HostTensor r = HostTensor::floats(ACL_FLOAT, {2, 1}, {4, -5}), rs(ACL_COMPLEX64, {2, 1}), rr(ACL_FLOAT, {3, 1});
  run(makeCall("RFFT", {&r}, {&rs}, fftAttrs({1}, 1)));
  EXPECT_EQ(complexes(rs), (std::vector<C>{C(4, 0), C(-5, 0)}));
  AttrMap a = fftAttrs({1}, 0);
  a.set("last_dim_size", int64_t{1});
  run(makeCall("IRFFT", {&x}, {&rr}, a));  // bin 0's imaginary part is ignored
  EXPECT_EQ(rr.toFloats(), (std::vector<float>{1, -3, 0}));
  HostTensor x2(ACL_COMPLEX64, {3, 1});
  // No dims: a copy (PyTorch's fftn over an empty dim list).
  run(makeCall("FFT", {&x}, {&x2}, fftAttrs({}, 2)));
  EXPECT_EQ(complexes(x2), complexes(x));
}

TEST(KernelFft, BitsDoNotDependOnHostThreads) {
  const std::vector<C> v = randomComplexes(64 * 400, 3);
  HostTensor x = complexTensor({64, 400}, v), one(ACL_COMPLEX64, {64, 400}), all(ACL_COMPLEX64, {64, 400});
  setHostThreadLimitForTesting(1);
  run(makeCall("FFT", {&x}, {&one}, fftAttrs({1, 0}, 0)));
  setHostThreadLimitForTesting(0);
  run(makeCall("FFT", {&x}, {&all}, fftAttrs({1, 0}, 0)));
  EXPECT_EQ(std::memcmp(one.data(), all.data(), v.size() * sizeof(C)), 0);
}

TEST(KernelFft, Errors) {
  HostTensor c(ACL_COMPLEX64, {2, 8}), f(ACL_FLOAT, {2, 8}), half(ACL_COMPLEX64, {2, 5});
  EXPECT_KERNEL_ERROR(makeCall("FFT", {&f}, {&c}, fftAttrs({1}, 0)), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "input x dtype float32 is not supported (supported: complex64)");
  EXPECT_KERNEL_ERROR(makeCall("RFFT", {&c}, {&half}, fftAttrs({1}, 0)), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "input x dtype complex64 is not supported (supported: float32)");
  AttrMap to_real = fftAttrs({1}, 0);
  to_real.set("last_dim_size", int64_t{8});
  EXPECT_KERNEL_ERROR(makeCall("IRFFT", {&half}, {&c}, to_real), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "output y dtype complex64 is not supported (supported: float32)");
  EXPECT_KERNEL_ERROR(makeCall("FFT", {&c}, {&c}, fftAttrs({2}, 0)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'dims' value 2 is out of range for rank 2");
  EXPECT_KERNEL_ERROR(makeCall("IFFT", {&c}, {&c}, fftAttrs({1, -1}, 0)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'dims' lists dim 1 twice");
  EXPECT_KERNEL_ERROR(makeCall("RFFT", {&f}, {&half}, fftAttrs({}, 0)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'dims' is empty; RFFT needs at least its real axis");
  EXPECT_KERNEL_ERROR(makeCall("FFT", {&c}, {&c}, fftAttrs({1}, 3)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'normalization' is 3; expected 0 (none), 1 (1/sqrt(n)) or 2 (1/n)");
  EXPECT_KERNEL_ERROR(makeCall("RFFT", {&f}, {&c}, fftAttrs({1}, 0)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [2,8] does not match the transformed shape [2,5]");
  HostTensor y10(ACL_FLOAT, {2, 10});
  AttrMap too_long = fftAttrs({1}, 0);
  too_long.set("last_dim_size", int64_t{10});
  EXPECT_KERNEL_ERROR(makeCall("IRFFT", {&half}, {&y10}, too_long), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x shape [2,5] has 5 bins along dim 1, fewer than last_dim_size / 2 + 1 = 6");
  AttrMap zero = fftAttrs({1}, 0);
  zero.set("last_dim_size", int64_t{0});
  EXPECT_KERNEL_ERROR(makeCall("IRFFT", {&half}, {&f}, zero), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'last_dim_size' is 0; the output needs at least one point");
  EXPECT_KERNEL_ERROR(makeCall("IRFFT", {&half}, {&f}, fftAttrs({1}, 0)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "missing required attribute 'last_dim_size'");
  HostTensor none(ACL_COMPLEX64, {2, 0});
  EXPECT_KERNEL_ERROR(makeCall("FFT", {&none}, {&none}, fftAttrs({1}, 0)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x shape [2,0] has size 0 along transformed dim 1; a transform needs at least one point");
  HostTensor scalar(ACL_COMPLEX64, {});
  EXPECT_KERNEL_ERROR(makeCall("FFT", {&scalar}, {&scalar}, fftAttrs({0}, 0)), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "input x is 0-d: it has no dim 0 to transform");
}

TEST(KernelFft, CostCountsFiveNLog2NPerComplexLine) {
  HostTensor c(ACL_COMPLEX64, {4, 8}), f(ACL_FLOAT, {4, 8}), half(ACL_COMPLEX64, {4, 5});
  const KernelCost fft = kernel("FFT").cost(makeCall("FFT", {&c}, {&c}, fftAttrs({1}, 0)));
  EXPECT_EQ(fft.core, CoreType::kAiCpu);
  EXPECT_DOUBLE_EQ(fft.flops, 4 * 5.0 * 8 * 3);
  EXPECT_DOUBLE_EQ(fft.mte_bytes, 2 * 32 * 8.0);
  // The real line counts half; the complex pass along dim 0 then runs on the 5 kept bins.
  EXPECT_DOUBLE_EQ(kernel("RFFT").cost(makeCall("RFFT", {&f}, {&half}, fftAttrs({1}, 0))).flops, 4 * 2.5 * 8 * 3);
  EXPECT_DOUBLE_EQ(kernel("RFFT").cost(makeCall("RFFT", {&f}, {&half}, fftAttrs({0, 1}, 0))).flops,
                   4 * 2.5 * 8 * 3 + 5 * 5.0 * 4 * 2);
  AttrMap a = fftAttrs({1}, 0);
  a.set("last_dim_size", int64_t{8});
  EXPECT_DOUBLE_EQ(kernel("IRFFT").cost(makeCall("IRFFT", {&half}, {&f}, a)).flops, 4 * 2.5 * 8 * 3);
  HostTensor c400(ACL_COMPLEX64, {2, 400});
  EXPECT_DOUBLE_EQ(kernel("IFFT").cost(makeCall("IFFT", {&c400}, {&c400}, fftAttrs({1}, 0))).flops,
                   2 * 5.0 * 400 * std::log2(400.0));
}

// Through the C API: complex64 descriptors are 8 bytes an element, and FFT runs as a launched op.
class FftLaunch : public DeviceTest {};

TEST_F(FftLaunch, ComplexDescriptorsAndBuffers) {
  const int64_t dims[2] = {2, 5};
  const std::vector<C> v = randomComplexes(10, 17);
  void* x = devAlloc(80);
  void* y = devAlloc(80);
  ASSERT_ACL_OK(aclrtMemcpy(x, 80, v.data(), 80, ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_COMPLEX64, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr) << aclGetRecentErrMsg();
  aclDataBuffer* xb = aclCreateDataBuffer(x, 80);
  aclDataBuffer* yb = aclCreateDataBuffer(y, 80);
  aclDataBuffer* short_yb = aclCreateDataBuffer(y, 40);  // 4 bytes an element: too small
  aclopAttr* attr = aclopCreateAttr();
  const int64_t axes[1] = {1};
  ASSERT_ACL_OK(aclopSetAttrListInt(attr, "dims", 1, axes));
  ASSERT_ACL_OK(aclopSetAttrInt(attr, "normalization", 2));
  aclTensorDesc* in_d[] = {desc};
  aclTensorDesc* out_d[] = {desc};
  aclDataBuffer* in_b[] = {xb};
  aclDataBuffer* out_b[] = {yb};
  aclDataBuffer* short_out_b[] = {short_yb};
  EXPECT_ACL_ERR(aclopExecuteV2("FFT", 1, in_d, in_b, 1, out_d, short_out_b, attr, nullptr),
                 ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  ASSERT_ACL_OK(aclopExecuteV2("FFT", 1, in_d, in_b, 1, out_d, out_b, attr, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  std::vector<C> got(10);
  ASSERT_ACL_OK(aclrtMemcpy(got.data(), 80, y, 80, ACL_MEMCPY_DEVICE_TO_HOST));
  const Ref in = refOf({2, 5}, v);
  expectComplexNear(got, dft(in, 1, -1), 0.2, l1(in), "launched FFT");
  aclopDestroyAttr(attr);
  aclDestroyDataBuffer(xb);
  aclDestroyDataBuffer(yb);
  aclDestroyDataBuffer(short_yb);
  aclDestroyTensorDesc(desc);
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
