// Lu, LuSolve, LuUnpack, MatrixDeterminant, LogMatrixDeterminant,
// MatrixInverse against the double-precision references of linalg_reference.h.
#include "cost/cost_model.h"
#include "linalg_reference.h"

namespace ascend_sim {
namespace test {
namespace {

// fp32: LAPACK in fp32 vs double; fp16: one rounding of an fp32 result.
double tolFor(aclDataType dt) { return dt == ACL_FLOAT16 ? 2e-3 : 2e-5; }

HostTensor floatTensor(aclDataType dt, Shape shape, const std::vector<float>& v) {
  return HostTensor::floats(dt, std::move(shape), v);
}

TEST(KernelLinalgLu, FactorsMatchReferenceRectangularAndBatched) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (auto dims : std::vector<std::pair<int64_t, int64_t>>{{4, 4}, {5, 3}, {3, 6}, {1, 1}}) {
      const int64_t m = dims.first, n = dims.second, k = std::min(m, n), batch = 3;
      HostTensor x = floatTensor(dt, {batch, m, n}, randomFloats(batch * m * n, -2, 2, 7));
      HostTensor lu(dt, {batch, m, n}), piv(ACL_INT32, {batch, k}), info(ACL_INT32, {batch});
      run(makeCall("Lu", {&x}, {&lu, &piv, &info}));
      const std::vector<int64_t> p = piv.toInts(), inf = info.toInts();
      for (int64_t b = 0; b < batch; ++b) {
        const RefLu ref = refLu(matOf(x, b, m, n));
        expectMatNear(matOf(lu, b, m, n), ref.lu, tolFor(dt), tolFor(dt), "lu");
        for (int64_t i = 0; i < k; ++i) EXPECT_EQ(p[static_cast<size_t>(b * k + i)], ref.piv[static_cast<size_t>(i)]);
        EXPECT_EQ(inf[static_cast<size_t>(b)], 0);
      }
    }
}

TEST(KernelLinalgLu, TransposeXFactorisesTheTranspose) {
  HostTensor x = floatTensor(ACL_FLOAT, {2, 3}, {1, 4, -2, 3, 0.5f, 6});
  HostTensor lu(ACL_FLOAT, {3, 2}), piv(ACL_INT32, {2}), info(ACL_INT32, {});
  run(makeCall("Lu", {&x}, {&lu, &piv, &info}, attrs({{"transpose_x", true}})));
  const RefLu ref = refLu(matOf(x, 0, 2, 3).t());
  expectMatNear(matOf(lu, 0, 3, 2), ref.lu, 1e-6, 1e-6, "lu of x^T");
  EXPECT_EQ(piv.toInts(), (std::vector<int64_t>{ref.piv[0], ref.piv[1]}));
}

TEST(KernelLinalgLu, SingularMatrixReportsFirstZeroPivot) {
  // Second column is twice the first: U[1,1] = 0 exactly.
  HostTensor x = floatTensor(ACL_FLOAT, {2, 3, 3}, {1, 2, 3, 2, 4, 1, 4, 8, 2, /* fine */ 2, 0, 0, 0, 3, 0, 0, 0, 4});
  HostTensor lu(ACL_FLOAT, {2, 3, 3}), piv(ACL_INT32, {2, 3}), info(ACL_INT32, {2});
  run(makeCall("Lu", {&x}, {&lu, &piv, &info}));
  EXPECT_EQ(info.toInts(), (std::vector<int64_t>{2, 0}));
}

TEST(KernelLinalgLu, EmptyMatricesAndBatches) {
  HostTensor x(ACL_FLOAT, {2, 0, 3}), lu(ACL_FLOAT, {2, 0, 3}), piv(ACL_INT32, {2, 0});
  HostTensor info = HostTensor::ints(ACL_INT32, {2}, {7, 7});
  run(makeCall("Lu", {&x}, {&lu, &piv, &info}));
  EXPECT_EQ(info.toInts(), (std::vector<int64_t>{0, 0}));
  HostTensor x0(ACL_FLOAT, {0, 4, 4}), lu0(ACL_FLOAT, {0, 4, 4}), piv0(ACL_INT32, {0, 4}), info0(ACL_INT32, {0});
  run(makeCall("Lu", {&x0}, {&lu0, &piv0, &info0}));
}

TEST(KernelLinalgLu, ValidationErrors) {
  HostTensor v(ACL_FLOAT, {4}), lu(ACL_FLOAT, {4}), piv(ACL_INT32, {1}), info(ACL_INT32, {});
  EXPECT_KERNEL_ERROR(makeCall("Lu", {&v}, {&lu, &piv, &info}), ACL_ERROR_OP_INPUT_NOT_MATCH, "at least 2 dims");
  HostTensor xi(ACL_INT32, {2, 2}), lui(ACL_INT32, {2, 2}), piv2(ACL_INT32, {2});
  EXPECT_KERNEL_ERROR(makeCall("Lu", {&xi}, {&lui, &piv2, &info}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  HostTensor x(ACL_FLOAT, {3, 2}), bad(ACL_FLOAT, {2, 3}), piv_ok(ACL_INT32, {2});
  EXPECT_KERNEL_ERROR(makeCall("Lu", {&x}, {&bad, &piv_ok, &info}), ACL_ERROR_OP_INPUT_NOT_MATCH, "output lu");
  HostTensor lu_ok(ACL_FLOAT, {3, 2}), piv64(ACL_INT64, {2});
  EXPECT_KERNEL_ERROR(makeCall("Lu", {&x}, {&lu_ok, &piv64, &info}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "pivots");
  HostTensor xp(ACL_FLOAT, {1, 1, 16, 16}), lup(ACL_FLOAT, {1, 1, 16, 16}), pivp(ACL_INT32, {1, 1, 16});
  HostTensor infop(ACL_INT32, {1, 1});
  xp.setFormat(ACL_FORMAT_NC1HWC0);
  EXPECT_KERNEL_ERROR(makeCall("Lu", {&xp}, {&lup, &pivp, &infop}), ACL_ERROR_OP_UNSUPPORTED_FORMAT, "private format");
}

TEST(KernelLinalgLuSolve, SolvesWithBroadcastAndAdjoint) {
  const int64_t n = 4, nrhs = 3;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool adjoint : {false, true}) {
      // lu: batch [2, 1]; b: batch [3] -> x: batch [2, 3].
      HostTensor a = floatTensor(dt, {2, 1, n, n}, wellConditioned(2, n, 3));
      HostTensor lu(dt, {2, 1, n, n}), piv(ACL_INT32, {2, 1, n}), info(ACL_INT32, {2, 1});
      run(makeCall("Lu", {&a}, {&lu, &piv, &info}));
      HostTensor b = floatTensor(dt, {3, n, nrhs}, randomFloats(3 * n * nrhs, -1, 1, 4));
      HostTensor x(dt, {2, 3, n, nrhs});
      run(makeCall("LuSolve", {&lu, &piv, &b}, {&x}, attrs({{"adjoint", adjoint}})));
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          const Mat am = matOf(a, i, n, n), bm = matOf(b, j, n, nrhs);
          const Mat want = refLuSolve(refLu(adjoint ? am.t() : am), bm, false);
          expectMatNear(matOf(x, i * 3 + j, n, nrhs), want, 5 * tolFor(dt), 5 * tolFor(dt), "x");
        }
    }
}

TEST(KernelLinalgLuSolve, BadPivotIsADeviceFaultAndShapesAreChecked) {
  HostTensor lu = floatTensor(ACL_FLOAT, {2, 2}, {1, 0, 0, 1}), b = floatTensor(ACL_FLOAT, {2, 1}, {1, 2});
  HostTensor piv = HostTensor::ints(ACL_INT32, {2}, {1, 3}), x(ACL_FLOAT, {2, 1});
  EXPECT_KERNEL_ERROR(makeCall("LuSolve", {&lu, &piv, &b}, {&x}), ACL_ERROR_RT_AICORE_EXCEPTION, "outside [1, 2]");
  HostTensor b3(ACL_FLOAT, {3, 1}), x3(ACL_FLOAT, {3, 1}), piv_ok = HostTensor::ints(ACL_INT32, {2}, {1, 2});
  EXPECT_KERNEL_ERROR(makeCall("LuSolve", {&lu, &piv_ok, &b3}, {&x3}), ACL_ERROR_OP_INPUT_NOT_MATCH, "b has 3 rows");
  HostTensor bb(ACL_FLOAT, {3, 2, 1}), lub(ACL_FLOAT, {2, 2, 2}), pivb(ACL_INT32, {2, 2}), xb(ACL_FLOAT, {3, 2, 1});
  EXPECT_KERNEL_ERROR(makeCall("LuSolve", {&lub, &pivb, &bb}, {&xb}), ACL_ERROR_OP_INPUT_NOT_MATCH, "do not broadcast");
  HostTensor xe(ACL_FLOAT, {0, 1}), be(ACL_FLOAT, {0, 1}), lue(ACL_FLOAT, {0, 0}), pive(ACL_INT32, {0});
  run(makeCall("LuSolve", {&lue, &pive, &be}, {&xe}));
}

TEST(KernelLinalgLuUnpack, ReassemblesTheMatrix) {
  for (auto dims : std::vector<std::pair<int64_t, int64_t>>{{4, 4}, {5, 3}, {3, 5}}) {
    const int64_t m = dims.first, n = dims.second, k = std::min(m, n);
    HostTensor a = floatTensor(ACL_FLOAT, {2, m, n}, randomFloats(2 * m * n, -1, 1, 9));
    HostTensor lu(ACL_FLOAT, {2, m, n}), piv(ACL_INT32, {2, k}), info(ACL_INT32, {2});
    run(makeCall("Lu", {&a}, {&lu, &piv, &info}));
    HostTensor p(ACL_FLOAT, {2, m, m}), l(ACL_FLOAT, {2, m, k}), u(ACL_FLOAT, {2, k, n});
    run(makeCall("LuUnpack", {&lu, &piv}, {&p, &l, &u}));
    for (int64_t b = 0; b < 2; ++b) {
      const Mat lm = matOf(l, b, m, k), um = matOf(u, b, k, n);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j) {
          if (i == j) { EXPECT_EQ(lm(i, j), 1.0); }
          if (i < j) { EXPECT_EQ(lm(i, j), 0.0); }
        }
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < i; ++j) EXPECT_EQ(um(i, j), 0.0);
      expectMatNear(matOf(p, b, m, m) * lm * um, matOf(a, b, m, n), 1e-5, 1e-5, "P L U");
    }
    // Only the pivots, or only the data.
    HostTensor p2(ACL_FLOAT, {2, m, m}), l2(ACL_FLOAT, {2, m, k}), u2(ACL_FLOAT, {2, k, n});
    run(makeCall("LuUnpack", {&lu, &piv}, {&p2}, attrs({{"unpack_data", false}})));
    EXPECT_EQ(p2.toFloats(), p.toFloats());
    run(makeCall("LuUnpack", {&lu, &piv}, {&l2, &u2}, attrs({{"unpack_pivots", false}})));
    EXPECT_EQ(l2.toFloats(), l.toFloats());
    EXPECT_EQ(u2.toFloats(), u.toFloats());
  }
}

TEST(KernelLinalgLuUnpack, Errors) {
  HostTensor lu(ACL_FLOAT, {2, 2}), piv = HostTensor::ints(ACL_INT32, {2}, {0, 2}), p(ACL_FLOAT, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("LuUnpack", {&lu, &piv}, {&p}, attrs({{"unpack_data", false}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "pivot 0 of matrix 0 is 0");
  EXPECT_KERNEL_ERROR(makeCall("LuUnpack", {&lu, &piv}, {}, attrs({{"unpack_data", false}, {"unpack_pivots", false}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "nothing to compute");
  EXPECT_KERNEL_ERROR(makeCall("LuUnpack", {&lu, &piv}, {&p}), ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 3 outputs");
}

TEST(KernelLinalgDeterminant, DetAndLogDetMatchReference) {
  const int64_t n = 5, batch = 4;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    std::vector<float> v = randomFloats(batch * n * n, -1.5f, 1.5f, 21);
    for (int64_t i = 0; i < n * n; ++i) v[static_cast<size_t>(3 * n * n + i)] = 0.0f;  // a singular matrix
    HostTensor x = floatTensor(dt, {batch, n, n}, v);
    HostTensor det(dt, {batch}), sign(dt, {batch}), logabs(dt, {batch});
    run(makeCall("MatrixDeterminant", {&x}, {&det}));
    run(makeCall("LogMatrixDeterminant", {&x}, {&sign, &logabs}));
    const std::vector<float> d = det.toFloats(), s = sign.toFloats(), la = logabs.toFloats();
    for (int64_t b = 0; b < batch; ++b) {
      const double want = refDet(matOf(x, b, n, n));
      EXPECT_NEAR(d[static_cast<size_t>(b)], want, tolFor(dt) * 5 * (1 + std::fabs(want))) << b;
      EXPECT_EQ(s[static_cast<size_t>(b)], want > 0 ? 1.0f : (want < 0 ? -1.0f : 0.0f)) << b;
      if (want == 0.0)
        EXPECT_EQ(la[static_cast<size_t>(b)], -INFINITY);
      else
        EXPECT_NEAR(la[static_cast<size_t>(b)], std::log(std::fabs(want)), tolFor(dt) * 5) << b;
    }
  }
}

TEST(KernelLinalgDeterminant, ReturnsTheFactorisationAndHandlesEmpty) {
  HostTensor x = floatTensor(ACL_FLOAT, {3, 3}, {0, 2, 1, 3, 1, 0, 1, 1, 4});
  HostTensor det(ACL_FLOAT, {}), lu(ACL_FLOAT, {3, 3}), piv(ACL_INT32, {3});
  run(makeCall("MatrixDeterminant", {&x}, {&det, &lu, &piv}, attrs({{"transpose_x", true}})));
  const RefLu ref = refLu(matOf(x, 0, 3, 3).t());
  expectMatNear(matOf(lu, 0, 3, 3), ref.lu, 1e-6, 1e-6, "lu of x^T");
  EXPECT_NEAR(det.toFloats()[0], refDet(matOf(x, 0, 3, 3)), 1e-5);
  // 0 x 0 matrices: det 1, sign 1, logabsdet 0.
  HostTensor e(ACL_FLOAT, {2, 0, 0}), d2(ACL_FLOAT, {2}), s2(ACL_FLOAT, {2}), l2(ACL_FLOAT, {2});
  run(makeCall("MatrixDeterminant", {&e}, {&d2}));
  run(makeCall("LogMatrixDeterminant", {&e}, {&s2, &l2}));
  EXPECT_EQ(d2.toFloats(), (std::vector<float>{1, 1}));
  EXPECT_EQ(s2.toFloats(), (std::vector<float>{1, 1}));
  EXPECT_EQ(l2.toFloats(), (std::vector<float>{0, 0}));
  HostTensor r(ACL_FLOAT, {2, 3}), out(ACL_FLOAT, {});
  EXPECT_KERNEL_ERROR(makeCall("MatrixDeterminant", {&r}, {&out}), ACL_ERROR_OP_INPUT_NOT_MATCH, "square");
  HostTensor sq(ACL_FLOAT, {3, 3});
  EXPECT_KERNEL_ERROR(makeCall("LogMatrixDeterminant", {&sq}, {&out}), ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 2");
}

TEST(KernelLinalgInverse, MatchesReferenceAndReportsSingular) {
  const int64_t n = 6;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = floatTensor(dt, {2, n, n}, wellConditioned(2, n, 31));
    HostTensor y(dt, {2, n, n}), info(ACL_INT32, {2});
    run(makeCall("MatrixInverse", {&x}, {&y, &info}));
    for (int64_t b = 0; b < 2; ++b)
      expectMatNear(matOf(y, b, n, n), refInverse(matOf(x, b, n, n)), 2 * tolFor(dt), 2 * tolFor(dt) / n, "inverse");
    EXPECT_EQ(info.toInts(), (std::vector<int64_t>{0, 0}));
  }
  HostTensor s = floatTensor(ACL_FLOAT, {2, 2}, {1, 2, 2, 4}), ys(ACL_FLOAT, {2, 2}), is(ACL_INT32, {});
  run(makeCall("MatrixInverse", {&s}, {&ys, &is}));
  EXPECT_EQ(is.toInts()[0], 2);
  HostTensor e(ACL_FLOAT, {0, 0}), ye(ACL_FLOAT, {0, 0}), ie = HostTensor::ints(ACL_INT32, {}, {5});
  run(makeCall("MatrixInverse", {&e}, {&ye, &ie}));
  EXPECT_EQ(ie.toInts()[0], 0);
  HostTensor r(ACL_FLOAT, {2, 3}), yr(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("MatrixInverse", {&r}, {&yr}), ACL_ERROR_OP_INPUT_NOT_MATCH, "square");
  EXPECT_KERNEL_ERROR(makeCall("MatrixInverse", {&s}, {&ys}, attrs({{"adjoint", true}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "adjoint");
}

TEST(KernelLinalgCost, AiCpuTimeScalesWithTheFlops) {
  HostTensor small(ACL_FLOAT, {8, 8}), big(ACL_FLOAT, {64, 64});
  HostTensor ys(ACL_FLOAT, {8, 8}), yb(ACL_FLOAT, {64, 64});
  const KernelCost cs = kernel("MatrixInverse").cost(makeCall("MatrixInverse", {&small}, {&ys}));
  const KernelCost cb = kernel("MatrixInverse").cost(makeCall("MatrixInverse", {&big}, {&yb}));
  EXPECT_EQ(cs.core, CoreType::kAiCpu);
  EXPECT_NEAR(cb.flops / cs.flops, 512.0, 1e-9);  // n^3
  EXPECT_NEAR(cb.flops, 8.0 / 3.0 * 64 * 64 * 64, 1e-6);
  // Note [Op cost]: launch + the longer of the byte and FLOP times.
  const CostModel model(ChipConfig::preset("Ascend910B2"));
  EXPECT_NEAR(model.opUs(cb), CostModel::kAiCpuLaunchUs + cb.flops / CostModel::kAiCpuFlopsPerS * 1e6, 1e-9);
  EXPECT_GT(model.opUs(cb), model.opUs(cs));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
