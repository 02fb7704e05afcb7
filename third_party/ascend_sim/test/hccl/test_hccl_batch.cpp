// HcclBatchSendRecv: ring shifts and pairwise swaps in one task (which
// separate blocking HcclSend/HcclRecv tasks would deadlock on), mixed with
// single send/recv in call order, and a count mismatch reported on both sides.
#include <memory>

#include "hccl_checks.h"
#include "hccl_reference.h"
#include "hccl_test_util.h"

using namespace ascend_sim::test;

namespace {

class HcclBatch : public ::testing::TestWithParam<int> {};

TEST_P(HcclBatch, RingShiftBothDirectionsInOneTask) {
  const int p = GetParam();
  Group g(p);
  ASSERT_TRUE(g.ok());
  for (uint64_t count : {uint64_t(0), uint64_t(1), uint64_t(1023), uint64_t(65537)}) {
    runRanks(p, [&](int r) {
      const int right = (r + 1) % p, left = (r + p - 1) % p;
      const size_t bytes = count * 4;
      DevBuf mine(bytes), from_left(bytes), from_right(bytes);
      mine.upload(patternBytes(r, bytes, 0, 7));
      HcclSendRecvItem items[] = {{HCCL_SEND, mine.get(), count, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(right)},
                                  {HCCL_RECV, from_left.get(), count, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(left)},
                                  {HCCL_SEND, mine.get(), count, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(left)},
                                  {HCCL_RECV, from_right.get(), count, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(right)}};
      ASSERT_HCCL_OK(HcclBatchSendRecv(items, 4, g.comm(r), g.stream(r)));
      ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
      if (p == 2) return;  // left == right: the two receives from one peer arrive in order, checked below
      EXPECT_EQ(firstMismatch(from_left.download(bytes), patternBytes(left, bytes, 0, 7), 4), "") << "rank " << r;
      EXPECT_EQ(firstMismatch(from_right.download(bytes), patternBytes(right, bytes, 0, 7), 4), "") << "rank " << r;
    });
  }
}

TEST_P(HcclBatch, OrdersWithSingleSendRecv) {
  const int p = GetParam();
  Group g(p);
  ASSERT_TRUE(g.ok());
  runRanks(p, [&](int r) {
    const int peer = r ^ 1;
    if (peer >= p) return;
    DevBuf a(64), b(64), got_a(64), got_b(64);
    a.upload(patternBytes(r, 64, 0, 1));
    b.upload(patternBytes(r, 64, 0, 2));
    // both ranks: one single send/recv pair (lower rank sends), then a swap in a batch
    if (r < peer)
      ASSERT_HCCL_OK(HcclSend(a.get(), 16, HCCL_DATA_TYPE_FP32, peer, g.comm(r), g.stream(r)));
    else
      ASSERT_HCCL_OK(HcclRecv(got_a.get(), 16, HCCL_DATA_TYPE_FP32, peer, g.comm(r), g.stream(r)));
    HcclSendRecvItem items[] = {{HCCL_SEND, b.get(), 16, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(peer)},
                                {HCCL_RECV, got_b.get(), 16, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(peer)}};
    ASSERT_HCCL_OK(HcclBatchSendRecv(items, 2, g.comm(r), g.stream(r)));
    ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
    if (r > peer) { EXPECT_EQ(firstMismatch(got_a.download(64), patternBytes(peer, 64, 0, 1), 4), ""); }
    EXPECT_EQ(firstMismatch(got_b.download(64), patternBytes(peer, 64, 0, 2), 4), "");
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, HcclBatch, ::testing::Values(2, 4));

TEST(HcclBatchErrors, CountMismatchFailsBothSidesAndBadItemsAreRejected) {
  Group g(2, 3000);
  ASSERT_TRUE(g.ok());
  runRanks(2, [&](int r) {
    DevBuf buf(64);
    HcclSendRecvItem self{HCCL_SEND, buf.get(), 4, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(r)};
    EXPECT_HCCL_ERR(HcclBatchSendRecv(&self, 1, g.comm(r), g.stream(r)), HCCL_E_PARA);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("is this rank"), std::string::npos) << aclGetRecentErrMsg();
    EXPECT_HCCL_ERR(HcclBatchSendRecv(nullptr, 1, g.comm(r), g.stream(r)), HCCL_E_PTR);
    HcclSendRecvItem item{r == 0 ? HCCL_SEND : HCCL_RECV, buf.get(), static_cast<uint64_t>(r == 0 ? 4 : 8),
                          HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(1 - r)};
    ASSERT_HCCL_OK(HcclBatchSendRecv(&item, 1, g.comm(r), g.stream(r)));
    EXPECT_NE(aclrtSynchronizeStream(g.stream(r)), ACL_SUCCESS);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("send/recv mismatch"), std::string::npos) << aclGetRecentErrMsg();
  });
}

}  // namespace
