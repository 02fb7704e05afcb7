// HCCL collectives against a host reference: every collective x dtype x
// count {0, 1, 1023, 65537} on 2, 4 and 8 ranks (threads of this process,
// rank r on device r), both all-reduce algorithms forced, in-place forms,
// send/recv ordering, barrier. Non-power-of-two rank counts run on the
// Ascend910B2 preset in a child process (Note [Per-preset tests in a child
// process] in sim_test_util.h): the default Ascend910A refuses them.
#include <gtest/gtest.h>

#include "ascend_sim/hccl_sim.h"
#include "hccl_checks.h"
#include "sim_test_util.h"

using namespace ascend_sim::test;

namespace {

const std::vector<uint64_t> kCounts{0, 1, 1023, 65537};

class HcclCollectives : public ::testing::TestWithParam<int> {};

TEST_P(HcclCollectives, AllReduceRing) {
  ScopedEnv algo("ASCEND_SIM_HCCL_LEVEL0", "ring");
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 16, &name));
  EXPECT_STREQ(name, "ring");
  checkAllReduce(g, reducibleTypes(), allOps(), kCounts);
}

TEST_P(HcclCollectives, AllReduceHalvingDoubling) {
  ScopedEnv algo("ASCEND_SIM_HCCL_LEVEL0", "H-D");
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 64 << 20, &name));
  EXPECT_STREQ(name, "halving_doubling");
  checkAllReduce(g, reducibleTypes(), allOps(), kCounts);
}

TEST_P(HcclCollectives, AllReduceMesh) {
  ScopedEnv algo("ASCEND_SIM_HCCL_LEVEL0", "mesh");
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 16, &name));
  EXPECT_STREQ(name, "mesh");
  checkAllReduce(g, reducibleTypes(), allOps(), kCounts);
}

TEST_P(HcclCollectives, Broadcast) {
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  checkBroadcast(g, movementTypes(), kCounts);
}

TEST_P(HcclCollectives, Reduce) {
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  checkReduce(g, reducibleTypes(), allOps(), kCounts);
}

TEST_P(HcclCollectives, AllGather) {
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  checkAllGather(g, movementTypes(), kCounts);
}

TEST_P(HcclCollectives, ReduceScatter) {
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  checkReduceScatter(g, reducibleTypes(), allOps(), kCounts);
}

TEST_P(HcclCollectives, AlltoAllV) {
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  checkAlltoAllV(g, movementTypes(), {0, 1, 1023, 20000});
}

TEST_P(HcclCollectives, SendRecvArriveInCallOrder) {
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  checkSendRecvOrder(g, {5, 0, 1023, 65537, 1});
}

TEST_P(HcclCollectives, Barrier) {
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  checkBarrier(g);
}

INSTANTIATE_TEST_SUITE_P(Ranks, HcclCollectives, ::testing::Values(2, 4, 8),
                         [](const ::testing::TestParamInfo<int>& i) { return "p" + std::to_string(i.param); });

// Hierarchical all-reduce (Note [Collective schedule]): every level-1
// algorithm, each level-0 one, on servers x ranks (ranks of one process, on
// simulated servers named by HcclSimCommConfig::serverId).
struct HierarchyCase {
  int servers, per_server;
  const char* hccl_algo;
  const char* level0;  // ASCEND_SIM_HCCL_LEVEL0 ("" = automatic)
  const char* expected;
  const char* expected_910b2 = nullptr;  // when the 910B2's one mesh per server names it otherwise
};

class HcclHierarchical : public ::testing::TestWithParam<HierarchyCase> {};

TEST_P(HcclHierarchical, AllReduceMatchesTheReference) {
  const HierarchyCase c = GetParam();
  ScopedEnv algo("HCCL_ALGO", c.hccl_algo);
  ScopedEnv level0("ASCEND_SIM_HCCL_LEVEL0", *c.level0 ? c.level0 : nullptr);
  const int p = c.servers * c.per_server;
  Group g(p, 20000, c.servers);
  ASSERT_TRUE(g.ok()) << g.initMessage(0);
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 64 << 20, &name));
  const bool b2 = std::string(aclrtGetSocName()) == "Ascend910B2";
  EXPECT_STREQ(name, b2 && c.expected_910b2 ? c.expected_910b2 : c.expected);
  checkAllReduce(g, {HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_FP16}, allOps(), {0, 1, 7, 1023, 65537});
}

INSTANTIATE_TEST_SUITE_P(
    Levels, HcclHierarchical,
    ::testing::Values(HierarchyCase{2, 2, "level0:NA;level1:ring", "", "mesh/ring"},
                      HierarchyCase{2, 2, "level0:NA;level1:H-D_R", "", "mesh/H-D_R"},
                      HierarchyCase{2, 2, "level0:NA;level1:pipeline", "", "mesh/pipeline"},
                      HierarchyCase{4, 2, "level0:NA;level1:H-D_R", "ring", "ring/H-D_R"},
                      HierarchyCase{3, 2, "level0:NA;level1:H-D_R", "", "mesh/ring"},  // 3 servers: H-D_R runs ring
                      HierarchyCase{2, 4, "allreduce=level0:NA;level1:pipeline", "ring", "ring/pipeline"},
                      HierarchyCase{1, 8, "", "", "mesh/ring", "mesh"}),  // the 910A's two HCCS groups
    [](const ::testing::TestParamInfo<HierarchyCase>& info) { return "Case" + std::to_string(info.index); });

// Two servers of eight (16 devices: runs in a child with ASCEND_SIM_DEVICE_COUNT=16): on the 910A
// all three levels (HCCS group, the two groups, servers).
TEST(HcclChild16, TwoServersOfEight) {
  ASCEND_SIM_CHILD_ONLY();
  ScopedEnv algo("HCCL_ALGO", "level0:NA;level1:ring");
  Group g(16, 20000, 2);
  ASSERT_TRUE(g.ok()) << g.initMessage(0);
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 64 << 20, &name));
  EXPECT_STREQ(name, std::string(aclrtGetSocName()) == "Ascend910B2" ? "mesh/ring" : "mesh/ring/ring");
  checkAllReduce(g, {HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT8}, {HCCL_REDUCE_SUM, HCCL_REDUCE_MAX},
                 {0, 1, 7, 1023, 65537});
}

TEST(HcclPresets, TwoServersOfEightInChildProcess) {
  if (isTestChild()) GTEST_SKIP();
  ChildResult r = runSelf("HcclChild16.*", "ASCEND_SIM_DEVICE_COUNT=16");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << r.out;
}

TEST(HcclCollectivesSingleRank, EveryCollectiveIsALocalCopy) {
  Group g(1);
  ASSERT_TRUE(g.ok());
  checkAllReduce(g, {HCCL_DATA_TYPE_FP32}, {HCCL_REDUCE_SUM}, {0, 7});
  checkBroadcast(g, {HCCL_DATA_TYPE_INT8}, {0, 7});
  checkReduce(g, {HCCL_DATA_TYPE_INT32}, {HCCL_REDUCE_MAX}, {0, 7});
  checkAllGather(g, {HCCL_DATA_TYPE_FP16}, {0, 7});
  checkReduceScatter(g, {HCCL_DATA_TYPE_FP32}, {HCCL_REDUCE_MIN}, {0, 7});
  checkAlltoAllV(g, {HCCL_DATA_TYPE_FP64}, {0, 3});
  checkBarrier(g);
}

// Runs only in the child (ASCEND_SIM_SOC_VERSION=Ascend910B2).
TEST(HcclChild, NonPowerOfTwoRankCounts) {
  ASCEND_SIM_CHILD_ONLY();
  for (int p : {3, 6}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const std::vector<uint64_t> counts{0, 1, 5, 1023};
    {
      ScopedEnv algo("ASCEND_SIM_HCCL_LEVEL0", "H-D");  // needs a power of two: ring runs instead
      Group g(p);
      ASSERT_TRUE(g.ok()) << g.initMessage(0);
      const char* name = nullptr;
      ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 16, &name));
      EXPECT_STREQ(name, "ring");
      checkAllReduce(g, reducibleTypes(), allOps(), counts);
    }
    Group g(p);
    ASSERT_TRUE(g.ok()) << g.initMessage(0);
    checkBroadcast(g, {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_FP64}, counts);
    checkReduce(g, {HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_INT32}, {HCCL_REDUCE_SUM, HCCL_REDUCE_MIN}, counts);
    checkAllGather(g, {HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64}, counts);
    checkReduceScatter(g, {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_FP32}, {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD}, counts);
    checkAlltoAllV(g, {HCCL_DATA_TYPE_FP16}, {0, 1, 37});
    checkSendRecvOrder(g, {3, 0, 1023});
    checkBarrier(g);
  }
}

TEST(HcclPresets, NonPowerOfTwoRankCountsOn910B2InChildProcess) {
  if (isTestChild()) GTEST_SKIP();
  ChildResult r = runSelf("HcclChild.*", "ASCEND_SIM_SOC_VERSION=Ascend910B2");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << r.out;
}

}  // namespace
