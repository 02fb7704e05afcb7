// Index and IndexPutV2 (OPS.md "Dense prediction, padding, layout and
// indexing", Note [Advanced index geometry]) against a reference that walks
// the result by coordinates: adjacent and split indexed dims, negative
// indices, broadcast values, duplicates (last wins / accumulation order),
// empty tensors, faults and validation errors.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

std::vector<int64_t> coordsOf(int64_t p, const Shape& s) {
  std::vector<int64_t> c(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    c[d] = p % s[d];
    p /= s[d];
  }
  return c;
}
int64_t flatOf(const std::vector<int64_t>& c, const Shape& s) {
  int64_t p = 0;
  for (size_t d = 0; d < s.size(); ++d) p = p * s[d] + c[d];
  return p;
}

// One advanced indexing: x's shape, the 0/1 mask, the index values (all of
// shape b), and the result shape / the x position of each result element.
struct Case {
  Shape x, b;
  std::vector<int64_t> mask;
  std::vector<std::vector<int64_t>> idx;

  std::vector<int64_t> dims() const {
    std::vector<int64_t> d;
    for (size_t i = 0; i < mask.size(); ++i)
      if (mask[i]) d.push_back(static_cast<int64_t>(i));
    return d;
  }
  bool adjacent() const {
    const auto d = dims();
    return d.back() - d.front() + 1 == static_cast<int64_t>(d.size());
  }
  Shape result() const {
    const auto d = dims();
    Shape r;
    if (!adjacent()) r = b;
    for (size_t i = 0; i < x.size(); ++i) {
      if (adjacent() && static_cast<int64_t>(i) == d.front()) r.insert(r.end(), b.begin(), b.end());
      if (!mask[i]) r.push_back(x[i]);
    }
    return r;
  }
  // Flat position in x of result element p.
  int64_t source(int64_t p) const {
    const Shape r = result();
    const std::vector<int64_t> rc = coordsOf(p, r);
    const auto d = dims();
    // Where B's coordinates start in the result.
    size_t bstart = 0;
    if (adjacent())
      for (size_t i = 0; i < static_cast<size_t>(d.front()); ++i) bstart += 1;
    const std::vector<int64_t> bc(rc.begin() + bstart, rc.begin() + bstart + b.size());
    const int64_t bflat = flatOf(bc, b);
    std::vector<int64_t> xc(x.size());
    size_t next = 0, k = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (next == bstart) next += b.size();
      if (mask[i]) {
        int64_t v = idx[k++][static_cast<size_t>(bflat)];
        xc[i] = v < 0 ? v + x[i] : v;
      } else {
        xc[i] = rc[next++];
      }
    }
    return flatOf(xc, x);
  }
};

std::vector<float> ramp(int64_t n, float scale = 0.25f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * static_cast<float>((i * 37) % 101 - 50);
  return v;
}

OpCall indexCall(const std::string& op, const Case& k, std::vector<HostTensor>& idx, const HostTensor& x,
                 const HostTensor* value, const HostTensor& y, bool accumulate = false) {
  OpCall c = makeCall(op, {&x}, {&y}, attrs({{"indexed_sizes", k.mask}}));
  if (value) c.inputs.push_back(value->arg());
  for (auto& t : idx) c.inputs.push_back(t.arg());
  if (accumulate) c.attrs.set("accumulate", true);
  return c;
}

std::vector<HostTensor> indexTensors(const Case& k, aclDataType dt = ACL_INT64) {
  std::vector<HostTensor> v;
  for (const auto& i : k.idx) v.push_back(HostTensor::ints(dt, k.b, i));
  return v;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {{3, 4, 5}, {2, 3}, {0, 1, 0}, {{0, 3, -1, 2, -4, 1}}},                       // one middle dim
      {{4, 5, 6}, {7}, {1, 1, 0}, {{0, 1, 2, 3, -1, 0, 2}, {4, 3, 2, 1, 0, -5, 4}}},  // leading pair
      {{4, 5, 6}, {2, 3}, {1, 0, 1}, {{0, 1, 2, 3, 0, 1}, {5, 4, 3, 2, 1, 0}}},     // split: B first
      {{2, 3, 4, 5}, {3}, {0, 1, 0, 1}, {{0, 2, 1}, {4, 0, 3}}},                    // split in the middle
      {{6}, {2, 2}, {1}, {{5, 0, -6, 3}}},                                          // 1-D
      {{3, 0, 5}, {2}, {1, 0, 0}, {{2, 0}}},                                        // empty C
      {{3, 4, 5}, {0}, {0, 1, 0}, {{}}},                                            // empty B
  };
  return c;
}

}  // namespace

TEST(KernelAdvancedIndex, IndexMatchesCoordinateReference) {
  for (const Case& k : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_BOOL}) {
      for (aclDataType it : {ACL_INT64, ACL_INT32}) {
        SCOPED_TRACE(shapeToString(k.x) + " mask " + shapeToString(k.mask) + " " + dtypeName(dt) + " " +
                     dtypeName(it));
        std::vector<float> xv = ramp(numelOf(k.x));
        if (dt == ACL_BOOL)
          for (auto& v : xv) v = v > 0 ? 1.0f : 0.0f;
        const HostTensor x = HostTensor::floats(dt, k.x, xv);
        auto idx = indexTensors(k, it);
        const Shape r = k.result();
        HostTensor y(dt, r);
        run(indexCall("Index", k, idx, x, nullptr, y));
        const std::vector<float> got = y.toFloats();
        const std::vector<float> xs = x.toFloats();
        ASSERT_EQ(static_cast<int64_t>(got.size()), numelOf(r));
        for (int64_t p = 0; p < numelOf(r); ++p) EXPECT_EQ(got[p], xs[k.source(p)]) << "result element " << p;
      }
    }
  }
}

TEST(KernelAdvancedIndex, IndexPutOverwritesAndAccumulates) {
  for (const Case& k : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32}) {
      for (bool accumulate : {false, true}) {
        SCOPED_TRACE(shapeToString(k.x) + " mask " + shapeToString(k.mask) + " " + dtypeName(dt) +
                     (accumulate ? " accumulate" : ""));
        const Shape r = k.result();
        const std::vector<float> xv = ramp(numelOf(k.x), dt == ACL_INT32 ? 1.0f : 0.25f);
        const std::vector<float> vv = ramp(numelOf(r) + 3, dt == ACL_INT32 ? 3.0f : 0.75f);
        const HostTensor x = HostTensor::floats(dt, k.x, xv);
        const HostTensor value =
            HostTensor::floats(dt, r, std::vector<float>(vv.begin() + 3, vv.end()));
        auto idx = indexTensors(k);
        HostTensor y(dt, k.x);
        run(indexCall("IndexPutV2", k, idx, x, &value, y, accumulate));
        // Reference: row-major walk of the result, in double (exact here:
        // quarter-integers), last write wins.
        std::vector<double> want(xv.begin(), xv.end());
        const std::vector<float> vs = value.toFloats();
        for (int64_t p = 0; p < numelOf(r); ++p) {
          double& t = want[static_cast<size_t>(k.source(p))];
          t = accumulate ? t + vs[p] : vs[p];
        }
        const std::vector<float> got = y.toFloats();
        for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], roundTo(dt, static_cast<float>(want[i]))) << i;
      }
    }
  }
}

TEST(KernelAdvancedIndex, IndexPutBroadcastsValueAndRunsInPlace) {
  const Case& k = cases()[0];  // result [3,2,3,5]
  HostTensor x = HostTensor::floats(ACL_FLOAT, k.x, ramp(60));
  const std::vector<float> before = x.toFloats();
  const HostTensor value = HostTensor::floats(ACL_FLOAT, {5}, {1, 2, 3, 4, 5});
  auto idx = indexTensors(k);
  // y aliases x (in-place index_put_).
  OpCall c = indexCall("IndexPutV2", k, idx, x, &value, x);
  run(c);
  std::vector<float> want = before;
  for (int64_t p = 0; p < 90; ++p) want[k.source(p)] = static_cast<float>(p % 5 + 1);
  EXPECT_EQ(x.toFloats(), want);
}

TEST(KernelAdvancedIndex, DuplicatesAreDeterministicAcrossThreadCounts) {
  // x [64, 1500]: 5000 updates of 1500-element rows into 64 rows (many
  // duplicates, several inner chunks), fp16 accumulation in fp32.
  Case k{{64, 1500}, {5000}, {1, 0}, {{}}};
  for (int64_t i = 0; i < 5000; ++i) k.idx[0].push_back((i * 7) % 64);
  const HostTensor x = HostTensor::floats(ACL_FLOAT16, k.x, randomFloats(64 * 1500, -1, 1, 3));
  const HostTensor value = HostTensor::floats(ACL_FLOAT16, {5000, 1500}, randomFloats(5000 * 1500, -1, 1, 4));
  auto idx = indexTensors(k);
  std::vector<std::vector<float>> results;
  for (int threads : {1, 0}) {
    setHostThreadLimitForTesting(threads);
    for (bool accumulate : {true, false}) {
      HostTensor y(ACL_FLOAT16, k.x);
      run(indexCall("IndexPutV2", k, idx, x, &value, y, accumulate));
      results.push_back(y.toFloats());
    }
  }
  setHostThreadLimitForTesting(0);
  EXPECT_EQ(results[0], results[2]);
  EXPECT_EQ(results[1], results[3]);
  // Overwrite: row r takes the last update i with i*7 % 64 == r.
  const std::vector<float> vs = value.toFloats();
  for (int64_t r = 0; r < 64; ++r) {
    int64_t last = -1;
    for (int64_t i = 0; i < 5000; ++i)
      if ((i * 7) % 64 == r) last = i;
    EXPECT_EQ(results[1][r * 1500 + 17], vs[last * 1500 + 17]) << "row " << r;
  }
}

TEST(KernelAdvancedIndex, OutOfRangeIndexIsADeviceFault) {
  const Case k{{3, 4}, {2}, {0, 1}, {{1, 4}}};
  const HostTensor x(ACL_FLOAT, k.x);
  auto idx = indexTensors(k);
  HostTensor y(ACL_FLOAT, {3, 2});
  EXPECT_KERNEL_ERROR(indexCall("Index", k, idx, x, nullptr, y), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "index 4 at position [1] of indices 0 is out of range [-4, 4) for axis 1");
  const Case neg{{3, 4}, {2}, {1, 0}, {{-4, 0}}};
  auto nidx = indexTensors(neg);
  const HostTensor value(ACL_FLOAT, {});
  HostTensor out(ACL_FLOAT, {3, 4});
  EXPECT_KERNEL_ERROR(indexCall("IndexPutV2", neg, nidx, x, &value, out), ACL_ERROR_RT_AICORE_EXCEPTION,
                      "index -4 at position [0] of indices 0 is out of range [-3, 3) for axis 0");
}

TEST(KernelAdvancedIndex, ValidationErrors) {
  const Case k{{3, 4}, {2}, {0, 1}, {{1, 2}}};
  const HostTensor x(ACL_FLOAT, k.x);
  auto idx = indexTensors(k);
  HostTensor y(ACL_FLOAT, {3, 2});
  {
    Case bad = k;
    bad.mask = {0, 1, 0};
    EXPECT_KERNEL_ERROR(indexCall("Index", bad, idx, x, nullptr, y), ACL_ERROR_OP_ATTR_NOT_MATCH,
                        "one per dim of x [3,4]");
    bad.mask = {1, 1};
    EXPECT_KERNEL_ERROR(indexCall("Index", bad, idx, x, nullptr, y), ACL_ERROR_OP_INPUT_NOT_MATCH,
                        "marks 2 dims, but 1 index tensors were given");
    bad.mask = {0, 2};
    EXPECT_KERNEL_ERROR(indexCall("Index", bad, idx, x, nullptr, y), ACL_ERROR_OP_ATTR_NOT_MATCH, "must hold 0 or 1");
  }
  {
    auto fidx = indexTensors(k, ACL_FLOAT);
    EXPECT_KERNEL_ERROR(indexCall("Index", k, fidx, x, nullptr, y), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "indices 0");
  }
  {
    const Case two{{3, 4}, {2}, {1, 1}, {{1, 2}, {0, 1}}};
    auto tidx = indexTensors(two);
    tidx[1] = HostTensor::ints(ACL_INT64, {1, 2}, {0, 1});
    HostTensor y2(ACL_FLOAT, {2});
    EXPECT_KERNEL_ERROR(indexCall("Index", two, tidx, x, nullptr, y2), ACL_ERROR_OP_INPUT_NOT_MATCH,
                        "must share one shape");
  }
  HostTensor wrong(ACL_FLOAT, {2, 3});
  EXPECT_KERNEL_ERROR(indexCall("Index", k, idx, x, nullptr, wrong), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
  HostTensor half(ACL_FLOAT16, {3, 2});
  EXPECT_KERNEL_ERROR(indexCall("Index", k, idx, x, nullptr, half), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y");
  const HostTensor value(ACL_FLOAT, {3});
  HostTensor out(ACL_FLOAT, {3, 4});
  EXPECT_KERNEL_ERROR(indexCall("IndexPutV2", k, idx, x, &value, out), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "does not broadcast to the indexing result shape [3,2]");
  HostTensor nc5(ACL_FLOAT, {3, 4});
  nc5.setFormat(ACL_FORMAT_NC1HWC0);
  EXPECT_KERNEL_ERROR(indexCall("Index", k, idx, nc5, nullptr, y), ACL_ERROR_OP_UNSUPPORTED_FORMAT, "");
}
