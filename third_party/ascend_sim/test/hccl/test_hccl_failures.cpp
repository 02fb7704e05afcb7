// HCCL failures at run time: mismatched collectives, a peer that never comes
// (timeout), abort from another thread, a peer that closes its connection,
// sticky failure, and the failure reaching a consumer stream through an
// event. None of these may hang: every wait has a deadline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ascend_sim/hccl_sim.h"
#include "hccl_reference.h"
#include "hccl_test_util.h"

using namespace ascend_sim::test;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::string commMessage(HcclComm c) {
  char buf[1024];
  EXPECT_HCCL_OK(HcclSimGetCommErrorMessage(c, buf, sizeof buf));
  return buf;
}

// A one-shot latch between rank threads: the ordering of the steps of two
// ranks is stated by latches, never by sleeps. A wait gives up (failing the
// test) after 60 s, so a rank that failed before releasing cannot hang it.
struct Latch {
  std::atomic<bool> open{false};
  void release() { open = true; }
  void wait() {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (!open && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!open) ADD_FAILURE() << "the other rank never released the latch";
  }
};

TEST(HcclFailures, MismatchFailsBothRanksNamingBothCalls) {
  Group g(2);
  ASSERT_TRUE(g.ok());
  runRanks(2, [&](int r) {
    DevBuf buf(40);
    if (r == 0)
      ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 10, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(r), g.stream(r)));
    else
      ASSERT_HCCL_OK(HcclBroadcast(buf.get(), 10, HCCL_DATA_TYPE_FP32, 0, g.comm(r), g.stream(r)));
    EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(r)), ACL_ERROR_RT_AICORE_EXCEPTION);
    const std::string msg = lastAclMessage();
    EXPECT_TRUE(has(msg, "collective mismatch at seq 1: rank 0 called HcclAllReduce(count=10, FP32, SUM), rank 1 "
                         "called HcclBroadcast(count=10, FP32, root=0)"))
        << msg;
    EXPECT_TRUE(has(msg, r == 0 ? "HcclAllReduce (seq 1) on rank 0 of 2" : "HcclBroadcast (seq 1) on rank 1 of 2"))
        << msg;
    HcclResult async = HCCL_SUCCESS;
    ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(r), &async));
    EXPECT_EQ(async, HCCL_E_REMOTE);
    EXPECT_TRUE(has(commMessage(g.comm(r)), "collective mismatch at seq 1")) << commMessage(g.comm(r));
    // Sticky: the next call fails at once, naming the first failure.
    EXPECT_HCCL_ERR(HcclBarrier(g.comm(r), g.stream(r)), HCCL_E_UNAVAIL);
    EXPECT_TRUE(has(lastAclMessage(), "HcclBarrier: communicator failed earlier: ")) << lastAclMessage();
    EXPECT_TRUE(has(lastAclMessage(), "collective mismatch at seq 1")) << lastAclMessage();
  });
}

TEST(HcclFailures, SendRecvCountMismatchFailsBothSides) {
  Group g(2);
  ASSERT_TRUE(g.ok());
  runRanks(2, [&](int r) {
    DevBuf buf(64);
    if (r == 0)
      ASSERT_HCCL_OK(HcclSend(buf.get(), 10, HCCL_DATA_TYPE_FP32, 1, g.comm(0), g.stream(0)));
    else
      ASSERT_HCCL_OK(HcclRecv(buf.get(), 12, HCCL_DATA_TYPE_FP32, 0, g.comm(1), g.stream(1)));
    EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(r)), ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_TRUE(has(lastAclMessage(), "send/recv mismatch: rank 0 called HcclSend(10 x FP32 to rank 1), rank 1 called "
                                      "HcclRecv(12 x FP32 from rank 0)"))
        << lastAclMessage();
    EXPECT_TRUE(has(lastAclMessage(), r == 0 ? "HcclSend (seq 1 to rank 1) on rank 0 of 2"
                                             : "HcclRecv (seq 1 from rank 0) on rank 1 of 2"))
        << lastAclMessage();
    HcclResult async = HCCL_SUCCESS;
    ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(r), &async));
    EXPECT_EQ(async, HCCL_E_REMOTE);
  });
}

TEST(HcclFailures, AlltoAllVCountsThatDisagreeFailBothRanks) {
  Group g(2);
  ASSERT_TRUE(g.ok());
  runRanks(2, [&](int r) {
    DevBuf send(64), recv(64);
    // Rank 0 sends 3 elements to rank 1, which expects 2.
    const uint64_t sc[2] = {1, r == 0 ? 3u : 1u}, rc[2] = {1, 1}, disp[2] = {0, 4};
    uint64_t rc1[2] = {r == 1 ? 2u : rc[0], rc[1]};
    ASSERT_HCCL_OK(HcclAlltoAllV(send.get(), sc, disp, HCCL_DATA_TYPE_INT32, recv.get(), rc1, disp,
                                 HCCL_DATA_TYPE_INT32, g.comm(r), g.stream(r)));
    EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(r)), ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_TRUE(has(lastAclMessage(), "HcclAlltoAllV counts disagree")) << lastAclMessage();
    EXPECT_TRUE(has(lastAclMessage(), r == 0 ? "rank 1 sends 1 elements to rank 0 and expects 2 back"
                                             : "rank 0 sends 3 elements to rank 1 and expects 1 back"))
        << lastAclMessage();
    HcclResult async = HCCL_SUCCESS;
    ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(r), &async));
    EXPECT_EQ(async, HCCL_E_REMOTE);
  });
}

TEST(HcclFailures, MismatchOnOneRankFailsEveryRankFast) {
  Group g(4);
  ASSERT_TRUE(g.ok());
  const auto t0 = Clock::now();
  std::vector<HcclResult> async(4, HCCL_SUCCESS);
  runRanks(4, [&](int r) {
    DevBuf buf(4096);
    if (r == 2)
      ASSERT_HCCL_OK(HcclBroadcast(buf.get(), 1024, HCCL_DATA_TYPE_FP32, 0, g.comm(r), g.stream(r)));
    else
      ASSERT_HCCL_OK(
          HcclAllReduce(buf.get(), buf.get(), 1024, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(r), g.stream(r)));
    EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(r)), ACL_ERROR_RT_AICORE_EXCEPTION);
    ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(r), &async[r]));
  });
  EXPECT_LT(secondsSince(t0), 10.0);  // far below the 20 s timeout: nobody waited for it
  // Rank 2 and its ring neighbours see the mismatch; rank 0 sees its peers go.
  EXPECT_EQ(async[1], HCCL_E_REMOTE);
  EXPECT_EQ(async[2], HCCL_E_REMOTE);
  EXPECT_EQ(async[3], HCCL_E_REMOTE);
  EXPECT_NE(async[0], HCCL_SUCCESS);
}

TEST(HcclFailures, MissingPeerTimesOut) {
  Group g(2, 500);
  ASSERT_TRUE(g.ok());
  Latch rank0_done;
  runRanks(2, [&](int r) {
    DevBuf buf(64);
    if (r == 0) {
      const auto t0 = Clock::now();
      ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(0), g.stream(0)));
      EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(0)), ACL_ERROR_RT_AICORE_EXCEPTION);
      const double s = secondsSince(t0);
      EXPECT_GE(s, 0.45);
      EXPECT_LT(s, 5.0);
      EXPECT_TRUE(has(lastAclMessage(), "HcclAllReduce (seq 1) on rank 0 of 2: timed out after 500 ms waiting for rank 1"))
          << lastAclMessage();
      HcclResult async = HCCL_SUCCESS;
      ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(0), &async));
      EXPECT_EQ(async, HCCL_E_TIMEOUT);
      rank0_done.release();
    } else {
      rank0_done.wait();  // rank 1 comes too late: rank 0 has closed its side
      ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(1), g.stream(1)));
      EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(1)), ACL_ERROR_RT_AICORE_EXCEPTION);
      EXPECT_TRUE(has(lastAclMessage(), "HcclAllReduce (seq 1) on rank 1 of 2: rank 0 closed the connection"))
          << lastAclMessage();
      HcclResult async = HCCL_SUCCESS;
      ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(1), &async));
      EXPECT_EQ(async, HCCL_E_TCP_TRANSFER);
    }
  });
}

TEST(HcclFailures, AbortFromAnotherThreadEndsABlockedCollective) {
  Group g(2, 60000);
  ASSERT_TRUE(g.ok());
  Latch rank0_done;
  runRanks(2, [&](int r) {
    DevBuf buf(64);
    if (r == 0) {
      const auto t0 = Clock::now();
      ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(0), g.stream(0)));
      // The collective is queued and cannot finish (rank 1 joins only after rank 0 is done), so the
      // abort ends it whether it comes before or during the synchronize: no timing to rely on.
      std::thread aborter([&] { EXPECT_HCCL_OK(HcclSimCommAbort(g.comm(0))); });
      EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(0)), ACL_ERROR_RT_AICORE_EXCEPTION);
      aborter.join();
      EXPECT_LT(secondsSince(t0), 5.0);
      // An abort that lands before the task starts is reported as the communicator's earlier failure
      // ("...: communicator failed earlier: the communicator was aborted (HcclSimCommAbort) ..."), one that
      // lands while it waits as the task's own; both name the collective and the abort.
      EXPECT_TRUE(has(lastAclMessage(), "HcclAllReduce (seq 1) on rank 0 of 2: ")) << lastAclMessage();
      EXPECT_TRUE(has(lastAclMessage(), "the communicator was aborted")) << lastAclMessage();
      HcclResult async = HCCL_SUCCESS;
      ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(0), &async));
      EXPECT_EQ(async, HCCL_E_UNAVAIL);
      EXPECT_TRUE(has(commMessage(g.comm(0)), "aborted (HcclSimCommAbort) on rank 0 of 2")) << commMessage(g.comm(0));
      EXPECT_HCCL_ERR(HcclBarrier(g.comm(0), g.stream(0)), HCCL_E_UNAVAIL);
      rank0_done.release();
    } else {
      rank0_done.wait();
      const auto t0 = Clock::now();
      ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(1), g.stream(1)));
      EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(1)), ACL_ERROR_RT_AICORE_EXCEPTION);
      EXPECT_LT(secondsSince(t0), 5.0);  // the aborted peer closed its connections
      EXPECT_TRUE(has(lastAclMessage(), "rank 0 closed the connection")) << lastAclMessage();
    }
  });
}

TEST(HcclFailures, PeerClosingItsConnectionFailsTheWaitingRank) {
  Group g(2, 60000);
  ASSERT_TRUE(g.ok());
  Latch launched;
  runRanks(2, [&](int r) {
    DevBuf buf(64);
    if (r == 0) {
      // Two collectives queued: the first fails, the second fails without the network.
      ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(0), g.stream(0)));
      ASSERT_HCCL_OK(HcclBroadcast(buf.get(), 16, HCCL_DATA_TYPE_FP32, 1, g.comm(0), g.stream(0)));
      launched.release();
      EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(0)), ACL_ERROR_RT_AICORE_EXCEPTION);
      EXPECT_TRUE(has(lastAclMessage(), "task 'HcclAllReduce' failed on device 0"));
      EXPECT_TRUE(has(lastAclMessage(), "HcclAllReduce (seq 1) on rank 0 of 2: rank 1 closed the connection"))
          << lastAclMessage();
      HcclResult async = HCCL_SUCCESS;
      ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(0), &async));
      EXPECT_EQ(async, HCCL_E_TCP_TRANSFER);
      EXPECT_HCCL_ERR(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(0), g.stream(0)),
                      HCCL_E_UNAVAIL);
      EXPECT_TRUE(has(lastAclMessage(), "communicator failed earlier: HcclAllReduce (seq 1) on rank 0 of 2: rank 1 "
                                        "closed the connection"))
          << lastAclMessage();
    } else {
      launched.wait();  // rank 1 leaves once rank 0's collectives are queued
      EXPECT_HCCL_OK(HcclSimCommAbort(g.comm(1)));
    }
  });
}

TEST(HcclFailures, ConsumerOfAFailedCollectiveInheritsTheFailureThroughAnEvent) {
  Group g(2, 60000);
  ASSERT_TRUE(g.ok());
  Latch launched;
  runRanks(2, [&](int r) {
    if (r == 1) {
      launched.wait();  // rank 1 leaves once rank 0's collective and its consumer are queued
      EXPECT_HCCL_OK(HcclSimCommAbort(g.comm(1)));
      return;
    }
    DevBuf buf(64);
    aclrtStream consumer = nullptr;
    aclrtEvent ev = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&consumer));
    ASSERT_ACL_OK(aclrtCreateEvent(&ev));
    ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(0), g.stream(0)));
    ASSERT_ACL_OK(aclrtRecordEvent(ev, g.stream(0)));
    ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, ev));
    std::vector<uint8_t> host(64);
    ASSERT_ACL_OK(aclrtMemcpyAsync(host.data(), 64, buf.get(), 64, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    launched.release();
    EXPECT_ACL_ERR(aclrtSynchronizeStream(consumer), ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_TRUE(has(lastAclMessage(), "task 'EventWait' failed on device 0")) << lastAclMessage();
    EXPECT_TRUE(has(lastAclMessage(), "waited on an event recorded after a failed task: task 'HcclAllReduce' failed "
                                      "on device 0"))
        << lastAclMessage();
    EXPECT_TRUE(has(lastAclMessage(), "rank 1 closed the connection")) << lastAclMessage();
    // The producer stream reports its own fault; the event record stays failed.
    EXPECT_ACL_ERR(aclrtSynchronizeStream(g.stream(0)), ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_ACL_ERR(aclrtSynchronizeEvent(ev), ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_TRUE(has(lastAclMessage(), "was recorded after a failed task")) << lastAclMessage();
    // A later record (nothing failed since the previous one) is clean.
    ASSERT_ACL_OK(aclrtRecordEvent(ev, g.stream(0)));
    ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, ev));
    EXPECT_ACL_OK(aclrtSynchronizeStream(consumer));
    EXPECT_ACL_OK(aclrtSynchronizeEvent(ev));
    ASSERT_ACL_OK(aclrtDestroyEvent(ev));
    ASSERT_ACL_OK(aclrtDestroyStream(consumer));
  });
}

TEST(HcclFailures, DestroyWaitsForQueuedCollectives) {
  Group g(2);
  ASSERT_TRUE(g.ok());
  runRanks(2, [&](int r) {
    DevBuf buf(4 * 1000);
    buf.upload(sampleBuffer(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r, 1000));
    ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 1000, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, g.comm(r), g.stream(r)));
    ASSERT_HCCL_OK(HcclCommDestroy(g.comm(r)));  // no synchronize before
    ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
    EXPECT_EQ(firstMismatch(buf.download(4000), expectedReduction(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 2, 1000), 4), "");
    EXPECT_HCCL_ERR(HcclBarrier(g.comm(r), g.stream(r)), HCCL_E_UNAVAIL);
    EXPECT_TRUE(has(lastAclMessage(), "is not a live communicator")) << lastAclMessage();
    g.forget(r);
  });
}

TEST(HcclFailures, Fp16OverflowSaturatesAndRaisesTheFlagOn910A) {
  if (std::string(aclrtGetSocName()) != "Ascend910A") GTEST_SKIP() << "saturation mode is the 910A's";
  Group g(2);
  ASSERT_TRUE(g.ok());
  runRanks(2, [&](int r) {
    ASSERT_ACL_OK(aclrtResetOverflowStatus(g.stream(r)));
    DevBuf buf(4);
    // Each rank reduces one of the two elements (its block): both overflow,
    // so both devices raise their flag.
    const uint16_t in[2] = {0x7b53 /* 60000 */, 0x7b53};
    ASSERT_ACL_OK(aclrtMemcpy(buf.get(), 4, in, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    ASSERT_HCCL_OK(HcclAllReduce(buf.get(), buf.get(), 2, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM, g.comm(r), g.stream(r)));
    uint32_t flag = 0;
    ASSERT_ACL_OK(aclrtGetOverflowStatus(&flag, sizeof flag, g.stream(r)));
    ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
    uint16_t out[2] = {0, 0};
    ASSERT_ACL_OK(aclrtMemcpy(out, 4, buf.get(), 4, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT_EQ(out[0], 0x7bff);  // 120000 saturates to 65504
    EXPECT_EQ(out[1], 0x7bff);
    EXPECT_EQ(flag, 1u) << "rank " << r;
    ASSERT_ACL_OK(aclrtResetOverflowStatus(g.stream(r)));
  });
}

}  // namespace
