// Cholesky, LDL and QR families against the CPU: linalg.cholesky(_ex),
// cholesky, cholesky_solve, cholesky_inverse, linalg.ldl_factor(_ex),
// linalg.ldl_solve, linalg.qr, geqrf, linalg.householder_product, ormqr.
#include "linalg_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h, linalg_test_util.h)

namespace {

TEST(NpuLinalgCholesky, FactorsSolveInverse) {
  const at::Tensor a = spdMatrices({2, 5, 5});
  for (bool upper : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "upper " << upper);
    expectClose(at::linalg_cholesky(a.to(npu()), upper), at::linalg_cholesky(a, upper), kLinalgRtol, kLinalgAtol);
    expectClose(at::cholesky(a.to(npu()), upper), at::cholesky(a, upper), kLinalgRtol, kLinalgAtol);
    const at::Tensor f = at::linalg_cholesky(a, upper), b = at::randn({3, 1, 5, 2});  // b broadcasts against f
    expectClose(at::cholesky_solve(b.to(npu()), f.to(npu()), upper), at::cholesky_solve(b, f, upper), kLinalgRtol,
                kLinalgAtol);
    expectClose(at::cholesky_inverse(f.to(npu()), upper), at::cholesky_inverse(f, upper), kLinalgRtol, kLinalgAtol);
  }
  // A non-contiguous (transposed) input and a strided out=.
  expectClose(at::linalg_cholesky(a.to(npu()).mT()), at::linalg_cholesky(a.mT()), kLinalgRtol, kLinalgAtol);
  at::Tensor out = at::empty({5, 5}, at::TensorOptions().device(npu())).mT();
  at::cholesky_inverse_out(out, at::linalg_cholesky(a[0]).to(npu()));
  expectClose(out, at::cholesky_inverse(at::linalg_cholesky(a[0])), kLinalgRtol, kLinalgAtol);
}

TEST(NpuLinalgCholesky, NotPositiveDefiniteEmptyAndErrors) {
  const at::Tensor bad = at::stack({at::eye(3), -at::eye(3)});
  const auto ex = at::linalg_cholesky_ex(bad.to(npu())), cex = at::linalg_cholesky_ex(bad);
  expectClose(std::get<0>(ex), std::get<0>(cex));
  expectClose(std::get<1>(ex), std::get<1>(cex));
  EXPECT_THROW_WITH(at::linalg_cholesky(bad.to(npu())),
                    "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input "
                    "is not positive-definite (the leading minor of order 1 is not positive-definite).");
  EXPECT_THROW_WITH(at::cholesky(-at::eye(2).to(npu())), "cholesky: The factorization could not be completed");
  EXPECT_THROW_WITH(at::cholesky_inverse(at::zeros({2, 2}).to(npu())),
                    "cholesky_inverse: The diagonal element 1 is zero");
  EXPECT_EQ(at::linalg_cholesky(at::randn({0, 3, 3}).to(npu())).sizes(), (at::IntArrayRef{0, 3, 3}));
  EXPECT_EQ(at::cholesky(at::randn({2, 0, 0}).to(npu())).sizes(), (at::IntArrayRef{2, 0, 0}));
  EXPECT_EQ(at::cholesky_inverse(at::randn({2, 0, 0}).to(npu())).sizes(), (at::IntArrayRef{2, 0, 0}));
  EXPECT_EQ(at::cholesky_solve(at::randn({4, 0}).to(npu()), at::eye(4).to(npu())).sizes(), (at::IntArrayRef{4, 0}));
  EXPECT_THROW_WITH(at::cholesky(at::randn({2, 3}).to(npu())),
                    "cholesky: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_THROW_WITH(at::cholesky_inverse(at::randn({}).to(npu())), "at least 2 dimensions");
  EXPECT_THROW_WITH(at::linalg_cholesky(at::randn({3}).to(npu())), "at least 2 dimensions");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_cholesky(t); }, spdMatrices({3, 3}));
  expectRejectsHalf([](const at::Tensor& t) { at::cholesky_inverse(t); }, at::eye(3));
}

TEST(NpuLinalgLdl, FactorAndSolveSymmetricIndefinite) {
  at::Tensor a = at::randn({2, 5, 5});
  a = a + a.mT();  // symmetric, indefinite: Bunch-Kaufman picks 2x2 blocks too
  const auto got = at::linalg_ldl_factor_ex(a.to(npu())), want = at::linalg_ldl_factor_ex(a);
  expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
  expectClose(std::get<1>(got), std::get<1>(want));
  expectClose(std::get<2>(got), std::get<2>(want));
  // The NPU broadcasts LD's batch against b's; the CPU kernel reads past LD
  // when b's batch is larger, so its reference gets LD expanded first.
  const at::Tensor b = at::randn({3, 1, 5, 2});
  const at::Tensor ld_b = std::get<0>(want).expand({3, 2, 5, 5}).contiguous();
  const at::Tensor piv_b = std::get<1>(want).expand({3, 2, 5}).contiguous();
  expectClose(at::linalg_ldl_solve(std::get<0>(got), std::get<1>(got), b.to(npu())),
              at::linalg_ldl_solve(ld_b, piv_b, b.expand({3, 2, 5, 2})), kLinalgRtol, kLinalgAtol);
  expectClose(std::get<0>(at::linalg_ldl_factor(a.to(npu()).mT())), std::get<0>(at::linalg_ldl_factor(a.mT())),
              kLinalgRtol, kLinalgAtol);
  EXPECT_THROW_WITH(at::linalg_ldl_factor(at::zeros({3, 3}).to(npu())),
                    "torch.linalg.ldl_factor: Unknown error code: 1");  // PyTorch's own message, as on the CPU
  EXPECT_EQ(std::get<0>(at::linalg_ldl_factor_ex(at::randn({0, 3, 3}).to(npu()))).sizes(), (at::IntArrayRef{0, 3, 3}));
  EXPECT_THROW_WITH(at::linalg_ldl_factor(at::randn({2, 3}).to(npu())), "square");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_ldl_factor(t); }, at::eye(3));
}

TEST(NpuLinalgQr, ModesShapesAndStridedInputs) {
  for (const at::Tensor& a : {at::randn({2, 5, 3}), at::randn({3, 5}), at::randn({4, 4})})
    for (const char* mode : {"reduced", "complete", "r"}) {
      SCOPED_TRACE(::testing::Message() << a.sizes() << " " << mode);
      const auto got = at::linalg_qr(a.to(npu()), mode), want = at::linalg_qr(a, mode);
      expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
      expectClose(std::get<1>(got), std::get<1>(want), kLinalgRtol, kLinalgAtol);
    }
  const at::Tensor a = at::randn({6, 4});
  expectClose(std::get<0>(at::linalg_qr(a.to(npu()).mT())), std::get<0>(at::linalg_qr(a.mT())), kLinalgRtol,
              kLinalgAtol);
  // Empty matrices: the complete Q of a 3 x 0 matrix is the identity.
  expectClose(std::get<0>(at::linalg_qr(at::randn({3, 0}).to(npu()), "complete")), at::eye(3));
  EXPECT_EQ(std::get<1>(at::linalg_qr(at::randn({0, 2, 3}).to(npu()))).sizes(), (at::IntArrayRef{0, 2, 3}));
  EXPECT_THROW_WITH(at::linalg_qr(a.to(npu()), "full"), "qr received unrecognized mode 'full'");
  EXPECT_THROW_WITH(at::linalg_qr(at::randn({3}).to(npu())), "at least 2 dimensions");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_qr(t); }, at::randn({3, 3}));
}

TEST(NpuLinalgQr, GeqrfHouseholderProductOrmqr) {
  const at::Tensor a = at::randn({2, 5, 3});
  at::Tensor ra, tau;
  std::tie(ra, tau) = at::geqrf(a);
  const auto got = at::geqrf(a.to(npu()));
  expectClose(std::get<0>(got), ra, kLinalgRtol, kLinalgAtol);
  expectClose(std::get<1>(got), tau, kLinalgRtol, kLinalgAtol);
  expectClose(at::linalg_householder_product(ra.to(npu()), tau.to(npu())), at::linalg_householder_product(ra, tau),
              kLinalgRtol, kLinalgAtol);
  for (bool left : {true, false})
    for (bool transpose : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "left " << left << " transpose " << transpose);
      const at::Tensor c = left ? at::randn({2, 5, 4}) : at::randn({2, 4, 5});
      expectClose(at::ormqr(ra.to(npu()), tau.to(npu()), c.to(npu()), left, transpose),
                  at::ormqr(ra, tau, c, left, transpose), kLinalgRtol, kLinalgAtol);
    }
  EXPECT_EQ(std::get<1>(at::geqrf(at::randn({3, 0}).to(npu()))).sizes(), (at::IntArrayRef{0}));
  EXPECT_THROW_WITH(at::geqrf(at::randn({3}).to(npu())), "torch.geqrf: input must have at least 2 dimensions.");
  EXPECT_THROW_WITH(at::linalg_householder_product(at::randn({2, 3}).to(npu()), at::randn({2}).to(npu())),
                    "input.shape[-2] must be greater than or equal to input.shape[-1]");
  EXPECT_THROW_WITH(at::ormqr(ra.to(npu()), tau.to(npu()), at::randn({2, 4, 2}).to(npu())),
                    "torch.ormqr: other.shape[-2] must be equal to input.shape[-2]");
  expectRejectsHalf([](const at::Tensor& t) { at::geqrf(t); }, at::randn({3, 3}));
}

TEST(NpuLinalgFactor, Backward) {
  const at::Tensor spd = spdMatrices({2, 4, 4}), b = at::randn({2, 4, 3}), tall = at::randn({5, 3});
  // Cholesky's gradient is symmetric in A: feed A through a symmetrising op as PyTorch's tests do.
  auto sym = [](const at::Tensor& x) { return (x + x.mT()) / 2; };
  expectSameAutogradCases({
      {"cholesky", [sym](const std::vector<at::Tensor>& x) { return at::linalg_cholesky(sym(x[0])); }, {spd}},
      {"cholesky upper",
       [sym](const std::vector<at::Tensor>& x) { return at::linalg_cholesky(sym(x[0]), true); },
       {spd}},
      {"cholesky_solve",
       [sym](const std::vector<at::Tensor>& x) { return at::cholesky_solve(x[1], at::linalg_cholesky(sym(x[0]))); },
       {spd, b}},
      {"cholesky_inverse",
       [sym](const std::vector<at::Tensor>& x) { return at::cholesky_inverse(at::linalg_cholesky(sym(x[0]))); },
       {spd}},
      {"qr Q", [](const std::vector<at::Tensor>& x) { return std::get<0>(at::linalg_qr(x[0])); }, {tall}},
      {"qr R", [](const std::vector<at::Tensor>& x) { return std::get<1>(at::linalg_qr(x[0])); }, {tall}},
      {"qr complete square",
       [](const std::vector<at::Tensor>& x) { return std::get<0>(at::linalg_qr(x[0], "complete")); },
       {wellConditioned({4, 4})}},
  });
}

}  // namespace
