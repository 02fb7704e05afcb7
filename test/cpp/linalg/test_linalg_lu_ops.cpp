// LU family, determinants, inverse and solve against the CPU: lu_factor(_ex),
// lu_solve, lu_unpack, lu, det, slogdet, logdet, inv(_ex), solve(_ex).
#include "linalg_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h, linalg_test_util.h)

namespace {

at::Tensor first(const std::tuple<at::Tensor, at::Tensor>& t) { return std::get<0>(t); }

TEST(NpuLinalgLu, LuFactorMatchesCpuIncludingPivotsAndInfo) {
  for (const at::Tensor& a : {at::randn({4, 4}), at::randn({2, 3, 5, 3}), at::randn({3, 6}), at::randn({1, 1})}) {
    SCOPED_TRACE(::testing::Message() << a.sizes());
    at::Tensor lu, piv, info, clu, cpiv, cinfo;
    std::tie(lu, piv, info) = at::linalg_lu_factor_ex(a.to(npu()));
    std::tie(clu, cpiv, cinfo) = at::linalg_lu_factor_ex(a);
    expectClose(lu, clu, kLinalgRtol, kLinalgAtol);
    expectClose(piv, cpiv);
    expectClose(info, cinfo);
  }
  // Non-contiguous inputs: a transposed view (no copy) and a strided slice.
  const at::Tensor a = at::randn({5, 10});
  expectClose(first(at::linalg_lu_factor(a.to(npu()).mT())), first(at::linalg_lu_factor(a.mT())));
  expectClose(first(at::linalg_lu_factor(a.to(npu()).slice(1, 0, 10, 2))),
              first(at::linalg_lu_factor(a.slice(1, 0, 10, 2))));
}

TEST(NpuLinalgLu, SingularEmptyAndErrors) {
  const at::Tensor s = at::stack({at::eye(3), at::zeros({3, 3})});
  expectClose(std::get<2>(at::linalg_lu_factor_ex(s.to(npu()))), std::get<2>(at::linalg_lu_factor_ex(s)));
  EXPECT_THROW_WITH(at::linalg_lu_factor(s.to(npu())), "torch.linalg.lu_factor: (Batch element 1): U[1,1] is zero");
  for (const at::Tensor& e : {at::randn({0, 3, 3}), at::randn({2, 0, 3}), at::randn({2, 3, 0})}) {
    at::Tensor lu, piv, info;
    std::tie(lu, piv, info) = at::linalg_lu_factor_ex(e.to(npu()));
    expectClose(info, std::get<2>(at::linalg_lu_factor_ex(e)));
    EXPECT_EQ(lu.sizes(), e.sizes());
  }
  EXPECT_THROW_WITH(at::linalg_lu_factor(at::randn({3}).to(npu())), "Expected tensor with 2 or more dimensions");
  EXPECT_THROW_WITH(at::linalg_lu_factor(at::randn({}).to(npu())), "Expected tensor with 2 or more dimensions");
  EXPECT_THROW_WITH(at::linalg_lu_factor(at::randn({3, 3}).to(npu()), /*pivot=*/false), "without pivoting");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_lu_factor(t); }, at::randn({3, 3}));
}

TEST(NpuLinalgLu, LuSolveLeftRightAdjointBroadcast) {
  const at::Tensor a = wellConditioned({2, 1, 4, 4});
  at::Tensor lu, piv;
  std::tie(lu, piv) = at::linalg_lu_factor(a);
  const at::Tensor dlu = lu.to(npu()), dpiv = piv.to(npu());
  for (bool left : {true, false})
    for (bool adjoint : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "left " << left << " adjoint " << adjoint);
      const at::Tensor b = left ? at::randn({3, 4, 2}) : at::randn({3, 2, 4});
      expectClose(at::linalg_lu_solve(dlu, dpiv, b.to(npu()), left, adjoint),
                  at::linalg_lu_solve(lu, piv, b, left, adjoint), kLinalgRtol, kLinalgAtol);
    }
  at::Tensor out = at::empty({2, 3, 2, 4}, at::TensorOptions().device(npu())).mT();  // a strided out=
  const at::Tensor b = at::randn({3, 4, 2});
  at::linalg_lu_solve_out(out, dlu, dpiv, b.to(npu()));
  expectClose(out, at::linalg_lu_solve(lu, piv, b), kLinalgRtol, kLinalgAtol);
  EXPECT_EQ(at::linalg_lu_solve(dlu, dpiv, at::randn({3, 4, 0}).to(npu())).sizes(), (at::IntArrayRef{2, 3, 4, 0}));
}

TEST(NpuLinalgLu, LuUnpackAndLu) {
  for (const at::Tensor& a : {at::randn({2, 4, 4}), at::randn({5, 3}), at::randn({3, 5})}) {
    SCOPED_TRACE(::testing::Message() << a.sizes());
    at::Tensor lu, piv;
    std::tie(lu, piv) = at::linalg_lu_factor(a);
    const auto got = at::lu_unpack(lu.to(npu()), piv.to(npu()));
    const auto want = at::lu_unpack(lu, piv);
    expectClose(std::get<0>(got), std::get<0>(want));
    expectClose(std::get<1>(got), std::get<1>(want));
    expectClose(std::get<2>(got), std::get<2>(want));
    const auto p_only = at::lu_unpack(lu.to(npu()), piv.to(npu()), /*unpack_data=*/false);
    expectClose(std::get<0>(p_only), std::get<0>(want));
    EXPECT_EQ(std::get<1>(p_only).numel(), 0);
    const auto plu = at::linalg_lu(a.to(npu()));
    const auto cplu = at::linalg_lu(a);
    expectClose(std::get<0>(plu), std::get<0>(cplu));
    expectClose(std::get<1>(plu), std::get<1>(cplu), kLinalgRtol, kLinalgAtol);
    expectClose(std::get<2>(plu), std::get<2>(cplu), kLinalgRtol, kLinalgAtol);
  }
  // float16 LU data unpacks as on the CPU (no arithmetic).
  at::Tensor lu, piv;
  std::tie(lu, piv) = at::linalg_lu_factor(at::randn({4, 4}));
  const auto h = at::lu_unpack(lu.to(at::kHalf).to(npu()), piv.to(npu()));
  const auto ch = at::lu_unpack(lu.to(at::kHalf), piv);
  expectClose(std::get<0>(h), std::get<0>(ch));
  expectClose(std::get<1>(h), std::get<1>(ch));
  expectClose(std::get<2>(h), std::get<2>(ch));
  // An empty 3 x 0 matrix still has a 3 x 3 P.
  expectClose(std::get<0>(at::linalg_lu(at::randn({3, 0}).to(npu()))), std::get<0>(at::linalg_lu(at::randn({3, 0}))));
  EXPECT_THROW_WITH(at::linalg_lu(at::randn({3, 3}).to(npu()), false), "without pivoting");
}

TEST(NpuLinalgDet, DetSlogdetLogdetContiguousTransposedSingularEmpty) {
  const at::Tensor a = at::randn({3, 5, 5});
  for (const at::Tensor& x : {a, a.mT(), a.slice(2, 0, 5).slice(1, 0, 5, 1)}) {
    expectClose(at::linalg_det(x.to(npu())), at::linalg_det(x), kLinalgRtol, kLinalgAtol);
    const auto s = at::linalg_slogdet(x.to(npu())), cs = at::linalg_slogdet(x);
    expectClose(std::get<0>(s), std::get<0>(cs));
    expectClose(std::get<1>(s), std::get<1>(cs), kLinalgRtol, kLinalgAtol);
  }
  const at::Tensor spd = spdMatrices({2, 4, 4});
  expectClose(at::logdet(spd.to(npu())), at::logdet(spd), kLinalgRtol, kLinalgAtol);
  const at::Tensor sing = at::stack({at::zeros({3, 3}), at::ones({3, 3})});
  expectClose(at::linalg_det(sing.to(npu())), at::linalg_det(sing));
  expectClose(std::get<1>(at::linalg_slogdet(sing.to(npu()))), std::get<1>(at::linalg_slogdet(sing)));
  expectClose(at::linalg_det(at::randn({2, 0, 0}).to(npu())), at::ones({2}));
  expectClose(std::get<1>(at::linalg_slogdet(at::randn({0, 0}).to(npu()))), at::zeros({}));
  EXPECT_THROW_WITH(at::linalg_det(at::randn({2, 3}).to(npu())), "square");
  EXPECT_THROW_WITH(at::linalg_det(at::randn({}).to(npu())), "at least 2 dimensions");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_det(t); }, at::randn({3, 3}));
}

TEST(NpuLinalgInv, InvInvExSingularMessagesEmpty) {
  const at::Tensor a = wellConditioned({2, 6, 6});
  expectClose(at::linalg_inv(a.to(npu())), at::linalg_inv(a), kLinalgRtol, kLinalgAtol);
  expectClose(at::linalg_inv(a.to(npu()).mT()), at::linalg_inv(a.mT()), kLinalgRtol, kLinalgAtol);
  at::Tensor out = at::empty({2, 6, 6}, at::TensorOptions().device(npu())).mT();
  at::linalg_inv_out(out, a.to(npu()));
  expectClose(out, at::linalg_inv(a), kLinalgRtol, kLinalgAtol);
  const at::Tensor s = at::stack({at::eye(3), at::zeros({3, 3})});
  expectClose(std::get<1>(at::linalg_inv_ex(s.to(npu()))), std::get<1>(at::linalg_inv_ex(s)));
  EXPECT_THROW_WITH(at::linalg_inv(s.to(npu())),
                    "linalg.inv: (Batch element 1): The diagonal element 1 is zero, the inversion could not be "
                    "completed because the input matrix is singular.");
  EXPECT_THROW_WITH(at::linalg_inv(at::zeros({2, 2}).to(npu())), "linalg.inv: The diagonal element 1 is zero");
  EXPECT_EQ(at::linalg_inv(at::randn({2, 0, 0}).to(npu())).sizes(), (at::IntArrayRef{2, 0, 0}));
  EXPECT_THROW_WITH(at::linalg_inv(at::randn({2, 3}).to(npu())), "square");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_inv(t); }, at::randn({3, 3}));
}

TEST(NpuLinalgSolve, SolveVectorMatrixLeftRightSingular) {
  const at::Tensor a = wellConditioned({2, 4, 4});
  const at::Tensor bm = at::randn({2, 4, 3});
  expectClose(at::linalg_solve(a.to(npu()), bm.to(npu())), at::linalg_solve(a, bm), kLinalgRtol, kLinalgAtol);
  const at::Tensor b = at::randn({2, 4});  // a batch of vectors
  expectClose(at::linalg_solve(a.to(npu()), b.to(npu())), at::linalg_solve(a, b), kLinalgRtol, kLinalgAtol);
  const at::Tensor bl = at::randn({3, 4});  // XA = B, broadcast over a's batch
  expectClose(at::linalg_solve(a.to(npu()), bl.to(npu()), /*left=*/false), at::linalg_solve(a, bl, false), kLinalgRtol,
              kLinalgAtol);
  expectClose(at::linalg_solve(a.to(npu()).mT(), bl.mT().to(npu())), at::linalg_solve(a.mT(), bl.mT()), kLinalgRtol,
              kLinalgAtol);
  EXPECT_THROW_WITH(at::linalg_solve(at::zeros({3, 3}).to(npu()), at::ones({3}).to(npu())),
                    "torch.linalg.solve: The solver failed because the input matrix is singular.");
  const auto ex = at::linalg_solve_ex(at::zeros({3, 3}).to(npu()), at::ones({3}).to(npu()));
  EXPECT_EQ(std::get<1>(ex).item<int>(), 1);
  EXPECT_THROW_WITH(at::linalg_solve(a.to(npu()), at::randn({2, 3, 1}).to(npu())), "Incompatible shapes");
  expectRejectsHalf([](const at::Tensor& t) { at::linalg_solve(t, t); }, at::randn({3, 3}));
}

TEST(NpuLinalgLu, Backward) {
  const at::Tensor a = wellConditioned({2, 4, 4}), b = at::randn({2, 4, 3}), r = at::randn({5, 3});
  expectSameAutogradCases({
      {"inv", [](const std::vector<at::Tensor>& x) { return at::linalg_inv(x[0]); }, {a}},
      {"inv transposed", [](const std::vector<at::Tensor>& x) { return at::linalg_inv(x[0].mT()); }, {a}},
      {"det", [](const std::vector<at::Tensor>& x) { return at::linalg_det(x[0]); }, {a}},
      {"det transposed", [](const std::vector<at::Tensor>& x) { return at::linalg_det(x[0].mT()); }, {a}},
      {"logabsdet", [](const std::vector<at::Tensor>& x) { return std::get<1>(at::linalg_slogdet(x[0])); }, {a}},
      {"solve", [](const std::vector<at::Tensor>& x) { return at::linalg_solve(x[0], x[1]); }, {a, b}},
      {"solve left=False",
       [](const std::vector<at::Tensor>& x) { return at::linalg_solve(x[0], x[1].mT(), false); },
       {a, b}},
      {"lu_factor", [](const std::vector<at::Tensor>& x) { return std::get<0>(at::linalg_lu_factor(x[0])); }, {a}},
      {"lu L", [](const std::vector<at::Tensor>& x) { return std::get<1>(at::linalg_lu(x[0])); }, {r}},
      {"lu U", [](const std::vector<at::Tensor>& x) { return std::get<2>(at::linalg_lu(x[0])); }, {r.mT()}},
      {"lu_solve",
       [](const std::vector<at::Tensor>& x) {
         const auto f = at::linalg_lu_factor(x[0]);
         return at::linalg_lu_solve(std::get<0>(f), std::get<1>(f), x[1]);
       },
       {a, b}},
  });
}

}  // namespace
