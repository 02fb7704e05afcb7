// Indexing, concatenation, sorting and loss kernels (OPS.md "Indexing,
// concatenation, sorting, losses"): ConcatD, GatherV2, GatherElements,
// ScatterElements, IndexAdd, TopKV2, BinaryCrossEntropy(+Grad),
// SigmoidCrossEntropyWithLogitsV2(+GradV2) vs reference implementations on
// odd shapes, all dtypes, edge cases, index faults and validation errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

std::vector<int64_t> iota(int64_t n, int64_t start = 0) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

// Values representable in every dtype we test (bool: 0/1).
std::vector<int64_t> valuesFor(aclDataType dt, int64_t n, int64_t seed) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = (i * 7919 + seed * 104729) % 201 - 100;
    v[static_cast<size_t>(i)] = dt == ACL_BOOL ? (r & 1) : (dt == ACL_INT64 ? r * 1000000007LL : r);
  }
  return v;
}

const aclDataType kCopyTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64, ACL_BOOL, ACL_INT8};

// Row-major coordinates of flat index p in shape s.
std::vector<int64_t> coords(int64_t p, const Shape& s) {
  std::vector<int64_t> c(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    c[d] = p % s[d];
    p /= s[d];
  }
  return c;
}
int64_t flat(const std::vector<int64_t>& c, const Shape& s) {
  int64_t p = 0;
  for (size_t d = 0; d < s.size(); ++d) p = p * s[d] + c[d];
  return p;
}

// ---- ConcatD -------------------------------------------------------------------------------

TEST(KernelConcat, OddShapesAllDtypes) {
  const std::vector<Shape> shapes = {{2, 3, 4}, {2, 0, 4}, {2, 5, 4}, {2, 1, 4}};
  for (aclDataType dt : kCopyTypes) {
    SCOPED_TRACE(dtypeName(dt));
    std::vector<HostTensor> xs;
    std::vector<std::vector<int64_t>> vals;
    for (size_t k = 0; k < shapes.size(); ++k) {
      vals.push_back(valuesFor(dt, numelOf(shapes[k]), static_cast<int64_t>(k) + 1));
      xs.push_back(HostTensor::ints(dt, shapes[k], vals.back()));
    }
    for (int64_t axis : {1, -2}) {
      HostTensor y(dt, {2, 9, 4});
      OpCall c = makeCall("ConcatD", {}, {&y}, attrs({{"concat_dim", axis}}));
      for (auto& x : xs) c.inputs.push_back(x.arg());
      run(c);
      std::vector<int64_t> want;
      for (int64_t o = 0; o < 2; ++o)
        for (size_t k = 0; k < shapes.size(); ++k)
          for (int64_t i = 0; i < shapes[k][1] * 4; ++i) want.push_back(vals[k][o * shapes[k][1] * 4 + i]);
      EXPECT_EQ(y.toInts(), want);
    }
  }
  // axis 0 and the last axis, plus PyTorch's legacy skipped [0] input
  HostTensor a = HostTensor::ints(ACL_INT64, {2, 3}, iota(6)), b = HostTensor::ints(ACL_INT64, {2, 2}, iota(4, 10));
  HostTensor e(ACL_INT64, {0}), y(ACL_INT64, {2, 5});
  run(makeCall("ConcatD", {&a, &e, &b}, {&y}, attrs({{"concat_dim", int64_t{-1}}})));
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{0, 1, 2, 10, 11, 3, 4, 5, 12, 13}));
  HostTensor y0(ACL_INT64, {4, 3}), c = HostTensor::ints(ACL_INT64, {2, 3}, iota(6, 6));
  run(makeCall("ConcatD", {&a, &c}, {&y0}, attrs({{"concat_dim", int64_t{0}}, {"N", int64_t{2}}})));
  EXPECT_EQ(y0.toInts(), iota(12));
  // one input
  HostTensor y1(ACL_INT64, {2, 3});
  run(makeCall("ConcatD", {&a}, {&y1}, attrs({{"concat_dim", int64_t{0}}})));
  EXPECT_EQ(y1.toInts(), iota(6));
}

TEST(KernelConcat, ValidationErrors) {
  HostTensor a(ACL_FLOAT, {2, 3}), b(ACL_FLOAT, {3, 3}), h(ACL_FLOAT16, {2, 3}), y(ACL_FLOAT, {2, 6}),
      y5(ACL_FLOAT, {2, 5});
  EXPECT_KERNEL_ERROR(makeCall("ConcatD", {&a, &b}, {&y}, attrs({{"concat_dim", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input x1 shape [3,3] differs from output y shape [2,6] in dim 0");
  EXPECT_KERNEL_ERROR(makeCall("ConcatD", {&a, &a}, {&y5}, attrs({{"concat_dim", int64_t{1}}})),
                      ACL_ERROR_OP_OUTPUT_NOT_MATCH, "the inputs add up to 6");
  EXPECT_KERNEL_ERROR(makeCall("ConcatD", {&a, &h}, {&y}, attrs({{"concat_dim", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input x1 dtype float16 does not match");
  EXPECT_KERNEL_ERROR(makeCall("ConcatD", {&a, &a}, {&y}, attrs({{"concat_dim", int64_t{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'concat_dim' value 2 is out of range for rank 2");
  EXPECT_KERNEL_ERROR(makeCall("ConcatD", {&a, &a}, {&y}), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "missing required attribute 'concat_dim'");
  EXPECT_KERNEL_ERROR(makeCall("ConcatD", {&a, &a}, {&y}, attrs({{"concat_dim", int64_t{1}}, {"N", int64_t{3}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'N' is 3 but there are 2 inputs");
}

// ---- GatherV2 ------------------------------------------------------------------------------

TEST(KernelGather, GatherV2AllDtypes) {
  const Shape xs = {4, 5, 3};
  for (aclDataType dt : kCopyTypes)
    for (aclDataType it : {ACL_INT32, ACL_INT64}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + "/" + dtypeName(it));
      const auto xv = valuesFor(dt, numelOf(xs), 3);
      HostTensor x = HostTensor::ints(dt, xs, xv);
      const std::vector<int64_t> iv = {4, 0, 2, 2, 1, 4};
      HostTensor idx = HostTensor::ints(it, {2, 3}, iv);
      HostTensor y(dt, {4, 2, 3, 3});
      run(makeCall("GatherV2", {&x, &idx}, {&y}, attrs({{"axis", int64_t{1}}})));
      std::vector<int64_t> want;
      for (int64_t o = 0; o < 4; ++o)
        for (int64_t j : iv)
          for (int64_t i = 0; i < 3; ++i) want.push_back(xv[(o * 5 + j) * 3 + i]);
      EXPECT_EQ(y.toInts(), want);
    }
  // axis -1 with 0-d index, axis 0 with an empty index
  HostTensor x = HostTensor::ints(ACL_INT64, {2, 3}, iota(6));
  HostTensor i0 = HostTensor::ints(ACL_INT64, {}, {2}), y(ACL_INT64, {2});
  run(makeCall("GatherV2", {&x, &i0}, {&y}, attrs({{"axis", int64_t{-1}}})));
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{2, 5}));
  HostTensor ie(ACL_INT32, {0}), ye(ACL_INT64, {0, 3});
  run(makeCall("GatherV2", {&x, &ie}, {&ye}, attrs({{"axis", int64_t{0}}})));
}

TEST(KernelGather, GatherV2FaultsAndErrors) {
  HostTensor x(ACL_FLOAT, {3, 5});
  HostTensor bad = HostTensor::ints(ACL_INT64, {2, 2}, {0, 1, 5, 2}), neg = HostTensor::ints(ACL_INT32, {2}, {-1, 0});
  HostTensor y(ACL_FLOAT, {3, 2, 2}), y2(ACL_FLOAT, {3, 2});
  EXPECT_KERNEL_ERROR(makeCall("GatherV2", {&x, &bad}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION,
                      "index 5 at position [1,0] of indices is out of range [0, 5) for axis 1 of x (size 5)");
  EXPECT_KERNEL_ERROR(makeCall("GatherV2", {&x, &neg}, {&y2}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "index -1 at position [0]");
  HostTensor fi(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("GatherV2", {&x, &fi}, {&y2}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input indices dtype float32");
  EXPECT_KERNEL_ERROR(makeCall("GatherV2", {&x, &neg}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output y shape [3,2,2] does not match");
}

// ---- GatherElements ------------------------------------------------------------------------

TEST(KernelGather, GatherElementsMatchesTorchGather) {
  const Shape xs = {3, 4, 5}, is = {2, 6, 3};  // index larger than x along dim only
  for (aclDataType dt : kCopyTypes) {
    SCOPED_TRACE(dtypeName(dt));
    const auto xv = valuesFor(dt, numelOf(xs), 4);
    HostTensor x = HostTensor::ints(dt, xs, xv);
    std::vector<int64_t> iv;
    for (int64_t p = 0; p < numelOf(is); ++p) iv.push_back((p * 5 + 3) % 4);
    HostTensor idx = HostTensor::ints(ACL_INT64, is, iv);
    HostTensor y(dt, is);
    run(makeCall("GatherElements", {&x, &idx}, {&y}, attrs({{"dim", int64_t{1}}})));
    std::vector<int64_t> want;
    for (int64_t p = 0; p < numelOf(is); ++p) {
      auto c = coords(p, is);
      c[1] = iv[p];
      want.push_back(xv[flat(c, xs)]);
    }
    EXPECT_EQ(y.toInts(), want);
  }
  HostTensor x = HostTensor::ints(ACL_INT32, {2, 3}, iota(6));
  HostTensor idx = HostTensor::ints(ACL_INT32, {2, 2}, {1, 0, 2, 3}), y(ACL_INT32, {2, 2});
  EXPECT_KERNEL_ERROR(makeCall("GatherElements", {&x, &idx}, {&y}, attrs({{"dim", int64_t{-1}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION,
                      "index 3 at position [1,1] of index is out of range [0, 3) for axis 1 of x (size 3)");
  HostTensor big(ACL_INT32, {3, 2});
  HostTensor yb(ACL_INT32, {3, 2});
  EXPECT_KERNEL_ERROR(makeCall("GatherElements", {&x, &big}, {&yb}, attrs({{"dim", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input index shape [3,2] exceeds input x shape [2,3] in dim 0");
}

// ---- ScatterElements -----------------------------------------------------------------------

TEST(KernelScatter, NoneLastWinsAndAddInOrder) {
  const Shape ds = {4, 5}, is = {3, 2}, us = {3, 3};
  const std::vector<int64_t> iv = {1, 3, 1, 0, 1, 3};  // duplicates along axis 0 in column 0 and 1
  for (aclDataType dt : kCopyTypes) {
    SCOPED_TRACE(dtypeName(dt));
    const auto dv = valuesFor(dt, numelOf(ds), 5), uv = valuesFor(dt, numelOf(us), 6);
    HostTensor data = HostTensor::ints(dt, ds, dv), upd = HostTensor::ints(dt, us, uv);
    HostTensor idx = HostTensor::ints(ACL_INT32, is, iv);
    for (const char* red : {"none", "add"}) {
      HostTensor y(dt, ds);
      run(makeCall("ScatterElements", {&data, &idx, &upd}, {&y},
                   attrs({{"axis", int64_t{0}}, {"reduction", std::string(red)}})));
      std::vector<int64_t> want = dv;
      for (int64_t p = 0; p < numelOf(is); ++p) {
        auto c = coords(p, is);
        const int64_t u = uv[flat(c, us)];
        c[0] = iv[p];
        int64_t& t = want[flat(c, ds)];
        t = std::string(red) == "none" ? u : t + u;
      }
      if (dt == ACL_BOOL)
        for (auto& w : want) w = w != 0;
      if (dt == ACL_INT8)
        for (auto& w : want) w = static_cast<int8_t>(w);
      if (dt == ACL_INT32)
        for (auto& w : want) w = static_cast<int32_t>(w);
      EXPECT_EQ(y.toInts(), want) << red;
    }
  }
}

TEST(KernelScatter, AddFp16RoundsOnceAndAliasing) {
  // 2048 + 1 + 1 in fp16: rounding after each add gives 2048, one rounding gives 2050.
  HostTensor data = HostTensor::floats(ACL_FLOAT16, {1, 2}, {2048, 0});
  HostTensor idx = HostTensor::ints(ACL_INT64, {2, 1}, {0, 0});
  HostTensor upd = HostTensor::floats(ACL_FLOAT16, {2, 1}, {1, 1});
  HostTensor y(ACL_FLOAT16, {1, 2});
  run(makeCall("ScatterElements", {&data, &idx, &upd}, {&y}, attrs({{"reduction", std::string("add")}})));
  EXPECT_EQ(y.toFloats(), (std::vector<float>{2050, 0}));
  // y aliases data (in-place scatter_)
  HostTensor d2 = HostTensor::floats(ACL_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor i2 = HostTensor::ints(ACL_INT64, {1, 3}, {2, 0, 1}), u2 = HostTensor::floats(ACL_FLOAT, {1, 3}, {9, 8, 7});
  OpCall c = makeCall("ScatterElements", {&d2, &i2, &u2}, {&d2}, attrs({{"axis", int64_t{1}}}));
  run(c);
  EXPECT_EQ(d2.toFloats(), (std::vector<float>{8, 7, 9, 4, 5, 6}));
}

TEST(KernelScatter, FaultsAndErrors) {
  HostTensor data(ACL_FLOAT, {3, 4}), upd(ACL_FLOAT, {2, 2}), y(ACL_FLOAT, {3, 4});
  HostTensor idx = HostTensor::ints(ACL_INT64, {2, 2}, {0, 4, 1, 2});
  EXPECT_KERNEL_ERROR(makeCall("ScatterElements", {&data, &idx, &upd}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION,
                      "index 4 at position [0,1] of indices is out of range [0, 4) for axis 1 of data (size 4)");
  HostTensor ok = HostTensor::ints(ACL_INT64, {2, 2}, {0, 1, 1, 2});
  EXPECT_KERNEL_ERROR(makeCall("ScatterElements", {&data, &ok, &upd}, {&y},
                               attrs({{"axis", int64_t{1}}, {"reduction", std::string("xor")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'reduction' is \"xor\"; expected \"none\", \"add\", \"mul\", \"max\", \"min\" or \"mean\"");
  HostTensor small(ACL_FLOAT, {1, 2});
  EXPECT_KERNEL_ERROR(makeCall("ScatterElements", {&data, &ok, &small}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input indices shape [2,2] exceeds input updates shape [1,2] in dim 0");
  HostTensor yi(ACL_INT32, {3, 4});
  EXPECT_KERNEL_ERROR(makeCall("ScatterElements", {&data, &ok, &upd}, {&yi}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y dtype int32 does not match data dtype float32");
}

// ---- IndexAdd ------------------------------------------------------------------------------

TEST(KernelIndexAdd, MatchesTorchIndexAdd) {
  const Shape xs = {3, 4, 2};
  const std::vector<int64_t> iv = {3, 0, 3, 1, 3};
  const Shape us = {3, 5, 2};
  for (aclDataType dt : {ACL_FLOAT, ACL_INT64, ACL_INT32, ACL_BOOL}) {
    SCOPED_TRACE(dtypeName(dt));
    const auto xv = valuesFor(dt, numelOf(xs), 7), uv = valuesFor(dt, numelOf(us), 8);
    HostTensor x = HostTensor::ints(dt, xs, xv), u = HostTensor::ints(dt, us, uv);
    HostTensor idx = HostTensor::ints(ACL_INT32, {5}, iv), y(dt, xs);
    run(makeCall("IndexAdd", {&x, &idx, &u}, {&y}, attrs({{"axis", int64_t{1}}, {"alpha", 2.0f}})));
    std::vector<int64_t> want = xv;
    for (int64_t o = 0; o < 3; ++o)
      for (int64_t j = 0; j < 5; ++j)
        for (int64_t i = 0; i < 2; ++i) want[(o * 4 + iv[j]) * 2 + i] += 2 * uv[(o * 5 + j) * 2 + i];
    if (dt == ACL_BOOL)
      for (auto& w : want) w = w != 0;
    if (dt == ACL_INT32)
      for (auto& w : want) w = static_cast<int32_t>(w);
    EXPECT_EQ(y.toInts(), want);
  }
  // fp32 with non-integer values vs double, axis 0 with a wide inner dim (> one 1024 chunk)
  const int64_t inner = 1500;
  const auto xv = randomFloats(4 * inner, -1, 1, 3), uv = randomFloats(3 * inner, -1, 1, 4);
  HostTensor x = HostTensor::floats(ACL_FLOAT, {4, inner}, xv), u = HostTensor::floats(ACL_FLOAT, {3, inner}, uv);
  HostTensor idx = HostTensor::ints(ACL_INT64, {3}, {2, 2, 0}), y(ACL_FLOAT, {4, inner});
  run(makeCall("IndexAdd", {&x, &idx, &u}, {&y}, attrs({{"axis", int64_t{0}}, {"alpha", -0.5f}})));
  const auto r = y.toFloats();
  for (int64_t i = 0; i < inner; ++i) {
    EXPECT_NEAR(r[2 * inner + i], xv[2 * inner + i] - 0.5 * uv[i] - 0.5 * uv[inner + i], 1e-6);
    EXPECT_NEAR(r[i], xv[i] - 0.5 * uv[2 * inner + i], 1e-6);
    EXPECT_EQ(r[inner + i], xv[inner + i]);
  }
  // fp16: one rounding at the end (2048 + 1 + 1 = 2050)
  HostTensor xh = HostTensor::floats(ACL_FLOAT16, {2}, {2048, 0}), uh = HostTensor::floats(ACL_FLOAT16, {2}, {1, 1});
  HostTensor ih = HostTensor::ints(ACL_INT64, {2}, {0, 0}), yh(ACL_FLOAT16, {2});
  run(makeCall("IndexAdd", {&xh, &ih, &uh}, {&yh}));
  EXPECT_EQ(yh.toFloats(), (std::vector<float>{2050, 0}));
}

TEST(KernelIndexAdd, FaultsAndErrors) {
  HostTensor x(ACL_FLOAT, {3, 4}), u(ACL_FLOAT, {3, 2}), y(ACL_FLOAT, {3, 4});
  HostTensor idx = HostTensor::ints(ACL_INT64, {2}, {1, 4});
  EXPECT_KERNEL_ERROR(makeCall("IndexAdd", {&x, &idx, &u}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION,
                      "index 4 at position [1] of indices is out of range [0, 4) for axis 1 of x (size 4)");
  HostTensor i2(ACL_INT64, {1, 2});
  EXPECT_KERNEL_ERROR(makeCall("IndexAdd", {&x, &i2, &u}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input indices shape [1,2] must be 1-D");
  HostTensor u3(ACL_FLOAT, {3, 3});
  EXPECT_KERNEL_ERROR(makeCall("IndexAdd", {&x, &idx, &u3}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input updates shape [3,3] does not match");
}

// ---- TopKV2 --------------------------------------------------------------------------------

// Reference: stable sort of (value, index) with NaN largest.
void refTopK(const std::vector<float>& line, int64_t k, bool largest, std::vector<float>* v, std::vector<int64_t>* ix) {
  std::vector<int64_t> order(line.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const float x = line[a], y = line[b];
    const bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) return xn != yn && (largest ? xn : yn);
    return largest ? x > y : x < y;
  });
  v->clear();
  ix->clear();
  for (int64_t j = 0; j < k; ++j) {
    v->push_back(line[order[j]]);
    ix->push_back(order[j]);
  }
}

TEST(KernelTopK, TiesNaNAndDims) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Shape xs = {3, 7, 4};
  std::vector<float> xv = randomFloats(static_cast<size_t>(numelOf(xs)), -3, 3, 17);
  for (float& v : xv) v = std::round(v);  // many ties
  xv[5] = nan;
  xv[9] = nan;
  xv[20] = -std::numeric_limits<float>::infinity();
  xv[33] = std::numeric_limits<float>::infinity();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool largest : {true, false})
      for (int64_t k : {int64_t{0}, int64_t{3}, int64_t{7}}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + (largest ? " largest k=" : " smallest k=") + std::to_string(k));
        HostTensor x = HostTensor::floats(dt, xs, xv);
        HostTensor vals(dt, {3, k, 4}), idx(ACL_INT64, {3, k, 4});
        run(makeCall("TopKV2", {&x}, {&vals, &idx},
                     attrs({{"k", k}, {"dim", int64_t{1}}, {"largest", largest}, {"sorted", true}})));
        const auto gv = vals.toFloats();
        const auto gi = idx.toInts();
        for (int64_t o = 0; o < 3; ++o)
          for (int64_t i = 0; i < 4; ++i) {
            std::vector<float> line;
            for (int64_t d = 0; d < 7; ++d) line.push_back(xv[(o * 7 + d) * 4 + i]);
            std::vector<float> rv;
            std::vector<int64_t> ri;
            refTopK(line, k, largest, &rv, &ri);
            for (int64_t j = 0; j < k; ++j) {
              const size_t p = static_cast<size_t>((o * k + j) * 4 + i);
              ASSERT_EQ(gi[p], ri[j]) << o << "," << j << "," << i;
              if (std::isnan(rv[j]))
                ASSERT_TRUE(std::isnan(gv[p]));
              else
                ASSERT_EQ(gv[p], rv[j]);
            }
          }
      }
  // integers, last dim, int32 indices
  HostTensor xi = HostTensor::ints(ACL_INT64, {2, 5}, {5, 1, 5, -3, 2, 0, 0, 0, 9, 9});
  HostTensor vi(ACL_INT64, {2, 2}), ii(ACL_INT32, {2, 2});
  run(makeCall("TopKV2", {&xi}, {&vi, &ii}, attrs({{"k", int64_t{2}}})));
  EXPECT_EQ(vi.toInts(), (std::vector<int64_t>{5, 5, 9, 9}));
  EXPECT_EQ(ii.toInts(), (std::vector<int64_t>{0, 2, 3, 4}));
  run(makeCall("TopKV2", {&xi}, {&vi, &ii}, attrs({{"k", int64_t{2}}, {"largest", false}})));
  EXPECT_EQ(vi.toInts(), (std::vector<int64_t>{-3, 1, 0, 0}));
  EXPECT_EQ(ii.toInts(), (std::vector<int64_t>{3, 1, 0, 1}));
  // thread-count independence on a bigger input
  const auto big = randomFloats(64 * 300, -1, 1, 5);
  HostTensor xb = HostTensor::floats(ACL_FLOAT, {64, 300}, big);
  HostTensor v1(ACL_FLOAT, {64, 10}), i1(ACL_INT64, {64, 10}), v2(ACL_FLOAT, {64, 10}), i2(ACL_INT64, {64, 10});
  setHostThreadLimitForTesting(1);
  run(makeCall("TopKV2", {&xb}, {&v1, &i1}, attrs({{"k", int64_t{10}}})));
  setHostThreadLimitForTesting(0);
  run(makeCall("TopKV2", {&xb}, {&v2, &i2}, attrs({{"k", int64_t{10}}})));
  EXPECT_EQ(v1.toFloats(), v2.toFloats());
  EXPECT_EQ(i1.toInts(), i2.toInts());
}

TEST(KernelTopK, ValidationErrors) {
  HostTensor x(ACL_FLOAT, {2, 5}), v(ACL_FLOAT, {2, 6}), i(ACL_INT64, {2, 6}), v3(ACL_FLOAT, {2, 3}),
      i3(ACL_INT64, {2, 3}), f3(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("TopKV2", {&x}, {&v, &i}, attrs({{"k", int64_t{6}}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attribute 'k' is 6 but must be in [0, 5]");
  EXPECT_KERNEL_ERROR(makeCall("TopKV2", {&x}, {&v3, &f3}, attrs({{"k", int64_t{3}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output indices dtype float32");
  EXPECT_KERNEL_ERROR(makeCall("TopKV2", {&x}, {&v3, &i3}, attrs({{"k", int64_t{3}}, {"dim", int64_t{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'dim' value 2 is out of range for rank 2");
  EXPECT_KERNEL_ERROR(makeCall("TopKV2", {&x}, {&v3, &i3}), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "missing required attribute 'k'");
}

// ---- binary cross entropy ------------------------------------------------------------------

double refReduce(const std::vector<double>& v, const std::string& r) {
  double s = 0;
  for (double e : v) s += e;
  return r == "mean" ? s / static_cast<double>(v.size()) : s;
}

TEST(KernelBCE, BinaryCrossEntropyAndGrad) {
  const Shape s = {5, 7};
  std::vector<float> x = randomFloats(35, 0.01f, 0.99f, 1), y = randomFloats(35, 0, 1, 2);
  x[0] = 0.0f;  // log clamped at -100
  x[1] = 1.0f;
  y[0] = 0.3f;
  y[1] = 0.6f;
  const std::vector<float> w = randomFloats(7, 0.5f, 2, 3), g = randomFloats(35, -1, 1, 4);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor xt = HostTensor::floats(dt, s, x), yt = HostTensor::floats(dt, s, y), wt = HostTensor::floats(dt, {7}, w);
    const auto xr = xt.toFloats(), yr = yt.toFloats(), wr = wt.toFloats();
    std::vector<double> l;
    for (int i = 0; i < 35; ++i) {
      const double lx = std::max(std::log(static_cast<double>(xr[i])), -100.0);
      const double l1 = std::max(std::log1p(-static_cast<double>(xr[i])), -100.0);
      l.push_back(-(yr[i] * lx + (1 - yr[i]) * l1) * wr[i % 7]);
    }
    for (const std::string red : {"none", "sum", "mean"}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " " + red);
      const bool none = red == "none";
      HostTensor out(dt, none ? s : Shape{});
      run(makeCall("BinaryCrossEntropy", {&xt, &yt, &wt}, {&out}, attrs({{"reduction", red}})));
      const auto got = out.toFloats();
      if (none) {
        for (int i = 0; i < 35; ++i)
          ASSERT_NEAR(got[i], l[i], (dt == ACL_FLOAT ? 2e-6 : 1e-3) * std::fabs(l[i]) + 1e-5) << i;
      } else {
        const double want = refReduce(l, red);
        EXPECT_NEAR(got[0], want, (dt == ACL_FLOAT ? 1e-5 : 1e-3) * std::fabs(want));
      }
      // grad
      HostTensor gt = none ? HostTensor::floats(dt, s, g) : HostTensor::floats(dt, {}, {0.75f});
      const auto gr = gt.toFloats();
      HostTensor dx(dt, s);
      run(makeCall("BinaryCrossEntropyGrad", {&xt, &yt, &gt, &wt}, {&dx}, attrs({{"reduction", red}})));
      const auto dr = dx.toFloats();
      for (int i = 0; i < 35; ++i) {
        const double xi = xr[i];
        double want = (none ? gr[i] : gr[0]) * (xi - yr[i]) / std::max((1 - xi) * xi, 1e-12) * wr[i % 7];
        if (red == "mean") want /= 35;
        if (dt == ACL_FLOAT16 && std::fabs(want) > 65504) {  // x = 0 or 1: 1/1e-12 overflows fp16
          ASSERT_TRUE(std::isinf(dr[i])) << i;
          continue;
        }
        ASSERT_NEAR(dr[i], want, (dt == ACL_FLOAT ? 4e-6 : 1.5e-3) * std::fabs(want) + 1e-6) << i;
      }
    }
  }
  // without weight: 2 inputs
  HostTensor xt = HostTensor::floats(ACL_FLOAT, {2}, {0.5f, 0.25f}), yt = HostTensor::floats(ACL_FLOAT, {2}, {1, 0});
  HostTensor out(ACL_FLOAT, {});
  run(makeCall("BinaryCrossEntropy", {&xt, &yt}, {&out}, attrs({{"reduction", std::string("sum")}})));
  EXPECT_NEAR(out.toFloats()[0], -std::log(0.5) - std::log(0.75), 1e-6);
}

double logSigmoid(double x) { return std::min(x, 0.0) - std::log1p(std::exp(-std::fabs(x))); }

TEST(KernelBCE, SigmoidCrossEntropyWithLogits) {
  const Shape s = {4, 6};
  std::vector<float> x = randomFloats(24, -8, 8, 5), t = randomFloats(24, 0, 1, 6);
  x[0] = 80.0f;
  x[1] = -80.0f;
  const std::vector<float> w = randomFloats(24, 0.5f, 2, 7), pw = randomFloats(6, 0.5f, 3, 8);
  const std::vector<float> g = randomFloats(24, -1, 1, 9);
  HostTensor xt = HostTensor::floats(ACL_FLOAT, s, x), tt = HostTensor::floats(ACL_FLOAT, s, t);
  HostTensor wt = HostTensor::floats(ACL_FLOAT, s, w), pt = HostTensor::floats(ACL_FLOAT, {6}, pw);
  struct Variant {
    bool weight, pos;
  };
  for (Variant v : {Variant{false, false}, Variant{true, false}, Variant{false, true}, Variant{true, true}})
    for (const std::string red : {"none", "sum", "mean"}) {
      SCOPED_TRACE(red + (v.weight ? " weight" : "") + (v.pos ? " pos_weight" : ""));
      std::vector<double> l, d;
      for (int i = 0; i < 24; ++i) {
        const double xi = x[i], ti = t[i], p = v.pos ? pw[i % 6] : 1.0, wi = v.weight ? w[i] : 1.0;
        const double lw = (p - 1) * ti + 1;
        l.push_back(((1 - ti) * xi - lw * logSigmoid(xi)) * wi);
        const double sg = 1 / (1 + std::exp(-xi));
        double di = (p * ti + 1 - ti) * sg - p * ti;
        di *= (red == "none" ? g[i] : 0.5) * wi;
        if (red == "mean") di /= 24;
        d.push_back(di);
      }
      AttrMap am = attrs({{"reduction", red}, {"has_weight", v.weight}, {"has_pos_weight", v.pos}});
      const bool none = red == "none";
      HostTensor out(ACL_FLOAT, none ? s : Shape{});
      OpCall c = makeCall("SigmoidCrossEntropyWithLogitsV2", {&xt, &tt}, {&out}, am);
      if (v.weight) c.inputs.push_back(wt.arg());
      if (v.pos) c.inputs.push_back(pt.arg());
      run(c);
      const auto got = out.toFloats();
      if (none) {
        for (int i = 0; i < 24; ++i) ASSERT_NEAR(got[i], l[i], 4e-6 * std::fabs(l[i]) + 4e-6) << i;
      } else {
        const double want = refReduce(l, red);
        EXPECT_NEAR(got[0], want, 1e-5 * std::fabs(want));
      }
      HostTensor gt = none ? HostTensor::floats(ACL_FLOAT, s, g) : HostTensor::floats(ACL_FLOAT, {}, {0.5f});
      HostTensor dx(ACL_FLOAT, s);
      OpCall cg = makeCall("SigmoidCrossEntropyWithLogitsGradV2", {&xt, &tt, &gt}, {&dx}, am);
      if (v.weight) cg.inputs.push_back(wt.arg());
      if (v.pos) cg.inputs.push_back(pt.arg());
      run(cg);
      const auto dr = dx.toFloats();
      for (int i = 0; i < 24; ++i) ASSERT_NEAR(dr[i], d[i], 4e-6 * std::fabs(d[i]) + 1e-6) << i;
    }
}

TEST(KernelBCE, ValidationErrors) {
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 3}), out(ACL_FLOAT, {}), outn(ACL_FLOAT, {2, 3});
  HostTensor w4(ACL_FLOAT, {4}), yi(ACL_INT32, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("BinaryCrossEntropy", {&x, &y}, {&out}, attrs({{"reduction", std::string("avg")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'reduction' is \"avg\"");
  EXPECT_KERNEL_ERROR(makeCall("BinaryCrossEntropy", {&x, &y, &w4}, {&out}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input weight shape [4] does not broadcast to x shape [2,3]");
  EXPECT_KERNEL_ERROR(makeCall("BinaryCrossEntropy", {&x, &yi}, {&out}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input y dtype int32 does not match");
  EXPECT_KERNEL_ERROR(makeCall("BinaryCrossEntropy", {&x, &y}, {&out}, attrs({{"reduction", std::string("none")}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output loss shape [] does not match x shape [2,3]");
  EXPECT_KERNEL_ERROR(makeCall("BinaryCrossEntropy", {&x, &y}, {&outn}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must be 0-d (or [1]) for reduction sum/mean");
  EXPECT_KERNEL_ERROR(makeCall("SigmoidCrossEntropyWithLogitsV2", {&x, &y, &y}, {&out},
                               attrs({{"has_weight", true}, {"has_pos_weight", true}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "do not match the 1 optional input(s) given");
  EXPECT_KERNEL_ERROR(makeCall("SigmoidCrossEntropyWithLogitsV2", {&x}, {&out}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "expected 2..4 inputs, got 1");
}

}  // namespace
