// aclopExecuteV2 plumbing with a test-only kernel: descriptors, buffers,
// attributes, host inputs, validation errors, device faults and cost.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ascend_sim/acl_sim.h"
#include "cost/cost_model.h"
#include "kernel/kernel.h"
#include "chip/chip_config.h"
#include "runtime/task_recorder.h"
#include "runtime_test_util.h"

using namespace ascend_sim;

namespace {

// y = x * scale + bias; x, y float on the device, bias a 0-d float (host).
void validateScaleAdd(const OpCall& c) {
  if (c.inputs.size() != 2 || c.outputs.size() != 1)
    throw KernelError(ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 2 inputs and 1 output");
  if (c.inputs[0].dtype != ACL_FLOAT)
    throw KernelError(ACL_ERROR_OP_UNSUPPORTED_DTYPE, "x must be float32");
  if (c.inputs[0].shape != c.outputs[0].shape)
    throw KernelError(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "y shape must equal x shape");
  if (c.inputs[0].data != nullptr) throw KernelError(ACL_ERROR_RT_INTERNAL_ERROR, "data set during validate");
  c.attrs.get<float>("scale");  // required
}
void computeScaleAdd(const OpCall& c) {
  const float* x = static_cast<const float*>(c.inputs[0].data);
  const float bias = *static_cast<const float*>(c.inputs[1].data);
  float* y = static_cast<float*>(c.outputs[0].data);
  const float scale = c.attrs.get<float>("scale");
  for (int64_t i = 0; i < c.inputs[0].numel(); ++i) y[i] = x[i] * scale + bias;
}
KernelCost costScaleAdd(const OpCall& c) {
  KernelCost k;
  k.vector_bytes = 8.0 * static_cast<double>(c.inputs[0].numel());
  k.mte_bytes = k.vector_bytes;
  return k;
}
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"TestScaleAdd", &validateScaleAdd, &computeScaleAdd, &costScaleAdd});

// A kernel whose validation names the op itself.
void validateSelfNamed(const OpCall&) { throw KernelError(ACL_ERROR_OP_ATTR_NOT_MATCH, "TestSelfNamed: bad attr"); }
void computeNothing(const OpCall&) {}
KernelCost costNothing(const OpCall&) { return {}; }
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"TestSelfNamed", &validateSelfNamed, &computeNothing, &costNothing});

class OpExecute : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    const int64_t dims[] = {2, 3};
    xDesc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    yDesc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    bDesc = aclCreateTensorDesc(ACL_FLOAT, 0, nullptr, ACL_FORMAT_ND);
    ASSERT_NE(xDesc, nullptr);
    ASSERT_ACL_OK(aclSetTensorPlaceMent(bDesc, ACL_MEMTYPE_HOST));
    ASSERT_ACL_OK(aclrtMalloc(&x, 24, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&y, 24, ACL_MEM_MALLOC_HUGE_FIRST));
    const float xs[6] = {1, 2, 3, 4, 5, 6};
    ASSERT_ACL_OK(aclrtMemcpy(x, 24, xs, 24, ACL_MEMCPY_HOST_TO_DEVICE));
    xBuf = aclCreateDataBuffer(x, 24);
    yBuf = aclCreateDataBuffer(y, 24);
    bBuf = aclCreateDataBuffer(&bias, sizeof(bias));
    attr = aclopCreateAttr();
    ASSERT_ACL_OK(aclopSetAttrFloat(attr, "scale", 2.0f));
  }
  void TearDown() override {
    aclDestroyTensorDesc(xDesc);
    aclDestroyTensorDesc(yDesc);
    aclDestroyTensorDesc(bDesc);
    aclDestroyDataBuffer(xBuf);
    aclDestroyDataBuffer(yBuf);
    aclDestroyDataBuffer(bBuf);
    aclopDestroyAttr(attr);
    aclrtFree(x);
    aclrtFree(y);
  }
  aclError run(aclrtStream s = nullptr) {
    aclTensorDesc* inD[] = {xDesc, bDesc};
    aclDataBuffer* inB[] = {xBuf, bBuf};
    aclTensorDesc* outD[] = {yDesc};
    aclDataBuffer* outB[] = {yBuf};
    return aclopExecuteV2("TestScaleAdd", 2, inD, inB, 1, outD, outB, attr, s);
  }
  std::vector<float> result() {
    std::vector<float> out(6);
    EXPECT_ACL_OK(aclrtMemcpy(out.data(), 24, y, 24, ACL_MEMCPY_DEVICE_TO_HOST));
    return out;
  }

  aclTensorDesc *xDesc = nullptr, *yDesc = nullptr, *bDesc = nullptr;
  aclDataBuffer *xBuf = nullptr, *yBuf = nullptr, *bBuf = nullptr;
  aclopAttr* attr = nullptr;
  void *x = nullptr, *y = nullptr;
  float bias = 0.5f;
};

}  // namespace

TEST_F(OpExecute, RunsKernelOnStream) {
  EXPECT_EQ(aclsimIsOpRegistered("TestScaleAdd"), 1);
  EXPECT_EQ(aclsimIsOpRegistered("NoSuchOp"), 0);
  EXPECT_EQ(aclsimIsOpRegistered(nullptr), 0);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(run(s));
  bias = 100.0f;  // host inputs are copied at launch
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(result(), (std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f, 10.5f, 12.5f}));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(OpExecute, DescriptorsMayBeDestroyedRightAfterLaunch) {
  ASSERT_ACL_OK(run());
  aclopDestroyAttr(attr);
  attr = nullptr;
  aclDestroyTensorDesc(xDesc);
  xDesc = nullptr;
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_EQ(result()[0], 2.5f);
}

TEST_F(OpExecute, BuffersMayBeRepointedBetweenLaunches) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(run(s));
  // The launch copied the buffer's address: re-pointing it now does not change the queued op.
  void* other = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&other, 24, ACL_MEM_MALLOC_HUGE_FIRST));
  const float ones[6] = {1, 1, 1, 1, 1, 1};
  ASSERT_ACL_OK(aclrtMemcpy(other, 24, ones, 24, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclUpdateDataBufferAddr(xBuf, other, 24));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(result(), (std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f, 10.5f, 12.5f}));
  ASSERT_ACL_OK(run(s));  // the next launch reads the new address
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(result(), std::vector<float>(6, 2.5f));
  EXPECT_EQ(aclUpdateDataBufferAddr(nullptr, other, 24), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtFree(other));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(OpExecute, AdvancesSimulatedTimeByTheModelledCost) {
  ASSERT_ACL_OK(aclrtResetDevice(4));
  ASSERT_ACL_OK(aclrtSetDevice(4));
  setDeviceProfiling(4, true);
  void *x4 = nullptr, *y4 = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&x4, 24, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&y4, 24, ACL_MEM_MALLOC_HUGE_FIRST));
  aclDataBuffer* xb = aclCreateDataBuffer(x4, 24);
  aclDataBuffer* yb = aclCreateDataBuffer(y4, 24);
  aclTensorDesc* inD[] = {xDesc, bDesc};
  aclDataBuffer* inB[] = {xb, bBuf};
  aclTensorDesc* outD[] = {yDesc};
  aclDataBuffer* outB[] = {yb};
  double before = 0, after = 0;
  ASSERT_ACL_OK(aclsimGetDeviceSimTime(&before));
  ASSERT_ACL_OK(aclopExecuteV2("TestScaleAdd", 2, inD, inB, 1, outD, outB, attr, nullptr));
  ASSERT_ACL_OK(aclopExecuteV2("TestScaleAdd", 2, inD, inB, 1, outD, outB, attr, nullptr));
  ASSERT_ACL_OK(aclsimGetDeviceSimTime(&after));
  KernelCost k;
  k.vector_bytes = k.mte_bytes = 48;
  const double one = CostModel(ChipConfig::preset(aclrtGetSocName())).opUs(k);
  EXPECT_NEAR(after - before, 2 * one, 1e-9);
  auto records = deviceTaskRecords(4);
  ASSERT_GE(records.size(), 2u);
  const TaskRecord& last = records.back();
  EXPECT_EQ(last.name, "TestScaleAdd");
  EXPECT_EQ(last.kind, TaskKind::kOp);
  EXPECT_EQ(last.stream_id, 0);
  EXPECT_NEAR(last.duration_us, one, 1e-9);
  EXPECT_NEAR(last.start_us, after - one, 1e-9);
  // A buffer of another device is rejected.
  aclDataBuffer* inB0[] = {xBuf, bBuf};
  EXPECT_ACL_ERR(aclopExecuteV2("TestScaleAdd", 2, inD, inB0, 1, outD, outB, attr, nullptr), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_NE(lastAclMessage().find("is on device 0 but the stream runs on device 4"), std::string::npos) << lastAclMessage();
  aclDestroyDataBuffer(xb);
  aclDestroyDataBuffer(yb);
  ASSERT_ACL_OK(aclrtResetDevice(4));
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

TEST_F(OpExecute, UnknownOpType) {
  aclTensorDesc* inD[] = {xDesc};
  aclDataBuffer* inB[] = {xBuf};
  EXPECT_ACL_ERR(aclopExecuteV2("Foo", 1, inD, inB, 0, nullptr, nullptr, nullptr, nullptr), ACL_ERROR_OP_NOT_FOUND);
  EXPECT_EQ(lastAclMessage(), "aclopExecuteV2: no kernel for op type 'Foo' in the simulated NPU");
}

TEST_F(OpExecute, NullArguments) {
  aclTensorDesc* inD[] = {xDesc, nullptr};
  aclDataBuffer* inB[] = {xBuf, bBuf};
  EXPECT_ACL_ERR(aclopExecuteV2(nullptr, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
                 ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclopExecuteV2("TestScaleAdd", 2, inD, inB, 0, nullptr, nullptr, attr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(lastAclMessage().find("input 1 has a null descriptor or buffer"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclopExecuteV2("TestScaleAdd", 2, nullptr, inB, 0, nullptr, nullptr, attr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclopExecuteV2("TestScaleAdd", -1, nullptr, nullptr, 0, nullptr, nullptr, attr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclopExecuteV2("TestScaleAdd", 0, nullptr, nullptr, 0, nullptr, nullptr, attr,
                                reinterpret_cast<aclrtStream>(0x99)),
                 ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(OpExecute, ValidationErrorsCarryKernelCodeAndOpName) {
  // Missing attribute.
  aclopAttr* empty = aclopCreateAttr();
  std::swap(empty, attr);
  EXPECT_ACL_ERR(run(), ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_EQ(lastAclMessage(), "aclopExecuteV2: TestScaleAdd: missing required attribute 'scale'");
  std::swap(empty, attr);
  aclopDestroyAttr(empty);
  // Wrongly typed attribute.
  ASSERT_ACL_OK(aclopSetAttrInt(attr, "scale", 2));
  EXPECT_ACL_ERR(run(), ACL_ERROR_OP_ATTR_NOT_MATCH);
  ASSERT_ACL_OK(aclopSetAttrFloat(attr, "scale", 2.0f));
  // Kernel messages that already name the op are not prefixed twice.
  EXPECT_ACL_ERR(aclopExecuteV2("TestSelfNamed", 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
                 ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_EQ(lastAclMessage(), "aclopExecuteV2: TestSelfNamed: bad attr");
}

TEST_F(OpExecute, BadDescriptorsAndBuffers) {
  // Buffer smaller than the descriptor.
  aclDataBuffer* small = aclCreateDataBuffer(x, 20);
  std::swap(small, xBuf);
  EXPECT_ACL_ERR(run(), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_NE(lastAclMessage().find("TestScaleAdd: input 0 buffer has 20 bytes but its descriptor [2,3] needs 24 bytes"),
            std::string::npos)
      << lastAclMessage();
  std::swap(small, xBuf);
  aclDestroyDataBuffer(small);
  // A host pointer given as device memory.
  float hostx[6] = {};
  aclDataBuffer* hostBuf = aclCreateDataBuffer(hostx, 24);
  std::swap(hostBuf, xBuf);
  EXPECT_ACL_ERR(run(), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_NE(lastAclMessage().find("is not device memory"), std::string::npos) << lastAclMessage();
  std::swap(hostBuf, xBuf);
  aclDestroyDataBuffer(hostBuf);
  // A device buffer overrunning its allocation.
  aclDataBuffer* over = aclCreateDataBuffer(static_cast<char*>(x) + 8, 24);
  std::swap(over, xBuf);
  EXPECT_ACL_ERR(run(), ACL_ERROR_RT_INVALID_MEMORY);
  std::swap(over, xBuf);
  aclDestroyDataBuffer(over);
  // Kernel-level dtype check.
  const int64_t dims[] = {2, 3};
  aclTensorDesc* half = aclCreateTensorDesc(ACL_FLOAT16, 2, dims, ACL_FORMAT_ND);
  std::swap(half, xDesc);
  EXPECT_ACL_ERR(run(), ACL_ERROR_OP_UNSUPPORTED_DTYPE);
  EXPECT_EQ(lastAclMessage(), "aclopExecuteV2: TestScaleAdd: x must be float32");
  std::swap(half, xDesc);
  aclDestroyTensorDesc(half);
  // Bad descriptor construction.
  const int64_t neg[] = {2, -3};
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, 2, neg, ACL_FORMAT_ND), nullptr);
  EXPECT_NE(lastAclMessage().find("dimension 1 is negative (-3)"), std::string::npos) << lastAclMessage();
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, 2, nullptr, ACL_FORMAT_ND), nullptr);
  EXPECT_EQ(aclCreateTensorDesc(static_cast<aclDataType>(99), 1, dims, ACL_FORMAT_ND), nullptr);
  EXPECT_ACL_ERR(aclSetTensorOriginShape(nullptr, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclSetTensorPlaceMent(xDesc, static_cast<aclMemType>(5)), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclopSetAttrFloat(nullptr, "a", 1.0f), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclopSetAttrListInt(attr, "a", 2, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(OpExecute, OriginShapeAndAttributesReachTheKernel) {
  static OpCall seen;
  static auto validate = [](const OpCall& c) { seen = c; };
  KernelDef def{"TestCapture", +[](const OpCall& c) { validate(c); }, +[](const OpCall&) {},
                +[](const OpCall&) { return KernelCost{}; }};
  registerKernel(def);
  const int64_t storage[] = {1, 1, 2, 3, 16};
  const int64_t origin[] = {1, 3, 2, 3};
  aclTensorDesc* d = aclCreateTensorDesc(ACL_FLOAT16, 5, storage, ACL_FORMAT_NC1HWC0);
  ASSERT_ACL_OK(aclSetTensorOriginShape(d, 4, origin));
  ASSERT_ACL_OK(aclSetTensorOriginFormat(d, ACL_FORMAT_NCHW));
  void* buf = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&buf, 192, ACL_MEM_MALLOC_HUGE_FIRST));
  aclDataBuffer* b = aclCreateDataBuffer(buf, 192);
  aclopAttr* a = aclopCreateAttr();
  const int64_t ints[] = {1, 2};
  const float floats[] = {0.5f};
  ASSERT_ACL_OK(aclopSetAttrBool(a, "flag", 1));
  ASSERT_ACL_OK(aclopSetAttrString(a, "mode", "nearest"));
  ASSERT_ACL_OK(aclopSetAttrListInt(a, "axes", 2, ints));
  ASSERT_ACL_OK(aclopSetAttrListFloat(a, "w", 1, floats));
  ASSERT_ACL_OK(aclopSetAttrDataType(a, "dst_type", ACL_INT32));
  aclTensorDesc* inD[] = {d};
  aclDataBuffer* inB[] = {b};
  ASSERT_ACL_OK(aclopExecuteV2("TestCapture", 1, inD, inB, 0, nullptr, nullptr, a, nullptr));
  ASSERT_EQ(seen.inputs.size(), 1u);
  EXPECT_EQ(seen.inputs[0].format, ACL_FORMAT_NC1HWC0);
  EXPECT_EQ(seen.inputs[0].origin_format, ACL_FORMAT_NCHW);
  EXPECT_EQ(seen.inputs[0].origin_shape, (std::vector<int64_t>{1, 3, 2, 3}));
  EXPECT_EQ(seen.inputs[0].shape.size(), 5u);
  EXPECT_EQ(seen.inputs[0].bytes, 192u);
  EXPECT_EQ(seen.device, 0);
  EXPECT_TRUE(seen.attrs.get<bool>("flag"));
  EXPECT_EQ(seen.attrs.get<std::string>("mode"), "nearest");
  EXPECT_EQ(seen.attrs.get<std::vector<int64_t>>("axes"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(seen.attrs.get<aclDataType>("dst_type"), ACL_INT32);
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  aclopDestroyAttr(a);
  aclDestroyDataBuffer(b);
  aclDestroyTensorDesc(d);
  ASSERT_ACL_OK(aclrtFree(buf));
}
