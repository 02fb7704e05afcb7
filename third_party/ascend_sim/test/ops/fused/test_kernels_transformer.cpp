// LayerNormV3 / LayerNormGradV3, Triu / Tril, StridedSliceD / SliceD, EmbeddingDenseGrad /
// EmbeddingRenorm against references computed here in double.
#include <cmath>

#include "kernel_test_util.h"
#include "layer_norm_reference.h"

namespace ascend_sim {
namespace test {
namespace {

// Tolerance of a float result: fp32 math rounded once to `dt` (plus the fp32
// error of a short reduction).
double tolFor(aclDataType dt, double ref) {
  const double rel = dt == ACL_FLOAT16 ? 1e-3 : (dt == ACL_BF16 ? 8e-3 : 2e-6);
  return rel * std::fabs(ref) + (dt == ACL_FLOAT ? 1e-6 : 1e-3);
}

void expectNear(const std::vector<float>& got, const std::vector<double>& want, aclDataType dt,
                const std::string& what) {
  expectNearReference(got, want, [dt](double ref) { return tolFor(dt, ref); }, what);
}

TEST(KernelLayerNorm, ForwardAndBackwardMatchTheReference) {
  const int64_t m = 6, n = 37;  // rows [2, 3], normalised dims [37]
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<float> xv = randomFloats(m * n, -3, 5, 1), gv = randomFloats(n, 0.5, 1.5, 2),
                       bv = randomFloats(n, -1, 1, 3), dyv = randomFloats(m * n, -1, 1, 4);
    for (auto* v : {&xv, &gv, &bv, &dyv})
      for (float& e : *v) e = roundTo(dt, e);  // the reference sees the stored values
    HostTensor x = HostTensor::floats(dt, {2, 3, n}, xv), g = HostTensor::floats(dt, {n}, gv),
               b = HostTensor::floats(dt, {n}, bv), dy = HostTensor::floats(dt, {2, 3, n}, dyv);
    HostTensor y(dt, {2, 3, n}), mean(ACL_FLOAT, {2, 3, 1}), rstd(ACL_FLOAT, {2, 3, 1});
    const AttrMap at = attrs({{"begin_norm_axis", int64_t{2}}, {"begin_params_axis", int64_t{2}}, {"epsilon", 1e-5f}});
    run(makeCall("LayerNormV3", {&x, &g, &b}, {&y, &mean, &rstd}, at));
    const LayerNormRef ref = layerNormRef(xv, gv, bv, dyv, m, n, 1e-5);
    expectNear(y.toFloats(), ref.y, dt, "y");
    expectNear(mean.toFloats(), ref.mean, ACL_FLOAT, "mean");
    expectNear(rstd.toFloats(), ref.rstd, ACL_FLOAT, "rstd");

    HostTensor dx(dt, {2, 3, n}), dgamma(dt, {n}), dbeta(dt, {n});
    run(makeCall("LayerNormGradV3", {&dy, &x, &rstd, &mean, &g}, {&dx, &dgamma, &dbeta},
                 attrs({{"begin_norm_axis", int64_t{-1}}, {"begin_params_axis", int64_t{-1}}})));
    expectNear(dx.toFloats(), ref.dx, dt, "dx");
    expectNear(dgamma.toFloats(), ref.dgamma, dt, "dgamma");
    expectNear(dbeta.toFloats(), ref.dbeta, dt, "dbeta");
  }
}

TEST(KernelLayerNorm, EmptyRowsAndBadInputs) {
  HostTensor x(ACL_FLOAT, {0, 4}), g(ACL_FLOAT, {4}), b(ACL_FLOAT, {4}), y(ACL_FLOAT, {0, 4}),
      mean(ACL_FLOAT, {0, 1}), rstd(ACL_FLOAT, {0, 1});
  const AttrMap at = attrs({{"begin_norm_axis", int64_t{1}}, {"epsilon", 1e-5f}});
  run(makeCall("LayerNormV3", {&x, &g, &b}, {&y, &mean, &rstd}, at));
  HostTensor x2(ACL_FLOAT, {2, 4}), y2(ACL_FLOAT, {2, 4}), m2(ACL_FLOAT, {2, 1}), r2(ACL_FLOAT, {2, 1}),
      g3(ACL_FLOAT, {3});
  EXPECT_KERNEL_ERROR(makeCall("LayerNormV3", {&x2, &g3, &b}, {&y2, &m2, &r2}, at), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "gamma shape [3]");
  HostTensor m16(ACL_FLOAT16, {2, 1});
  EXPECT_KERNEL_ERROR(makeCall("LayerNormV3", {&x2, &g, &b}, {&y2, &m16, &r2}, at),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "mean");
  HostTensor xi(ACL_INT32, {2, 4}), gi(ACL_INT32, {4}), bi(ACL_INT32, {4}), yi(ACL_INT32, {2, 4});
  EXPECT_KERNEL_ERROR(makeCall("LayerNormV3", {&xi, &gi, &bi}, {&yi, &m2, &r2}, at), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "int32");
  x2.setFormat(ACL_FORMAT_NC1HWC0);
  EXPECT_KERNEL_ERROR(makeCall("LayerNormV3", {&x2, &g, &b}, {&y2, &m2, &r2}, at), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "format");
}

TEST(KernelTriangle, TriuAndTrilKeepTheirDiagonalBand) {
  const int64_t b = 2, m = 4, n = 5;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_BOOL, ACL_DOUBLE}) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<int64_t> xv(b * m * n);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = dt == ACL_BOOL ? 1 : static_cast<int64_t>(i) + 1;
    HostTensor x = HostTensor::ints(dt, {b, m, n}, xv);
    for (int64_t diagonal : {-2, 0, 1, 7}) {
      for (const char* op : {"Triu", "Tril"}) {
        HostTensor y(dt, {b, m, n});
        run(makeCall(op, {&x}, {&y}, attrs({{"diagonal", diagonal}})));
        const auto got = y.toInts();
        for (int64_t k = 0; k < b * m * n; ++k) {
          const int64_t i = (k / n) % m, j = k % n;
          const bool kept = std::string(op) == "Triu" ? j - i >= diagonal : j - i <= diagonal;
          EXPECT_EQ(got[k], kept ? xv[k] : 0) << op << " diagonal " << diagonal << " element " << k;
        }
      }
    }
  }
  HostTensor empty(ACL_FLOAT, {3, 0, 2}), empty_y(ACL_FLOAT, {3, 0, 2});
  run(makeCall("Triu", {&empty}, {&empty_y}));
  HostTensor v(ACL_FLOAT, {4}), vy(ACL_FLOAT, {4});
  EXPECT_KERNEL_ERROR(makeCall("Tril", {&v}, {&vy}), ACL_ERROR_OP_INPUT_NOT_MATCH, "at least 2 dimensions");
}

TEST(KernelEmbedding, DenseGradSumsInOrderSkipsPaddingAndScales) {
  const int64_t num_weights = 5, d = 3;
  const std::vector<int64_t> idx = {1, 3, 1, 0, 3, 3};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (bool scale : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + (scale ? " scaled" : ""));
      std::vector<float> gv = randomFloats(idx.size() * d, -2, 2, 9);
      for (float& e : gv) e = roundTo(dt, e);
      HostTensor grad = HostTensor::floats(dt, {2, 3, d}, gv), indices = HostTensor::ints(ACL_INT32, {2, 3}, idx);
      HostTensor y(dt, {num_weights, d});
      run(makeCall("EmbeddingDenseGrad", {&grad, &indices}, {&y},
                   attrs({{"num_weights", num_weights}, {"padding_idx", int64_t{0}}, {"scale_grad_by_freq", scale}})));
      std::vector<double> want(num_weights * d, 0.0);
      for (size_t k = 0; k < idx.size(); ++k) {
        if (idx[k] == 0) continue;
        const double count = static_cast<double>(std::count(idx.begin(), idx.end(), idx[k]));
        for (int64_t j = 0; j < d; ++j) want[idx[k] * d + j] += gv[k * d + j] / (scale ? count : 1.0);
      }
      expectNear(y.toFloats(), want, dt, "grad weight");
    }
  }
  HostTensor grad(ACL_FLOAT, {1, d}), bad = HostTensor::ints(ACL_INT64, {1}, {7}), y(ACL_FLOAT, {num_weights, d});
  const auto r = runExpectError(makeCall("EmbeddingDenseGrad", {&grad, &bad}, {&y}, attrs({{"num_weights", num_weights}})));
  EXPECT_EQ(r.code, ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(r.msg.find("index 7 is out of range"), std::string::npos) << r.msg;
  HostTensor no_grad(ACL_FLOAT, {0, d}), no_idx(ACL_INT64, {0});
  run(makeCall("EmbeddingDenseGrad", {&no_grad, &no_idx}, {&y}, attrs({{"num_weights", num_weights}})));
  for (float v : y.toFloats()) EXPECT_EQ(v, 0.0f);
}

TEST(KernelEmbedding, RenormScalesOnlyNamedRowsAboveMaxNorm) {
  const std::vector<float> xv = {3, 4, 0.3f, 0.4f, 6, 8, 1, 0};  // rows of norm 5, 0.5, 10, 1
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {4, 2}, xv), idx = HostTensor::ints(ACL_INT64, {3}, {0, 1, 0});
    run(makeCall("EmbeddingRenorm", {&x, &idx}, {&x}, attrs({{"max_norm", 2.0f}, {"norm_type", 2.0f}})));
    const double f = 2.0 / (5.0 + 1e-7);
    expectNear(x.toFloats(), {3 * f, 4 * f, 0.3, 0.4, 6, 8, 1, 0}, dt, "renormed table");
  }
  // p = 0 counts nonzero elements, p = inf takes the largest |x|, as torch.norm.
  const std::vector<float> mixed = {3, -4, 0, 0.5f, 0, 0, 2, 0};  // row L0 2, 1, 0, 1; Linf 4, 0.5, 0, 2
  HostTensor all_rows = HostTensor::ints(ACL_INT64, {4}, {0, 1, 2, 3});
  HostTensor l0 = HostTensor::floats(ACL_FLOAT, {4, 2}, mixed), linf = HostTensor::floats(ACL_FLOAT, {4, 2}, mixed);
  run(makeCall("EmbeddingRenorm", {&l0, &all_rows}, {&l0}, attrs({{"max_norm", 1.5f}, {"norm_type", 0.0f}})));
  const double f0 = 1.5 / (2.0 + 1e-7);
  expectNear(l0.toFloats(), {3 * f0, -4 * f0, 0, 0.5, 0, 0, 2, 0}, ACL_FLOAT, "L0-renormed table");
  run(makeCall("EmbeddingRenorm", {&linf, &all_rows}, {&linf},
               attrs({{"max_norm", 1.0f}, {"norm_type", INFINITY}})));
  const double f1 = 1.0 / (4.0 + 1e-7), f2 = 1.0 / (2.0 + 1e-7);
  expectNear(linf.toFloats(), {3 * f1, -4 * f1, 0, 0.5, 0, 0, 2 * f2, 0}, ACL_FLOAT, "Linf-renormed table");
  HostTensor flat(ACL_FLOAT, {8}), idx = HostTensor::ints(ACL_INT64, {1}, {9}), table(ACL_FLOAT, {4, 2});
  EXPECT_KERNEL_ERROR(makeCall("EmbeddingRenorm", {&flat, &idx}, {&flat}, attrs({{"max_norm", 1.0f}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 2-D");
  const auto r = runExpectError(makeCall("EmbeddingRenorm", {&table, &idx}, {&table}, attrs({{"max_norm", 1.0f}})));
  EXPECT_NE(r.msg.find("index 9 is out of range"), std::string::npos) << r.msg;
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim

namespace ascend_sim {
namespace test {
namespace {

TEST(KernelLayoutAiCore, TransposeAndBroadcastToMoveEveryElement) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT64, ACL_DOUBLE, ACL_BOOL}) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<int64_t> xv(2 * 3 * 4);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = dt == ACL_BOOL ? static_cast<int64_t>(i % 3 == 0) : static_cast<int64_t>(i);
    HostTensor x = HostTensor::ints(dt, {2, 3, 4}, xv);
    HostTensor y(dt, {4, 2, 3});  // perm (2, 0, 1): y[a][b][c] = x[b][c][a]
    run(makeCall("Transpose", {&x}, {&y}, attrs({{"perm", std::vector<int64_t>{2, 0, 1}}})));
    const auto got = y.toInts();
    for (int64_t a = 0; a < 4; ++a)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(got[(a * 2 + b) * 3 + c], xv[(b * 3 + c) * 4 + a]);
    HostTensor row = HostTensor::ints(dt, {3, 1}, {xv[0], xv[1], xv[2]}), wide(dt, {2, 3, 5});
    run(makeCall("BroadcastTo", {&row}, {&wide}, attrs({{"shape", std::vector<int64_t>{2, 3, 5}}})));
    const auto b = wide.toInts();
    for (int64_t i = 0; i < 30; ++i) EXPECT_EQ(b[i], xv[(i / 5) % 3]) << i;
  }
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {3, 2}), bad(ACL_FLOAT, {2, 3}), empty(ACL_FLOAT, {0, 3}),
      empty_t(ACL_FLOAT, {3, 0});
  run(makeCall("Transpose", {&empty}, {&empty_t}, attrs({{"perm", std::vector<int64_t>{1, 0}}})));
  EXPECT_KERNEL_ERROR(makeCall("Transpose", {&x}, {&y}, attrs({{"perm", std::vector<int64_t>{0, 0}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "is not a permutation");
  EXPECT_KERNEL_ERROR(makeCall("Transpose", {&x}, {&bad}, attrs({{"perm", std::vector<int64_t>{1, 0}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output y shape [2,3]");
  HostTensor three(ACL_FLOAT, {3}), four(ACL_FLOAT, {2, 4});
  EXPECT_KERNEL_ERROR(makeCall("BroadcastTo", {&three}, {&four}), ACL_ERROR_OP_INPUT_NOT_MATCH, "broadcast");
}

TEST(KernelLayoutAiCore, StridedSliceDTakesForwardSlices) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_DOUBLE}) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<int64_t> xv(3 * 5 * 7);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<int64_t>(i) - 40;
    HostTensor x = HostTensor::ints(dt, {3, 5, 7}, xv);
    // x[1:3, 0:5:2, 2:7:3] -> [2, 3, 2]
    HostTensor y(dt, {2, 3, 2});
    run(makeCall("StridedSliceD", {&x}, {&y},
                 attrs({{"begin", std::vector<int64_t>{1, 0, 2}}, {"end", std::vector<int64_t>{3, 5, 7}},
                        {"strides", std::vector<int64_t>{1, 2, 3}}})));
    std::vector<int64_t> want;
    for (int64_t a = 1; a < 3; ++a)
      for (int64_t b = 0; b < 5; b += 2)
        for (int64_t c = 2; c < 7; c += 3) want.push_back(xv[(a * 5 + b) * 7 + c]);
    EXPECT_EQ(y.toInts(), want);
  }
  HostTensor x(ACL_FLOAT, {4, 4}), empty(ACL_FLOAT, {0, 4}), y(ACL_FLOAT, {2, 2});
  run(makeCall("StridedSliceD", {&x}, {&empty},
               attrs({{"begin", std::vector<int64_t>{2, 0}}, {"end", std::vector<int64_t>{2, 4}},
                      {"strides", std::vector<int64_t>{1, 1}}})));
  EXPECT_KERNEL_ERROR(makeCall("StridedSliceD", {&x}, {&y},
                               attrs({{"begin", std::vector<int64_t>{0, 0}}, {"end", std::vector<int64_t>{2, 5}},
                                      {"strides", std::vector<int64_t>{1, 2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "is not a forward slice");
  EXPECT_KERNEL_ERROR(makeCall("StridedSliceD", {&x}, {&y},
                               attrs({{"begin", std::vector<int64_t>{0, 0}}, {"end", std::vector<int64_t>{3, 4}},
                                      {"strides", std::vector<int64_t>{1, 2}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output y shape [2,2]");
}

// SliceD (npu_slice): the block of `size` at `offsets`, -1 meaning to the end of the dim.
TEST(KernelLayoutAiCore, SliceDTakesABlock) {
  std::vector<int64_t> xv(3 * 5 * 7);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<int64_t>(i) * 3 - 100;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64}) {
    SCOPED_TRACE(dtypeName(dt));
    HostTensor x = HostTensor::ints(dt, {3, 5, 7}, xv), y(dt, {2, 5, 3});
    // x[1:3, 0:, 4:7] with size [2, -1, 3]
    run(makeCall("SliceD", {&x}, {&y},
                 attrs({{"offsets", std::vector<int64_t>{1, 0, 4}}, {"size", std::vector<int64_t>{2, -1, 3}}})));
    std::vector<int64_t> want;
    for (int64_t a = 1; a < 3; ++a)
      for (int64_t b = 0; b < 5; ++b)
        for (int64_t c = 4; c < 7; ++c) want.push_back(xv[(a * 5 + b) * 7 + c]);
    EXPECT_EQ(y.toInts(), want);
  }
  HostTensor x(ACL_FLOAT, {4, 4}), y(ACL_FLOAT, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("SliceD", {&x}, {&y},
                               attrs({{"offsets", std::vector<int64_t>{3, 0}}, {"size", std::vector<int64_t>{2, 2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "is not a forward slice");
  EXPECT_KERNEL_ERROR(makeCall("SliceD", {&x}, {&y},
                               attrs({{"offsets", std::vector<int64_t>{0, 0}}, {"size", std::vector<int64_t>{2, -2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "size -2 is negative");
  EXPECT_KERNEL_ERROR(makeCall("SliceD", {&x}, {&y}, attrs({{"offsets", std::vector<int64_t>{0}},
                                                             {"size", std::vector<int64_t>{2, 2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "one value per dim of x");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
