// TransData: exact permutations between every pair of formats for every dtype,
// zero / poison pads, validation, cost, speed, and the private-format
// descriptor checks of aclopExecuteV2.
#include <gtest/gtest.h>

#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "format/format_registry.h"
#include "format_test_util.h"
#include "kernel_test_util.h"
#include "runtime_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

// Random bits in every byte of a row-major base tensor.
void fillRandom(FormatTensor& t, uint32_t seed) {
  std::mt19937 rng(seed);
  for (size_t i = 0; i < t.byteCount(); ++i) t.buf[i] = static_cast<uint8_t>(rng());
  if (t.arg.dtype == ACL_BOOL)
    for (size_t i = 0; i < t.byteCount(); ++i) t.buf[i] &= 1;
}

const std::vector<aclDataType> kAllDtypes = {ACL_FLOAT,  ACL_FLOAT16, ACL_BF16,  ACL_INT8,
                                             ACL_UINT8,  ACL_INT32,   ACL_INT64, ACL_BOOL};

bool holds(aclFormat f, aclDataType dt, const Shape& s) {
  Shape st;
  std::string err;
  return formatStorageShape(f, dt, s, &st, &err);
}

// Checks dst against the closed form: every logical element of the row-major
// `base` buffer is at its offset, every other storage element equals `pad`.
void expectLayout(const FormatTensor& base, const FormatTensor& dst, const std::vector<uint8_t>& pad) {
  const size_t size = dtypeSize(dst.arg.dtype);
  const std::vector<int64_t> offsets = storageOffsets(dst);
  std::vector<bool> hit(static_cast<size_t>(numelOf(dst.arg.shape)), false);
  for (size_t l = 0; l < offsets.size(); ++l) {
    const size_t o = static_cast<size_t>(offsets[l]);
    ASSERT_EQ(std::memcmp(&dst.buf[o * size], &base.buf[l * size], size), 0)
        << formatToString(dst.arg.format) << " " << shapeToString(base.arg.origin_shape) << " element " << l;
    hit[o] = true;
  }
  for (size_t k = 0; k < hit.size(); ++k) {
    if (hit[k]) continue;
    ASSERT_EQ(std::memcmp(&dst.buf[k * size], pad.data(), size), 0) << formatToString(dst.arg.format) << " pad " << k;
  }
}

}  // namespace

// base -> F -> base is bit-exact for every format and dtype, random shapes;
// the F layout matches the closed form and its pads are zero.
TEST(TransData, RoundTripEveryFormatAndDtype) {
  std::mt19937 rng(1234);
  int checked = 0;
  for (const FormatInfo& fi : allFormats())
    for (aclDataType dt : kAllDtypes)
      for (int rank = 0; rank <= 5; ++rank)
        for (int trial = 0; trial < 2; ++trial) {
          Shape s(static_cast<size_t>(rank));
          for (auto& d : s) d = 1 + static_cast<int64_t>(rng() % (rank >= 4 ? 7 : 40));
          if (rank >= 2 && trial == 1) s[1] = 17 + static_cast<int64_t>(rng() % 20);  // C beyond one block
          if (!holds(fi.format, dt, s)) continue;
          FormatTensor base(baseFor(s.size()), dt, s);
          fillRandom(base, static_cast<uint32_t>(rng()));
          FormatTensor mid = transTo(base, fi.format);
          expectLayout(base, mid, std::vector<uint8_t>(dtypeSize(dt), 0));
          FormatTensor back = transTo(mid, base.arg.format);
          ASSERT_EQ(back.buf, base.buf) << fi.name << " " << dtypeName(dt) << " " << shapeToString(s);
          ++checked;
        }
  EXPECT_GT(checked, 200);
}

// Every ordered pair of formats holding the shape: A -> B equals base -> B.
TEST(TransData, EveryPairGoesThroughTheBaseLayout) {
  for (const Shape& s : {Shape{3, 37, 5, 18}, Shape{18, 20, 2, 3, 17}, Shape{37, 33}})
    for (aclDataType dt : {ACL_FLOAT16, ACL_INT8, ACL_INT64}) {
      FormatTensor base(baseFor(s.size()), dt, s);
      fillRandom(base, 99);
      for (const FormatInfo& a : allFormats()) {
        if (!holds(a.format, dt, s)) continue;
        FormatTensor in = transTo(base, a.format);
        for (const FormatInfo& b : allFormats()) {
          if (!holds(b.format, dt, s)) continue;
          FormatTensor direct = transTo(base, b.format);
          FormatTensor via = transTo(in, b.format);
          ASSERT_EQ(via.buf, direct.buf) << a.name << " -> " << b.name << " " << shapeToString(s) << " "
                                         << dtypeName(dt);
        }
      }
    }
}

TEST(TransData, PrivateToPrivate5hdToNz) {
  const Shape s{2, 33, 20, 17};
  FormatTensor base(ACL_FORMAT_NCHW, ACL_FLOAT, s);
  std::vector<float> v = randomFloats(static_cast<size_t>(numelOf(s)), -4, 4, 5);
  std::memcpy(base.buf.data(), v.data(), v.size() * 4);
  FormatTensor hd = transTo(base, ACL_FORMAT_NC1HWC0);
  FormatTensor nz = transTo(hd, ACL_FORMAT_FRACTAL_NZ);
  EXPECT_EQ(nz.arg.shape, (Shape{2, 33, 2, 2, 16, 16}));
  expectLayout(base, nz, std::vector<uint8_t>(4, 0));
}

TEST(TransData, NhwcDescriptorWithDefaultOrigin) {
  // An NHWC tensor whose origin shape/format default to its storage ones.
  HostTensor nhwc(ACL_INT32, {2, 3, 4, 5});  // [N,H,W,C] = C 5
  nhwc.setFormat(ACL_FORMAT_NHWC);
  std::vector<int64_t> vals(120);
  for (int i = 0; i < 120; ++i) vals[static_cast<size_t>(i)] = i;
  storeInt(ACL_INT32, nhwc.data(), 0, 120, vals.data());
  HostTensor nchw(ACL_INT32, {2, 5, 3, 4});
  nchw.setFormat(ACL_FORMAT_NCHW);
  run(makeCall("TransData", {&nhwc}, {&nchw}));
  auto r = nchw.toInts();
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 5; ++c)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 4; ++w)
          ASSERT_EQ(r[static_cast<size_t>(((n * 5 + c) * 3 + h) * 4 + w)], ((n * 3 + h) * 4 + w) * 5 + c);
}

TEST(TransData, PadsZeroThenPoisonPerCall) {
  const Shape s{2, 3, 4, 5};
  for (aclDataType dt : kAllDtypes) {
    FormatTensor base(ACL_FORMAT_NCHW, dt, s);
    fillRandom(base, 3);
    // Pads are zero even when the output buffer held garbage.
    FormatTensor hd(ACL_FORMAT_NC1HWC0, dt, s, 0xEE);
    run(transCall(base, hd));
    expectLayout(base, hd, std::vector<uint8_t>(dtypeSize(dt), 0));
    {
      PoisonEnv on("1");
      FormatTensor p(ACL_FORMAT_NC1HWC0, dt, s, 0);
      run(transCall(base, p));
      std::vector<uint8_t> pad(dtypeSize(dt), 0x7F);
      if (dt == ACL_FLOAT) pad = {0x00, 0x00, 0xC0, 0x7F};
      if (dt == ACL_FLOAT16) pad = {0x00, 0x7E};
      if (dt == ACL_BF16) pad = {0xC0, 0x7F};
      expectLayout(base, p, pad);
      if (isFloatDtype(dt)) {
        float f = 0;
        loadFloat(dt, p.buf.data(), 3, 1, 1, &f);  // (0,3,0,0) is a pad (C = 3)
        EXPECT_TRUE(std::isnan(f)) << dtypeName(dt);
      }
      if (dt == ACL_INT32) {
        int64_t i = 0;
        loadInt(dt, p.buf.data(), 3, 1, 1, &i);
        EXPECT_EQ(i, 0x7F7F7F7F);
      }
      // The poisoned tensor still converts back exactly (pads are never read).
      FormatTensor back = transTo(p, ACL_FORMAT_NCHW);
      EXPECT_EQ(back.buf, base.buf);
    }
    {
      PoisonEnv off("0");
      FormatTensor z(ACL_FORMAT_FRACTAL_Z, dt, s, 0x55);
      run(transCall(base, z));
      expectLayout(base, z, std::vector<uint8_t>(dtypeSize(dt), 0));
    }
  }
}

TEST(TransData, ZeroSizeAndScalar) {
  for (const Shape& s : {Shape{2, 0, 4, 5}, Shape{0, 3}}) {
    FormatTensor base(baseFor(s.size()), ACL_FLOAT, s);
    FormatTensor nz = transTo(base, ACL_FORMAT_FRACTAL_NZ);
    FormatTensor back = transTo(nz, base.arg.format);
    EXPECT_EQ(back.buf, base.buf);
  }
  FormatTensor scalar(ACL_FORMAT_ND, ACL_FLOAT, {});
  const float x = 3.5f;
  std::memcpy(scalar.buf.data(), &x, 4);
  FormatTensor nz = transTo(scalar, ACL_FORMAT_FRACTAL_NZ);
  EXPECT_EQ(nz.arg.shape, Shape{});
  float y = 0;
  std::memcpy(&y, nz.buf.data(), 4);
  EXPECT_EQ(y, 3.5f);
}

TEST(TransData, ValidationErrors) {
  const Shape s{2, 3, 4, 5};
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT16, s);
  FormatTensor y(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, s);
  // Storage shape does not match the format for the origin shape.
  FormatTensor bad = y;
  bad.arg.data = bad.buf.data();
  bad.arg.shape = {2, 3, 4, 5, 16};
  EXPECT_KERNEL_ERROR(transCall(x, bad), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output dst in format NC1HWC0 with origin shape [2,3,4,5] must have storage shape "
                      "[2,1,4,5,16], but its descriptor has [2,3,4,5,16]");
  FormatTensor badin = y;
  badin.arg.data = badin.buf.data();
  badin.arg.shape = {2, 1, 4, 5};
  EXPECT_KERNEL_ERROR(transCall(badin, x), ACL_ERROR_OP_INPUT_NOT_MATCH, "input src in format NC1HWC0");
  // Origin shapes differ.
  FormatTensor other(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {2, 3, 4, 6});
  EXPECT_KERNEL_ERROR(transCall(x, other), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output dst origin shape [2,3,4,6] (NCHW) does not match input src origin shape [2,3,4,5]");
  // dtype mismatch.
  FormatTensor f32(ACL_FORMAT_NC1HWC0, ACL_FLOAT, s);
  EXPECT_KERNEL_ERROR(transCall(x, f32), ACL_ERROR_OP_INPUT_NOT_MATCH, "output dst dtype float32 does not match");
  // A rank the format cannot hold.
  FormatTensor r5(ACL_FORMAT_NCDHW, ACL_FLOAT16, {1, 2, 3, 4, 5});
  FormatTensor r5out = r5;
  r5out.arg.data = r5out.buf.data();
  r5out.arg.format = ACL_FORMAT_NC1HWC0;
  EXPECT_KERNEL_ERROR(transCall(r5, r5out), ACL_ERROR_OP_INPUT_NOT_MATCH, "NC1HWC0 cannot hold a tensor of rank 5");
  // Unknown format.
  FormatTensor unk = x;
  unk.arg.data = unk.buf.data();
  unk.arg.format = static_cast<aclFormat>(77);
  EXPECT_KERNEL_ERROR(transCall(x, unk), ACL_ERROR_OP_INPUT_NOT_MATCH, "unknown format 77");
  // Arity, unsupported dtype.
  OpCall none = transCall(x, y);
  none.inputs.clear();
  EXPECT_KERNEL_ERROR(none, ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 1 inputs, got 0");
  OpCall two = transCall(x, y);
  two.outputs.push_back(y.arg);
  EXPECT_KERNEL_ERROR(two, ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 1 outputs, got 2");
  HostTensor d(ACL_DT_UNDEFINED, {2}), d2(ACL_DT_UNDEFINED, {2});
  EXPECT_KERNEL_ERROR(makeCall("TransData", {&d}, {&d2}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input src dtype");
  // Bits of any sized dtype are moved (float64, int16, ...), pads of float64 poison to NaN.
  {
    PoisonEnv on("1");
    FormatTensor f64(ACL_FORMAT_ND, ACL_DOUBLE, {3, 5});
    fillRandom(f64, 8);
    FormatTensor nz = transTo(f64, ACL_FORMAT_FRACTAL_NZ);
    double pad = 0;
    std::memcpy(&pad, &nz.buf[5 * 8], 8);
    EXPECT_TRUE(std::isnan(pad));
    FormatTensor back = transTo(nz, ACL_FORMAT_ND);
    EXPECT_EQ(back.buf, f64.buf);
    FormatTensor i16(ACL_FORMAT_NCHW, ACL_INT16, {2, 3, 4, 5});
    fillRandom(i16, 9);
    EXPECT_EQ(transTo(transTo(i16, ACL_FORMAT_FRACTAL_Z), ACL_FORMAT_NCHW).buf, i16.buf);
  }
}

TEST(TransData, Cost) {
  FormatTensor x(ACL_FORMAT_NCHW, ACL_FLOAT16, {2, 3, 4, 5});
  FormatTensor y(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, {2, 3, 4, 5});
  KernelCost c = kernel("TransData").cost(transCall(x, y));
  EXPECT_EQ(c.core, CoreType::kVector);
  EXPECT_DOUBLE_EQ(c.mte_bytes, 1.25 * (120 * 2 + 640 * 2));
}

// ---- through aclopExecuteV2: descriptor validation of private formats ------------------------

using TransDataRuntime = DeviceTest;

TEST_F(TransDataRuntime, NchwTo5hdAndBack) {
  const int64_t origin[] = {2, 20, 3, 3};
  const int64_t storage[] = {2, 2, 3, 3, 16};
  const size_t n = 2 * 20 * 3 * 3, sn = 2 * 2 * 3 * 3 * 16;
  std::vector<float> host = randomFloats(n, -1, 1, 11);
  void* a = devAlloc(n * 4);
  void* b = devAlloc(sn * 4);
  void* c = devAlloc(n * 4);
  ASSERT_ACL_OK(aclrtMemcpy(a, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensorDesc* nchw = aclCreateTensorDesc(ACL_FLOAT, 4, origin, ACL_FORMAT_NCHW);
  aclTensorDesc* hd = aclCreateTensorDesc(ACL_FLOAT, 5, storage, ACL_FORMAT_NC1HWC0);
  ASSERT_ACL_OK(aclSetTensorOriginShape(hd, 4, origin));
  ASSERT_ACL_OK(aclSetTensorOriginFormat(hd, ACL_FORMAT_NCHW));
  aclDataBuffer* ab = aclCreateDataBuffer(a, n * 4);
  aclDataBuffer* bb = aclCreateDataBuffer(b, sn * 4);
  aclDataBuffer* cb = aclCreateDataBuffer(c, n * 4);
  aclTensorDesc* in1[] = {nchw};
  aclDataBuffer* inb1[] = {ab};
  aclTensorDesc* out1[] = {hd};
  aclDataBuffer* outb1[] = {bb};
  ASSERT_ACL_OK(aclopExecuteV2("TransData", 1, in1, inb1, 1, out1, outb1, nullptr, nullptr));
  aclDataBuffer* outb2[] = {cb};
  aclDataBuffer* inb2[] = {bb};
  ASSERT_ACL_OK(aclopExecuteV2("TransData", 1, out1, inb2, 1, in1, outb2, nullptr, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  std::vector<float> hd_host(sn), back(n);
  ASSERT_ACL_OK(aclrtMemcpy(hd_host.data(), sn * 4, b, sn * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n * 4, c, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, host);
  const Shape s{2, 20, 3, 3};
  const int64_t idx[] = {1, 17, 2, 1};
  EXPECT_EQ(hd_host[static_cast<size_t>(formatElementOffset(ACL_FORMAT_NC1HWC0, ACL_FLOAT, s, idx))],
            host[static_cast<size_t>(((1 * 20 + 17) * 3 + 2) * 3 + 1)]);
  EXPECT_EQ(hd_host[(((0 * 2 + 1) * 3 + 0) * 3 + 0) * 16 + 4], 0.0f);  // channel 20 is a pad
  aclDestroyTensorDesc(nchw);
  aclDestroyTensorDesc(hd);
  aclDestroyDataBuffer(ab);
  aclDestroyDataBuffer(bb);
  aclDestroyDataBuffer(cb);
}

TEST_F(TransDataRuntime, PrivateDescriptorsAreValidated) {
  const int64_t origin[] = {4, 100, 50};
  const int64_t wrong[] = {4, 7, 4, 16, 16};  // N1 and M1 swapped
  const int64_t right[] = {4, 4, 7, 16, 16};
  const size_t sn = 4 * 4 * 7 * 16 * 16 * 2;
  void* a = devAlloc(4 * 100 * 50 * 2);
  void* b = devAlloc(sn);
  aclTensorDesc* nd = aclCreateTensorDesc(ACL_FLOAT16, 3, origin, ACL_FORMAT_ND);
  aclTensorDesc* nz = aclCreateTensorDesc(ACL_FLOAT16, 5, wrong, ACL_FORMAT_FRACTAL_NZ);
  ASSERT_ACL_OK(aclSetTensorOriginShape(nz, 3, origin));
  aclDataBuffer* ab = aclCreateDataBuffer(a, 4 * 100 * 50 * 2);
  aclDataBuffer* bb = aclCreateDataBuffer(b, sn);
  aclTensorDesc* in[] = {nd};
  aclDataBuffer* inb[] = {ab};
  aclTensorDesc* out[] = {nz};
  aclDataBuffer* outb[] = {bb};
  EXPECT_ACL_ERR(aclopExecuteV2("TransData", 1, in, inb, 1, out, outb, nullptr, nullptr), ACL_ERROR_OP_INPUT_NOT_MATCH);
  std::string msg = aclGetRecentErrMsg();
  EXPECT_NE(msg.find("TransData: output 0 in format FRACTAL_NZ with origin shape [4,100,50] must have storage shape "
                     "[4,4,7,16,16], but its descriptor has [4,7,4,16,16]"),
            std::string::npos)
      << msg;
  // The same descriptor as an input of another op is rejected the same way.
  EXPECT_ACL_ERR(aclopExecuteV2("Relu", 1, out, outb, 1, in, inb, nullptr, nullptr), ACL_ERROR_OP_INPUT_NOT_MATCH);
  msg = aclGetRecentErrMsg();
  EXPECT_NE(msg.find("Relu: input 0 in format FRACTAL_NZ"), std::string::npos) << msg;
  // A private descriptor without an origin shape (origin defaults to the storage shape, whose
  // FRACTAL_NZ storage would be [4,4,7,1,1,16,16]) does not match either.
  aclTensorDesc* noorigin = aclCreateTensorDesc(ACL_FLOAT16, 5, right, ACL_FORMAT_FRACTAL_NZ);
  aclTensorDesc* out2[] = {noorigin};
  EXPECT_ACL_ERR(aclopExecuteV2("TransData", 1, in, inb, 1, out2, outb, nullptr, nullptr), ACL_ERROR_OP_INPUT_NOT_MATCH);
  const int64_t hd[] = {1, 1, 2, 3, 16};
  aclTensorDesc* hd_noorigin = aclCreateTensorDesc(ACL_FLOAT16, 5, hd, ACL_FORMAT_NC1HWC0);
  aclTensorDesc* out3[] = {hd_noorigin};
  EXPECT_ACL_ERR(aclopExecuteV2("TransData", 1, in, inb, 1, out3, outb, nullptr, nullptr), ACL_ERROR_OP_INPUT_NOT_MATCH);
  msg = aclGetRecentErrMsg();
  EXPECT_NE(msg.find("NC1HWC0 cannot hold a tensor of rank 5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aclSetTensorOriginShape"), std::string::npos) << msg;
  // The right storage shape is accepted.
  aclTensorDesc* good = aclCreateTensorDesc(ACL_FLOAT16, 5, right, ACL_FORMAT_FRACTAL_NZ);
  ASSERT_ACL_OK(aclSetTensorOriginShape(good, 3, origin));
  aclTensorDesc* out4[] = {good};
  EXPECT_ACL_OK(aclopExecuteV2("TransData", 1, in, inb, 1, out4, outb, nullptr, nullptr));
  // A correct private descriptor reaching an op that only takes base formats.
  EXPECT_ACL_ERR(aclopExecuteV2("Relu", 1, out4, outb, 1, in, inb, nullptr, nullptr), ACL_ERROR_OP_UNSUPPORTED_FORMAT);
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  // Base formats are not checked: a row-major NCHW descriptor of any shape still works.
  const int64_t flat[] = {20000};
  aclTensorDesc* f1 = aclCreateTensorDesc(ACL_FLOAT16, 1, flat, ACL_FORMAT_NCHW);
  aclTensorDesc* f2 = aclCreateTensorDesc(ACL_FLOAT16, 1, flat, ACL_FORMAT_NCHW);
  aclTensorDesc* fin[] = {f1};
  aclTensorDesc* fout[] = {f2};
  aclDataBuffer* fb = aclCreateDataBuffer(b, 40000);
  aclDataBuffer* fbo[] = {fb};
  EXPECT_ACL_OK(aclopExecuteV2("Relu", 1, fin, inb, 1, fout, fbo, nullptr, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  for (aclTensorDesc* d : {nd, nz, noorigin, hd_noorigin, good, f1, f2}) aclDestroyTensorDesc(d);
  aclDestroyDataBuffer(ab);
  aclDestroyDataBuffer(bb);
  aclDestroyDataBuffer(fb);
}
