// Elementwise ops and Fill on private formats (OPS.md "Conventions",
// Note [Elementwise on private formats]): for each format, the op on
// TransData'd operands, TransData'd back to ND, equals the op on the ND
// operands bit for bit, and every output pad is exactly zero. Also the format
// rule's errors, the cost (storage bytes), speed, and the aclopExecuteV2 path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
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

// A base-format tensor with deterministic values in [lo, hi) (bools 0/1;
// `coarse` rounds to integers so comparisons see equal values).
FormatTensor baseTensor(aclDataType dt, const Shape& logical, float lo, float hi, uint32_t seed, bool coarse = false) {
  FormatTensor t(baseFor(logical.size()), dt, logical);
  std::vector<float> v = randomFloats(static_cast<size_t>(numelOf(logical)), lo, hi, seed);
  if (dt == ACL_BOOL || coarse)
    for (float& x : v) x = std::floor(x);
  if (dt == ACL_BOOL)
    for (float& x : v) x = x > 0 ? 1.0f : 0.0f;
  storeFloat(dt, t.arg.data, 0, static_cast<int64_t>(v.size()), v.data());
  return t;
}

// A 0-d host scalar.
FormatTensor hostScalar(aclDataType dt, float v) {
  FormatTensor t(ACL_FORMAT_ND, dt, {});
  storeFloat(dt, t.arg.data, 0, 1, &v);
  t.arg.placement = ACL_MEMTYPE_HOST;
  return t;
}

double storageBytes(const TensorArg& t) {
  return static_cast<double>(numelOf(t.shape)) * static_cast<double>(dtypeSize(t.dtype));
}

// Runs `op` on the base-format inputs (reference) and on their TransData to
// `f` (0-d inputs stay as they are), then compares.
void checkOp(const std::string& op, aclFormat f, const std::vector<const FormatTensor*>& base_ins, aclDataType out_dt,
             AttrMap a = {}, bool poison_inputs = false) {
  const std::string what = op + " in " + formatToString(f) + " " + shapeToString(base_ins.back()->logical());
  SCOPED_TRACE(what + (poison_inputs ? " (poisoned input pads)" : ""));
  Shape logical;
  for (const FormatTensor* t : base_ins)
    if (!t->logical().empty()) logical = t->logical();
  FormatTensor ref(baseFor(logical.size()), out_dt, logical);
  run(opCall(op, base_ins, {&ref}, a));

  std::vector<FormatTensor> priv;
  priv.reserve(base_ins.size());
  {
    std::unique_ptr<PoisonEnv> env(poison_inputs ? new PoisonEnv : nullptr);
    for (const FormatTensor* t : base_ins) priv.push_back(t->logical().empty() ? *t : transTo(*t, f));
  }
  std::vector<const FormatTensor*> pins;
  for (FormatTensor& t : priv) {
    t.arg.data = t.buf.data();  // re-point after the copy
    pins.push_back(&t);
  }
  FormatTensor out(f, out_dt, logical, 0xCD);  // garbage everywhere before the op
  const OpCall call = opCall(op, pins, {&out}, a);
  run(call);
  expectZeroPads(out, what);
  FormatTensor back = transTo(out, baseFor(logical.size()));
  const size_t bytes = static_cast<size_t>(numelOf(logical)) * dtypeSize(out_dt);
  EXPECT_EQ(std::memcmp(back.buf.data(), ref.buf.data(), bytes), 0) << what << ": results differ from ND";
  // The cost counts storage bytes, padding included.
  const KernelCost c = kernel(op).cost(call);
  double want = 0;
  bool scalar = false;
  for (const TensorArg& t : call.inputs) {
    if (t.shape.empty()) scalar = true;
    else want += storageBytes(t);
  }
  want += storageBytes(call.outputs[0]);
  if (scalar)
    EXPECT_GE(c.mte_bytes, want) << what;  // + the scalar's (broadcast) loads
  else
    EXPECT_DOUBLE_EQ(c.mte_bytes, want) << what;
}

}  // namespace

TEST(KernelFormats, BinaryOps) {
  for (aclFormat f : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NHWC}) {
    const Shape s{2, 20, 3, 5};  // C = 20: the second C1 block is mostly padding
    FormatTensor a = baseTensor(ACL_FLOAT, s, -2, 2, 1), b = baseTensor(ACL_FLOAT, s, -2, 2, 2);
    checkOp("Add", f, {&a, &b}, ACL_FLOAT);
    checkOp("Sub", f, {&a, &b}, ACL_FLOAT);
    checkOp("Maximum", f, {&a, &b}, ACL_FLOAT);
    checkOp("Axpy", f, {&a, &b}, ACL_FLOAT, attrs({{"alpha", 0.5f}}));
    // RealDiv: 0/0 = NaN in the pads of the storage walk must not survive.
    checkOp("RealDiv", f, {&a, &b}, ACL_FLOAT);
    FormatTensor h1 = baseTensor(ACL_FLOAT16, s, -2, 2, 3), h2 = baseTensor(ACL_FLOAT16, s, -2, 2, 4);
    checkOp("Mul", f, {&h1, &h2}, ACL_FLOAT16);
  }
  // Rank < 4 lifted into 5HD ([C, H] -> [1, C, H, 1]) and the 5-D formats.
  FormatTensor a2 = baseTensor(ACL_FLOAT, {19, 7}, -1, 1, 5), b2 = baseTensor(ACL_FLOAT, {19, 7}, -1, 1, 6);
  checkOp("Add", ACL_FORMAT_NC1HWC0, {&a2, &b2}, ACL_FLOAT);
  for (aclFormat f : {ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D}) {
    FormatTensor a = baseTensor(ACL_FLOAT, {17, 3, 2, 2, 3}, -1, 1, 7),
                 b = baseTensor(ACL_FLOAT, {17, 3, 2, 2, 3}, -1, 1, 8);
    checkOp("Add", f, {&a, &b}, ACL_FLOAT);
  }
}

TEST(KernelFormats, MulWithHostScalar) {
  const Shape s{3, 21, 2, 3};
  FormatTensor a = baseTensor(ACL_FLOAT, s, -3, 3, 11);
  FormatTensor k = hostScalar(ACL_FLOAT, 1.5f);
  for (aclFormat f : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NHWC}) {
    checkOp("Mul", f, {&a, &k}, ACL_FLOAT);
    checkOp("Add", f, {&k, &a}, ACL_FLOAT);  // scalar first: pads would be 1.5 before zeroing
  }
  FormatTensor m = baseTensor(ACL_FLOAT16, {2, 17, 31}, -3, 3, 12);
  FormatTensor kh = hostScalar(ACL_FLOAT16, -2.0f);
  checkOp("Mul", ACL_FORMAT_FRACTAL_NZ, {&m, &kh}, ACL_FLOAT16);
}

TEST(KernelFormats, UnaryOpsDoNotLeakIntoPads) {
  FormatTensor x = baseTensor(ACL_FLOAT, {2, 20, 3, 5}, -2, 2, 21);
  FormatTensor pos = baseTensor(ACL_FLOAT, {2, 20, 3, 5}, 0.1f, 4, 22);
  for (aclFormat f : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NHWC}) {
    checkOp("Exp", f, {&x}, ACL_FLOAT);  // Exp(0) = 1 in the pads
    checkOp("Relu", f, {&x}, ACL_FLOAT);
    checkOp("Sigmoid", f, {&x}, ACL_FLOAT);
    checkOp("Log", f, {&pos}, ACL_FLOAT);         // Log(0) = -inf
    checkOp("Reciprocal", f, {&pos}, ACL_FLOAT);  // 1/0 = inf
    checkOp("Power", f, {&x}, ACL_FLOAT, attrs({{"power", 2.0f}, {"scale", 1.0f}, {"shift", 1.0f}}));
  }
  // FRACTAL_NZ fp16 with odd M and N.
  FormatTensor h = baseTensor(ACL_FLOAT16, {3, 17, 33}, -2, 2, 23);
  checkOp("Exp", ACL_FORMAT_FRACTAL_NZ, {&h}, ACL_FLOAT16);
  checkOp("Relu", ACL_FORMAT_FRACTAL_NZ, {&h}, ACL_FLOAT16);
  checkOp("Tanh", ACL_FORMAT_FRACTAL_NZ, {&h}, ACL_FLOAT16);
  // Integers.
  FormatTensor i = baseTensor(ACL_INT32, {2, 20, 3, 5}, -50, 50, 24);
  checkOp("Neg", ACL_FORMAT_NC1HWC0, {&i}, ACL_INT32);
  checkOp("Abs", ACL_FORMAT_NC1HWC0, {&i}, ACL_INT32);
}

TEST(KernelFormats, PoisonedInputPadsDoNotMatter) {
  FormatTensor x = baseTensor(ACL_FLOAT, {2, 20, 3, 5}, -2, 2, 31), y = baseTensor(ACL_FLOAT, {2, 20, 3, 5}, -2, 2, 32);
  checkOp("Add", ACL_FORMAT_NC1HWC0, {&x, &y}, ACL_FLOAT, {}, true);
  checkOp("Exp", ACL_FORMAT_FRACTAL_Z, {&x}, ACL_FLOAT, {}, true);
  FormatTensor h = baseTensor(ACL_FLOAT16, {17, 33}, -2, 2, 33);
  checkOp("Relu", ACL_FORMAT_FRACTAL_NZ, {&h}, ACL_FLOAT16, {}, true);
  FormatTensor i = baseTensor(ACL_INT32, {2, 20, 3, 5}, -9, 9, 34);
  checkOp("Square", ACL_FORMAT_NC1HWC0, {&i}, ACL_INT32, {}, true);
}

TEST(KernelFormats, ActivationGradients) {
  const Shape s{2, 20, 3, 5};
  FormatTensor g = baseTensor(ACL_FLOAT, s, -2, 2, 41), feat = baseTensor(ACL_FLOAT, s, -2, 2, 42);
  FormatTensor y = baseTensor(ACL_FLOAT, s, 0, 1, 43);
  for (aclFormat f : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NHWC}) {
    checkOp("ReluGrad", f, {&g, &feat}, ACL_FLOAT);
    checkOp("ThresholdGradV2D", f, {&g, &feat}, ACL_FLOAT, attrs({{"threshold", -0.5f}}));  // pads: 0 > -0.5
    checkOp("SigmoidGrad", f, {&y, &g}, ACL_FLOAT);
    checkOp("TanhGrad", f, {&y, &g}, ACL_FLOAT);
  }
  FormatTensor gh = baseTensor(ACL_FLOAT16, {5, 17, 33}, -2, 2, 44),
               fh = baseTensor(ACL_FLOAT16, {5, 17, 33}, -2, 2, 45);
  checkOp("ReluGrad", ACL_FORMAT_FRACTAL_NZ, {&gh, &fh}, ACL_FLOAT16);
}

TEST(KernelFormats, SelectComparisonsLogicalAndCast) {
  const Shape s{2, 20, 3, 5};
  FormatTensor cond = baseTensor(ACL_BOOL, s, -1, 1, 51);
  FormatTensor a = baseTensor(ACL_FLOAT, s, -3, 3, 52, true), b = baseTensor(ACL_FLOAT, s, -3, 3, 53, true);
  FormatTensor p = baseTensor(ACL_BOOL, s, -1, 1, 54);
  for (aclFormat f : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NHWC}) {
    checkOp("SelectV2", f, {&cond, &a, &b}, ACL_FLOAT);
    checkOp("Equal", f, {&a, &b}, ACL_BOOL);
    checkOp("LessEqual", f, {&a, &b}, ACL_BOOL);  // 0 <= 0 is true in the pads
    checkOp("LogicalOr", f, {&cond, &p}, ACL_BOOL);
    checkOp("LogicalNot", f, {&cond}, ACL_BOOL);  // !0 is true in the pads
    checkOp("Cast", f, {&a}, ACL_FLOAT16);
    checkOp("Cast", f, {&a}, ACL_INT32);
  }
  // FRACTAL_NZ: fp32 -> fp16 keeps C0 = 16 (storage walk) ...
  FormatTensor m = baseTensor(ACL_FLOAT, {3, 17, 33}, -3, 3, 55, true),
               n = baseTensor(ACL_FLOAT, {3, 17, 33}, -3, 3, 56, true);
  checkOp("Cast", ACL_FORMAT_FRACTAL_NZ, {&m}, ACL_FLOAT16);
  // ... while bool / int8 have C0 = 32: storage shapes differ, handled through logical order.
  checkOp("Equal", ACL_FORMAT_FRACTAL_NZ, {&m, &n}, ACL_BOOL);
  checkOp("Cast", ACL_FORMAT_FRACTAL_NZ, {&m}, ACL_INT8);
  FormatTensor c8 = baseTensor(ACL_BOOL, {3, 17, 33}, -1, 1, 57);
  checkOp("SelectV2", ACL_FORMAT_FRACTAL_NZ, {&c8, &m, &n}, ACL_FLOAT);
  FormatTensor i8 = baseTensor(ACL_INT8, {3, 17, 33}, -9, 9, 58);
  checkOp("Cast", ACL_FORMAT_FRACTAL_NZ, {&i8}, ACL_FLOAT16);
  checkOp("Abs", ACL_FORMAT_FRACTAL_NZ, {&i8}, ACL_INT8);  // int8 everywhere: C0 32, storage walk
}

TEST(KernelFormats, IntegerFloorDivDoesNotFaultOnPads) {
  const Shape s{2, 20, 3, 5};
  FormatTensor a = baseTensor(ACL_INT32, s, -50, 50, 61), b = baseTensor(ACL_INT32, s, 1, 9, 62);
  checkOp("FloorDiv", ACL_FORMAT_NC1HWC0, {&a, &b}, ACL_INT32);  // x2 pads are 0
  // A zero divisor among the logical elements is still a device fault.
  FormatTensor z(ACL_FORMAT_NCHW, ACL_INT32, s, 0);
  FormatTensor ah = transTo(a, ACL_FORMAT_NC1HWC0), zh = transTo(z, ACL_FORMAT_NC1HWC0);
  FormatTensor out(ACL_FORMAT_NC1HWC0, ACL_INT32, s);
  EXPECT_KERNEL_ERROR(opCall("FloorDiv", {&ah, &zh}, {&out}), ACL_ERROR_RT_AICORE_EXCEPTION, "division by zero");
  // In place (y aliases x1): the logical path copies the inputs before writing y.
  FormatTensor bh = transTo(b, ACL_FORMAT_NC1HWC0);
  FormatTensor ref(ACL_FORMAT_NCHW, ACL_INT32, s);
  run(opCall("FloorDiv", {&a, &b}, {&ref}));
  run(opCall("FloorDiv", {&ah, &bh}, {&ah}));
  expectZeroPads(ah, "in-place FloorDiv");
  FormatTensor back = transTo(ah, ACL_FORMAT_NCHW);
  EXPECT_EQ(std::memcmp(back.buf.data(), ref.buf.data(), static_cast<size_t>(numelOf(s)) * 4), 0);
}

TEST(KernelFormats, Fill) {
  FormatTensor v = hostScalar(ACL_FLOAT, 2.5f);
  FormatTensor vi = hostScalar(ACL_INT32, 7);
  struct Case {
    aclFormat f;
    aclDataType dt;
    Shape s;
  };
  const Case cases[] = {{ACL_FORMAT_NC1HWC0, ACL_FLOAT, {2, 20, 3, 5}},   {ACL_FORMAT_FRACTAL_Z, ACL_FLOAT16, {20, 18, 3, 3}},
                        {ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT16, {3, 17, 33}}, {ACL_FORMAT_FRACTAL_NZ, ACL_INT8, {17, 33}},
                        {ACL_FORMAT_NHWC, ACL_FLOAT, {2, 5, 3, 4}},        {ACL_FRACTAL_Z_3D, ACL_FLOAT, {17, 3, 2, 2, 3}}};
  for (const Case& c : cases) {
    for (const FormatTensor* value : {&v, &vi}) {
      FormatTensor ref(baseFor(c.s.size()), c.dt, c.s);
      run(opCall("Fill", {value}, {&ref}));
      FormatTensor out(c.f, c.dt, c.s, 0xCD);
      run(opCall("Fill", {value}, {&out}));
      expectZeroPads(out, "Fill " + formatToString(c.f));
      FormatTensor back = transTo(out, baseFor(c.s.size()));
      EXPECT_EQ(std::memcmp(back.buf.data(), ref.buf.data(), static_cast<size_t>(numelOf(c.s)) * dtypeSize(c.dt)), 0)
          << "Fill " << formatToString(c.f);
    }
  }
}

TEST(KernelFormats, FormatRuleErrors) {
  const Shape s{2, 20, 3, 5};
  FormatTensor hd(ACL_FORMAT_NC1HWC0, ACL_FLOAT, s), nchw(ACL_FORMAT_NCHW, ACL_FLOAT, s);
  FormatTensor out_hd(ACL_FORMAT_NC1HWC0, ACL_FLOAT, s), out_nchw(ACL_FORMAT_NCHW, ACL_FLOAT, s);
  // Mixed formats.
  EXPECT_KERNEL_ERROR(opCall("Add", {&hd, &nchw}, {&out_hd}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "all operands must share one format");
  EXPECT_KERNEL_ERROR(opCall("Add", {&hd, &nchw}, {&out_hd}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "input 0 is NC1HWC0 (format 3), input 1 is NCHW (format 0), output 0 is NC1HWC0 (format 3)");
  EXPECT_KERNEL_ERROR(opCall("Exp", {&hd}, {&out_nchw}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "all operands must share one format");
  EXPECT_KERNEL_ERROR(opCall("Exp", {&nchw}, {&out_hd}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "all operands must share one format");
  FormatTensor fz(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT, s);
  EXPECT_KERNEL_ERROR(opCall("Mul", {&hd, &fz}, {&out_hd}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "all operands must share one format");
  // A 1-element tensor that is not 0-d does not broadcast into a private format.
  FormatTensor one(ACL_FORMAT_ND, ACL_FLOAT, {1});
  EXPECT_KERNEL_ERROR(opCall("Mul", {&hd, &one}, {&out_hd}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "all operands must share one format");
  // Same storage shape, different origin shape (C = 20 vs C = 30: both C1 = 2).
  FormatTensor hd30(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {2, 30, 3, 5});
  EXPECT_EQ(hd30.arg.shape, hd.arg.shape);
  EXPECT_KERNEL_ERROR(opCall("Add", {&hd, &hd30}, {&out_hd}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input 1 origin shape [2,30,3,5] does not match output 0 origin shape [2,20,3,5]");
  // Broadcasting between private-format operands is not supported.
  FormatTensor hd1(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {1, 20, 3, 5});
  EXPECT_KERNEL_ERROR(opCall("Add", {&hd, &hd1}, {&out_hd}), ACL_ERROR_OP_INPUT_NOT_MATCH, "no broadcasting");
  // A storage shape that does not fit the origin shape (direct kernel calls).
  FormatTensor bad(ACL_FORMAT_NC1HWC0, ACL_FLOAT, s);
  bad.arg.shape = {2, 1, 3, 5, 16};
  EXPECT_KERNEL_ERROR(opCall("Relu", {&bad}, {&out_hd}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must have storage shape [2,2,3,5,16]");
  // Dtype rules are unchanged.
  FormatTensor hd16(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, s);
  EXPECT_KERNEL_ERROR(opCall("Add", {&hd, &hd16}, {&out_hd}), ACL_ERROR_OP_INPUT_NOT_MATCH, "float16");
  // Base formats keep working as before (row-major, broadcasting).
  FormatTensor row(ACL_FORMAT_ND, ACL_FLOAT, {5});
  run(opCall("Add", {&nchw, &row}, {&out_nchw}));
  // Fill: the value must be in a base format.
  FormatTensor vhd(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {1});
  EXPECT_KERNEL_ERROR(opCall("Fill", {&vhd}, {&out_hd}), ACL_ERROR_OP_UNSUPPORTED_FORMAT, "private format 3");
}

// ---- through aclopExecuteV2 with device buffers ---------------------------------------------

class FormatsRuntime : public DeviceTest {
 protected:
  void TearDown() override {
    DeviceTest::TearDown();
    for (aclTensorDesc* d : descs_) aclDestroyTensorDesc(d);
    for (aclDataBuffer* b : bufs_) aclDestroyDataBuffer(b);
  }
  aclTensorDesc* desc(aclDataType dt, const Shape& shape, aclFormat f, const Shape* origin = nullptr) {
    aclTensorDesc* d = aclCreateTensorDesc(dt, static_cast<int>(shape.size()), shape.data(), f);
    if (origin) {
      EXPECT_ACL_OK(aclSetTensorOriginShape(d, static_cast<int>(origin->size()), origin->data()));
      EXPECT_ACL_OK(aclSetTensorOriginFormat(d, ACL_FORMAT_NCHW));
    }
    descs_.push_back(d);
    return d;
  }
  aclDataBuffer* buf(void* p, size_t n) {
    aclDataBuffer* b = aclCreateDataBuffer(p, n);
    bufs_.push_back(b);
    return b;
  }
  std::vector<aclTensorDesc*> descs_;
  std::vector<aclDataBuffer*> bufs_;
};

TEST_F(FormatsRuntime, MulBy0dHostScalarThenExpOn5hd) {
  const Shape origin{2, 20, 3, 3}, storage{2, 2, 3, 3, 16};
  const size_t n = 2 * 20 * 3 * 3, sn = 2 * 2 * 3 * 3 * 16;
  std::vector<float> host = randomFloats(n, -1, 1, 71);
  void* a = devAlloc(n * 4);
  void* hd = devAlloc(sn * 4);
  void* hd2 = devAlloc(sn * 4);
  void* back = devAlloc(n * 4);
  ASSERT_ACL_OK(aclrtMemcpy(a, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensorDesc* nchw = desc(ACL_FLOAT, origin, ACL_FORMAT_NCHW);
  aclTensorDesc* hdd = desc(ACL_FLOAT, storage, ACL_FORMAT_NC1HWC0, &origin);
  aclTensorDesc* sc = desc(ACL_FLOAT, {}, ACL_FORMAT_ND);
  ASSERT_ACL_OK(aclSetTensorPlaceMent(sc, ACL_MEMTYPE_HOST));
  float k = 3.0f;
  aclDataBuffer* ab = buf(a, n * 4);
  aclDataBuffer* hb = buf(hd, sn * 4);
  aclDataBuffer* h2b = buf(hd2, sn * 4);
  aclDataBuffer* bb = buf(back, n * 4);
  aclDataBuffer* kb = buf(&k, 4);
  {
    aclTensorDesc* in[] = {nchw};
    aclDataBuffer* inb[] = {ab};
    aclTensorDesc* out[] = {hdd};
    aclDataBuffer* outb[] = {hb};
    ASSERT_ACL_OK(aclopExecuteV2("TransData", 1, in, inb, 1, out, outb, nullptr, nullptr));
  }
  {
    aclTensorDesc* in[] = {hdd, sc};
    aclDataBuffer* inb[] = {hb, kb};
    aclTensorDesc* out[] = {hdd};
    aclDataBuffer* outb[] = {h2b};
    ASSERT_ACL_OK(aclopExecuteV2("Mul", 2, in, inb, 1, out, outb, nullptr, nullptr));
  }
  {
    aclTensorDesc* in[] = {hdd};
    aclDataBuffer* inb[] = {h2b};
    aclTensorDesc* out[] = {hdd};
    aclDataBuffer* outb[] = {hb};
    ASSERT_ACL_OK(aclopExecuteV2("Exp", 1, in, inb, 1, out, outb, nullptr, nullptr));
  }
  {
    aclTensorDesc* in[] = {hdd};
    aclDataBuffer* inb[] = {hb};
    aclTensorDesc* out[] = {nchw};
    aclDataBuffer* outb[] = {bb};
    ASSERT_ACL_OK(aclopExecuteV2("TransData", 1, in, inb, 1, out, outb, nullptr, nullptr));
  }
  // Mixed formats are rejected at launch with the rule's message.
  {
    aclTensorDesc* in[] = {hdd, nchw};
    aclDataBuffer* inb[] = {hb, ab};
    aclTensorDesc* out[] = {hdd};
    aclDataBuffer* outb[] = {h2b};
    EXPECT_ACL_ERR(aclopExecuteV2("Add", 2, in, inb, 1, out, outb, nullptr, nullptr), ACL_ERROR_OP_UNSUPPORTED_FORMAT);
    const std::string msg = aclGetRecentErrMsg();
    EXPECT_NE(msg.find("Add: all operands must share one format"), std::string::npos) << msg;
  }
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  std::vector<float> res(n), hd_host(sn);
  ASSERT_ACL_OK(aclrtMemcpy(res.data(), n * 4, back, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  ASSERT_ACL_OK(aclrtMemcpy(hd_host.data(), sn * 4, hd, sn * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(res[i], std::exp(host[i] * 3.0f)) << i;
  // Channels 20..31 of the second C1 block are pads: zero, not Exp(0) = 1.
  for (size_t blk = 0; blk < sn / 16; ++blk) {
    const size_t c1 = (blk / 9) % 2;
    for (size_t c0 = 0; c0 < 16; ++c0)
      if (c1 * 16 + c0 >= 20) { ASSERT_EQ(hd_host[blk * 16 + c0], 0.0f) << blk << " " << c0; }
  }
}
