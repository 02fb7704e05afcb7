// The format table (docs/simulator.md §2): closed-form offsets, storage shapes,
// rank lifting, StorageMap tables, logical load/store, and the C API
// aclsimGetFormatStorageShape / aclsimGetFormatName.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ascend_sim/acl_sim.h"
#include "common/dtype.h"
#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "kernel_test_util.h"
#include "runtime_test_util.h"

using namespace ascend_sim;

namespace {

Shape storageOf(aclFormat f, aclDataType dt, const Shape& logical) {
  Shape out;
  std::string err;
  EXPECT_TRUE(formatStorageShape(f, dt, logical, &out, &err)) << err;
  return out;
}

int64_t off(aclFormat f, aclDataType dt, const Shape& logical, const Shape& idx) {
  return formatElementOffset(f, dt, logical, idx.data());
}

// Every logical index of a shape (row-major order).
std::vector<Shape> allIndices(const Shape& s) {
  std::vector<Shape> r;
  const int64_t n = numelOf(s);
  for (int64_t l = 0; l < n; ++l) {
    Shape idx(s.size());
    int64_t rem = l;
    for (size_t d = s.size(); d-- > 0;) {
      idx[d] = rem % s[d];
      rem /= s[d];
    }
    r.push_back(idx);
  }
  return r;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST(Format, WorkedExamples) {
  EXPECT_EQ(off(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {2, 33, 4, 5}, {1, 17, 2, 3}), 1489);
  EXPECT_EQ(storageOf(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {2, 3, 4, 5}), (Shape{2, 1, 4, 5, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT16, {64, 3, 7, 7}), (Shape{49, 4, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT16, {4, 100, 50}), (Shape{4, 4, 7, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_INT8, {4, 100, 50}), (Shape{4, 2, 7, 16, 32}));
}

TEST(Format, StorageShapesOfEveryFormat) {
  const Shape s4{2, 33, 4, 5}, s5{33, 17, 3, 4, 5};
  EXPECT_EQ(storageOf(ACL_FORMAT_ND, ACL_FLOAT, {3, 5}), (Shape{3, 5}));
  EXPECT_EQ(storageOf(ACL_FORMAT_ND, ACL_FLOAT, {}), (Shape{}));
  EXPECT_EQ(storageOf(ACL_FORMAT_NCHW, ACL_FLOAT, s4), s4);
  EXPECT_EQ(storageOf(ACL_FORMAT_NHWC, ACL_FLOAT, s4), (Shape{2, 4, 5, 33}));
  EXPECT_EQ(storageOf(ACL_FORMAT_NC1HWC0, ACL_FLOAT, s4), (Shape{2, 3, 4, 5, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT, s4), (Shape{3 * 4 * 5, 1, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, s4), (Shape{2, 33, 1, 1, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_NCDHW, ACL_FLOAT, s5), s5);
  EXPECT_EQ(storageOf(ACL_FORMAT_NDC1HWC0, ACL_FLOAT, s5), (Shape{33, 3, 2, 4, 5, 16}));
  EXPECT_EQ(storageOf(ACL_FRACTAL_Z_3D, ACL_FLOAT, s5), (Shape{3 * 2 * 4 * 5, 3, 16, 16}));
  // FRACTAL_NZ C0 by dtype: 16 for 2- and 4-byte types (and int64), 32 for 1-byte types.
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, {3, 17}), (Shape{2, 1, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_BF16, {3, 17}), (Shape{2, 1, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_INT32, {3, 17}), (Shape{2, 1, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_INT8, {3, 17}), (Shape{1, 1, 16, 32}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_UINT8, {3, 33}), (Shape{2, 1, 16, 32}));
  // Zero-size dims give zero-size storage.
  EXPECT_EQ(storageOf(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {2, 0, 4, 5}), (Shape{2, 0, 4, 5, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, {0, 5}), (Shape{1, 0, 16, 16}));
}

TEST(Format, RankLifting) {
  // [C] -> [1,C,1,1], [C,H] -> [1,C,H,1], [C,H,W] -> [1,C,H,W].
  EXPECT_EQ(storageOf(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {20}), (Shape{1, 2, 1, 1, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {20, 7}), (Shape{1, 2, 7, 1, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {20, 7, 3}), (Shape{1, 2, 7, 3, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT16, {20}), (Shape{2, 1, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT16, {20, 7, 3}), (Shape{2 * 7 * 3, 1, 16, 16}));
  EXPECT_EQ(storageOf(ACL_FORMAT_NHWC, ACL_FLOAT16, {20, 7, 3}), (Shape{1, 7, 3, 20}));
  // Lifting keeps offsets: element c of [C] sits where (0,c,0,0) of [1,C,1,1] does.
  EXPECT_EQ(off(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {20}, {17}), off(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {1, 20, 1, 1}, {0, 17, 0, 0}));
  EXPECT_EQ(off(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {20, 7}, {17, 5}),
            off(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {1, 20, 7, 1}, {0, 17, 5, 0}));
  EXPECT_EQ(off(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT, {20, 7, 3}, {17, 5, 2}),
            off(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT, {1, 20, 7, 3}, {0, 17, 5, 2}));
  // FRACTAL_NZ on rank < 2 stays ND.
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT16, {37}), (Shape{37}));
  EXPECT_EQ(storageOf(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT16, {}), (Shape{}));
  EXPECT_EQ(off(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT16, {37}, {21}), 21);
}

TEST(Format, RankErrors) {
  Shape out;
  std::string err;
  EXPECT_FALSE(formatStorageShape(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {1, 2, 3, 4, 5}, &out, &err));
  EXPECT_NE(err.find("NC1HWC0 cannot hold a tensor of rank 5"), std::string::npos) << err;
  EXPECT_FALSE(formatStorageShape(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {}, &out, &err));
  EXPECT_FALSE(formatStorageShape(ACL_FORMAT_NDC1HWC0, ACL_FLOAT, {1, 2, 3, 4}, &out, &err));
  EXPECT_FALSE(formatStorageShape(ACL_FRACTAL_Z_3D, ACL_FLOAT, {1, 2, 3, 4, 5, 6}, &out, &err));
  EXPECT_FALSE(formatStorageShape(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, {1, 1, 1, 1, 1, 1, 2}, &out, &err));
  EXPECT_FALSE(formatStorageShape(ACL_FORMAT_NCHW, ACL_FLOAT, {1, 2, 3, 4, 5}, &out, &err));
  EXPECT_FALSE(formatStorageShape(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {1, -2, 3, 4}, &out, &err));
  EXPECT_NE(err.find("negative"), std::string::npos) << err;
  EXPECT_FALSE(formatStorageShape(static_cast<aclFormat>(77), ACL_FLOAT, {1}, &out, &err));
  EXPECT_NE(err.find("unknown format 77"), std::string::npos) << err;
  EXPECT_NE(err.find("NC1HWC0(3)"), std::string::npos) << err;
  EXPECT_NE(err.find("FRACTAL_Z_3D(33)"), std::string::npos) << err;
}

// Closed forms of docs/simulator.md §2, written independently of the registry.
TEST(Format, ClosedFormOffsetsMatchTheSpec) {
  {  // NC1HWC0
    const Shape s{2, 33, 3, 2};
    const int64_t C1 = 3, H = 3, W = 2;
    for (const Shape& i : allIndices(s))
      ASSERT_EQ(off(ACL_FORMAT_NC1HWC0, ACL_FLOAT, s, i),
                (((i[0] * C1 + i[1] / 16) * H + i[2]) * W + i[3]) * 16 + i[1] % 16);
  }
  {  // FRACTAL_Z
    const Shape s{35, 19, 2, 3};
    const int64_t N1 = 3, H = 2, W = 3;
    for (const Shape& i : allIndices(s))
      ASSERT_EQ(off(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT16, s, i),
                (((i[1] / 16) * H * W + i[2] * W + i[3]) * N1 + i[0] / 16) * 256 + (i[0] % 16) * 16 + i[1] % 16);
  }
  for (aclDataType dt : {ACL_FLOAT16, ACL_INT8}) {  // FRACTAL_NZ
    const Shape s{3, 2, 37, 41};
    const int64_t C0 = dt == ACL_INT8 ? 32 : 16, M1 = 3, N1 = ceilDiv(41, C0);
    for (const Shape& i : allIndices(s)) {
      const int64_t b = i[0] * 2 + i[1];
      ASSERT_EQ(off(ACL_FORMAT_FRACTAL_NZ, dt, s, i),
                b * (N1 * M1 * 16 * C0) + (i[3] / C0) * (M1 * 16 * C0) + i[2] * C0 + i[3] % C0);
    }
  }
  {  // NHWC
    const Shape s{2, 3, 4, 5};
    for (const Shape& i : allIndices(s))
      ASSERT_EQ(off(ACL_FORMAT_NHWC, ACL_FLOAT, s, i), ((i[0] * 4 + i[2]) * 5 + i[3]) * 3 + i[1]);
  }
  {  // NDC1HWC0: [N, D, C1, H, W, 16] and FRACTAL_Z_3D: [D*C1*H*W, N1, 16, 16]
    const Shape s{17, 18, 2, 3, 2};
    const int64_t D = 2, C1 = 2, H = 3, W = 2, N1 = 2;
    for (const Shape& i : allIndices(s)) {
      ASSERT_EQ(off(ACL_FORMAT_NDC1HWC0, ACL_FLOAT, s, i),
                ((((i[0] * D + i[2]) * C1 + i[1] / 16) * H + i[3]) * W + i[4]) * 16 + i[1] % 16);
      const int64_t row = ((i[2] * C1 + i[1] / 16) * H + i[3]) * W + i[4];
      ASSERT_EQ(off(ACL_FRACTAL_Z_3D, ACL_FLOAT, s, i), (row * N1 + i[0] / 16) * 256 + (i[0] % 16) * 16 + i[1] % 16);
    }
  }
}

// Every format maps the logical elements one-to-one into its storage.
TEST(Format, OffsetsAreInjectiveAndInBounds) {
  const std::vector<Shape> shapes = {{}, {7}, {5, 19}, {3, 17, 2}, {2, 33, 3, 2}, {18, 5, 2, 3, 2}, {2, 2, 3, 17, 33}};
  for (const FormatInfo& fi : allFormats())
    for (aclDataType dt : {ACL_FLOAT, ACL_INT8})
      for (const Shape& s : shapes) {
        Shape st;
        std::string err;
        if (!formatStorageShape(fi.format, dt, s, &st, &err)) continue;
        std::set<int64_t> seen;
        for (const Shape& i : allIndices(s)) {
          const int64_t o = formatElementOffset(fi.format, dt, s, i.data());
          ASSERT_GE(o, 0) << fi.name;
          ASSERT_LT(o, numelOf(st)) << fi.name << " " << shapeToString(s);
          seen.insert(o);
        }
        EXPECT_EQ(static_cast<int64_t>(seen.size()), numelOf(s)) << fi.name << " " << shapeToString(s);
        if (!fi.padded) { EXPECT_EQ(numelOf(st), numelOf(s)) << fi.name; }
      }
}

// StorageMap's per-dim tables reproduce the closed form (the layouts are separable).
TEST(Format, StorageMapMatchesClosedForm) {
  std::mt19937 rng(7);
  for (const FormatInfo& fi : allFormats())
    for (aclDataType dt : {ACL_FLOAT16, ACL_INT8, ACL_INT64})
      for (int rank = 0; rank <= 6; ++rank)
        for (int trial = 0; trial < 4; ++trial) {
          Shape s(static_cast<size_t>(rank));
          for (auto& d : s) d = 1 + static_cast<int64_t>(rng() % 40);
          StorageMap m;
          std::string err;
          if (!makeStorageMap(fi.format, dt, s, &m, &err)) continue;
          for (int k = 0; k < 50; ++k) {
            Shape i(s.size());
            for (size_t d = 0; d < s.size(); ++d) i[d] = static_cast<int64_t>(rng() % static_cast<uint32_t>(s[d]));
            ASSERT_EQ(m.offset(i.data()), formatElementOffset(fi.format, dt, s, i.data()))
                << fi.name << " " << shapeToString(s) << " at " << shapeToString(i);
          }
        }
}

TEST(Format, LogicalShapeOfNhwcOrigin) {
  EXPECT_EQ(logicalShape(ACL_FORMAT_NHWC, {2, 4, 5, 3}), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(logicalShape(ACL_FORMAT_NCHW, {2, 4, 5, 3}), (Shape{2, 4, 5, 3}));
  EXPECT_EQ(logicalShape(ACL_FORMAT_ND, {2, 4}), (Shape{2, 4}));
}

TEST(Format, TableProperties) {
  EXPECT_EQ(allFormats().size(), 9u);
  for (aclFormat f : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D})
    EXPECT_TRUE(isPrivateFormat(f)) << f;
  for (aclFormat f : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_HWCN})
    EXPECT_FALSE(isPrivateFormat(f)) << f;
  EXPECT_EQ(findFormat(ACL_FORMAT_NHWC)->base, ACL_FORMAT_NCHW);
  EXPECT_EQ(findFormat(ACL_FORMAT_FRACTAL_NZ)->base, ACL_FORMAT_ND);
  EXPECT_EQ(findFormat(ACL_FRACTAL_Z_3D)->base, ACL_FORMAT_NCDHW);
  EXPECT_EQ(formatC0(ACL_FORMAT_FRACTAL_NZ, ACL_INT8), 32);
  EXPECT_EQ(formatC0(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT), 16);
  EXPECT_EQ(formatC0(ACL_FORMAT_NC1HWC0, ACL_INT8), 16);
}

// loadLogical*/storeLogical* (what other kernels use to read private formats).
TEST(Format, LoadAndStoreLogical) {
  const Shape logical{3, 37, 21};
  for (aclDataType dt : {ACL_FLOAT16, ACL_FLOAT, ACL_INT8}) {
    StorageMap m;
    std::string err;
    ASSERT_TRUE(makeStorageMap(ACL_FORMAT_FRACTAL_NZ, dt, logical, &m, &err)) << err;
    std::vector<uint8_t> buf(static_cast<size_t>(m.storageNumel()) * dtypeSize(dt), 0xAB);
    TensorArg t;
    t.dtype = dt;
    t.format = ACL_FORMAT_FRACTAL_NZ;
    t.shape = m.storage;
    t.origin_format = ACL_FORMAT_ND;
    t.origin_shape = logical;
    t.data = buf.data();
    t.bytes = buf.size();
    const int64_t n = m.logicalNumel();
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % 97 - 48);
    storeLogicalFloat(t, m, v.data());
    // Every element is where the closed form says; pads are zero.
    std::vector<float> raw(static_cast<size_t>(m.storageNumel()));
    loadFloat(dt, buf.data(), 0, 1, m.storageNumel(), raw.data());
    std::vector<bool> hit(raw.size(), false);
    int64_t l = 0;
    for (const Shape& i : allIndices(logical)) {
      const int64_t o = formatElementOffset(ACL_FORMAT_FRACTAL_NZ, dt, logical, i.data());
      ASSERT_EQ(raw[static_cast<size_t>(o)], v[static_cast<size_t>(l++)]);
      hit[static_cast<size_t>(o)] = true;
    }
    for (size_t k = 0; k < raw.size(); ++k)
      if (!hit[k]) { ASSERT_EQ(raw[k], 0.0f) << "pad " << k; }
    std::vector<float> back(static_cast<size_t>(n));
    loadLogicalFloat(t, m, back.data());
    EXPECT_EQ(back, v);
    std::vector<int64_t> backi(static_cast<size_t>(n));
    loadLogicalInt(t, m, backi.data());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(backi[static_cast<size_t>(i)], static_cast<int64_t>(v[static_cast<size_t>(i)]));
    storeLogicalInt(t, m, backi.data());
    loadLogicalFloat(t, m, back.data());
    EXPECT_EQ(back, v);
  }
}

// Note [NC1HWC0 rows by transposes], Note [FRACTAL_Z filters by channel blocks]: the fp32 fast
// paths put every element where the closed form says, clear the pads and read back the same
// values, for channel counts with and without a partial block and widths beyond one 16-vector.
TEST(Format, FastPathsOfConvFormatsMatchTheClosedForm) {
  // every SIMD level of the host: 16 x 16 transposes (AVX-512), 8 x 8 (AVX2), the element walk
  test::forEachHostIsa([](HostIsa) {
    struct Case {
      aclFormat format;
      Shape logical;
    };
    const Case cases[] = {{ACL_FORMAT_NC1HWC0, {2, 40, 3, 37}}, {ACL_FORMAT_NC1HWC0, {1, 16, 2, 16}},
                          {ACL_FORMAT_NC1HWC0, {3, 3, 5, 7}},    {ACL_FORMAT_NC1HWC0, {1, 20, 2, 9}},
                          {ACL_FORMAT_FRACTAL_Z, {33, 40, 3, 3}},
                          {ACL_FORMAT_FRACTAL_Z, {64, 16, 1, 1}}, {ACL_FORMAT_FRACTAL_Z, {5, 3, 7, 7}}};
    for (const Case& c : cases) {
      StorageMap m;
      std::string err;
      ASSERT_TRUE(makeStorageMap(c.format, ACL_FLOAT, c.logical, &m, &err)) << err;
      std::vector<float> storage(static_cast<size_t>(m.storageNumel()), -777.0f);
      TensorArg t;
      t.dtype = ACL_FLOAT;
      t.format = c.format;
      t.shape = m.storage;
      t.origin_format = ACL_FORMAT_NCHW;
      t.origin_shape = c.logical;
      t.data = storage.data();
      t.bytes = storage.size() * sizeof(float);
      const int64_t n = m.logicalNumel();
      std::vector<float> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i) + 0.5f;
      storeLogicalFloat(t, m, v.data());
      std::vector<bool> hit(storage.size(), false);
      int64_t l = 0;
      for (const Shape& i : allIndices(c.logical)) {
        const int64_t o = formatElementOffset(c.format, ACL_FLOAT, c.logical, i.data());
        ASSERT_EQ(storage[static_cast<size_t>(o)], v[static_cast<size_t>(l++)]) << formatToString(c.format);
        hit[static_cast<size_t>(o)] = true;
      }
      for (size_t k = 0; k < storage.size(); ++k)
        if (!hit[k]) { ASSERT_EQ(storage[k], 0.0f) << formatToString(c.format) << " pad " << k; }
      std::vector<float> back(static_cast<size_t>(n), -1.0f);
      loadLogicalFloat(t, m, back.data());
      EXPECT_EQ(back, v) << formatToString(c.format);
    }
  });
}

// ---- C API ------------------------------------------------------------------------------

TEST(FormatApi, StorageShape) {
  const int64_t origin[] = {4, 100, 50};
  int n = -1;
  int64_t dims[ACL_MAX_DIM_CNT] = {};
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT16, 3, origin, &n, dims));
  EXPECT_EQ(Shape(dims, dims + n), (Shape{4, 4, 7, 16, 16}));
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_FRACTAL_NZ, ACL_INT8, 3, origin, &n, dims));
  EXPECT_EQ(Shape(dims, dims + n), (Shape{4, 2, 7, 16, 32}));
  const int64_t w[] = {64, 3, 7, 7};
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT16, 4, w, &n, dims));
  EXPECT_EQ(Shape(dims, dims + n), (Shape{49, 4, 16, 16}));
  const int64_t c[] = {20};
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_NC1HWC0, ACL_FLOAT, 1, c, &n, dims));
  EXPECT_EQ(Shape(dims, dims + n), (Shape{1, 2, 1, 1, 16}));
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_ND, ACL_FLOAT, 0, nullptr, &n, dims));
  EXPECT_EQ(n, 0);
  const int64_t nchw[] = {2, 3, 4, 5};
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_NHWC, ACL_FLOAT, 4, nchw, &n, dims));
  EXPECT_EQ(Shape(dims, dims + n), (Shape{2, 4, 5, 3}));
  const int64_t five[] = {2, 3, 4, 5, 6};
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_NDC1HWC0, ACL_FLOAT, 5, five, &n, dims));
  EXPECT_EQ(Shape(dims, dims + n), (Shape{2, 4, 1, 5, 6, 16}));
  // FRACTAL_NZ of rank 6 -> storage rank 8 (the maximum).
  const int64_t six[] = {1, 2, 1, 2, 3, 4};
  ASSERT_ACL_OK(aclsimGetFormatStorageShape(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, 6, six, &n, dims));
  EXPECT_EQ(n, 8);
}

TEST(FormatApi, StorageShapeErrors) {
  int n = 0;
  int64_t dims[ACL_MAX_DIM_CNT] = {};
  const int64_t origin[] = {2, 3, 4, 5, 6, 7, 8};
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(static_cast<aclFormat>(77), ACL_FLOAT, 2, origin, &n, dims),
                 ACL_ERROR_INVALID_PARAM);
  std::string msg = aclGetRecentErrMsg();
  EXPECT_NE(msg.find("aclsimGetFormatStorageShape"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown format 77"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FRACTAL_NZ(29)"), std::string::npos) << msg;
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_NC1HWC0, ACL_FLOAT, 5, origin, &n, dims), ACL_ERROR_INVALID_PARAM);
  msg = aclGetRecentErrMsg();
  EXPECT_NE(msg.find("NC1HWC0 cannot hold a tensor of rank 5"), std::string::npos) << msg;
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, 7, origin, &n, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FRACTAL_Z_3D, ACL_FLOAT, 4, origin, &n, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_HWCN, ACL_FLOAT, 4, origin, &n, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_ND, ACL_FLOAT, 9, origin, &n, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_ND, ACL_FLOAT, -1, origin, &n, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_ND, ACL_FLOAT, 2, nullptr, &n, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_ND, ACL_FLOAT, 2, origin, nullptr, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_ND, ACL_FLOAT, 2, origin, &n, nullptr), ACL_ERROR_INVALID_PARAM);
  const int64_t neg[] = {2, -3};
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT, 2, neg, &n, dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclsimGetFormatStorageShape(ACL_FORMAT_FRACTAL_NZ, ACL_DT_UNDEFINED, 2, origin, &n, dims),
                 ACL_ERROR_INVALID_PARAM);
}

TEST(FormatApi, Names) {
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_NCHW), "NCHW");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_NHWC), "NHWC");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_ND), "ND");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_NC1HWC0), "NC1HWC0");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_FRACTAL_Z), "FRACTAL_Z");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_FRACTAL_NZ), "FRACTAL_NZ");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_NCDHW), "NCDHW");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FORMAT_NDC1HWC0), "NDC1HWC0");
  EXPECT_STREQ(aclsimGetFormatName(ACL_FRACTAL_Z_3D), "FRACTAL_Z_3D");
  EXPECT_EQ(aclsimGetFormatName(static_cast<aclFormat>(77)), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("unknown format 77"), std::string::npos);
  EXPECT_EQ(aclsimGetFormatName(ACL_FORMAT_UNDEFINED), nullptr);
}
