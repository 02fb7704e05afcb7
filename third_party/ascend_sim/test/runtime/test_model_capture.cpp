// Model capture (aclmdlRI*, Note [Model capture]): a captured stream keeps its ops instead of
// running them, a replay recomputes from what the buffers hold then, unsafe calls during a
// capture fail and invalidate it, and a replay is recorded as one launch with its kernels.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ascend_sim/acl_sim.h"
#include "kernel/kernel.h"
#include "runtime_test_util.h"
#include "sim_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

constexpr int32_t kDev = 5;

// A kernel that fails while executing, for a fault inside a replay.
void validateOk(const OpCall&) {}
void computeFault(const OpCall&) { throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, "bad element 2"); }
KernelCost costNone(const OpCall&) { return KernelCost{}; }
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ModelTestFault", &validateOk, &computeFault, &costNone});

aclError launchOn(aclrtStream s, const char* op, std::vector<const DevTensor*> ins,
                  std::vector<const DevTensor*> outs) {
  return launchOp(op, std::move(ins), std::move(outs), nullptr, s);
}

class ModelCapture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_ACL_OK(aclrtSetDevice(kDev));
    ASSERT_ACL_OK(aclrtCreateStream(&stream_));
  }
  void TearDown() override {
    aclmdlRI m = nullptr;
    aclmdlRICaptureEnd(stream_, &m);  // a test that failed mid-capture
    if (m) aclmdlRIDestroy(m);
    EXPECT_ACL_OK(aclrtDestroyStream(stream_));
    EXPECT_ACL_OK(aclrtSetDevice(0));  // the other suites expect device 0
  }
  aclrtStream stream_ = nullptr;
};

// y = (x + x) * x, captured once and replayed on new values of x.
TEST_F(ModelCapture, ReplayRecomputesFromTheBuffersCurrentValues) {
  DevTensor x(ACL_FLOAT, {2, 3}), t(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 3});
  x.setFloats({1, 2, 3, 4, 5, 6});
  y.setFloats({0, 0, 0, 0, 0, 0});
  ASSERT_ACL_OK(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  aclmdlRI during = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(stream_, &status, &during));
  EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  EXPECT_NE(during, nullptr);
  ASSERT_ACL_OK(launchOn(stream_, "Add", {&x, &x}, {&t}));
  ASSERT_ACL_OK(launchOn(stream_, "Mul", {&t, &x}, {&y}));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(stream_, &model));
  EXPECT_EQ(model, during);
  size_t count = 0;
  ASSERT_ACL_OK(aclsimModelTaskCount(model, &count));
  EXPECT_EQ(count, 2u);
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(stream_, &status, nullptr));
  EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  // Captured, not run.
  EXPECT_EQ(y.floats(), (std::vector<float>{0, 0, 0, 0, 0, 0}));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, stream_));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream_));
  EXPECT_EQ(y.floats(), (std::vector<float>{2, 8, 18, 32, 50, 72}));
  x.setFloats({-1, 0, 1, 2, 3, 10});
  ASSERT_ACL_OK(aclmdlRIExecute(model, 0));  // the synchronous form, on the default stream
  EXPECT_EQ(y.floats(), (std::vector<float>{2, 0, 2, 8, 18, 200}));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  EXPECT_ACL_ERR(aclmdlRIExecuteAsync(model, stream_), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERR(aclmdlRIDestroy(model), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(ModelCapture, DeviceCopiesAndMemsetsAreKept) {
  DevTensor a(ACL_FLOAT, {4}), b(ACL_FLOAT, {4});
  a.setFloats({1, 2, 3, 4});
  b.setFloats({0, 0, 0, 0});
  ASSERT_ACL_OK(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  void* bp = b.data();
  void* ap = a.data();
  ASSERT_ACL_OK(aclrtMemcpyAsync(bp, 16, ap, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_));
  ASSERT_ACL_OK(aclrtMemsetAsync(ap, 16, 0, 8, stream_));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(stream_, &model));
  EXPECT_EQ(a.floats(), (std::vector<float>{1, 2, 3, 4}));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, stream_));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream_));
  EXPECT_EQ(b.floats(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(a.floats(), (std::vector<float>{0, 0, 3, 4}));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
}

// Each unsafe call fails with CAPTURE_UNSUPPORTED, and the capture's end then fails too.
void expectRefusedAndInvalidated(aclrtStream s, const std::function<aclError()>& call, aclError code,
                                 const std::string& named) {
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL_ERR(call(), code);
  const std::string msg = lastAclMessage();
  EXPECT_NE(msg.find(named), std::string::npos) << msg;
  aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &status, nullptr));
  EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED) << named;
  aclmdlRI model = reinterpret_cast<aclmdlRI>(1);
  EXPECT_ACL_ERR(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(lastAclMessage().find("invalidated by"), std::string::npos) << lastAclMessage();
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &status, nullptr));
  EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
}

TEST_F(ModelCapture, UnsafeCallsFailAndInvalidateTheCapture) {
  DevTensor d(ACL_FLOAT, {4});
  void* dp = d.data();
  std::vector<float> host(4, 1.0f);
  aclrtEvent ev = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&ev));
  const aclError unsupported = ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED;
  expectRefusedAndInvalidated(
      stream_, [&] { return aclrtSynchronizeStream(stream_); }, unsupported, "aclrtSynchronizeStream");
  expectRefusedAndInvalidated(
      stream_, [&] { return aclrtSynchronizeDevice(); }, unsupported, "aclrtSynchronizeDevice");
  expectRefusedAndInvalidated(
      stream_, [&] { return aclrtMemcpy(host.data(), 16, dp, 16, ACL_MEMCPY_DEVICE_TO_HOST); }, unsupported,
      "aclrtMemcpy");
  expectRefusedAndInvalidated(
      stream_, [&] { return aclrtMemset(dp, 16, 0, 16); }, unsupported, "aclrtMemset");
  expectRefusedAndInvalidated(
      stream_, [&] { return aclrtMemcpyAsync(dp, 16, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE, stream_); },
      unsupported, "to or from host memory");
  expectRefusedAndInvalidated(
      stream_, [&] { return aclrtRecordEvent(ev, stream_); }, unsupported, "aclrtRecordEvent");
  expectRefusedAndInvalidated(
      stream_, [&] { return aclrtLaunchCallback([](void*) {}, nullptr, stream_); }, unsupported,
      "'Callback' cannot be captured");
  // The event never got a record: waiting for it later does not hang.
  EXPECT_ACL_OK(aclrtSynchronizeEvent(ev));
  EXPECT_ACL_OK(aclrtDestroyEvent(ev));
  // After an invalidated capture the stream works as before.
  DevTensor y(ACL_FLOAT, {4});
  d.setFloats({1, 2, 3, 4});
  ASSERT_ACL_OK(launchOn(stream_, "Add", {&d, &d}, {&y}));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream_));
  EXPECT_EQ(y.floats(), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(ModelCapture, RelaxedModeAllowsSynchronousCallsFromOtherWork) {
  DevTensor d(ACL_FLOAT, {4});
  ASSERT_ACL_OK(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  d.setFloats({1, 2, 3, 4});  // a synchronous copy: allowed in relaxed mode, and not captured
  EXPECT_EQ(d.floats(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_ACL_ERR(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);  // still never
  aclmdlRI model = nullptr;
  EXPECT_ACL_ERR(aclmdlRICaptureEnd(stream_, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
}

TEST_F(ModelCapture, BadCapturesAreRefused) {
  EXPECT_ACL_ERR(aclmdlRICaptureBegin(nullptr, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                 ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_NE(lastAclMessage().find("default stream"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL),
                 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_ACL_ERR(aclmdlRICaptureBegin(stream_, static_cast<aclmdlRICaptureMode>(7)), ACL_ERROR_INVALID_PARAM);
  aclmdlRI model = nullptr;
  EXPECT_ACL_ERR(aclmdlRICaptureEnd(stream_, &model), ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_NE(lastAclMessage().find("is not capturing"), std::string::npos) << lastAclMessage();
  ASSERT_ACL_OK(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL_ERR(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                 ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);
  aclmdlRI during = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(stream_, nullptr, &during));
  aclrtStream other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  EXPECT_ACL_ERR(aclmdlRIExecuteAsync(during, other), ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);  // still filling
  EXPECT_ACL_ERR(aclrtDestroyStream(stream_), ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_ACL_OK(aclrtDestroyStream(other));
  EXPECT_ACL_ERR(aclmdlRIExecuteAsync(during, stream_), ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_ACL_ERR(aclmdlRIDestroy(during), ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_ACL_OK(aclmdlRICaptureEnd(stream_, &model));
  size_t count = 1;
  ASSERT_ACL_OK(aclsimModelTaskCount(model, &count));
  EXPECT_EQ(count, 0u);  // an empty model runs as a no-op
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, stream_));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream_));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
}

// A failing kept op is the replay's fault, named with its place in the model.
TEST_F(ModelCapture, AFaultInAReplayNamesTheKeptTask) {
  DevTensor a(ACL_FLOAT, {4}), b(ACL_FLOAT, {4});
  ASSERT_ACL_OK(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(launchOn(stream_, "Add", {&a, &a}, {&b}));
  ASSERT_ACL_OK(launchOn(stream_, "ModelTestFault", {}, {}));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(stream_, &model));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, stream_));
  EXPECT_ACL_ERR(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_AICORE_EXCEPTION);
  const std::string msg = lastAclMessage();
  EXPECT_NE(msg.find("'ModelExecute' failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("task 1 of the model ('ModelTestFault'): bad element 2"), std::string::npos) << msg;
  EXPECT_ACL_OK(aclrtSynchronizeStream(stream_));  // reported once; the stream goes on
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
}

// The replay is one task on the stream: a zero-length launch marker, then its kernels with their time.
TEST_F(ModelCapture, AReplayIsRecordedAsALaunchWithItsKernels) {
  ASSERT_ACL_OK(aclsimSetProfiling(kDev, 1));
  ASSERT_ACL_OK(aclsimClearTaskRecords(kDev));
  DevTensor x(ACL_FLOAT16, {64, 64}), y(ACL_FLOAT16, {64, 64}), z(ACL_FLOAT16, {64, 64});
  x.setFloats(simRandom(64 * 64, -1, 1, 3));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(stream_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(launchOn(stream_, "MatMul", {&x, &x}, {&y}));
  ASSERT_ACL_OK(launchOn(stream_, "Relu", {&y}, {&z}));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(stream_, &model));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclsimClearTaskRecords(kDev));
  for (int i = 0; i < 2; ++i) ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, stream_));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream_));
  size_t n = 0;
  ASSERT_ACL_OK(aclsimGetTaskRecordCount(kDev, &n));
  std::vector<aclsimTaskRecord> rs(n);
  ASSERT_ACL_OK(aclsimGetTaskRecords(kDev, 0, rs.data(), &n));
  ASSERT_EQ(n, 6u);  // per replay: MatMul, Relu, then ModelExecute (recorded when it ends)
  for (int i = 0; i < 2; ++i) {
    const aclsimTaskRecord& mm = rs[3 * i];
    const aclsimTaskRecord& relu = rs[3 * i + 1];
    const aclsimTaskRecord& launch = rs[3 * i + 2];
    EXPECT_EQ(std::string(mm.op_type), "MatMul");
    EXPECT_EQ(mm.core_type, ACL_CORE_CUBE);
    EXPECT_EQ(std::string(relu.op_type), "Relu");
    EXPECT_EQ(std::string(launch.op_type), "ModelExecute");
    EXPECT_GT(mm.duration_us, 0);
    EXPECT_DOUBLE_EQ(mm.start_us, launch.start_us);
    EXPECT_DOUBLE_EQ(relu.start_us, mm.start_us + mm.duration_us);
    EXPECT_DOUBLE_EQ(launch.duration_us, 0.0);
  }
  EXPECT_DOUBLE_EQ(rs[3].start_us, rs[1].start_us + rs[1].duration_us);  // the second replay follows the first
  ASSERT_ACL_OK(aclsimSetProfiling(kDev, 0));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
