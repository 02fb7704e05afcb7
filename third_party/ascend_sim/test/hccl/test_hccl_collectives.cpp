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
  ScopedEnv algo("HCCL_ALGO", "level0:NA;level1:ring");
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 16, &name));
  EXPECT_STREQ(name, "ring");
  checkAllReduce(g, reducibleTypes(), allOps(), kCounts);
}

TEST_P(HcclCollectives, AllReduceHalvingDoubling) {
  ScopedEnv algo("HCCL_ALGO", "level0:NA;level1:H-D_R");
  Group g(GetParam());
  ASSERT_TRUE(g.ok());
  const char* name = nullptr;
  ASSERT_HCCL_OK(HcclSimAllReduceAlgorithm(g.comm(0), 64 << 20, &name));
  EXPECT_STREQ(name, "halving_doubling");
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
      ScopedEnv algo("HCCL_ALGO", "H-D");  // needs a power of two: ring runs instead
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
