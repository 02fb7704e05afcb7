// Per-task records (aclsimSetProfiling / aclsimGetTaskRecords) and
// aclGetDeviceCapability.
#include <algorithm>
#include <chrono>
#include <thread>
#include <string>
#include <vector>

#include "ascend_sim/acl_sim.h"
#include "cost/cost_model.h"
#include "chip/chip_config.h"
#include "runtime/utilization.h"
#include "sim_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

constexpr int32_t kDev = 6;

std::vector<aclsimTaskRecord> allRecords(int32_t dev) {
  size_t n = 0;
  EXPECT_ACL_OK(aclsimGetTaskRecordCount(dev, &n));
  std::vector<aclsimTaskRecord> r(n);
  size_t got = n;
  EXPECT_ACL_OK(aclsimGetTaskRecords(dev, 0, r.data(), &got));
  EXPECT_EQ(got, n);
  return r;
}

const aclsimTaskRecord* find(const std::vector<aclsimTaskRecord>& rs, const char* op) {
  for (const auto& r : rs)
    if (std::string(r.op_type) == op) return &r;
  return nullptr;
}

TEST(Profiling, RecordsCarryOpCoreRatiosBytesFlopsAndBlockDim) {
  ASSERT_ACL_OK(aclrtResetDevice(kDev));
  ASSERT_ACL_OK(aclrtSetDevice(kDev));
  ASSERT_ACL_OK(aclsimSetProfiling(kDev, 1));
  const ChipConfig chip = ChipConfig::preset(aclrtGetSocName());
  {
    const int64_t m = 256, n = 128, k = 64;
    DevTensor a(ACL_FLOAT16, {m, k}), b(ACL_FLOAT16, {k, n}), y(ACL_FLOAT16, {m, n});
    a.setFloats(simRandom(m * k, -1, 1, 1));
    b.setFloats(simRandom(k * n, -1, 1, 2));
    DevTensor x(ACL_FLOAT16, {4, 100, 50}), x2(ACL_FLOAT16, {4, 100, 50}), z(ACL_FLOAT16, {4, 100, 50});
    ASSERT_ACL_OK(launchOp("MatMul", {&a, &b}, {&y}));
    ASSERT_ACL_OK(launchOp("Add", {&x, &x2}, {&z}));
    ASSERT_ACL_OK(aclrtSynchronizeDevice());
    auto rs = allRecords(kDev);
    const aclsimTaskRecord* mm = find(rs, "MatMul");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->core_type, ACL_CORE_CUBE);
    EXPECT_EQ(std::string(mm->shapes), "[256,64]:FLOAT16:ND;[64,128]:FLOAT16:ND->[256,128]:FLOAT16:ND");
    EXPECT_EQ(mm->stream_id, 0);
    EXPECT_EQ(mm->flops, 2.0 * m * n * k);
    EXPECT_EQ(mm->bytes, 2.0 * (m * k + k * n + m * n));
    // 16 bands of 16 rows: 910B2 (24 cores) one band per core; 910A (32 cores)
    // cuts every band into 2 column groups.
    EXPECT_EQ(mm->block_dim, chip.cube_cores >= 32 ? 32u : 16u);
    EXPECT_DOUBLE_EQ(std::max({mm->cube_ratio, mm->vector_ratio, mm->mte_ratio}), 1.0);
    EXPECT_EQ(mm->vector_ratio, 0.0);
    KernelCost kc;
    kc.cube_macs = 256.0 * 128 * 64;
    kc.mte_bytes = mm->bytes;
    kc.block_dim = mm->block_dim;
    const CostModel cm(chip);
    EXPECT_NEAR(mm->duration_us, cm.opUs(kc), 1e-9);
    EXPECT_NEAR(mm->cube_ratio, cm.cubeUs(kc) / std::max(cm.cubeUs(kc), cm.mteUs(kc)), 1e-12);
    const aclsimTaskRecord* add = find(rs, "Add");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->core_type, ACL_CORE_VECTOR);
    EXPECT_EQ(add->bytes, 3 * 20000 * 2.0);
    EXPECT_EQ(add->block_dim, std::min<uint32_t>(20, chip.vector_cores));  // 20 chunks of 1024
    EXPECT_GT(add->vector_ratio, 0.0);
    EXPECT_DOUBLE_EQ(add->mte_ratio, 1.0);  // memory-bound
    EXPECT_GE(add->start_us, mm->start_us + mm->duration_us);
    // Copies run on the DMA engine.
    const aclsimTaskRecord* h2d = find(rs, "MemcpyH2D");
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->core_type, ACL_CORE_DMA);
    EXPECT_EQ(h2d->bytes, 2.0 * m * k);
  }
  // Partial reads are clamped; clearing empties; disabling keeps records.
  size_t n = 0;
  ASSERT_ACL_OK(aclsimGetTaskRecordCount(kDev, &n));
  ASSERT_GE(n, 3u);
  std::vector<aclsimTaskRecord> tail(10);
  size_t want = 10;
  ASSERT_ACL_OK(aclsimGetTaskRecords(kDev, n - 2, tail.data(), &want));
  EXPECT_EQ(want, 2u);
  want = 10;
  ASSERT_ACL_OK(aclsimGetTaskRecords(kDev, n + 5, tail.data(), &want));
  EXPECT_EQ(want, 0u);
  want = 1;
  EXPECT_ACL_ERR(aclsimGetTaskRecords(kDev, 0, nullptr, &want), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclsimSetProfiling(kDev, 0));
  DevTensor t(ACL_FLOAT, {4});
  t.setFloats({1, 2, 3, 4});
  size_t after = 0;
  ASSERT_ACL_OK(aclsimGetTaskRecordCount(kDev, &after));
  EXPECT_EQ(after, n);  // nothing recorded while disabled, nothing lost
  ASSERT_ACL_OK(aclsimClearTaskRecords(kDev));
  ASSERT_ACL_OK(aclsimGetTaskRecordCount(kDev, &after));
  EXPECT_EQ(after, 0u);
  EXPECT_ACL_ERR(aclsimGetTaskRecordCount(999, &after), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERR(aclsimGetTaskRecordCount(kDev, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtResetDevice(kDev));
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

// Note [Host tags]: the submitting thread's tag reaches the records of the
// tasks it submits (ops and copies), and only those.
TEST(Profiling, RecordsCarryTheSubmittingThreadsHostTag) {
  ASSERT_ACL_OK(aclrtResetDevice(kDev));
  ASSERT_ACL_OK(aclrtSetDevice(kDev));
  ASSERT_ACL_OK(aclsimSetProfiling(kDev, 1));
  DevTensor x(ACL_FLOAT, {64}), y(ACL_FLOAT, {64}), z(ACL_FLOAT, {64});
  ASSERT_ACL_OK(aclsimSetTaskTag(7, 1.5e15, 41));
  ASSERT_ACL_OK(launchOp("Add", {&x, &y}, {&z}));
  std::thread other([&] {  // another thread's tag is its own (none here)
    ASSERT_ACL_OK(aclrtSetDevice(kDev));
    ASSERT_ACL_OK(launchOp("Mul", {&x, &y}, {&z}));
    ASSERT_ACL_OK(aclrtSynchronizeDevice());
  });
  other.join();
  ASSERT_ACL_OK(aclsimSetTaskTag(8, 2.5e15, 42));
  z.setFloats(std::vector<float>(64, 1.0f));  // a copy
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  const auto rs = allRecords(kDev);
  const aclsimTaskRecord* add = find(rs, "Add");
  const aclsimTaskRecord* mul = find(rs, "Mul");
  const aclsimTaskRecord* h2d = find(rs, "MemcpyH2D");
  ASSERT_TRUE(add && mul && h2d);
  EXPECT_EQ(add->host_thread_id, 7u);
  EXPECT_EQ(add->host_launch_us, 1.5e15);
  EXPECT_EQ(add->host_launch_id, 41u);
  EXPECT_EQ(mul->host_launch_id, 0u);
  EXPECT_EQ(mul->host_thread_id, 0u);
  EXPECT_EQ(rs.back().host_thread_id, 8u);  // the last copy
  EXPECT_EQ(rs.back().host_launch_us, 2.5e15);
  EXPECT_EQ(rs.back().host_launch_id, 42u);
  ASSERT_ACL_OK(aclsimSetTaskTag(0, 0, 0));
  ASSERT_ACL_OK(aclsimSetProfiling(kDev, 0));
  ASSERT_ACL_OK(aclsimClearTaskRecords(kDev));
  ASSERT_ACL_OK(aclrtResetDevice(kDev));
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

// Note [Device utilization]: busy wall time of the workers over the window
// since the previous query, split by unit.
TEST(Profiling, UtilizationIsTheBusyShareOfTheWindow) {
  constexpr int32_t dev = 5;
  ASSERT_ACL_OK(aclrtSetDevice(dev));
  aclrtUtilizationInfo info{};
  ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(dev, &info));  // starts a window
  {
    const int64_t m = 384;
    DevTensor a(ACL_FLOAT, {m, m}), b(ACL_FLOAT, {m, m}), y(ACL_FLOAT, {m, m});
    a.setFloats(simRandom(m * m, -1, 1, 1));
    b.setFloats(simRandom(m * m, -1, 1, 2));
    ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(dev, &info));  // window: only the matmuls below
    for (int i = 0; i < 20; ++i) ASSERT_ACL_OK(launchOp("MatMul", {&a, &b}, {&y}));
    ASSERT_ACL_OK(aclrtSynchronizeDevice());
    ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(dev, &info));
  }
  // The matmuls kept the worker busy for part of the window: Cube work, no AI CPU.
  EXPECT_GT(info.cubeUtilization, 0);
  EXPECT_LE(info.cubeUtilization, 100);
  EXPECT_EQ(info.aicpuUtilization, 0);
  EXPECT_EQ(info.utilizationExtend, nullptr);
  // An idle window reads 0.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(dev, &info));
  EXPECT_EQ(info.cubeUtilization, 0);
  EXPECT_EQ(info.vectorUtilization, 0);
  EXPECT_ACL_ERR(aclrtGetDeviceUtilizationRate(dev, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtGetDeviceUtilizationRate(999, &info), ACL_ERROR_RT_INVALID_DEVICEID);
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

TEST(Profiling, UtilizationSplitsBusyTimeByUnit) {
  const auto t0 = UtilizationMeter::Clock::now();
  UtilizationMeter meter(t0);
  TaskDetail cube_op;
  cube_op.core = ACL_CORE_CUBE;
  cube_op.cube_ratio = 1.0;
  cube_op.vector_ratio = 0.25;
  cube_op.mte_ratio = 0.5;
  TaskDetail aicpu_op;
  aicpu_op.core = ACL_CORE_AI_CPU;
  meter.addTask(TaskKind::kOp, &cube_op, 0.5);
  meter.addTask(TaskKind::kOp, &aicpu_op, 0.1);
  meter.addTask(TaskKind::kMemcpy, nullptr, 0.05);
  meter.addTask(TaskKind::kEventRecord, nullptr, 0.3);  // not device work
  const aclrtUtilizationInfo a = meter.takeWindowAt(t0 + std::chrono::seconds(1));
  EXPECT_EQ(a.cubeUtilization, 50);
  EXPECT_EQ(a.vectorUtilization, 13);  // 12.5 % rounded
  EXPECT_EQ(a.aicpuUtilization, 10);
  EXPECT_EQ(a.memoryUtilization, 30);  // 25 % of the op + 5 % copy
  // The next window starts empty; concurrent streams are capped at 100 %.
  meter.addTask(TaskKind::kOp, &cube_op, 3.0);
  const aclrtUtilizationInfo b = meter.takeWindowAt(t0 + std::chrono::seconds(2));
  EXPECT_EQ(b.cubeUtilization, 100);
  EXPECT_EQ(b.vectorUtilization, 75);
  EXPECT_EQ(meter.takeWindowAt(t0 + std::chrono::seconds(3)).cubeUtilization, 0);
}

TEST(Profiling, DeviceCapabilityFromPreset) {
  const ChipConfig chip = ChipConfig::preset(aclrtGetSocName());
  int64_t v = 0;
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &v));
  EXPECT_EQ(v, chip.cube_cores);
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &v));
  EXPECT_EQ(v, chip.vector_cores);
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &v));
  EXPECT_EQ(v, static_cast<int64_t>(chip.l2_bytes));
  EXPECT_ACL_ERR(aclGetDeviceCapability(0, static_cast<aclDeviceInfo>(9), &v), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclGetDeviceCapability(4096, ACL_DEVICE_INFO_L2_SIZE, &v), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERR(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(ChipConfig::preset("Ascend910A").l2_bytes, size_t(32) << 20);
  EXPECT_EQ(ChipConfig::preset("Ascend910B2").l2_bytes, size_t(192) << 20);
}

TEST(Profiling, CostModelUsesTheBlockDim) {
  const CostModel b2(ChipConfig::preset("Ascend910B2"));
  KernelCost mm;
  mm.cube_macs = 4096.0 * 4096.0 * 4096.0;
  mm.block_dim = 24;
  EXPECT_NEAR(b2.cubeUs(mm), 388.0, 0.01 * 388.0);
  mm.block_dim = 12;  // half the cores: twice the time
  EXPECT_NEAR(b2.cubeUs(mm), 2 * 388.0, 0.02 * 388.0);
  KernelCost add;
  add.vector_repeats = 3 * 64.0 * 1024 * 1024 * 2 / 256;
  add.mte_bytes = 3 * 64.0 * 1024 * 1024 * 2;
  add.block_dim = 48;
  EXPECT_NEAR(b2.opUs(add) - CostModel::kLaunchUs, 252.0, 0.01 * 252.0);
  EXPECT_GT(b2.mteUs(add), b2.vectorUs(add));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
