// Sort, SortV2 and Mode against references stated here (std::stable_sort with an
// explicit NaN rule, run counting).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Positions of a line in the reference order: stable, NaN largest.
std::vector<int64_t> referenceOrder(const std::vector<float>& line, bool descending) {
  std::vector<int64_t> pos(line.size());
  for (size_t k = 0; k < pos.size(); ++k) pos[k] = static_cast<int64_t>(k);
  // (is NaN, value): NaN above +inf; descending reverses the key order.
  auto key = [&](int64_t p) {
    return std::make_pair(std::isnan(line[p]) ? 1 : 0, std::isnan(line[p]) ? 0.0 : line[p]);
  };
  std::stable_sort(pos.begin(), pos.end(),
                   [&](int64_t a, int64_t b) { return descending ? key(b) < key(a) : key(a) < key(b); });
  return pos;
}

TEST(KernelSort, MatchesStableReferenceOnEveryAxis) {
  const int64_t A = 3, B = 50, C = 4;
  auto v = randomFloats(A * B * C, -4, 4, 91);
  for (size_t k = 0; k < v.size(); ++k) {
    v[k] = std::round(v[k]);  // many ties
    if (k % 17 == 0) v[k] = kNaN;
    if (k % 23 == 0) v[k] = k % 2 ? kInf : -kInf;
    if (k % 29 == 0) v[k] = -0.0f;
  }
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {A, B, C}, v);
    for (int64_t axis : {0, 1, -1}) {
      for (bool descending : {false, true}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " axis " + std::to_string(axis) + (descending ? " desc" : ""));
        HostTensor y(dt, {A, B, C}), idx(ACL_INT64, {A, B, C});
        run(makeCall("Sort", {&x}, {&y, &idx}, attrs({{"axis", axis}, {"descending", descending}})));
        const int64_t ax = axis < 0 ? 2 : axis;
        const int64_t dim = ax == 0 ? A : ax == 1 ? B : C, inner = ax == 0 ? B * C : ax == 1 ? C : 1;
        const int64_t outer = A * B * C / (dim * inner);
        const auto ry = y.toFloats();
        const auto ri = idx.toInts();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            std::vector<float> line;
            for (int64_t d = 0; d < dim; ++d) line.push_back(v[(o * dim + d) * inner + i]);
            const auto want = referenceOrder(line, descending);
            for (int64_t d = 0; d < dim; ++d) {
              const int64_t off = (o * dim + d) * inner + i;
              ASSERT_EQ(ri[off], want[d]) << "line " << o << "," << i << " position " << d;
              const float wv = roundTo(dt, line[want[d]]);
              ASSERT_TRUE(ry[off] == wv || (std::isnan(ry[off]) && std::isnan(wv)));
            }
          }
      }
    }
  }
}

TEST(KernelSort, IntegersBoolInt32IndicesEmptyAndZeroDim) {
  HostTensor xi = HostTensor::ints(ACL_INT64, {6}, {5, -1, 5, 3, -1, 0}), yi(ACL_INT64, {6}), ii(ACL_INT32, {6});
  run(makeCall("Sort", {&xi}, {&yi, &ii}, attrs({{"axis", int64_t{0}}, {"descending", true}, {"stable", true}})));
  EXPECT_EQ(yi.toInts(), (std::vector<int64_t>{5, 5, 3, 0, -1, -1}));
  EXPECT_EQ(ii.toInts(), (std::vector<int64_t>{0, 2, 3, 5, 1, 4}));
  HostTensor xb = HostTensor::ints(ACL_BOOL, {4}, {1, 0, 1, 0}), yb(ACL_BOOL, {4}), ib(ACL_INT64, {4});
  run(makeCall("Sort", {&xb}, {&yb, &ib}, attrs({{"axis", int64_t{-1}}})));
  EXPECT_EQ(yb.toInts(), (std::vector<int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(ib.toInts(), (std::vector<int64_t>{1, 3, 0, 2}));
  HostTensor e(ACL_FLOAT, {0, 3}), ye(ACL_FLOAT, {0, 3}), ie(ACL_INT64, {0, 3});
  run(makeCall("Sort", {&e}, {&ye, &ie}, attrs({{"axis", int64_t{1}}})));
  HostTensor s = HostTensor::floats(ACL_FLOAT, {}, {4}), ys(ACL_FLOAT, {}), is(ACL_INT64, {});
  run(makeCall("Sort", {&s}, {&ys, &is}, attrs({{"axis", int64_t{0}}})));
  EXPECT_EQ(ys.toFloats()[0], 4.0f);
  EXPECT_EQ(is.toInts()[0], 0);
}

TEST(KernelSort, Validation) {
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 3}), i(ACL_INT64, {2, 3});
  HostTensor yh(ACL_FLOAT16, {2, 3}), ibad(ACL_FLOAT, {2, 3}), ishort(ACL_INT64, {3, 2});
  EXPECT_KERNEL_ERROR(makeCall("Sort", {&x}, {&yh, &i}, {}), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y dtype");
  EXPECT_KERNEL_ERROR(makeCall("Sort", {&x}, {&y, &ibad}, {}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output indices");
  EXPECT_KERNEL_ERROR(makeCall("Sort", {&x}, {&y, &ishort}, {}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output indices shape [3,2]");
  EXPECT_KERNEL_ERROR(makeCall("Sort", {&x}, {&y, &i}, attrs({{"axis", int64_t{2}}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "out of range");
  EXPECT_KERNEL_ERROR(makeCall("Sort", {&x}, {&y}, {}), ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 2 outputs");
}

TEST(KernelSortV2, ValuesOnlyAlongTheLastAxis) {
  const std::vector<float> v{3, kNaN, -1, 2, 2, -kInf, 0.5f, 7, 1, -2, kInf, 0};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool descending : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + (descending ? " descending" : ""));
      HostTensor x = HostTensor::floats(dt, {2, 6}, v), y(dt, {2, 6});
      run(makeCall("SortV2", {&x}, {&y}, attrs({{"axis", int64_t{-1}}, {"descending", descending}})));
      std::vector<float> want;
      for (int r = 0; r < 2; ++r) {
        const std::vector<float> line(v.begin() + r * 6, v.begin() + r * 6 + 6);
        for (int64_t p : referenceOrder(line, descending)) want.push_back(roundTo(dt, line[p]));
      }
      expectSameBits(y.toFloats(), want, "values");
    }
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 3}), i(ACL_INT64, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("SortV2", {&x}, {&y}, attrs({{"axis", int64_t{0}}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "must be the last axis");
  EXPECT_KERNEL_ERROR(makeCall("SortV2", {&x}, {&y, &i}, {}), ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 1 output");
}

// Reference mode of one line: most frequent value (smallest on ties, NaN
// never equal to anything) and its last position.
std::pair<float, int64_t> referenceMode(const std::vector<float>& line) {
  std::map<float, std::pair<int64_t, int64_t>> seen;  // value -> (count, last position)
  for (size_t k = 0; k < line.size(); ++k) {
    if (std::isnan(line[k])) continue;
    auto& e = seen[line[k]];
    e.first += 1;
    e.second = static_cast<int64_t>(k);
  }
  std::pair<float, int64_t> best{kNaN, -1};
  int64_t best_count = 0;
  for (const auto& kv : seen)
    if (kv.second.first > best_count) {
      best_count = kv.second.first;
      best = {kv.first, kv.second.second};
    }
  if (best_count == 0)  // only NaN, each a run of one: the first in sorted order is the first NaN
    for (size_t k = 0; k < line.size(); ++k)
      if (std::isnan(line[k])) return {line[k], static_cast<int64_t>(k)};
  return best;
}

TEST(KernelMode, MatchesReferenceWithTiesAndNaN) {
  const int64_t A = 4, B = 33, C = 3;
  auto v = randomFloats(A * B * C, 0, 5, 92);
  for (size_t k = 0; k < v.size(); ++k) v[k] = k % 11 == 0 ? kNaN : std::floor(v[k]);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {A, B, C}, v);
    for (bool keepdim : {false, true}) {
      HostTensor y(dt, keepdim ? Shape{A, 1, C} : Shape{A, C}), i(ACL_INT64, keepdim ? Shape{A, 1, C} : Shape{A, C});
      run(makeCall("Mode", {&x}, {&y, &i}, attrs({{"dim", int64_t{1}}, {"keepdim", keepdim}})));
      for (int64_t a = 0; a < A; ++a)
        for (int64_t c = 0; c < C; ++c) {
          std::vector<float> line;
          for (int64_t b = 0; b < B; ++b) line.push_back(v[(a * B + b) * C + c]);
          const auto want = referenceMode(line);
          ASSERT_EQ(y.toFloats()[a * C + c], want.first);
          ASSERT_EQ(i.toInts()[a * C + c], want.second);
        }
    }
  }
  // Equally frequent values: the smallest wins; NaN never forms a run.
  HostTensor t = HostTensor::floats(ACL_FLOAT, {2, 6}, {2, 1, 2, 1, 3, 3, kNaN, 7, kNaN, 7, 7, kNaN});
  HostTensor ty(ACL_FLOAT, {2}), ti(ACL_INT32, {2});
  run(makeCall("Mode", {&t}, {&ty, &ti}, attrs({{"dim", int64_t{-1}}})));
  EXPECT_EQ(ty.toFloats(), (std::vector<float>{1, 7}));
  EXPECT_EQ(ti.toInts(), (std::vector<int64_t>{3, 4}));
  HostTensor xi = HostTensor::ints(ACL_INT32, {5}, {4, 4, 2, 2, 9}), yi(ACL_INT32, {}), ii(ACL_INT64, {});
  run(makeCall("Mode", {&xi}, {&yi, &ii}, attrs({{"dim", int64_t{0}}})));
  EXPECT_EQ(yi.toInts()[0], 2);
  EXPECT_EQ(ii.toInts()[0], 3);
}

TEST(KernelMode, EmptyZeroDimAndValidation) {
  HostTensor e(ACL_FLOAT, {0, 3}), ye(ACL_FLOAT, {0}), ie(ACL_INT64, {0});
  run(makeCall("Mode", {&e}, {&ye, &ie}, attrs({{"dim", int64_t{1}}})));
  HostTensor s = HostTensor::floats(ACL_FLOAT, {}, {4}), ys(ACL_FLOAT, {}), is(ACL_INT64, {});
  run(makeCall("Mode", {&s}, {&ys, &is}, attrs({{"dim", int64_t{0}}})));
  EXPECT_EQ(ys.toFloats()[0], 4.0f);
  HostTensor z(ACL_FLOAT, {3, 0}), yz(ACL_FLOAT, {3}), iz(ACL_INT64, {3});
  EXPECT_KERNEL_ERROR(makeCall("Mode", {&z}, {&yz, &iz}, attrs({{"dim", int64_t{1}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "size 0");
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2}), i(ACL_INT64, {3});
  EXPECT_KERNEL_ERROR(makeCall("Mode", {&x}, {&y, &i}, attrs({{"dim", int64_t{1}}})), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output indices shape [3]");
  EXPECT_KERNEL_ERROR(makeCall("Mode", {&x}, {&y, &i}, {}), ACL_ERROR_OP_ATTR_NOT_MATCH, "dim");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
