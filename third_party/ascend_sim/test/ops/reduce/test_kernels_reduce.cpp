// Reductions, arg-reductions, softmax family and NLL loss.
#include <limits>
#include <string>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Independent statement of Note [Pairwise blocks] for a sum.
float blockPairwiseSum(std::vector<float> x, size_t block) {
  float total = 0;
  for (size_t b0 = 0; b0 < x.size(); b0 += block) {
    std::vector<float> lvl(x.begin() + b0, x.begin() + std::min(x.size(), b0 + block));
    while (lvl.size() > 1) {
      std::vector<float> next;
      for (size_t i = 0; i + 1 < lvl.size(); i += 2) next.push_back(lvl[i] + lvl[i + 1]);
      if (lvl.size() % 2) next.push_back(lvl.back());
      lvl = next;
    }
    total = b0 == 0 ? lvl[0] : total + lvl[0];
  }
  return total;
}

TEST(KernelReduce, SumOverAxesMatchesReferenceAndOrderRule) {
  // x [4, 150, 3]: reduce axis 1 (non-contiguous, tiled path) and axes {0, 2}.
  const int64_t A = 4, B = 150, C = 3;
  auto v = randomFloats(A * B * C, -1, 1, 41);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {A, B, C}, v);
    auto rx = x.toFloats();
    HostTensor y(dt, {A, C});
    run(makeCall("ReduceSum", {&x}, {&y}, attrs({{"axes", std::vector<int64_t>{-2}}, {"keep_dims", false}})));
    auto ry = y.toFloats();
    for (int64_t i = 0; i < A; ++i)
      for (int64_t k = 0; k < C; ++k) {
        std::vector<float> seq;
        double ref = 0;
        for (int64_t j = 0; j < B; ++j) {
          seq.push_back(rx[(i * B + j) * C + k]);
          ref += seq.back();
        }
        ASSERT_EQ(ry[i * C + k], roundTo(dt, blockPairwiseSum(seq, dt == ACL_FLOAT ? 64 : 128)));
        ASSERT_NEAR(ry[i * C + k], ref, dt == ACL_FLOAT ? 1e-5 * (1 + std::fabs(ref)) : 2e-2);
      }
    HostTensor y2(dt, {1, B, 1});
    run(makeCall("ReduceSum", {&x}, {&y2}, attrs({{"axes", std::vector<int64_t>{0, 2}}, {"keep_dims", true}})));
    auto r2 = y2.toFloats();
    for (int64_t j = 0; j < B; ++j) {
      std::vector<float> seq;
      for (int64_t i = 0; i < A; ++i)
        for (int64_t k = 0; k < C; ++k) seq.push_back(rx[(i * B + j) * C + k]);
      ASSERT_EQ(r2[j], roundTo(dt, blockPairwiseSum(seq, 256)));  // 12 elements: one block
    }
  }
}

TEST(KernelReduce, AllAxesMeanMaxMinProdInt) {
  auto v = randomFloats(1000, 0.5f, 1.5f, 42);
  HostTensor x = HostTensor::floats(ACL_FLOAT, {10, 100}, v);
  HostTensor y(ACL_FLOAT, {});
  run(makeCall("ReduceMean", {&x}, {&y}, attrs({{"axes", std::vector<int64_t>{}}})));
  double s = 0;
  for (float f : v) s += f;
  EXPECT_NEAR(y.toFloats()[0], s / 1000, 1e-5);
  EXPECT_EQ(y.toFloats()[0], blockPairwiseSum(v, 64) / 1000.0f);
  HostTensor ym(ACL_FLOAT, {10});
  run(makeCall("ReduceMax", {&x}, {&ym}, attrs({{"axes", std::vector<int64_t>{1}}})));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ym.toFloats()[i], *std::max_element(v.begin() + i * 100, v.begin() + (i + 1) * 100));
  run(makeCall("ReduceMin", {&x}, {&ym}, attrs({{"axes", std::vector<int64_t>{1}}})));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ym.toFloats()[i], *std::min_element(v.begin() + i * 100, v.begin() + (i + 1) * 100));
  HostTensor yp(ACL_FLOAT, {100});
  run(makeCall("ReduceProd", {&x}, {&yp}, attrs({{"axes", std::vector<int64_t>{0}}})));
  for (int j = 0; j < 100; ++j) {
    double p = 1;
    for (int i = 0; i < 10; ++i) p *= v[i * 100 + j];
    EXPECT_NEAR(yp.toFloats()[j], p, 1e-5 * p);
  }
  // NaN propagates through max.
  HostTensor xn = HostTensor::floats(ACL_FLOAT, {3}, {1, kNaN, 2}), yn(ACL_FLOAT, {});
  run(makeCall("ReduceMax", {&xn}, {&yn}, attrs({{"axes", std::vector<int64_t>{0}}})));
  EXPECT_TRUE(std::isnan(yn.toFloats()[0]));
  // Integers: exact, wrapping.
  HostTensor xi = HostTensor::ints(ACL_INT32, {2, 3}, {1, 2, 3, 4, 5, 2147483647}), yi(ACL_INT32, {2});
  run(makeCall("ReduceSum", {&xi}, {&yi}, attrs({{"axes", std::vector<int64_t>{1}}})));
  EXPECT_EQ(yi.toInts(), (std::vector<int64_t>{6, -2147483640LL}));
  HostTensor yi64(ACL_INT64, {3});
  HostTensor xi64 = HostTensor::ints(ACL_INT64, {2, 3}, {1, -2, 3, 4, 5, -6});
  run(makeCall("ReduceProd", {&xi64}, {&yi64}, attrs({{"axes", std::vector<int64_t>{0}}})));
  EXPECT_EQ(yi64.toInts(), (std::vector<int64_t>{4, -10, -18}));
  HostTensor xb = HostTensor::ints(ACL_BOOL, {2, 2}, {1, 0, 1, 1}), yb(ACL_BOOL, {2});
  run(makeCall("ReduceAll", {&xb}, {&yb}, attrs({{"axes", std::vector<int64_t>{1}}})));
  EXPECT_EQ(yb.toInts(), (std::vector<int64_t>{0, 1}));
  run(makeCall("ReduceAny", {&xb}, {&yb}, attrs({{"axes", std::vector<int64_t>{0}}})));
  EXPECT_EQ(yb.toInts(), (std::vector<int64_t>{1, 1}));
}

TEST(KernelReduce, Validation) {
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("ReduceSum", {&x}, {&y}, attrs({{"axes", std::vector<int64_t>{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "value 2 is out of range for rank 2");
  EXPECT_KERNEL_ERROR(makeCall("ReduceSum", {&x}, {&y}, attrs({{"axes", std::vector<int64_t>{0}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "[3]");
  HostTensor xi(ACL_INT32, {2, 3}), yi(ACL_INT32, {2});
  EXPECT_KERNEL_ERROR(makeCall("ReduceMean", {&xi}, {&yi}, attrs({{"axes", std::vector<int64_t>{1}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
  HostTensor e(ACL_FLOAT, {2, 0}), ye(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("ReduceMax", {&e}, {&ye}, attrs({{"axes", std::vector<int64_t>{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "zero elements");
  run(makeCall("ReduceSum", {&e}, {&ye}, attrs({{"axes", std::vector<int64_t>{1}}})));
  EXPECT_EQ(ye.toFloats(), (std::vector<float>{0, 0}));
}

TEST(KernelArgReduce, FirstOccurrenceAndNaN) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 4}, {1, 3, 3, 0, 2, kNaN, 5, kNaN});
  HostTensor idx(ACL_INT64, {2}), val(ACL_FLOAT, {2});
  run(makeCall("ArgMaxWithValue", {&x}, {&idx, &val}, attrs({{"dimension", int64_t{1}}})));
  EXPECT_EQ(idx.toInts(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(val.toFloats()[0], 3);
  EXPECT_TRUE(std::isnan(val.toFloats()[1]));
  run(makeCall("ArgMinWithValue", {&x}, {&idx, &val}, attrs({{"dimension", int64_t{-1}}})));
  EXPECT_EQ(idx.toInts(), (std::vector<int64_t>{3, 1}));
  // Middle axis, keep_dims, int32 indices, int values.
  HostTensor xi = HostTensor::ints(ACL_INT32, {2, 3, 2}, {1, 9, 7, 9, 7, 0, 4, 4, 4, 5, 6, 5});
  HostTensor ii(ACL_INT32, {2, 1, 2}), vi(ACL_INT32, {2, 1, 2});
  run(makeCall("ArgMaxWithValue", {&xi}, {&ii, &vi}, attrs({{"dimension", int64_t{1}}, {"keep_dims", true}})));
  EXPECT_EQ(ii.toInts(), (std::vector<int64_t>{1, 0, 2, 1}));
  EXPECT_EQ(vi.toInts(), (std::vector<int64_t>{7, 9, 6, 5}));
  HostTensor bad(ACL_INT64, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("ArgMaxWithValue", {&xi}, {&bad, &vi}, attrs({{"dimension", int64_t{1}}, {"keep_dims", true}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output indice shape [2,2]");
  EXPECT_KERNEL_ERROR(makeCall("ArgMaxWithValue", {&xi}, {&ii, &vi}), ACL_ERROR_OP_ATTR_NOT_MATCH, "dimension");
}

TEST(KernelSoftmax, ForwardAndGradAgainstDouble) {
  const int64_t A = 3, D = 70, I = 5;
  auto v = randomFloats(A * D * I, -4, 4, 51);
  auto g = randomFloats(A * D * I, -1, 1, 52);
  for (int64_t axis : {int64_t{1}, int64_t{-1}}) {
    const int64_t outer = axis == 1 ? A : A * D, dim = axis == 1 ? D : I, inner = axis == 1 ? I : 1;
    HostTensor x = HostTensor::floats(ACL_FLOAT, {A, D, I}, v), dy = HostTensor::floats(ACL_FLOAT, {A, D, I}, g);
    HostTensor sm(ACL_FLOAT, {A, D, I}), lsm(ACL_FLOAT, {A, D, I}), dx(ACL_FLOAT, {A, D, I}), ldx(ACL_FLOAT, {A, D, I});
    AttrMap at = attrs({{"axes", std::vector<int64_t>{axis}}});
    run(makeCall("SoftmaxV2", {&x}, {&sm}, at));
    run(makeCall("LogSoftmaxV2", {&x}, {&lsm}, at));
    run(makeCall("SoftmaxGrad", {&sm, &dy}, {&dx}, at));
    run(makeCall("LogSoftmaxGrad", {&dy, &lsm}, {&ldx}, at));
    auto rs = sm.toFloats(), rl = lsm.toFloats(), rdx = dx.toFloats(), rldx = ldx.toFloats();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        auto at_ = [&](int64_t d) { return (o * dim + d) * inner + in; };
        double m = -1e30, s = 0, sdy = 0, sdyy = 0;
        for (int64_t d = 0; d < dim; ++d) m = std::max(m, double(v[at_(d)]));
        for (int64_t d = 0; d < dim; ++d) s += std::exp(v[at_(d)] - m);
        for (int64_t d = 0; d < dim; ++d) {
          double p = std::exp(v[at_(d)] - m) / s;
          sdy += g[at_(d)];
          sdyy += g[at_(d)] * p;
        }
        for (int64_t d = 0; d < dim; ++d) {
          double p = std::exp(v[at_(d)] - m) / s;
          ASSERT_NEAR(rs[at_(d)], p, 1e-6);
          ASSERT_NEAR(rl[at_(d)], std::log(p), 1e-5);
          ASSERT_NEAR(rdx[at_(d)], (g[at_(d)] - sdyy) * p, 1e-5);
          ASSERT_NEAR(rldx[at_(d)], g[at_(d)] - p * sdy, 1e-5);
        }
      }
  }
  HostTensor h = HostTensor::floats(ACL_FLOAT16, {2, 3}, {1, 2, 3, 1000, 1000, 1000}), hy(ACL_FLOAT16, {2, 3});
  run(makeCall("SoftmaxV2", {&h}, {&hy}, attrs({{"axes", std::vector<int64_t>{-1}}})));
  EXPECT_NEAR(hy.toFloats()[5], 1.0 / 3, 1e-3);
  HostTensor bad(ACL_FLOAT, {2, 4});
  EXPECT_KERNEL_ERROR(makeCall("SoftmaxV2", {&h}, {&bad}, attrs({{"axes", std::vector<int64_t>{-1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "float32");
  EXPECT_KERNEL_ERROR(makeCall("SoftmaxV2", {&h}, {&hy}, attrs({{"axes", std::vector<int64_t>{0, 1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "exactly one axis");
}

// Note [Implementation modes]: the high_performance SoftmaxV2 / LogSoftmaxV2
// of a half tensor rounds its intermediates to the dtype (so it is less
// accurate against a double reference) and costs fewer Vector repeats; fp32
// inputs and the grads are the same in both modes.
TEST(KernelSoftmax, HighPerformanceModeComputesInTheHalfDtype) {
  const int64_t R = 64, D = 300;
  const auto v = randomFloats(R * D, -6, 6, 53);
  for (const char* op : {"SoftmaxV2", "LogSoftmaxV2"}) {
    SCOPED_TRACE(op);
    const bool log = std::string(op) == "LogSoftmaxV2";
    HostTensor x = HostTensor::floats(ACL_FLOAT16, {R, D}, v);
    HostTensor precise(ACL_FLOAT16, {R, D}), fast(ACL_FLOAT16, {R, D});
    OpCall a = makeCall(op, {&x}, {&precise}, attrs({{"axes", std::vector<int64_t>{-1}}}));
    OpCall b = makeCall(op, {&x}, {&fast}, attrs({{"axes", std::vector<int64_t>{-1}}}));
    b.ctx.high_performance = true;
    run(a);
    run(b);
    const auto xs = x.toFloats(), ya = precise.toFloats(), yb = fast.toFloats();
    double err_a = 0, err_b = 0;
    for (int64_t r = 0; r < R; ++r) {
      double m = -1e30, s = 0;
      for (int64_t d = 0; d < D; ++d) m = std::max(m, double(xs[r * D + d]));
      for (int64_t d = 0; d < D; ++d) s += std::exp(xs[r * D + d] - m);
      for (int64_t d = 0; d < D; ++d) {
        const double p = std::exp(xs[r * D + d] - m) / s, want = log ? std::log(p) : p;
        err_a += std::abs(ya[r * D + d] - want);
        err_b += std::abs(yb[r * D + d] - want);
        // Both stay within fp16 accuracy of the exact value.
        ASSERT_NEAR(yb[r * D + d], want, log ? 2e-2 : 1e-3) << r << "," << d;
      }
    }
    EXPECT_GT(err_b, 1.2 * err_a);  // the fp16 intermediates cost accuracy
    const KernelCost ca = kernel(op).cost(a), cb = kernel(op).cost(b);
    EXPECT_LT(cb.vector_repeats, ca.vector_repeats);
    EXPECT_EQ(cb.mte_bytes, ca.mte_bytes);
  }
  // fp32 inputs: one implementation.
  HostTensor x = HostTensor::floats(ACL_FLOAT, {R, D}, v), y1(ACL_FLOAT, {R, D}), y2(ACL_FLOAT, {R, D});
  OpCall a = makeCall("SoftmaxV2", {&x}, {&y1}, attrs({{"axes", std::vector<int64_t>{-1}}}));
  OpCall b = makeCall("SoftmaxV2", {&x}, {&y2}, attrs({{"axes", std::vector<int64_t>{-1}}}));
  b.ctx.high_performance = true;
  run(a);
  run(b);
  EXPECT_EQ(y1.toFloats(), y2.toFloats());
  EXPECT_EQ(kernel("SoftmaxV2").cost(a).vector_repeats, kernel("SoftmaxV2").cost(b).vector_repeats);
}

TEST(KernelNLLLoss, ReductionsIgnoreIndexAndFault) {
  const int64_t N = 5, C = 4;
  auto xv = randomFloats(N * C, -3, 0, 61);
  HostTensor x = HostTensor::floats(ACL_FLOAT, {N, C}, xv);
  HostTensor t = HostTensor::ints(ACL_INT64, {N}, {0, 3, -100, 2, 3});
  HostTensor w = HostTensor::floats(ACL_FLOAT, {C}, {1, 2, 0.5f, 3});
  const float wv[] = {1, 2, 0.5f, 3};
  const int64_t tv[] = {0, 3, -100, 2, 3};
  double sum = 0, tw = 0;
  std::vector<double> per(N, 0);
  for (int64_t i = 0; i < N; ++i) {
    if (tv[i] == -100) continue;
    per[i] = -wv[tv[i]] * xv[i * C + tv[i]];
    sum += per[i];
    tw += wv[tv[i]];
  }
  HostTensor yn(ACL_FLOAT, {N}), ys(ACL_FLOAT, {}), twt(ACL_FLOAT, {});
  run(makeCall("NLLLoss", {&x, &t, &w}, {&yn, &twt}, attrs({{"reduction", std::string("none")}, {"ignore_index", int64_t{-100}}})));
  for (int64_t i = 0; i < N; ++i) EXPECT_NEAR(yn.toFloats()[i], per[i], 1e-6);
  run(makeCall("NLLLoss", {&x, &t, &w}, {&ys, &twt}, attrs({{"reduction", std::string("sum")}, {"ignore_index", int64_t{-100}}})));
  EXPECT_NEAR(ys.toFloats()[0], sum, 1e-5);
  EXPECT_EQ(twt.toFloats()[0], tw);
  run(makeCall("NLLLoss", {&x, &t, &w}, {&ys, &twt}, attrs({{"reduction", std::string("mean")}, {"ignore_index", int64_t{-100}}})));
  EXPECT_NEAR(ys.toFloats()[0], sum / tw, 1e-5);

  HostTensor gy = HostTensor::floats(ACL_FLOAT, {}, {2.0f}), gx(ACL_FLOAT, {N, C});
  run(makeCall("NLLLossGrad", {&x, &gy, &t, &w, &twt}, {&gx}, attrs({{"reduction", std::string("mean")}, {"ignore_index", int64_t{-100}}})));
  auto rg = gx.toFloats();
  for (int64_t i = 0; i < N; ++i)
    for (int64_t c = 0; c < C; ++c) {
      double want = (tv[i] == c) ? -wv[c] * 2.0 / tw : 0.0;
      EXPECT_NEAR(rg[i * C + c], want, 1e-6) << i << "," << c;
    }
  HostTensor gyn = HostTensor::floats(ACL_FLOAT, {N}, {1, 2, 3, 4, 5});
  run(makeCall("NLLLossGrad", {&x, &gyn, &t, &w, &twt}, {&gx}, attrs({{"reduction", std::string("none")}})));
  EXPECT_EQ(gx.toFloats()[1 * C + 3], -3.0f * 2);

  HostTensor bad = HostTensor::ints(ACL_INT32, {N}, {0, 1, 4, 2, 3});
  EXPECT_KERNEL_ERROR(makeCall("NLLLoss", {&x, &bad, &w}, {&ys, &twt}, attrs({{"reduction", std::string("sum")}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "target 4 at sample 2 is out of range [0, 4)");
  EXPECT_KERNEL_ERROR(makeCall("NLLLoss", {&x, &t, &w}, {&ys, &twt}, attrs({{"reduction", std::string("avg")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "avg");
  HostTensor tf(ACL_FLOAT, {N});
  EXPECT_KERNEL_ERROR(makeCall("NLLLoss", {&x, &tf, &w}, {&ys, &twt}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "target");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
