// complex64 kernels: arithmetic (Add, Sub, Mul, RealDiv, Neg, Sign, Angle,
// Equal, NotEqual, SelectV2, ComplexAbs, Conj, Real, Imag, Complex) against std::complex<double>, Cast
// and Fill to and from complex64, and the data movers on complex64.
#include <complex>
#include <limits>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

using C = std::complex<float>;
using CD = std::complex<double>;

HostTensor complexTensor(Shape shape, const std::vector<C>& v) {
  HostTensor t(ACL_COMPLEX64, std::move(shape));
  EXPECT_EQ(static_cast<int64_t>(v.size()), t.numel());
  std::memcpy(t.data(), v.data(), v.size() * sizeof(C));
  return t;
}

std::vector<C> complexes(HostTensor& t) {
  std::vector<C> v(static_cast<size_t>(t.numel()));
  std::memcpy(static_cast<void*>(v.data()), t.data(), v.size() * sizeof(C));
  return v;
}

std::vector<C> randomComplexes(size_t n, float lo, float hi, uint32_t seed) {
  const std::vector<float> parts = randomFloats(2 * n, lo, hi, seed);
  std::vector<C> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = C(parts[2 * i], parts[2 * i + 1]);
  return v;
}

// y = op(x1, x2) with x1 [2, 3], x2 [3] (broadcast) against fn in double, within tol(x1, x2).
void expectBinary(const char* op, const std::function<CD(CD, CD)>& fn,
                  const std::function<double(CD, CD)>& tol) {
  SCOPED_TRACE(op);
  const std::vector<C> a = randomComplexes(6, -4, 4, 11), b = randomComplexes(3, -4, 4, 12);
  HostTensor x1 = complexTensor({2, 3}, a), x2 = complexTensor({3}, b), y(ACL_COMPLEX64, {2, 3});
  run(makeCall(op, {&x1, &x2}, {&y}));
  const std::vector<C> got = complexes(y);
  for (size_t i = 0; i < 6; ++i) {
    const CD p(a[i].real(), a[i].imag()), q(b[i % 3].real(), b[i % 3].imag());
    const CD want = fn(p, q);
    EXPECT_NEAR(got[i].real(), want.real(), tol(p, q)) << "element " << i;
    EXPECT_NEAR(got[i].imag(), want.imag(), tol(p, q)) << "element " << i;
  }
}

constexpr double kUlp = 1.0 / (1 << 23);  // 2^-23: twice float32's unit roundoff

TEST(KernelComplex, ArithmeticAgainstDouble) {
  // Each component is a few fp32 operations, each rounded: error within a few ulps of the operands' scale.
  expectBinary("Add", [](CD p, CD q) { return p + q; }, [](CD p, CD q) { return kUlp * (std::abs(p) + std::abs(q)); });
  expectBinary("Sub", [](CD p, CD q) { return p - q; }, [](CD p, CD q) { return kUlp * (std::abs(p) + std::abs(q)); });
  expectBinary("Mul", [](CD p, CD q) { return p * q; }, [](CD p, CD q) { return 2 * kUlp * std::abs(p) * std::abs(q); });
  expectBinary("RealDiv", [](CD p, CD q) { return p / q; },
               [](CD p, CD q) { return 4 * kUlp * std::abs(p) / std::abs(q); });
}

TEST(KernelComplex, ArithmeticExactCasesAndDivisionForm) {
  HostTensor a = complexTensor({4}, {C(1, 2), C(3, 4), C(1, 1), C(1e20f, 1e20f)});
  HostTensor b = complexTensor({4}, {C(3, 4), C(1, 2), C(0, 0), C(1e20f, 0)});
  HostTensor y(ACL_COMPLEX64, {4});
  run(makeCall("Mul", {&a, &b}, {&y}));
  EXPECT_EQ(complexes(y)[0], C(-5, 10));
  EXPECT_EQ(complexes(y)[1], C(-5, 10));
  run(makeCall("RealDiv", {&a, &b}, {&y}));
  const std::vector<C> q = complexes(y);
  EXPECT_EQ(q[0], C(11.0f / 25.0f, 2.0f / 25.0f));  // (3 + 8)/25, (6 - 4)/25: the textbook form's roundings
  EXPECT_EQ(q[1], C(11.0f / 5.0f, -2.0f / 5.0f));
  // Note [Complex division]: x / 0 is NaN in both parts, and c^2 + d^2 overflows for |c + di| ~ 1e20.
  EXPECT_TRUE(std::isnan(q[2].real()) && std::isnan(q[2].imag()));
  EXPECT_TRUE(std::isnan(q[3].real()) && std::isnan(q[3].imag()));
  // A 0-d second operand (a host scalar) broadcasts.
  HostTensor s = complexTensor({}, {C(0, 1)});
  run(makeCall("Mul", {&a, &s}, {&y}));
  EXPECT_EQ(complexes(y)[0], C(-2, 1));
  run(makeCall("Sub", {&s, &a}, {&y}));
  EXPECT_EQ(complexes(y)[1], C(-3, -3));
}

TEST(KernelComplex, UnaryOps) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<C> z = {C(3, -4), C(0, 0), C(-1, 0), C(-1, -0.0f), C(3e30f, 4e30f), C(inf, 1), C(0, -2)};
  HostTensor x = complexTensor({7}, z);
  HostTensor yc(ACL_COMPLEX64, {7}), yf(ACL_FLOAT, {7});
  run(makeCall("Neg", {&x}, {&yc}));
  EXPECT_EQ(complexes(yc)[0], C(-3, 4));
  run(makeCall("Conj", {&x}, {&yc}));
  EXPECT_EQ(complexes(yc)[0], C(3, 4));
  EXPECT_TRUE(std::signbit(complexes(yc)[2].imag()));  // conj(-1 + 0i) = -1 - 0i
  run(makeCall("ComplexAbs", {&x}, {&yf}));
  std::vector<float> abs = yf.toFloats();
  EXPECT_EQ(abs[0], 5.0f);
  EXPECT_EQ(abs[1], 0.0f);
  EXPECT_FLOAT_EQ(abs[4], 5e30f);  // hypot: no overflow of the squares
  EXPECT_EQ(abs[5], inf);
  run(makeCall("Angle", {&x}, {&yf}));
  const std::vector<float> angle = yf.toFloats();
  for (size_t i = 0; i < z.size(); ++i)
    EXPECT_NEAR(angle[i], std::atan2(static_cast<double>(z[i].imag()), static_cast<double>(z[i].real())), 2e-7)
        << "element " << i;
  EXPECT_EQ(angle[2], static_cast<float>(M_PI));
  EXPECT_EQ(angle[3], -static_cast<float>(M_PI));  // atan2(-0, -1)
  run(makeCall("Sign", {&x}, {&yc}));
  const std::vector<C> sgn = complexes(yc);
  EXPECT_EQ(sgn[0], C(0.6f, -0.8f));
  EXPECT_EQ(sgn[1], C(0, 0));  // sgn(0) = 0
  EXPECT_EQ(sgn[6], C(0, -1));
  EXPECT_NEAR(sgn[4].real(), 0.6, 1e-7);
  EXPECT_TRUE(std::isnan(sgn[5].real()));  // inf / inf, as PyTorch's sgn
  run(makeCall("Real", {&x}, {&yf}));
  EXPECT_EQ(yf.toFloats()[0], 3.0f);
  run(makeCall("Imag", {&x}, {&yf}));
  EXPECT_EQ(yf.toFloats()[0], -4.0f);
  // The real forms of Sign and Angle are untouched.
  HostTensor r = HostTensor::floats(ACL_FLOAT, {3}, {-2.0f, 0.0f, 5.0f}), ry(ACL_FLOAT, {3});
  run(makeCall("Angle", {&r}, {&ry}));
  EXPECT_EQ(ry.toFloats(), (std::vector<float>{static_cast<float>(M_PI), 0.0f, 0.0f}));
  run(makeCall("Sign", {&r}, {&ry}));
  EXPECT_EQ(ry.toFloats(), (std::vector<float>{-1.0f, 0.0f, 1.0f}));
}

TEST(KernelComplex, SignAndAbsAgainstDouble) {
  const std::vector<C> z = randomComplexes(300, -50, 50, 7);
  HostTensor x = complexTensor({300}, z), yc(ACL_COMPLEX64, {300}), yf(ACL_FLOAT, {300});
  run(makeCall("Sign", {&x}, {&yc}));
  run(makeCall("ComplexAbs", {&x}, {&yf}));
  const std::vector<C> sgn = complexes(yc);
  const std::vector<float> abs = yf.toFloats();
  for (size_t i = 0; i < z.size(); ++i) {
    const CD p(z[i].real(), z[i].imag());
    EXPECT_NEAR(abs[i], std::abs(p), kUlp * std::abs(p)) << i;
    EXPECT_NEAR(sgn[i].real(), (p / std::abs(p)).real(), 2 * kUlp) << i;
    EXPECT_NEAR(sgn[i].imag(), (p / std::abs(p)).imag(), 2 * kUlp) << i;
  }
}

TEST(KernelComplex, ComplexFromPartsBroadcasts) {
  HostTensor re = HostTensor::floats(ACL_FLOAT, {2, 1}, {1, 2}), im = HostTensor::floats(ACL_FLOAT, {3}, {-1, 0, 1});
  HostTensor y(ACL_COMPLEX64, {2, 3});
  run(makeCall("Complex", {&re, &im}, {&y}));
  EXPECT_EQ(complexes(y), (std::vector<C>{C(1, -1), C(1, 0), C(1, 1), C(2, -1), C(2, 0), C(2, 1)}));
}

TEST(KernelComplex, EqualNotEqualAndSelect) {
  // Both parts compare (NaN unequal to itself); SelectV2 takes whole elements from x1 or x2.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  HostTensor a = complexTensor({4}, {C(1, 2), C(1, 2), C(0, 0), C(nan, 0)});
  HostTensor b = complexTensor({4}, {C(1, 2), C(1, -2), C(-0.0f, 0), C(nan, 0)});
  HostTensor eq(ACL_BOOL, {4}), ne(ACL_BOOL, {4});
  run(makeCall("Equal", {&a, &b}, {&eq}));
  run(makeCall("NotEqual", {&a, &b}, {&ne}));
  EXPECT_EQ(eq.toInts(), (std::vector<int64_t>{1, 0, 1, 0}));
  EXPECT_EQ(ne.toInts(), (std::vector<int64_t>{0, 1, 0, 1}));
  HostTensor condition = HostTensor::ints(ACL_BOOL, {2, 1}, {1, 0}), picked(ACL_COMPLEX64, {2, 4});
  HostTensor other = complexTensor({1}, {C(7, -7)});
  run(makeCall("SelectV2", {&condition, &a, &other}, {&picked}));
  const std::vector<C> got = complexes(picked);
  EXPECT_EQ(got[1], C(1, 2));
  EXPECT_EQ(got[2], C(0, 0));
  for (size_t i = 4; i < 8; ++i) EXPECT_EQ(got[i], C(7, -7)) << "element " << i;
  HostTensor not_bool = HostTensor::floats(ACL_FLOAT, {2, 1}, {1, 0});
  EXPECT_KERNEL_ERROR(makeCall("SelectV2", {&not_bool, &a, &other}, {&picked}), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
              "condition");
}

TEST(KernelComplex, Errors) {
  HostTensor c = complexTensor({3}, {C(1, 1), C(2, 2), C(3, 3)}), f(ACL_FLOAT, {3}), c2(ACL_COMPLEX64, {2});
  HostTensor y(ACL_COMPLEX64, {3}), yf(ACL_FLOAT, {3});
  EXPECT_KERNEL_ERROR(makeCall("Add", {&c, &f}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "x2 dtype float32 does not match x1 dtype complex64");
  EXPECT_KERNEL_ERROR(makeCall("Mul", {&c, &c}, {&yf}), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "output y dtype float32 is not supported (supported: complex64)");
  EXPECT_KERNEL_ERROR(makeCall("RealDiv", {&c, &c2}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x2 shape [2] does not broadcast to output shape [3]");
  EXPECT_KERNEL_ERROR(makeCall("ComplexAbs", {&f}, {&yf}), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "input x dtype float32 is not supported (supported: complex64)");
  EXPECT_KERNEL_ERROR(makeCall("Angle", {&c}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output y dtype complex64");
  EXPECT_KERNEL_ERROR(makeCall("Complex", {&c, &c}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "input real dtype complex64 is not supported (supported: float32)");
  HostTensor y23(ACL_COMPLEX64, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Conj", {&c}, {&y23}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output output shape [2,3] does not equal the broadcast shape [3]");
  // A table op without a complex variant rejects complex64 as any unsupported dtype.
  EXPECT_KERNEL_ERROR(makeCall("Maximum", {&c, &c}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "dtype complex64");
  EXPECT_KERNEL_ERROR(makeCall("Exp", {&c}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "dtype complex64");
}

TEST(KernelComplex, CostIsTheElementwiseWalkAtEightBytes) {
  HostTensor a(ACL_COMPLEX64, {4096}), b(ACL_COMPLEX64, {4096}), y(ACL_COMPLEX64, {4096});
  HostTensor f(ACL_FLOAT, {8192}), g(ACL_FLOAT, {8192}), h(ACL_FLOAT, {8192});
  const KernelCost c = kernel("Add").cost(makeCall("Add", {&a, &b}, {&y}));
  EXPECT_EQ(c.core, CoreType::kVector);
  EXPECT_EQ(c.mte_bytes, 3.0 * 4096 * 8);
  EXPECT_EQ(c.vector_repeats, 3.0 * 4096 * 8 / 256);
  // Same bytes and repeats as a float32 Add of twice the elements.
  const KernelCost r = kernel("Add").cost(makeCall("Add", {&f, &g}, {&h}));
  EXPECT_EQ(c.mte_bytes, r.mte_bytes);
  EXPECT_EQ(c.vector_repeats, r.vector_repeats);
  // A real output: 8 bytes read, 4 written per element.
  HostTensor abs(ACL_FLOAT, {4096});
  EXPECT_EQ(kernel("ComplexAbs").cost(makeCall("ComplexAbs", {&a}, {&abs})).mte_bytes, 4096.0 * 12);
}

TEST(KernelComplex, CastToAndFromComplex) {
  HostTensor f = HostTensor::floats(ACL_FLOAT, {3}, {1.5f, -2.75f, 0.0f}), c(ACL_COMPLEX64, {3});
  run(makeCall("Cast", {&f}, {&c}));
  EXPECT_EQ(complexes(c), (std::vector<C>{C(1.5f, 0), C(-2.75f, 0), C(0, 0)}));
  HostTensor i = HostTensor::ints(ACL_INT64, {3}, {16777217, -3, 7});  // 2^24 + 1 rounds (RNE) to 2^24
  run(makeCall("Cast", {&i}, {&c}));
  EXPECT_EQ(complexes(c), (std::vector<C>{C(16777216.0f, 0), C(-3, 0), C(7, 0)}));
  HostTensor b = HostTensor::ints(ACL_BOOL, {3}, {1, 0, 1});
  run(makeCall("Cast", {&b}, {&c}));
  EXPECT_EQ(complexes(c), (std::vector<C>{C(1, 0), C(0, 0), C(1, 0)}));
  HostTensor d(ACL_DOUBLE, {3});
  const double dv[3] = {0.1, -1e300, 2.5};
  std::memcpy(d.data(), dv, sizeof dv);
  run(makeCall("Cast", {&d}, {&c}));
  EXPECT_EQ(complexes(c)[0], C(0.1f, 0));
  EXPECT_EQ(complexes(c)[1].real(), -std::numeric_limits<float>::infinity());

  HostTensor z = complexTensor({4}, {C(0, 1), C(-2.75f, 5), C(0.5f, -1), C(1e5f, 1)});
  HostTensor zc(ACL_COMPLEX64, {4});
  run(makeCall("Cast", {&z}, {&zc}));
  EXPECT_EQ(complexes(zc), complexes(z));
  HostTensor zf(ACL_FLOAT, {4}), zi(ACL_INT32, {4}), zb(ACL_BOOL, {4}), zd(ACL_DOUBLE, {4});
  run(makeCall("Cast", {&z}, {&zf}));  // the imaginary part is discarded
  EXPECT_EQ(zf.toFloats(), (std::vector<float>{0.0f, -2.75f, 0.5f, 1e5f}));
  run(makeCall("Cast", {&z}, {&zi}));
  EXPECT_EQ(zi.toInts(), (std::vector<int64_t>{0, -2, 0, 100000}));
  run(makeCall("Cast", {&z}, {&zb}));  // the real part only: 0 + 1i is false (PyTorch 1.13's CPU)
  EXPECT_EQ(zb.toInts(), (std::vector<int64_t>{0, 1, 1, 1}));
  run(makeCall("Cast", {&z}, {&zd}));
  double dd[4];
  std::memcpy(dd, zd.data(), sizeof dd);
  EXPECT_EQ(dd[1], -2.75);
  // fp16 on a saturating chip: 1e5 saturates to 65504 and raises the overflow flag.
  HostTensor zh(ACL_FLOAT16, {4});
  OpCall call = makeCall("Cast", {&z}, {&zh});
  bool overflow = false;
  call.ctx.fp16_saturation = true;
  call.ctx.overflow = &overflow;
  run(call);
  EXPECT_EQ(zh.toFloats(), (std::vector<float>{0.0f, -2.75f, 0.5f, 65504.0f}));
  EXPECT_TRUE(overflow);
  EXPECT_KERNEL_ERROR(makeCall("Cast", {&z}, {&c}), ACL_ERROR_OP_INPUT_NOT_MATCH, "does not match input x shape");
}

TEST(KernelComplex, Fill) {
  HostTensor y(ACL_COMPLEX64, {2, 3});
  HostTensor vc = complexTensor({}, {C(1.5f, -2)});
  run(makeCall("Fill", {&vc}, {&y}));
  EXPECT_EQ(complexes(y), std::vector<C>(6, C(1.5f, -2)));
  HostTensor vf = HostTensor::floats(ACL_FLOAT, {}, {-0.25f});
  run(makeCall("Fill", {&vf}, {&y}));
  EXPECT_EQ(complexes(y), std::vector<C>(6, C(-0.25f, 0)));
  HostTensor vi = HostTensor::ints(ACL_INT64, {1}, {7});
  run(makeCall("Fill", {&vi}, {&y}));
  EXPECT_EQ(complexes(y), std::vector<C>(6, C(7, 0)));
  HostTensor yf(ACL_FLOAT, {4}), yd(ACL_DOUBLE, {2});
  run(makeCall("Fill", {&vc}, {&yf}));  // a real y takes the real part
  EXPECT_EQ(yf.toFloats(), std::vector<float>(4, 1.5f));
  run(makeCall("Fill", {&vc}, {&yd}));
  double d[2];
  std::memcpy(d, yd.data(), sizeof d);
  EXPECT_EQ(d[0], 1.5);
  HostTensor empty(ACL_COMPLEX64, {0, 3});
  run(makeCall("Fill", {&vc}, {&empty}));
}

TEST(KernelComplex, DataMoversCopyBothParts) {
  std::vector<C> storage(12);
  for (int i = 0; i < 12; ++i) storage[static_cast<size_t>(i)] = C(static_cast<float>(i), -static_cast<float>(i) - 0.5f);
  HostTensor x = complexTensor({12}, storage);
  HostTensor y(ACL_COMPLEX64, {3, 2});
  run(makeCall("AsStrided", {&x}, {&y},
               attrs({{"size", std::vector<int64_t>{3, 2}}, {"stride", std::vector<int64_t>{1, 4}},
                      {"storage_offset", int64_t{1}}})));
  EXPECT_EQ(complexes(y), (std::vector<C>{storage[1], storage[5], storage[2], storage[6], storage[3], storage[7]}));
  HostTensor dst = complexTensor({12}, std::vector<C>(12, C(-9, -9)));
  HostTensor src = complexTensor({2, 2}, {C(1, 2), C(3, 4), C(5, 6), C(7, 8)});
  run(makeCall("ViewCopy", {&src}, {&dst},
               attrs({{"size", std::vector<int64_t>{2, 2}}, {"dst_stride", std::vector<int64_t>{1, 3}},
                      {"dst_storage_offset", int64_t{2}}})));
  const std::vector<C> got = complexes(dst);
  EXPECT_EQ(got[2], C(1, 2));
  EXPECT_EQ(got[5], C(3, 4));
  EXPECT_EQ(got[3], C(5, 6));
  EXPECT_EQ(got[6], C(7, 8));
  EXPECT_EQ(got[4], C(-9, -9));
  // Transpose, Roll (fftshift), ConcatD and GatherV2 move complex64 as 8-byte elements.
  HostTensor m = complexTensor({2, 3}, {C(0, 1), C(1, 2), C(2, 3), C(3, 4), C(4, 5), C(5, 6)});
  HostTensor t(ACL_COMPLEX64, {3, 2});
  run(makeCall("Transpose", {&m}, {&t}, attrs({{"perm", std::vector<int64_t>{1, 0}}})));
  EXPECT_EQ(complexes(t), (std::vector<C>{C(0, 1), C(3, 4), C(1, 2), C(4, 5), C(2, 3), C(5, 6)}));
  HostTensor r(ACL_COMPLEX64, {2, 3});
  run(makeCall("Roll", {&m}, {&r}, attrs({{"shifts", std::vector<int64_t>{1}}, {"dims", std::vector<int64_t>{1}}})));
  EXPECT_EQ(complexes(r), (std::vector<C>{C(2, 3), C(0, 1), C(1, 2), C(5, 6), C(3, 4), C(4, 5)}));
  HostTensor cat(ACL_COMPLEX64, {4, 3});
  run(makeCall("ConcatD", {&m, &m}, {&cat}, attrs({{"concat_dim", int64_t{0}}})));
  EXPECT_EQ(complexes(cat)[7], C(1, 2));
  HostTensor idx = HostTensor::ints(ACL_INT64, {2}, {2, 0}), gathered(ACL_COMPLEX64, {2, 2});
  run(makeCall("GatherV2", {&m, &idx}, {&gathered}, attrs({{"axis", int64_t{1}}})));
  EXPECT_EQ(complexes(gathered), (std::vector<C>{C(2, 3), C(0, 1), C(5, 6), C(3, 4)}));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
