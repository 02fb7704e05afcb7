// SVD and symmetric eigendecomposition against the CPU (same LAPACK routines,
// so the same signs of the singular vectors and eigenvectors), and the
// composites on top of them: svdvals, matrix_norm, cond, eigvalsh.
#include "linalg_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h, linalg_test_util.h)

namespace {

TEST(NpuLinalgSvd, FullReducedValuesOnlyWithTheCpuSigns) {
  for (const at::Tensor& a : {at::randn({2, 5, 3}), at::randn({3, 5}), at::randn({4, 4})})
    for (bool full : {true, false}) {
      SCOPED_TRACE(::testing::Message() << a.sizes() << " full " << full);
      const auto got = at::linalg_svd(a.to(npu()), full), want = at::linalg_svd(a, full);
      expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
      expectClose(std::get<1>(got), std::get<1>(want), kLinalgRtol, kLinalgAtol);
      expectClose(std::get<2>(got), std::get<2>(want), kLinalgRtol, kLinalgAtol);
      expectClose(at::linalg_svdvals(a.to(npu())), at::linalg_svdvals(a), kLinalgRtol, kLinalgAtol);
    }
  const at::Tensor a = at::randn({6, 4});
  expectClose(std::get<2>(at::linalg_svd(a.to(npu()).mT())), std::get<2>(at::linalg_svd(a.mT())), kLinalgRtol,
              kLinalgAtol);
  expectClose(at::linalg_matrix_norm(a.to(npu()), "nuc"), at::linalg_matrix_norm(a, "nuc"), kLinalgRtol, kLinalgAtol);
  expectClose(at::linalg_matrix_norm(a.to(npu()), 2), at::linalg_matrix_norm(a, 2), kLinalgRtol, kLinalgAtol);
  const at::Tensor sq = wellConditioned({4, 4});
  expectClose(at::linalg_cond(sq.to(npu())), at::linalg_cond(sq), kLinalgRtol, kLinalgAtol);
}

TEST(NpuLinalgSvd, EmptyNonFiniteAndErrors) {
  const auto e = at::linalg_svd(at::randn({3, 0}).to(npu()));
  expectClose(std::get<0>(e), at::eye(3));
  EXPECT_EQ(std::get<2>(e).sizes(), (at::IntArrayRef{0, 0}));
  EXPECT_EQ(at::linalg_svdvals(at::randn({2, 0, 4}).to(npu())).sizes(), (at::IntArrayRef{2, 0}));
  at::Tensor inf = at::randn({2, 3, 3});
  inf[1][0][0] = INFINITY;
  EXPECT_THROW_WITH(at::linalg_svd(inf.to(npu())),
                    "linalg.svd: (Batch element 1): The algorithm failed to converge because the input matrix "
                    "contained non-finite values.");
  EXPECT_THROW_WITH(at::linalg_svd(at::randn({3, 3}).to(npu()), true, "gesvd"), "driver=");
  EXPECT_THROW_WITH(at::linalg_svd(at::randn({3}).to(npu())), "at least 2 dimensions");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_svd(t); }, at::randn({3, 3}));
}

TEST(NpuLinalgEigh, BothTrianglesValuesOnlyAndErrors) {
  const at::Tensor a = at::randn({2, 5, 5});  // not symmetric: only one triangle is read
  for (const char* uplo : {"L", "U", "l"}) {
    SCOPED_TRACE(uplo);
    const auto got = at::linalg_eigh(a.to(npu()), uplo), want = at::linalg_eigh(a, uplo);
    expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
    expectClose(std::get<1>(got), std::get<1>(want), kLinalgRtol, kLinalgAtol);
    expectClose(at::linalg_eigvalsh(a.to(npu()), uplo), at::linalg_eigvalsh(a, uplo), kLinalgRtol, kLinalgAtol);
  }
  expectClose(std::get<1>(at::linalg_eigh(a.to(npu()).mT())), std::get<1>(at::linalg_eigh(a.mT())), kLinalgRtol,
              kLinalgAtol);
  EXPECT_EQ(std::get<1>(at::linalg_eigh(at::randn({0, 3, 3}).to(npu()))).sizes(), (at::IntArrayRef{0, 3, 3}));
  at::Tensor nan = at::randn({3, 3});
  nan[0][0] = NAN;
  EXPECT_THROW_WITH(at::linalg_eigh(nan.to(npu())), "linalg.eigh: The algorithm failed to converge");
  EXPECT_THROW_WITH(at::linalg_eigh(a.to(npu()), "X"), "UPLO");
  EXPECT_THROW_WITH(at::linalg_eigh(at::randn({2, 3}).to(npu())), "square");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_eigh(t); }, at::randn({3, 3}));
}

TEST(NpuLinalgEigh, SymeigUsesTheCpuRoutine) {
  const at::Tensor a = at::randn({2, 5, 5});
  for (bool upper : {true, false}) {
    const auto got = at::symeig(a.to(npu()), /*eigenvectors=*/true, upper), want = at::symeig(a, true, upper);
    expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
    expectClose(std::get<1>(got), std::get<1>(want), kLinalgRtol, kLinalgAtol);
  }
  EXPECT_EQ(std::get<1>(at::symeig(a.to(npu()))).numel(), 0);
  EXPECT_EQ(std::get<0>(at::symeig(at::randn({0, 3, 3}).to(npu()))).sizes(), (at::IntArrayRef{0, 3}));
  expectRejectsHalf([](const at::Tensor& t) { at::symeig(t); }, at::eye(3));
}

TEST(NpuLinalgSpectral, Backward) {
  const at::Tensor tall = at::randn({2, 5, 3}), spd = spdMatrices({4, 4});
  // Gauge-invariant losses of the singular / eigen vectors (their signs are arbitrary).
  expectSameAutogradCases({
      {"svdvals", [](const std::vector<at::Tensor>& x) { return at::linalg_svdvals(x[0]); }, {tall}},
      {"svd U S Vh",
       [](const std::vector<at::Tensor>& x) {
         const auto usv = at::linalg_svd(x[0], false);
         return at::matmul(std::get<0>(usv) * std::get<1>(usv).unsqueeze(-2), std::get<2>(usv));
       },
       {tall}},
      {"svd |U|",
       [](const std::vector<at::Tensor>& x) { return std::get<0>(at::linalg_svd(x[0], false)).abs(); },
       {tall}},
      {"eigvalsh", [](const std::vector<at::Tensor>& x) { return at::linalg_eigvalsh(x[0]); }, {spd}},
      {"eigh |V|", [](const std::vector<at::Tensor>& x) { return std::get<1>(at::linalg_eigh(x[0])).abs(); }, {spd}},
      {"matrix_norm nuc", [](const std::vector<at::Tensor>& x) { return at::linalg_matrix_norm(x[0], "nuc"); }, {tall}},
      {"symeig values", [](const std::vector<at::Tensor>& x) { return std::get<0>(at::symeig(x[0], true)); }, {spd}},
  });
}

}  // namespace
