// The α-β cost of collectives (Note [Collective cost] in
// cost/collective_cost.cpp) and what the profiler records for them.
#include <gtest/gtest.h>

#include <cmath>

#include "ascend_sim/acl_sim.h"
#include "ascend_sim/hccl_sim.h"
#include "cost/cost_model.h"
#include "hccl_test_util.h"
#include "chip/chip_config.h"
#include "runtime/task_recorder.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

constexpr double kAlphaUs = 5.0;          // 910A per-step latency within a host (assumed)
constexpr double kHccsBytesPerS = 30e9;   // 910A HCCS link
constexpr double kRoceBytesPerS = 12.5e9; // between hosts
constexpr double kRoceAlphaUs = 20.0;

double betaUs(double bytes, double rate) { return bytes / rate * 1e6; }

TEST(HcclCost, FormulasOn910A) {
  const CostModel m(ChipConfig::preset("Ascend910A"));
  const double n = 4 << 20;  // 4 MiB
  const int p = 4;
  const double share = 3.0 / 4 * n;
  const double red = m.reduceUs(share);
  EXPECT_NEAR(red, 3 * share / 1.2e12 * 1e6, 1e-9);  // HBM-bound: read two, write one
  auto cost = [&](CollectiveAlgo a, double bytes, bool hosts = false) {
    return m.collectiveUs(CollectiveCostInput{a, p, bytes, hosts});
  };
  EXPECT_NEAR(cost(CollectiveAlgo::kRingAllReduce, n), 2 * 3 * kAlphaUs + 2 * betaUs(share, kHccsBytesPerS) + red, 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kHalvingDoublingAllReduce, n),
              2 * 2 * kAlphaUs + 2 * betaUs(share, kHccsBytesPerS) + red, 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kRingAllReduce, n, true),
              2 * 3 * kRoceAlphaUs + 2 * betaUs(share, kRoceBytesPerS) + red, 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kRingAllGather, n), 3 * kAlphaUs + betaUs(share, kHccsBytesPerS), 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kRingReduceScatter, n), 3 * kAlphaUs + betaUs(share, kHccsBytesPerS) + red, 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kBinomialBroadcast, n), 2 * (kAlphaUs + betaUs(n, kHccsBytesPerS)), 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kBinomialReduce, n), 2 * (kAlphaUs + betaUs(n, kHccsBytesPerS) + m.reduceUs(n)),
              1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kPairwiseAlltoAll, n), 3 * kAlphaUs + betaUs(n, kHccsBytesPerS), 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kPointToPoint, n), kAlphaUs + betaUs(n, kHccsBytesPerS), 1e-6);
  EXPECT_NEAR(cost(CollectiveAlgo::kDisseminationBarrier, 0), 2 * kAlphaUs, 1e-9);
  EXPECT_EQ(m.collectiveUs(CollectiveCostInput{CollectiveAlgo::kRingAllReduce, 1, n, false}), 0.0);
  // 3 ranks: ⌈log2 3⌉ = 2 tree levels.
  EXPECT_NEAR(m.collectiveUs(CollectiveCostInput{CollectiveAlgo::kBinomialBroadcast, 3, n, false}),
              2 * (kAlphaUs + betaUs(n, kHccsBytesPerS)), 1e-6);
  // 910B2: faster links (assumed 56 GB/s).
  const CostModel b2(ChipConfig::preset("Ascend910B2"));
  EXPECT_NEAR(b2.collectiveUs(CollectiveCostInput{CollectiveAlgo::kPointToPoint, 2, n, false}),
              kAlphaUs + betaUs(n, 56e9), 1e-6);
}

// Collective task records of rank r's device.
std::vector<TaskRecord> collectiveRecords(int device) {
  std::vector<TaskRecord> out;
  for (const TaskRecord& t : deviceTaskRecords(device))
    if (t.kind == TaskKind::kCollective) out.push_back(t);
  return out;
}

// Runs one fp32 SUM all-reduce of `count` on 4 ranks with HCCL_ALGO = algo;
// returns rank 0's record.
TaskRecord allReduceRecord(const char* algo, uint64_t count) {
  ScopedEnv env("HCCL_ALGO", algo);
  Group g(4);
  EXPECT_TRUE(g.ok());
  TaskRecord rec{};
  runRanks(4, [&](int r) {
    setDeviceProfiling(r, true);
    ASSERT_ACL_OK(aclsimClearTaskRecords(r));
    DevBuf buf(count * 4);
    ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(r), g.stream(r)));
    ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
    auto recs = collectiveRecords(r);
    setDeviceProfiling(r, false);
    ASSERT_EQ(recs.size(), 1u);
    if (r == 0) rec = recs[0];
  });
  return rec;
}

TEST(HcclCost, TaskRecordsOfBothAllReduceAlgorithms) {
  const uint64_t count = 1 << 16;  // 256 KiB of fp32
  const double n = count * 4.0, share = 0.75 * n;
  const CostModel m(ChipConfig::preset(aclrtGetSocName()));
  const double link = betaUs(share, m.chip().link_bytes_per_s), red = m.reduceUs(share);
  const TaskRecord ring = allReduceRecord("ring", count);
  EXPECT_EQ(ring.name, "HcclAllReduce");
  ASSERT_TRUE(ring.detail);
  EXPECT_EQ(ring.detail->shapes, "count=65536:FP32:SUM:ring:p=4");
  EXPECT_EQ(ring.detail->core, ACL_CORE_DMA);
  EXPECT_EQ(toAclsimRecord(ring).core_type, ACL_CORE_DMA);
  EXPECT_DOUBLE_EQ(ring.detail->bytes, 2 * 2 * share);  // sent + received in both phases
  EXPECT_NEAR(ring.duration_us, 2 * 3 * m.chip().link_alpha_us + 2 * link + red, 1e-6);
  const TaskRecord hd = allReduceRecord("H-D", count);
  EXPECT_EQ(hd.detail->shapes, "count=65536:FP32:SUM:halving_doubling:p=4");
  EXPECT_DOUBLE_EQ(hd.detail->bytes, 2 * 2 * share);
  EXPECT_NEAR(hd.duration_us, 2 * 2 * m.chip().link_alpha_us + 2 * link + red, 1e-6);
  // Same bytes on the links; halving-doubling saves 2(p-1-log2 p) = 2 steps.
  EXPECT_NEAR(ring.duration_us - hd.duration_us, 2 * m.chip().link_alpha_us, 1e-6);
}

TEST(HcclCost, AutomaticAllReduceChoiceAndOtherRecords) {
  Group g(4);
  ASSERT_TRUE(g.ok());
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), (1 << 20) - 1, &name));
  EXPECT_STREQ(name, "halving_doubling");
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 1 << 20, &name));
  EXPECT_STREQ(name, "ring");
  EXPECT_HCCL_ERR(HcclSimAllReduceAlgorithm(g.comm(0), 1, nullptr), HCCL_E_PTR);
  const CostModel m(ChipConfig::preset(aclrtGetSocName()));
  runRanks(4, [&](int r) {
    setDeviceProfiling(r, true);
    ASSERT_ACL_OK(aclsimClearTaskRecords(r));
    DevBuf buf(4000);
    ASSERT_HCCL_OK(HcclBroadcast(buf.get(), 1000, HCCL_DATA_TYPE_INT32, 2, g.comm(r), g.stream(r)));
    ASSERT_HCCL_OK(HcclBarrier(g.comm(r), g.stream(r)));
    ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
    const auto recs = collectiveRecords(r);
    setDeviceProfiling(r, false);
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].name, "HcclBroadcast");
    EXPECT_EQ(recs[0].detail->shapes, "count=1000:INT32:binomial_tree:p=4:root=2");
    EXPECT_NEAR(recs[0].duration_us, 2 * (m.chip().link_alpha_us + betaUs(4000, m.chip().link_bytes_per_s)), 1e-6);
    EXPECT_EQ(recs[1].name, "HcclBarrier");
    EXPECT_EQ(recs[1].detail->shapes, "barrier:dissemination:p=4");
    EXPECT_NEAR(recs[1].duration_us, 2 * m.chip().link_alpha_us, 1e-9);
    EXPECT_GE(recs[1].start_us, recs[0].start_us + recs[0].duration_us);  // stream order in simulated time
  });
}

}  // namespace
