// The mixture-of-experts kernels (MoeGatingTopKSoftmax, MoeInitRouting and
// its gradient, MoeComputeExpertTokens, MoeFinalizeRouting and its gradient,
// GroupedMatmul) against references computed here in double from the
// formulas of Note [MoE gating], Note [MoE routing], Note [MoE finalize
// routing] and Note [Grouped matmul operands].
#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::function<double(double)> tol(aclDataType dt) { return oneRounding(dt, 2e-6, 1e-5); }

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

TEST(KernelMoeGatingTopKSoftmax, TopKOfTheSoftmaxWithRowIndices) {
  const int64_t rows = 5, e = 7, k = 3;
  for (aclDataType dt : kDtypes) {
    SCOPED_TRACE(dtypeName(dt));
    const std::vector<float> xv = stored(dt, randomFloats(rows * e, -4, 4, 11));
    HostTensor x = HostTensor::floats(dt, {rows, e}, xv);
    HostTensor finished = HostTensor::ints(ACL_BOOL, {rows}, {0, 0, 1, 0, 0});
    HostTensor y(dt, {rows, k}), idx(ACL_INT32, {rows, k}), row(ACL_INT32, {rows, k});
    run(makeCall("MoeGatingTopKSoftmax", {&x, &finished}, {&y, &idx, &row}, attrs({{"k", int64_t{k}}})));
    std::vector<double> want_y;
    std::vector<int64_t> want_idx, want_row;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> p(e);
      double sum = 0;
      for (int64_t j = 0; j < e; ++j) sum += (p[j] = std::exp(static_cast<double>(xv[r * e + j])));
      std::vector<int64_t> order(e);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return p[a] > p[b]; });
      for (int64_t j = 0; j < k; ++j) {
        want_y.push_back(p[order[j]] / sum);
        want_idx.push_back(r == 2 ? e : order[j]);  // row 2 is finished: no expert
        want_row.push_back(j * rows + r);
      }
    }
    expectNearReference(y.toFloats(), want_y, tol(dt), "y");
    EXPECT_EQ(idx.toInts(), want_idx);
    EXPECT_EQ(row.toInts(), want_row);
  }
}

TEST(KernelMoeGatingTopKSoftmax, ThreeDimsEmptyRowsAndBadK) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 3, 4}, randomFloats(24, -1, 1, 3));
  HostTensor y(ACL_FLOAT, {2, 3, 4}), idx(ACL_INT32, {2, 3, 4}), row(ACL_INT32, {2, 3, 4});
  run(makeCall("MoeGatingTopKSoftmax", {&x}, {&y, &idx, &row}, attrs({{"k", int64_t{4}}})));
  const std::vector<float> yv = y.toFloats();
  for (int64_t r = 0; r < 6; ++r) {  // all 4 experts: the probabilities sum to 1, descending
    EXPECT_NEAR(yv[r * 4] + yv[r * 4 + 1] + yv[r * 4 + 2] + yv[r * 4 + 3], 1.0, 1e-6);
    EXPECT_TRUE(std::is_sorted(yv.begin() + r * 4, yv.begin() + r * 4 + 4, std::greater<float>()));
  }
  HostTensor empty(ACL_FLOAT, {0, 4}), ey(ACL_FLOAT, {0, 2}), ei(ACL_INT32, {0, 2}), er(ACL_INT32, {0, 2});
  run(makeCall("MoeGatingTopKSoftmax", {&empty}, {&ey, &ei, &er}, attrs({{"k", int64_t{2}}})));
  HostTensor y5(ACL_FLOAT, {2, 3, 5}), i5(ACL_INT32, {2, 3, 5}), r5(ACL_INT32, {2, 3, 5});
  EXPECT_KERNEL_ERROR(makeCall("MoeGatingTopKSoftmax", {&x}, {&y5, &i5, &r5}, attrs({{"k", int64_t{5}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attr k = 5");
}

// x [n, h]; experts [n, k] in [0, experts); row_idx as the gating kernel writes it.
struct RoutingCase {
  int64_t n = 6, h = 5, k = 2, experts = 4;
  std::vector<int64_t> expert, row;
  RoutingCase() {
    const std::vector<float> r = randomFloats(n * k, 0, static_cast<float>(experts), 7);
    for (int64_t i = 0; i < n * k; ++i) expert.push_back(static_cast<int64_t>(r[i]));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j) row.push_back(j * n + i);
  }
  // The stable sort of the (row, choice) positions by expert.
  std::vector<int64_t> sorted() const {
    std::vector<int64_t> s(n * k);
    std::iota(s.begin(), s.end(), 0);
    std::stable_sort(s.begin(), s.end(), [&](int64_t a, int64_t b) { return expert[a] < expert[b]; });
    return s;
  }
};

TEST(KernelMoeInitRouting, SortsRowsByExpertAndTheGradientSumsThemBack) {
  const RoutingCase rc;
  const std::vector<int64_t> s = rc.sorted();
  for (aclDataType dt : kDtypes) {
    for (int64_t active : {rc.n, int64_t{4}}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " active_num " + std::to_string(active));
      const int64_t rows = std::min(rc.n, active) * rc.k;
      const std::vector<float> xv = stored(dt, randomFloats(rc.n * rc.h, -2, 2, 5));
      HostTensor x = HostTensor::floats(dt, {rc.n, rc.h}, xv), row = HostTensor::ints(ACL_INT32, {rc.n, rc.k}, rc.row),
                 expert = HostTensor::ints(ACL_INT32, {rc.n, rc.k}, rc.expert);
      HostTensor ex(dt, {rows, rc.h}), dst(ACL_INT32, {rc.n * rc.k}), sorted_expert(ACL_INT32, {rc.n * rc.k});
      run(makeCall("MoeInitRouting", {&x, &row, &expert}, {&ex, &dst, &sorted_expert},
                   attrs({{"active_num", active}})));
      std::vector<float> want_x;
      std::vector<int64_t> want_dst(rc.n * rc.k), want_e;
      for (int64_t i = 0; i < rc.n * rc.k; ++i) {
        const int64_t src = rc.row[s[i]];
        want_dst[src] = i;
        want_e.push_back(rc.expert[s[i]]);
        if (i < rows) want_x.insert(want_x.end(), xv.begin() + src % rc.n * rc.h, xv.begin() + (src % rc.n + 1) * rc.h);
      }
      expectSameBits(ex.toFloats(), want_x, "expanded_x");
      EXPECT_EQ(dst.toInts(), want_dst);
      EXPECT_EQ(sorted_expert.toInts(), want_e);

      const std::vector<float> gv = stored(dt, randomFloats(rows * rc.h, -1, 1, 9));
      HostTensor g = HostTensor::floats(dt, {rows, rc.h}, gv), gx(dt, {rc.n, rc.h});
      run(makeCall("MoeInitRoutingV2Grad", {&g, &dst}, {&gx}, attrs({{"top_k", rc.k}, {"active_num", active}})));
      std::vector<double> want_gx(rc.n * rc.h, 0.0);
      for (int64_t r = 0; r < rc.n; ++r)
        for (int64_t c = 0; c < rc.k; ++c) {
          const int64_t i = want_dst[c * rc.n + r];
          if (i >= rows) continue;
          for (int64_t j = 0; j < rc.h; ++j) want_gx[r * rc.h + j] += gv[i * rc.h + j];
        }
      expectNearReference(gx.toFloats(), want_gx, tol(dt), "grad_x");
    }
  }
}

TEST(KernelMoeInitRouting, RejectsARowIndexThatIsNotAPermutation) {
  HostTensor x(ACL_FLOAT, {2, 3}), row = HostTensor::ints(ACL_INT32, {2, 2}, {0, 2, 0, 3}),
                                   expert = HostTensor::ints(ACL_INT32, {2, 2}, {0, 1, 1, 0});
  HostTensor ex(ACL_FLOAT, {4, 3}), dst(ACL_INT32, {4}), se(ACL_INT32, {4});
  EXPECT_KERNEL_ERROR(makeCall("MoeInitRouting", {&x, &row, &expert}, {&ex, &dst, &se}), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "found 0 twice");
  HostTensor ex_bad(ACL_FLOAT, {3, 3});
  EXPECT_KERNEL_ERROR(makeCall("MoeInitRouting", {&x, &row, &expert}, {&ex_bad, &dst, &se}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output expanded_x");
}

TEST(KernelMoeComputeExpertTokens, EachExpertsEndRow) {
  HostTensor s = HostTensor::ints(ACL_INT32, {6}, {0, 0, 2, 3, 3, 3}), out(ACL_INT32, {5});
  run(makeCall("MoeComputeExpertTokens", {&s}, {&out}, attrs({{"num_experts", int64_t{5}}})));
  EXPECT_EQ(out.toInts(), (std::vector<int64_t>{2, 2, 3, 6, 6}));
  HostTensor unsorted = HostTensor::ints(ACL_INT32, {3}, {1, 0, 2});
  EXPECT_KERNEL_ERROR(makeCall("MoeComputeExpertTokens", {&unsorted}, {&out}, attrs({{"num_experts", int64_t{5}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "not sorted");
  HostTensor empty(ACL_INT32, {0});
  run(makeCall("MoeComputeExpertTokens", {&empty}, {&out}, attrs({{"num_experts", int64_t{5}}})));
  EXPECT_EQ(out.toInts(), (std::vector<int64_t>(5, 0)));
}

TEST(KernelMoeFinalizeRouting, WeightsTheExpertsOutputsIntoTheirRowsAndDifferentiates) {
  RoutingCase rc;
  const std::vector<int64_t> s = rc.sorted();
  std::vector<int64_t> dst(rc.n * rc.k);
  for (int64_t i = 0; i < rc.n * rc.k; ++i) dst[rc.row[s[i]]] = i;
  for (aclDataType dt : kDtypes) {
    for (int64_t rows : {rc.n * rc.k, int64_t{8}}) {  // 8: the last choices were dropped
      SCOPED_TRACE(std::string(dtypeName(dt)) + " rows " + std::to_string(rows));
      const std::vector<float> xv = stored(dt, randomFloats(rows * rc.h, -2, 2, 1)),
                               s1 = stored(dt, randomFloats(rc.n * rc.h, -1, 1, 2)),
                               s2 = stored(dt, randomFloats(rc.n * rc.h, -1, 1, 3)),
                               bv = stored(dt, randomFloats(rc.experts * rc.h, -1, 1, 4)),
                               sc = stored(dt, randomFloats(rc.n * rc.k, 0, 1, 5)),
                               gyv = stored(dt, randomFloats(rc.n * rc.h, -1, 1, 6));
      HostTensor x = HostTensor::floats(dt, {rows, rc.h}, xv), skip1 = HostTensor::floats(dt, {rc.n, rc.h}, s1),
                 skip2 = HostTensor::floats(dt, {rc.n, rc.h}, s2),
                 bias = HostTensor::floats(dt, {rc.experts, rc.h}, bv),
                 scales = HostTensor::floats(dt, {rc.n, rc.k}, sc), d = HostTensor::ints(ACL_INT32, {rc.n * rc.k}, dst),
                 expert = HostTensor::ints(ACL_INT32, {rc.n, rc.k}, rc.expert), out(dt, {rc.n, rc.h});
      const std::vector<int64_t>& ev = rc.expert;  // [n, k] row-major: choice (i, c) at i * k + c
      const AttrMap all = attrs({{"has_skip1", true},
                                 {"has_skip2", true},
                                 {"has_bias", true},
                                 {"has_scales", true},
                                 {"has_expert_idx", true}});
      run(makeCall("MoeFinalizeRouting", {&x, &skip1, &skip2, &bias, &scales, &d, &expert}, {&out}, all));
      std::vector<double> want(rc.n * rc.h), want_gx(rows * rc.h, 0.0), want_gs(rc.n * rc.k, 0.0);
      for (int64_t i = 0; i < rc.n; ++i)
        for (int64_t j = 0; j < rc.h; ++j) {
          double acc = static_cast<double>(s1[i * rc.h + j]) + s2[i * rc.h + j];
          for (int64_t c = 0; c < rc.k; ++c) {
            const int64_t row = dst[c * rc.n + i];
            if (row >= rows) continue;
            const double v = static_cast<double>(xv[row * rc.h + j]) + bv[ev[i * rc.k + c] * rc.h + j];
            acc += sc[i * rc.k + c] * v;
            want_gx[row * rc.h + j] = static_cast<double>(sc[i * rc.k + c]) * gyv[i * rc.h + j];
            want_gs[i * rc.k + c] += static_cast<double>(gyv[i * rc.h + j]) * v;
          }
          want[i * rc.h + j] = acc;
        }
      expectNearReference(out.toFloats(), want, tol(dt), "out");

      HostTensor gy = HostTensor::floats(dt, {rc.n, rc.h}, gyv), gx(dt, {rows, rc.h}), gs(dt, {rc.n, rc.k});
      run(makeCall("MoeFinalizeRoutingV2Grad", {&gy, &d, &x, &scales, &expert, &bias}, {&gx, &gs},
                   attrs({{"has_scales", true}, {"has_expert_idx", true}, {"has_bias", true}})));
      expectNearReference(gx.toFloats(), want_gx, tol(dt), "grad_expanded_x");
      expectNearReference(gs.toFloats(), want_gs, tol(dt), "grad_scales");
    }
  }
}

TEST(KernelMoeFinalizeRouting, WithoutOptionalsItSumsTheChoicesAndChecksIndices) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  HostTensor d = HostTensor::ints(ACL_INT32, {4}, {3, 0, 1, 2}), out(ACL_FLOAT, {2, 2});
  run(makeCall("MoeFinalizeRouting", {&x, &d}, {&out}));
  // row 0: choices at expanded rows d[0] = 3 and d[2] = 1; row 1: d[1] = 0 and d[3] = 2.
  EXPECT_EQ(out.toFloats(), (std::vector<float>{7 + 3, 8 + 4, 1 + 5, 2 + 6}));
  HostTensor bad = HostTensor::ints(ACL_INT32, {4}, {3, 0, 9, 2});
  EXPECT_KERNEL_ERROR(makeCall("MoeFinalizeRouting", {&x, &bad}, {&out}), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "outside [0, 4)");
  EXPECT_KERNEL_ERROR(makeCall("MoeFinalizeRouting", {&x, &d}, {&out}, attrs({{"has_bias", true}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 3 inputs");
}

// Reference product of rows [r0, r1) of a [*, k] by w [k, n] (or [n, k] transposed) plus bias.
std::vector<double> referenceProduct(const std::vector<float>& a, int64_t r0, int64_t r1, int64_t k,
                                     const std::vector<float>& w, int64_t n, bool trans, const std::vector<float>& b) {
  std::vector<double> out;
  for (int64_t i = r0; i < r1; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = b.empty() ? 0.0 : b[j];
      for (int64_t t = 0; t < k; ++t) acc += static_cast<double>(a[i * k + t]) * (trans ? w[j * k + t] : w[t * n + j]);
      out.push_back(acc);
    }
  return out;
}

OpCall groupedCall(const std::vector<const HostTensor*>& ins, const std::vector<const HostTensor*>& outs, AttrMap a) {
  OpCall c;
  c.op_type = "GroupedMatmul";
  for (const HostTensor* t : ins) c.inputs.push_back(t->arg());
  for (const HostTensor* t : outs) c.outputs.push_back(t->arg());
  c.attrs = std::move(a);
  return c;
}

TEST(KernelGroupedMatmul, OneXSplitByTheGroupListIntoEachExpertsProduct) {
  const int64_t m = 9, k = 17, n = 6;
  const std::vector<int64_t> ends = {4, 4, 9};  // the middle expert takes no rows
  for (aclDataType dt : kDtypes) {
    for (bool trans : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + (trans ? " transposed weights" : ""));
      const std::vector<float> xv = stored(dt, randomFloats(m * k, -1, 1, 1));
      HostTensor x = HostTensor::floats(dt, {m, k}, xv);
      std::vector<std::vector<float>> wv, bv;
      std::vector<HostTensor> w, b;
      for (int g = 0; g < 3; ++g) {
        wv.push_back(stored(dt, randomFloats(k * n, -1, 1, 10 + g)));
        bv.push_back(stored(ACL_FLOAT, randomFloats(n, -1, 1, 20 + g)));
        w.push_back(HostTensor::floats(dt, trans ? Shape{n, k} : Shape{k, n}, wv.back()));
        b.push_back(HostTensor::floats(ACL_FLOAT, {n}, bv.back()));
      }
      HostTensor y(dt, {m, n});
      run(groupedCall({&x, &w[0], &w[1], &w[2], &b[0], &b[1], &b[2]}, {&y},
                      attrs({{"x_num", int64_t{1}},
                             {"weight_num", int64_t{3}},
                             {"group_list", ends},
                             {"split_item", int64_t{3}},
                             {"transpose_weight", trans}})));
      std::vector<double> want;
      for (int g = 0, start = 0; g < 3; start = static_cast<int>(ends[g++])) {
        const std::vector<double> part = referenceProduct(xv, start, ends[g], k, wv[g], n, trans, bv[g]);
        want.insert(want.end(), part.begin(), part.end());
      }
      const double rel = dt == ACL_FLOAT ? 1e-5 : (dt == ACL_FLOAT16 ? 4e-3 : 1.6e-2);
      expectNearReference(
          y.toFloats(), want, [rel](double r) { return rel * (std::fabs(r) + 1.0); }, "y");
    }
  }
}

TEST(KernelGroupedMatmul, SeparateTensorsAndTheSplitKWeightGradient) {
  // Two groups of separate tensors, x of rank 3: y_g = x_g · w_g.
  const std::vector<float> x0v = randomFloats(2 * 3 * 4, -1, 1, 1), x1v = randomFloats(5 * 2, -1, 1, 2),
                           w0v = randomFloats(4 * 3, -1, 1, 3), w1v = randomFloats(2 * 7, -1, 1, 4);
  HostTensor x0 = HostTensor::floats(ACL_FLOAT, {2, 3, 4}, x0v), x1 = HostTensor::floats(ACL_FLOAT, {5, 2}, x1v),
             w0 = HostTensor::floats(ACL_FLOAT, {4, 3}, w0v), w1 = HostTensor::floats(ACL_FLOAT, {2, 7}, w1v);
  HostTensor y0(ACL_FLOAT, {2, 3, 3}), y1(ACL_FLOAT, {5, 7});
  run(groupedCall({&x0, &x1, &w0, &w1}, {&y0, &y1}, attrs({{"x_num", int64_t{2}}, {"weight_num", int64_t{2}}})));
  expectNearReference(y0.toFloats(), referenceProduct(x0v, 0, 6, 4, w0v, 3, false, {}), tol(ACL_FLOAT), "y0");
  expectNearReference(y1.toFloats(), referenceProduct(x1v, 0, 5, 2, w1v, 7, false, {}), tol(ACL_FLOAT), "y1");

  // Split K: dw_g = x[rows of g]^T · dy[rows of g], stacked [groups, k, n].
  const int64_t m = 7, k = 3, n = 4;
  const std::vector<int64_t> ends = {2, 2, 7};
  const std::vector<float> xv = randomFloats(m * k, -1, 1, 5), dyv = randomFloats(m * n, -1, 1, 6);
  HostTensor x = HostTensor::floats(ACL_FLOAT, {m, k}, xv), dy = HostTensor::floats(ACL_FLOAT, {m, n}, dyv);
  HostTensor dw(ACL_FLOAT, {3, k, n});
  run(groupedCall(
      {&x, &dy}, {&dw},
      attrs({{"group_list", ends}, {"split_item", int64_t{2}}, {"group_type", int64_t{2}}, {"transpose_x", true}})));
  std::vector<double> want;
  for (int g = 0, start = 0; g < 3; start = static_cast<int>(ends[g++]))
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t r = start; r < ends[g]; ++r) acc += static_cast<double>(xv[r * k + i]) * dyv[r * n + j];
        want.push_back(acc);
      }
  expectNearReference(dw.toFloats(), want, tol(ACL_FLOAT), "dw");
}

// Note [Quantised groups]: int8 experts with int32 bias and per-channel
// scales (fp32 or int64 quant params), requantised to int8 or dequantised to
// fp16; and fp16 activations with int8 weights dequantised on the Vector unit.
TEST(KernelGroupedMatmul, Int8GroupsAndWeightOnlyQuantisedGroups) {
  const int64_t m = 7, k = 40, n = 5;
  const std::vector<int64_t> ends = {3, 7};
  std::vector<int64_t> xv;
  for (float f : randomFloats(m * k, -128, 128, 3)) xv.push_back(static_cast<int64_t>(std::floor(f)));
  std::vector<std::vector<int64_t>> wv(2), bv(2);
  std::vector<std::vector<float>> sv(2), ov(2);
  std::vector<HostTensor> w, b, sc, off;
  for (int g = 0; g < 2; ++g) {
    for (float f : randomFloats(k * n, -128, 128, 30 + g)) wv[g].push_back(static_cast<int64_t>(std::floor(f)));
    for (float f : randomFloats(n, -1000, 1000, 40 + g)) bv[g].push_back(static_cast<int64_t>(f));
    sv[g] = randomFloats(n, 1e-5f, 1e-4f, 50 + g);
    ov[g] = {3, -2, 0, 1, 5};
    w.push_back(HostTensor::ints(ACL_INT8, {k, n}, wv[g]));
    b.push_back(HostTensor::ints(ACL_INT32, {n}, bv[g]));
    sc.push_back(HostTensor::floats(ACL_FLOAT, {n}, sv[g]));
    off.push_back(HostTensor::floats(ACL_FLOAT, {n}, ov[g]));
  }
  const HostTensor x = HostTensor::ints(ACL_INT8, {m, k}, xv);
  auto acc = [&](int64_t i, int g, int64_t j) {
    int64_t s = bv[g][j];
    for (int64_t t = 0; t < k; ++t) s += xv[i * k + t] * wv[g][t * n + j];
    return static_cast<double>(s);
  };
  AttrMap a = attrs({{"x_num", int64_t{1}},
                     {"weight_num", int64_t{2}},
                     {"group_list", ends},
                     {"split_item", int64_t{3}},
                     {"bias_num", int64_t{2}},
                     {"scale_num", int64_t{2}},
                     {"offset_num", int64_t{2}}});
  HostTensor y8(ACL_INT8, {m, n});
  run(groupedCall({&x, &w[0], &w[1], &b[0], &b[1], &sc[0], &sc[1], &off[0], &off[1]}, {&y8}, a));
  std::vector<int64_t> want8;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int g = i < ends[0] ? 0 : 1;
      const float v = static_cast<float>(acc(i, g, j)) * sv[g][j] + ov[g][j];
      want8.push_back(static_cast<int64_t>(std::clamp(std::nearbyint(v), -128.0f, 127.0f)));
    }
  EXPECT_EQ(y8.toInts(), want8);
  a.set("offset_num", int64_t{0});
  a.set("dtype", ACL_FLOAT16);
  HostTensor y16(ACL_FLOAT16, {m, n});
  run(groupedCall({&x, &w[0], &w[1], &b[0], &b[1], &sc[0], &sc[1]}, {&y16}, a));
  std::vector<double> want16;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) want16.push_back(acc(i, i < ends[0] ? 0 : 1, j) * sv[i < ends[0] ? 0 : 1][j]);
  expectNearReference(y16.toFloats(), want16, oneRounding(ACL_FLOAT16, 0, 0, 1e-6), "int8 groups to fp16");
  const KernelCost cost =
      kernel("GroupedMatmul").cost(groupedCall({&x, &w[0], &w[1], &b[0], &b[1], &sc[0], &sc[1]}, {&y16}, a));
  EXPECT_GT(cost.cube_int8_macs, 0.0);
  EXPECT_EQ(cost.cube_macs, 0.0) << "int8 groups run at the Cube's int8 rate";

  // A16W8: fp16 x, int8 weights, antiquant scale / offset per column, fp16 bias.
  const std::vector<float> xf = stored(ACL_FLOAT16, randomFloats(m * k, -1, 1, 60));
  const HostTensor xh = HostTensor::floats(ACL_FLOAT16, {m, k}, xf);
  std::vector<HostTensor> as, ao, bh;
  std::vector<std::vector<float>> asv(2), aov(2), bhv(2);
  for (int g = 0; g < 2; ++g) {
    asv[g] = stored(ACL_FLOAT16, randomFloats(n, 0.001f, 0.01f, 70 + g));
    aov[g] = stored(ACL_FLOAT16, {1, -1, 0.5f, 0, 2});
    bhv[g] = stored(ACL_FLOAT16, randomFloats(n, -1, 1, 80 + g));
    as.push_back(HostTensor::floats(ACL_FLOAT16, {n}, asv[g]));
    ao.push_back(HostTensor::floats(ACL_FLOAT16, {n}, aov[g]));
    bh.push_back(HostTensor::floats(ACL_FLOAT16, {n}, bhv[g]));
  }
  HostTensor yh(ACL_FLOAT16, {m, n});
  run(groupedCall({&xh, &w[0], &w[1], &bh[0], &bh[1], &as[0], &as[1], &ao[0], &ao[1]}, {&yh},
                  attrs({{"x_num", int64_t{1}},
                         {"weight_num", int64_t{2}},
                         {"group_list", ends},
                         {"split_item", int64_t{3}},
                         {"bias_num", int64_t{2}},
                         {"antiquant_scale_num", int64_t{2}},
                         {"antiquant_offset_num", int64_t{2}}})));
  std::vector<double> wanth;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int g = i < ends[0] ? 0 : 1;
      double s = bhv[g][j];
      for (int64_t t = 0; t < k; ++t)
        s += double(xf[i * k + t]) * roundTo(ACL_FLOAT16, (float(wv[g][t * n + j]) + aov[g][j]) * asv[g][j]);
      wanth.push_back(s);
    }
  expectNearReference(yh.toFloats(), wanth, oneRounding(ACL_FLOAT16, 0, 0, 2e-3), "weight-only quantised groups");
  // An antiquant offset of another shape than its scale, a scale list without int8 x, and an offset
  // without its scale, are errors.
  const HostTensor one_offset = HostTensor::floats(ACL_FLOAT16, {1}, {1});
  EXPECT_KERNEL_ERROR(groupedCall({&xh, &w[0], &w[1], &as[0], &as[1], &one_offset, &one_offset}, {&yh},
                                  attrs({{"x_num", int64_t{1}},
                                         {"weight_num", int64_t{2}},
                                         {"group_list", ends},
                                         {"split_item", int64_t{3}},
                                         {"antiquant_scale_num", int64_t{2}},
                                         {"antiquant_offset_num", int64_t{2}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "antiquant_scale's shape");
  EXPECT_KERNEL_ERROR(groupedCall({&xh, &w[0], &w[1], &sc[0], &sc[1]}, {&yh},
                                  attrs({{"x_num", int64_t{1}},
                                         {"weight_num", int64_t{2}},
                                         {"group_list", ends},
                                         {"split_item", int64_t{3}},
                                         {"scale_num", int64_t{2}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x_0");
  EXPECT_KERNEL_ERROR(groupedCall({&x, &w[0], &w[1], &off[0], &off[1]}, {&y8},
                                  attrs({{"x_num", int64_t{1}},
                                         {"weight_num", int64_t{2}},
                                         {"group_list", ends},
                                         {"split_item", int64_t{3}},
                                         {"offset_num", int64_t{2}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "needs its scale list");
}

TEST(KernelGroupedMatmul, RejectsBadGroupsAndShapes) {
  HostTensor x(ACL_FLOAT, {5, 4}), w0(ACL_FLOAT, {4, 3}), w1(ACL_FLOAT, {4, 3}), y(ACL_FLOAT, {5, 3});
  const auto call = [&](std::vector<int64_t> ends) {
    return groupedCall(
        {&x, &w0, &w1}, {&y},
        attrs({{"x_num", int64_t{1}}, {"weight_num", int64_t{2}}, {"group_list", ends}, {"split_item", int64_t{3}}}));
  };
  EXPECT_KERNEL_ERROR(call({3, 4}), ACL_ERROR_OP_ATTR_NOT_MATCH, "must be x's rows 5");
  EXPECT_KERNEL_ERROR(call({3, 2}), ACL_ERROR_OP_ATTR_NOT_MATCH, "non-decreasing");
  EXPECT_KERNEL_ERROR(call({5}), ACL_ERROR_OP_INPUT_NOT_MATCH, "group_list of 2");
  HostTensor w_bad(ACL_FLOAT, {5, 3});
  EXPECT_KERNEL_ERROR(groupedCall({&x, &w0, &w_bad}, {&y},
                                  attrs({{"x_num", int64_t{1}},
                                         {"weight_num", int64_t{2}},
                                         {"group_list", std::vector<int64_t>{2, 5}},
                                         {"split_item", int64_t{3}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "does not multiply");
  HostTensor w_half(ACL_FLOAT16, {4, 3});
  EXPECT_KERNEL_ERROR(groupedCall({&x, &w0, &w_half}, {&y},
                                  attrs({{"x_num", int64_t{1}},
                                         {"weight_num", int64_t{2}},
                                         {"group_list", std::vector<int64_t>{2, 5}},
                                         {"split_item", int64_t{3}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "weight_1");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
