// complex64 on the NPU (Note [complex64 on the NPU]): views between complex and real, complex / polar,
// the arithmetic the ordinary ops run on complex operands, abs / angle / sgn / conj, lazy conjugate
// views in copies, against the CPU.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

at::Tensor complexRandn(at::IntArrayRef sizes) { return at::randn(sizes, at::kComplexFloat); }

void expectComplexClose(const at::Tensor& npu_out, const at::Tensor& cpu_out, double rtol = 1e-5,
                        double atol = 1e-6) {
  ASSERT_EQ(npu_out.scalar_type(), cpu_out.scalar_type());
  expectClose(at::view_as_real(npu_out.cpu().resolve_conj()), at::view_as_real(cpu_out.resolve_conj()), rtol, atol);
}

}  // namespace

TEST(NpuComplex, ViewsAndConstruction) {
  const at::Tensor z = complexRandn({3, 4});
  const at::Tensor zn = z.to(npu());
  expectClose(at::view_as_real(zn), at::view_as_real(z), 0, 0);
  expectClose(at::real(zn), at::real(z), 0, 0);
  expectClose(at::imag(zn), at::imag(z), 0, 0);
  expectComplexClose(at::view_as_complex(at::view_as_real(zn)), z, 0, 0);
  const at::Tensor re = at::randn({3, 4}), im = at::randn({4});
  expectComplexClose(at::complex(re.to(npu()), im.to(npu())), at::complex(re, im), 0, 0);  // broadcasting
  const at::Tensor r = at::rand({5}), theta = at::randn({5});
  expectComplexClose(at::polar(r.to(npu()), theta.to(npu())), at::polar(r, theta), 1e-5, 1e-6);
  expectComplexClose(at::zeros({2, 3}, at::TensorOptions().device(npu()).dtype(at::kComplexFloat)),
                     at::zeros({2, 3}, at::kComplexFloat), 0, 0);
  expectComplexClose(zn.t().contiguous(), z.t().contiguous(), 0, 0);
  expectComplexClose(zn.narrow(1, 1, 2).clone(), z.narrow(1, 1, 2).clone(), 0, 0);
}

TEST(NpuComplex, ArithmeticMatchesTheCpu) {
  const at::Tensor a = complexRandn({4, 5}), b = complexRandn({5}), x = at::randn({4, 5});
  const at::Tensor an = a.to(npu()), bn = b.to(npu()), xn = x.to(npu());
  expectComplexClose(an + bn, a + b);
  expectComplexClose(an - bn, a - b);
  expectComplexClose(an * bn, a * b);
  expectComplexClose(an / bn, a / b, 1e-5, 1e-5);
  expectComplexClose(an * xn, a * x);  // float operands promote to complex64
  expectComplexClose(an * 2.5, a * 2.5);
  expectComplexClose(-an, -a);
  expectComplexClose(an.add(bn, 2), a.add(b, 2));
}

TEST(NpuComplex, AbsAngleSgnConj) {
  at::Tensor z = complexRandn({6, 7});
  z.view({-1})[3] = c10::complex<float>(0, 0);  // sgn(0) = 0
  const at::Tensor zn = z.to(npu());
  expectClose(at::abs(zn), at::abs(z), 1e-6, 1e-6);
  EXPECT_EQ(at::abs(zn).scalar_type(), at::kFloat);
  expectClose(at::angle(zn), at::angle(z), 1e-6, 1e-6);
  expectComplexClose(at::sgn(zn), at::sgn(z), 1e-6, 1e-6);
  expectComplexClose(at::conj_physical(zn), at::conj_physical(z), 0, 0);
  at::Tensor copy = zn.clone();
  EXPECT_THROW_WITH(at::abs_(copy), "In-place abs is not supported for complex tensors");
}

TEST(NpuComplex, LazyConjugateAndNegativeViewsCopyTheirValues) {
  const at::Tensor z = complexRandn({3, 4});
  const at::Tensor zn = z.to(npu());
  expectComplexClose(zn.conj(), z.conj(), 0, 0);                        // .cpu() of a conjugate view
  expectClose(at::imag(zn.conj()).cpu(), at::imag(z.conj()).resolve_neg(), 0, 0);  // a negative view
  at::Tensor dst = at::empty({3, 4}, at::TensorOptions().device(npu()).dtype(at::kComplexFloat));
  dst.copy_(z.conj());
  expectComplexClose(dst, z.conj(), 0, 0);
  expectComplexClose(zn.conj() * zn, z.conj() * z, 1e-5, 1e-6);
}

TEST(NpuComplex, GradientsThroughComplexOps) {
  expectSameAutograd([](const auto& in) { return at::abs(at::view_as_complex(in[0])); }, {at::randn({5, 2})});
  expectSameAutograd([](const auto& in) {
    const at::Tensor z = at::complex(in[0], in[1]);
    return at::view_as_real(z * z.conj() + z).sum(-1);
  }, {at::randn({4}), at::randn({4})});
  expectSameAutograd([](const auto& in) { return at::angle(at::view_as_complex(in[0])); }, {at::randn({6, 2})});
}
