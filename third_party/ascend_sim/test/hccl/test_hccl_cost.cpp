// The α-β cost of collectives (Note [Collective cost] in
// cost/collective_cost.cpp) and what the profiler records for them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ascend_sim/acl_sim.h"
#include "ascend_sim/hccl_sim.h"
#include "cost/cost_model.h"
#include "hccl_test_util.h"
#include "chip/chip_config.h"
#include "hccl/link_model.h"
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

// Runs one fp32 SUM all-reduce of `count` on p ranks (on `servers` servers)
// with the level-0 algorithm `level0` (ASCEND_SIM_HCCL_LEVEL0; nullptr:
// automatic); returns rank 0's record.
TaskRecord allReduceRecord(const char* level0, uint64_t count, int p = 4, int servers = 1) {
  ScopedEnv env("ASCEND_SIM_HCCL_LEVEL0", level0);
  Group g(p, 20000, servers);
  EXPECT_TRUE(g.ok());
  TaskRecord rec{};
  runRanks(p, [&](int r) {
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
  const TaskRecord mesh = allReduceRecord(nullptr, count);  // four NPUs of one HCCS group: mesh
  EXPECT_EQ(mesh.detail->shapes, "count=65536:FP32:SUM:mesh:p=4");
  EXPECT_DOUBLE_EQ(mesh.detail->bytes, 2 * 2 * share);
  EXPECT_NEAR(mesh.duration_us, 2 * m.chip().link_alpha_us + 2 * betaUs(n / 4, m.chip().link_bytes_per_s) + red, 1e-6);
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
  EXPECT_STREQ(name, "mesh");  // one server, one HCCS group (Note [Algorithm choice])
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 1 << 20, &name));
  EXPECT_STREQ(name, "mesh");
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

// ---- the cluster's links (Note [Cluster links], Note [Collective schedule]) ----

double predict(const char* soc, int servers, int per_server, const char* kind, double bytes, const char* algo = nullptr,
               std::string* name = nullptr) {
  double us = -1;
  const char* n = nullptr;
  EXPECT_HCCL_OK(HcclSimPredictCollective(soc, servers, per_server, kind, bytes, algo, &us, &n));
  if (name && n) *name = n;
  return us;
}

TEST(HcclTopology, CrossingThe910AsTwoHccsGroupsCostsMore) {
  const ChipConfig a = ChipConfig::preset("Ascend910A");
  const CostModel m(a);
  const double n = 64 << 20;
  std::string four, eight;
  const double in_group = predict("Ascend910A", 1, 4, "allreduce", n, nullptr, &four);
  const double across = predict("Ascend910A", 1, 8, "allreduce", n, nullptr, &eight);
  EXPECT_EQ(four, "mesh");
  EXPECT_EQ(eight, "mesh/ring");
  // Mesh in one group: 2 steps, each rank's quarter on its own link.
  const double mesh_steps = 2 * (a.link_alpha_us + betaUs(n / 4, a.link_bytes_per_s));
  EXPECT_NEAR(in_group, mesh_steps + m.reduceUs(0.75 * n), 1e-6);
  // Eight: mesh inside each group, then each NPU and its counterpart in the other group exchange
  // their quarter's halves (n/8): four flows per direction share the group-to-group path.
  const double cross_step = a.link_alpha_us + betaUs(4 * n / 8, a.cross_group_bytes_per_s);
  EXPECT_NEAR(across, mesh_steps + 2 * cross_step + m.reduceUs(0.75 * n) + m.reduceUs(n / 8), 1e-6);
  EXPECT_GT(across, 2 * in_group);
  // Broadcast from rank 0 sends the largest distance first, as the data path does: one flow
  // crosses the groups (0->4), then two rounds stay inside them.
  EXPECT_NEAR(
      predict("Ascend910A", 1, 8, "broadcast", n),
      a.link_alpha_us + betaUs(n, a.cross_group_bytes_per_s) + 2 * (a.link_alpha_us + betaUs(n, a.link_bytes_per_s)),
      1e-6);
  // Two NPUs exchanging n: in one group over HCCS, or one in each group.
  hccl::Placement apart;
  apart.server = {0, 0};
  apart.slot = {0, 4};
  const std::vector<hccl::Flow> swap{{0, 1, n}, {1, 0, n}};
  EXPECT_NEAR(hccl::LinkModel(a, hccl::Placement::uniform(1, 2)).stepUs(swap),
              a.link_alpha_us + betaUs(n, a.link_bytes_per_s), 1e-6);
  EXPECT_NEAR(hccl::LinkModel(a, apart).stepUs(swap), a.link_alpha_us + betaUs(n, a.cross_group_bytes_per_s), 1e-6);
  // Contention: four flows from group 0 to group 1 share the one path.
  std::vector<hccl::Flow> four_flows;
  for (int i = 0; i < 4; ++i) four_flows.push_back({i, i + 4, n});
  EXPECT_NEAR(hccl::LinkModel(a, hccl::Placement::uniform(1, 8)).stepUs(four_flows),
              a.link_alpha_us + betaUs(4 * n, a.cross_group_bytes_per_s), 1e-6);
}

TEST(HcclTopology, RoceBoundsTheBusBandwidthBetweenServers) {
  for (const char* soc : {"Ascend910A", "Ascend910B2"}) {
    SCOPED_TRACE(soc);
    const ChipConfig c = ChipConfig::preset(soc);
    for (int servers : {2, 4, 16}) {
      const int p = servers;  // one NPU per server: every byte crosses RoCE
      const double n = 256.0 * (1 << 20);
      const double us = predict(soc, servers, 1, "allreduce", n);
      const double bus_bytes_per_s = 2.0 * (p - 1) / p * n / (us * 1e-6);
      EXPECT_LE(bus_bytes_per_s, c.inter_host_bytes_per_s);
      EXPECT_GT(bus_bytes_per_s, 0.9 * c.inter_host_bytes_per_s);  // large messages approach it
    }
    // Eight NPUs per server: level 1 moves n/8 per NPU over its own port, so the
    // all-reduce is faster than with one NPU per server, and slower than inside one.
    const double n = 256.0 * (1 << 20);
    const double one = predict(soc, 4, 1, "allreduce", n), eight = predict(soc, 4, 8, "allreduce", n);
    const double inside = predict(soc, 1, 8, "allreduce", n);
    EXPECT_LT(eight, one);
    EXPECT_GT(eight, inside);
    EXPECT_LT(eight - inside, one);  // level 1 on n/8 costs less than level 1 on n
  }
}

TEST(HcclTopology, EachAlgorithmsCostCurveHasItsShape) {
  const ChipConfig a = ChipConfig::preset("Ascend910A");
  const double alpha = a.inter_host_alpha_us;
  // 16 servers of one NPU: latency term 2(p-1)α for ring, 2·log2(p)·α for H-D_R; same slope.
  const double ring0 = predict("Ascend910A", 16, 1, "allreduce", 0, "level0:NA;level1:ring");
  const double hd0 = predict("Ascend910A", 16, 1, "allreduce", 0, "level0:NA;level1:H-D_R");
  EXPECT_NEAR(ring0, 30 * alpha, 1e-9);
  EXPECT_NEAR(hd0, 8 * alpha, 1e-9);
  const double big = 512.0 * (1 << 20);
  const double ring_slope = predict("Ascend910A", 16, 1, "allreduce", big, "level0:NA;level1:ring") - ring0;
  const double hd_slope = predict("Ascend910A", 16, 1, "allreduce", big, "level0:NA;level1:H-D_R") - hd0;
  EXPECT_NEAR(ring_slope / hd_slope, 1.0, 0.01);
  // Linear in n beyond the latency: twice the bytes, twice the bandwidth term.
  const double ring_half = predict("Ascend910A", 16, 1, "allreduce", big / 2, "level0:NA;level1:ring") - ring0;
  EXPECT_NEAR(ring_slope / ring_half, 2.0, 0.01);
  // Pipeline (8 servers x 8 NPUs): more steps, so slower for small messages; overlaps
  // level 0 with level 1, so faster for large ones.
  auto hier = [&](const char* algo, double n) { return predict("Ascend910A", 8, 8, "allreduce", n, algo); };
  EXPECT_GT(hier("level0:NA;level1:pipeline", 4096), hier("level0:NA;level1:ring", 4096));
  EXPECT_LT(hier("level0:NA;level1:pipeline", big), hier("level0:NA;level1:ring", big));
  // Broadcast: ⌈log2 p⌉ rounds of the whole message.
  const double b = predict("Ascend910A", 8, 1, "broadcast", big);
  EXPECT_NEAR(b, 3 * (alpha + betaUs(big, a.inter_host_bytes_per_s)), 1e-6);
}

TEST(HcclTopology, DefaultsAndHcclAlgoFollowCann) {
  std::string name;
  predict("Ascend910A", 4, 8, "allreduce", 1 << 26, nullptr, &name);
  EXPECT_EQ(name, "mesh/ring/H-D_R");  // training series: power-of-two servers -> H-D_R
  predict("Ascend910A", 3, 8, "allreduce", 1 << 26, nullptr, &name);
  EXPECT_EQ(name, "mesh/ring/ring");  // ... else ring
  predict("Ascend910A", 4, 4, "allreduce", 1 << 26, nullptr, &name);
  EXPECT_EQ(name, "mesh/H-D_R");  // four NPUs per server: one HCCS group
  predict("Ascend910A", 4, 1, "allreduce", 1 << 26, nullptr, &name);
  EXPECT_EQ(name, "halving_doubling");  // one NPU per server: level 1 alone
  // A2 (assumed rule): the fastest of the three level-1 algorithms for the message.
  for (double bytes : {4096.0, 1.0 * (1 << 26)}) {
    for (int servers : {2, 3, 64}) {
      const double automatic = predict("Ascend910B2", servers, 8, "allreduce", bytes, nullptr, &name);
      double best = 1e300;
      for (const char* algo : {"level0:NA;level1:ring", "level0:NA;level1:H-D_R", "level0:NA;level1:pipeline"})
        best = std::min(best, predict("Ascend910B2", servers, 8, "allreduce", bytes, algo));
      EXPECT_DOUBLE_EQ(automatic, best) << servers << " servers, " << bytes << " B: " << name;
    }
  }
  predict("Ascend910B2", 2, 8, "allreduce", 1 << 28, nullptr, &name);
  EXPECT_EQ(name, "mesh/pipeline");  // large messages: the RoCE phase overlaps the mesh phases
  predict("Ascend910A", 4, 8, "allreduce", 1 << 26, "allgather=level0:NA;level1:ring", &name);
  EXPECT_EQ(name, "mesh/ring/H-D_R");  // per-operator: all-reduce keeps the default
  predict("Ascend910A", 4, 8, "allreduce", 1 << 26, "allreduce=level0:NA;level1:ring", &name);
  EXPECT_EQ(name, "mesh/ring/ring");
  double us = 0;
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910A", 4, 8, "allreduce", 1, "level0:NA;level1:NHR", &us, nullptr),
                  HCCL_E_NOT_SUPPORT);
  EXPECT_NE(lastAclMessage().find("'NHR' is CANN's but the simulator does not implement it"), std::string::npos)
      << lastAclMessage();
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910A", 4, 8, "allreduce", 1, "level0:ring;level1:ring", &us, nullptr),
                  HCCL_E_PARA);
  EXPECT_NE(lastAclMessage().find("level0 (inside a server) must be NA"), std::string::npos) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910A", 4, 8, "allreduce", 1, "ring", &us, nullptr), HCCL_E_PARA);
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910A", 0, 8, "allreduce", 1, nullptr, &us, nullptr), HCCL_E_PARA);
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910A", 1, 8, "gather", 1, nullptr, &us, nullptr), HCCL_E_PARA);
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910A", 2, 3, "allreduce", 1, nullptr, &us, nullptr),
                  HCCL_E_NOT_SUPPORT);  // the 910A's 1/2/4/8-per-server rule, as a real communicator
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910B2", 2, 9, "allreduce", 1, nullptr, &us, nullptr), HCCL_E_PARA);
  EXPECT_HCCL_ERR(HcclSimPredictCollective("Ascend910A", 2, 8, "allreduce", 1.0 / 0.0, nullptr, &us, nullptr),
                  HCCL_E_PARA);
}

// A real hierarchical all-reduce (2 servers x 2 NPUs) is priced as the prediction says.
TEST(HcclTopology, RecordOfARealHierarchicalAllReduceMatchesThePrediction) {
  ScopedEnv env("HCCL_ALGO", "level0:NA;level1:ring");
  const uint64_t count = 1 << 18;
  const TaskRecord rec = allReduceRecord(nullptr, count, 4, 2);
  EXPECT_EQ(rec.detail->shapes, "count=262144:FP32:SUM:mesh/ring:p=4");
  EXPECT_NEAR(rec.duration_us, predict(aclrtGetSocName(), 2, 2, "allreduce", count * 4.0, "level0:NA;level1:ring"),
              1e-6);
  // Level 0 moves n/2 out and in twice, level 1 n/4 twice: 2·(n/2 + n/2) + 2·(n/4 + n/4).
  EXPECT_DOUBLE_EQ(rec.detail->bytes, 3.0 * count * 4);
}

}  // namespace
