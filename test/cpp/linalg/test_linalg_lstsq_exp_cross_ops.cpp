// Triangular matrices and solves, matrix_exp, lstsq, cross, vdot and the
// composites tensorinv / tensorsolve / multi_dot against the CPU.
#include "linalg_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h, linalg_test_util.h)

namespace {

TEST(NpuLinalgTriangle, TriuTrilDtypesDiagonalsInPlaceOut) {
  const at::Tensor a = at::randn({2, 4, 6});
  for (int64_t d : {-5, -1, 0, 2, 7}) {
    SCOPED_TRACE(d);
    expectClose(at::triu(a.to(npu()), d), at::triu(a, d));
    expectClose(at::tril(a.to(npu()), d), at::tril(a, d));
  }
  for (at::ScalarType t : {at::kHalf, at::kInt, at::kBool}) {
    expectClose(at::triu(a.to(t).to(npu())), at::triu(a.to(t)));
    expectClose(at::tril(a.to(t).to(npu()), 1), at::tril(a.to(t), 1));
  }
  at::Tensor x = a.to(npu()).mT();  // in place on a strided view
  x.triu_(1);
  expectClose(x, at::triu(a.mT(), 1));
  at::Tensor y = a.to(npu());
  y.tril_();
  expectClose(y, at::tril(a));
  EXPECT_EQ(at::triu(at::randn({3, 0, 2}).to(npu())).sizes(), (at::IntArrayRef{3, 0, 2}));
  EXPECT_THROW_WITH(at::triu(at::randn({3}).to(npu())), "triu: input tensor must have at least 2 dimensions");
  EXPECT_THROW_WITH(at::tril(at::randn({}).to(npu())), "tril: input tensor must have at least 2 dimensions");
}

TEST(NpuLinalgTriangularSolve, SolveTriangularAndTriangularSolve) {
  const at::Tensor a = wellConditioned({2, 1, 4, 4});
  for (bool upper : {true, false})
    for (bool unit : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "upper " << upper << " unit " << unit);
      const at::Tensor bl = at::randn({3, 4, 2}), br = at::randn({3, 2, 4});
      expectClose(at::linalg_solve_triangular(a.to(npu()), bl.to(npu()), upper, true, unit),
                  at::linalg_solve_triangular(a, bl, upper, true, unit), kLinalgRtol, kLinalgAtol);
      expectClose(at::linalg_solve_triangular(a.to(npu()), br.to(npu()), upper, false, unit),
                  at::linalg_solve_triangular(a, br, upper, false, unit), kLinalgRtol, kLinalgAtol);
      for (bool transpose : {false, true}) {
        const auto got = at::triangular_solve(bl.to(npu()), a.to(npu()), upper, transpose, unit);
        const auto want = at::triangular_solve(bl, a, upper, transpose, unit);
        expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
        expectClose(std::get<1>(got), std::get<1>(want));
      }
    }
  const at::Tensor b = at::randn({4, 2});
  expectClose(at::linalg_solve_triangular(a[0][0].to(npu()).mT(), b.to(npu()), false),
              at::linalg_solve_triangular(a[0][0].mT(), b, false), kLinalgRtol, kLinalgAtol);
  EXPECT_EQ(at::linalg_solve_triangular(a.to(npu()), at::randn({4, 0}).to(npu()), true).sizes(),
            (at::IntArrayRef{2, 1, 4, 0}));
  EXPECT_THROW_WITH(at::linalg_solve_triangular(a.to(npu()), at::randn({3, 2}).to(npu()), true),
                    "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (4x4 and 3x2)");
  EXPECT_THROW_WITH(at::linalg_solve_triangular(a.to(npu()), at::randn({4}).to(npu()), true), "at least 2 dimensions");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_solve_triangular(t, t, true); }, at::eye(3));
}

TEST(NpuLinalgMatrixExp, ScalesEmptyAndErrors) {
  // Scaling and squaring errs relative to the result's norm: a small entry of a large
  // exponential (scale 5 reaches e^20) is compared at 1e-4 of the largest.
  for (double scale : {0.01, 0.3, 1.0, 5.0}) {
    const at::Tensor a = at::randn({2, 5, 5}) * scale, want = at::linalg_matrix_exp(a);
    expectClose(at::linalg_matrix_exp(a.to(npu())), want, 1e-4, std::max(1e-5, 1e-4 * want.abs().max().item<double>()));
  }
  const at::Tensor a = at::randn({4, 4});
  expectClose(at::linalg_matrix_exp(a.to(npu()).mT()), at::linalg_matrix_exp(a.mT()), 1e-4, 1e-5);
  EXPECT_EQ(at::linalg_matrix_exp(at::randn({2, 0, 0}).to(npu())).sizes(), (at::IntArrayRef{2, 0, 0}));
  EXPECT_THROW_WITH(at::linalg_matrix_exp(at::randn({2, 3}).to(npu())),
                    "linalg.matrix_exp: A must be batches of square");
  EXPECT_THROW_WITH(at::linalg_matrix_exp(at::randn({}).to(npu())), "at least 2 dimensions");
  EXPECT_THROW_WITH(at::linalg_matrix_exp(a.to(at::kHalf).to(npu())), "Half");
}

TEST(NpuLinalgLstsq, EveryDriverVectorAndBroadcast) {
  for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"})
    for (auto dims : std::vector<std::pair<int64_t, int64_t>>{{6, 3}, {3, 5}}) {
      SCOPED_TRACE(::testing::Message() << driver << " " << dims.first << "x" << dims.second);
      const at::Tensor a = at::randn({2, dims.first, dims.second}), b = at::randn({1, dims.first, 2});
      const auto got = at::linalg_lstsq(a.to(npu()), b.to(npu()), c10::nullopt, driver);
      const auto want = at::linalg_lstsq(a, b, c10::nullopt, driver);
      expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
      expectClose(std::get<1>(got), std::get<1>(want), kLinalgRtol, kLinalgAtol);
      expectClose(std::get<2>(got), std::get<2>(want));
      expectClose(std::get<3>(got), std::get<3>(want), kLinalgRtol, kLinalgAtol);
    }
  const at::Tensor a = at::randn({5, 3}), v = at::randn({5});  // a vector right-hand side
  const auto got = at::linalg_lstsq(a.to(npu()), v.to(npu()), c10::nullopt, "gelsd");
  const auto want = at::linalg_lstsq(a, v, c10::nullopt, "gelsd");
  expectClose(std::get<0>(got), std::get<0>(want), kLinalgRtol, kLinalgAtol);
  expectClose(std::get<1>(got), std::get<1>(want), kLinalgRtol, kLinalgAtol);
  // Rank deficient: no residuals for gelsd; m = 0: a zero solution.
  const at::Tensor d = at::cat({a, a.narrow(1, 0, 1)}, 1);
  EXPECT_EQ(std::get<1>(at::linalg_lstsq(d.to(npu()), v.to(npu()), c10::nullopt, "gelsd")).numel(), 0);
  // Its rank is 3. Not compared with the CPU's: torch 1.13's CPU gelsy hands LAPACK an uninitialised
  // pivot array (JPVT: nonzero entries pin columns to the front), so its rank of this matrix varies
  // between calls (2 in about one call in ten, measured); ours pivots freely.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(std::get<2>(at::linalg_lstsq(d.to(npu()), v.to(npu()))).item<int64_t>(), 3);
  expectClose(std::get<0>(at::linalg_lstsq(at::randn({0, 3}).to(npu()), at::randn({0, 2}).to(npu()))),
              at::zeros({3, 2}));
  at::Tensor inf = a.clone();
  inf[0][0] = INFINITY;  // the CPU's gelsd does not return on this matrix; the NPU reports it
  EXPECT_THROW_WITH(at::linalg_lstsq(inf.to(npu()), v.to(npu()), c10::nullopt, "gelsd"),
                    "torch.linalg.lstsq: The least squares solution could not be computed because the input matrix "
                    "does not have full rank (error code: 3).");
  EXPECT_THROW_WITH(at::linalg_lstsq(a.to(npu()), v.to(npu()), c10::nullopt, "gesv"),
                    "parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  EXPECT_THROW_WITH(at::linalg_lstsq(a.to(npu()), at::randn({4, 1}).to(npu())), "input.size(-2) should match");
  EXPECT_THROW_WITH(at::linalg_lstsq(a.to(npu()).to(at::kHalf), v.to(npu()).to(at::kHalf)), "Half");
}

TEST(NpuLinalgCross, BroadcastDimsDtypesAndErrors) {
  const at::Tensor a = at::randn({2, 3, 4}), b = at::randn({1, 3, 4});
  expectClose(at::linalg_cross(a.to(npu()), b.to(npu()), 1), at::linalg_cross(a, b, 1));
  expectClose(at::cross(a.to(npu()), b.to(npu())), at::cross(a, b));  // the first dim of size 3
  const at::Tensor c = at::randn({5, 3});
  expectClose(at::linalg_cross(c.to(npu()).mT().mT(), c.flip(0).to(npu())), at::linalg_cross(c, c.flip(0)));
  expectClose(at::linalg_cross(a.to(npu()).transpose(1, 2), b.to(npu()).transpose(1, 2)),
              at::linalg_cross(a.transpose(1, 2), b.transpose(1, 2)));
  const at::Tensor i = at::randint(-9, 9, {4, 3}, at::kLong);
  expectClose(at::linalg_cross(i.to(npu()), i.flip(0).to(npu())), at::linalg_cross(i, i.flip(0)));
  // float16 (the CPU has no half cross): the fp32 result rounded once.
  expectClose(at::linalg_cross(c.to(at::kHalf).to(npu()), c.flip(0).to(at::kHalf).to(npu())),
              at::linalg_cross(c.to(at::kHalf).to(at::kFloat), c.flip(0).to(at::kHalf).to(at::kFloat)).to(at::kHalf),
              kHalfRtol, kHalfAtol);
  EXPECT_EQ(at::linalg_cross(at::randn({0, 3}).to(npu()), at::randn({0, 3}).to(npu())).sizes(),
            (at::IntArrayRef{0, 3}));
  EXPECT_THROW_WITH(at::linalg_cross(at::randn({2, 4}).to(npu()), at::randn({2, 4}).to(npu())),
                    "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4");
  EXPECT_THROW_WITH(at::linalg_cross(c.to(npu()), at::randn({2, 5, 3}).to(npu())), "same number of dimensions");
  EXPECT_THROW_WITH(at::linalg_cross(c.to(npu()), c.to(at::kLong).to(npu())), "same dtype");
  EXPECT_THROW_WITH(at::linalg_cross(at::randn({}).to(npu()), at::randn({}).to(npu())), "dimension");
}

TEST(NpuLinalgMisc, VdotTensorinvTensorsolveMultiDot) {
  const at::Tensor x = at::randn({7}), y = at::randn({7});
  expectClose(at::vdot(x.to(npu()), y.to(npu())), at::vdot(x, y), 1e-5, 1e-5);
  expectClose(at::vdot(x.to(npu()).slice(0, 0, 7, 2), y.to(npu()).slice(0, 0, 7, 2)),
              at::vdot(x.slice(0, 0, 7, 2), y.slice(0, 0, 7, 2)), 1e-5, 1e-5);
  expectClose(at::vdot(at::randn({0}).to(npu()), at::randn({0}).to(npu())), at::zeros({}));
  EXPECT_THROW_WITH(at::vdot(x.to(npu()), at::randn({3}).to(npu())), "inconsistent tensor size");
  EXPECT_THROW_WITH(at::vdot(at::randn({}).to(npu()), at::randn({}).to(npu())), "1D tensors expected");
  const at::Tensor t = wellConditioned({6, 6}).reshape({6, 2, 3});
  expectClose(at::linalg_tensorinv(t.to(npu()), 1), at::linalg_tensorinv(t, 1), kLinalgRtol, kLinalgAtol);
  const at::Tensor rhs = at::randn({6});
  expectClose(at::linalg_tensorsolve(t.to(npu()), rhs.to(npu())), at::linalg_tensorsolve(t, rhs), kLinalgRtol,
              kLinalgAtol);
  const at::Tensor m1 = at::randn({3, 4}), m2 = at::randn({4, 5}), m3 = at::randn({5, 2});
  expectClose(at::linalg_multi_dot({m1.to(npu()), m2.to(npu()), m3.to(npu())}), at::linalg_multi_dot({m1, m2, m3}),
              kLinalgRtol, kLinalgAtol);
}

// Every linear algebra op without its own float16 / 0-d checks above.
TEST(NpuLinalgMisc, RejectsHalfAndZeroDimInputs) {
  const at::Tensor a = wellConditioned({3, 3}), b = at::randn({3, 2});
  const auto lu = at::linalg_lu_factor(a);
  const auto ld = at::linalg_ldl_factor(a + a.mT());
  const auto qr = at::geqrf(a);
  using Fn = std::function<void(const at::Tensor&)>;
  const std::vector<std::pair<std::string, Fn>> ops{
      {"lu_solve", [&](const at::Tensor& t) { at::linalg_lu_solve(t, std::get<1>(lu).to(t.device()), t); }},
      {"ldl_solve", [&](const at::Tensor& t) { at::linalg_ldl_solve(t, std::get<1>(ld).to(t.device()), t); }},
      {"householder_product", [](const at::Tensor& t) { at::linalg_householder_product(t, t[0]); }},
      {"ormqr", [](const at::Tensor& t) { at::ormqr(t, t[0], t); }},
      {"triangular_solve", [](const at::Tensor& t) { at::triangular_solve(t, t); }},
      {"cholesky_solve", [](const at::Tensor& t) { at::cholesky_solve(t, t); }},
      {"solve", [](const at::Tensor& t) { at::linalg_solve(t, t); }},
      {"svdvals", [](const at::Tensor& t) { at::linalg_svdvals(t); }},
      {"eigvalsh", [](const at::Tensor& t) { at::linalg_eigvalsh(t); }},
      {"slogdet", [](const at::Tensor& t) { at::linalg_slogdet(t); }},
  };
  for (const auto& op : ops) {
    SCOPED_TRACE(op.first);
    expectRejectsHalf(op.second, std::get<0>(lu));
    EXPECT_ANY_THROW(op.second(at::randn({}).to(npu())));  // matrices need 2 dims
  }
  // vdot of float16 vectors works on the NPU (the CPU has no half dot): one rounding of the fp32 result.
  const at::Tensor x = at::randn({9}), y = at::randn({9});
  expectClose(at::vdot(x.to(at::kHalf).to(npu()), y.to(at::kHalf).to(npu())),
              at::vdot(x.to(at::kHalf).to(at::kFloat), y.to(at::kHalf).to(at::kFloat)).to(at::kHalf), kHalfRtol,
              kHalfAtol);
  EXPECT_THROW_WITH(at::vdot(x.to(npu()), y.to(at::kHalf).to(npu())), "same dtype");
}

TEST(NpuLinalgMisc, Backward) {
  const at::Tensor a = wellConditioned({2, 4, 4}), b = at::randn({2, 4, 3}), x = at::randn({6}), y = at::randn({6});
  expectSameAutogradCases({
      {"triu", [](const std::vector<at::Tensor>& t) { return at::triu(t[0], 1); }, {a}},
      {"tril", [](const std::vector<at::Tensor>& t) { return at::tril(t[0], -1); }, {a}},
      {"solve_triangular",
       [](const std::vector<at::Tensor>& t) { return at::linalg_solve_triangular(t[0], t[1], true); },
       {a, b}},
      {"solve_triangular right lower",
       [](const std::vector<at::Tensor>& t) { return at::linalg_solve_triangular(t[0], t[1].mT(), false, false); },
       {a, b}},
      {"triangular_solve",
       [](const std::vector<at::Tensor>& t) { return std::get<0>(at::triangular_solve(t[1], t[0], false, true)); },
       {a, b}},
      {"matrix_exp", [](const std::vector<at::Tensor>& t) { return at::linalg_matrix_exp(t[0] / 4); }, {a}},
      {"vdot", [](const std::vector<at::Tensor>& t) { return at::vdot(t[0], t[1]); }, {x, y}},
      {"cross", [](const std::vector<at::Tensor>& t) { return at::linalg_cross(t[0], t[1]); }, {b, b.flip(0)}},
  });
}

}  // namespace
