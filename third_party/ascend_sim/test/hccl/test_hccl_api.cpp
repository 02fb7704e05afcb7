// The HCCL C API's synchronous checks: set-up (root info, ranks, store,
// addresses, group-size rule, missing ranks), argument validation of the
// collectives (codes and messages, aclGetRecentErrMsg), queries.
#include <gtest/gtest.h>

#include <cstring>

#include "ascend_sim/hccl_sim.h"
#include "hccl/rendezvous.h"
#include "hccl_reference.h"
#include "hccl_test_util.h"

using namespace ascend_sim::test;

namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(HcclApi, ErrorStrings) {
  EXPECT_STREQ(HcclGetErrorString(HCCL_SUCCESS), "success");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_TIMEOUT), "timeout");
  EXPECT_STREQ(HcclGetErrorString(static_cast<HcclResult>(99)), "unknown HcclResult");
}

TEST(HcclApi, InitArgumentErrors) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  HcclRootInfo root;
  EXPECT_HCCL_ERR(HcclGetRootInfo(nullptr), HCCL_E_PTR);
  ASSERT_HCCL_OK(HcclGetRootInfo(&root));
  MemStore ms;
  HcclSimStore store = ms.view();
  HcclComm comm = reinterpret_cast<HcclComm>(0x1);
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(2, &root, 2, &store, nullptr, &comm), HCCL_E_PARA);
  EXPECT_EQ(comm, nullptr);
  EXPECT_TRUE(has(lastAclMessage(), "HcclSimCommInitRootInfoStore: rank 2 is out of range for nRanks 2"))
      << lastAclMessage();
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(0, &root, 0, &store, nullptr, &comm), HCCL_E_PARA);
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, nullptr, 0, &store, nullptr, &comm), HCCL_E_PTR);
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, &root, 0, nullptr, nullptr, &comm), HCCL_E_PTR);
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, &root, 0, &store, nullptr, nullptr), HCCL_E_PTR);
  HcclSimStore broken{nullptr, nullptr, nullptr};
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, &root, 0, &broken, nullptr, &comm), HCCL_E_PTR);
  HcclRootInfo junk;
  std::memset(&junk, 0, sizeof junk);
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, &junk, 0, &store, nullptr, &comm), HCCL_E_PARA);
  EXPECT_TRUE(has(lastAclMessage(), "rootInfo was not made by HcclGetRootInfo")) << lastAclMessage();
  HcclSimCommConfig cfg{1000, "203.0.113.7"};  // TEST-NET-3: never a local address
  EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, &root, 0, &store, &cfg, &comm), HCCL_E_TCP_CONNECT);
  EXPECT_TRUE(has(lastAclMessage(), "cannot use transport address '203.0.113.7' from HcclSimCommConfig.ifIp"))
      << lastAclMessage();
  {
    ScopedEnv ip("HCCL_IF_IP", "not-an-ip");
    EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, &root, 0, &store, nullptr, &comm), HCCL_E_TCP_CONNECT);
    EXPECT_TRUE(has(lastAclMessage(), "'not-an-ip' from HCCL_IF_IP")) << lastAclMessage();
  }
  {
    ScopedEnv t("HCCL_EXEC_TIMEOUT", "soon");
    EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(1, &root, 0, &store, nullptr, &comm), HCCL_E_PARA);
    EXPECT_TRUE(has(lastAclMessage(), "HCCL_EXEC_TIMEOUT='soon' is not a number of seconds")) << lastAclMessage();
  }
}

TEST(HcclApi, TimeoutSources) {
  using std::chrono::milliseconds;
  ScopedEnv unset("HCCL_EXEC_TIMEOUT", nullptr);
  EXPECT_EQ(ascend_sim::hccl::commTimeout(nullptr), milliseconds(1836000));
  HcclSimCommConfig cfg{750, nullptr};
  EXPECT_EQ(ascend_sim::hccl::commTimeout(&cfg), milliseconds(750));
  ScopedEnv t("HCCL_EXEC_TIMEOUT", "42");
  EXPECT_EQ(ascend_sim::hccl::commTimeout(nullptr), milliseconds(42000));
  EXPECT_EQ(ascend_sim::hccl::commTimeout(&cfg), milliseconds(750));
  // Set-up: HCCL_CONNECT_TIMEOUT, CANN's default and range.
  ScopedEnv no_connect("HCCL_CONNECT_TIMEOUT", nullptr);
  EXPECT_EQ(ascend_sim::hccl::connectTimeout(nullptr), milliseconds(120000));
  EXPECT_EQ(ascend_sim::hccl::connectTimeout(&cfg), milliseconds(750));
  ScopedEnv connect("HCCL_CONNECT_TIMEOUT", "200");
  EXPECT_EQ(ascend_sim::hccl::connectTimeout(nullptr), milliseconds(200000));
  for (const char* bad : {"100", "7201", "2m"}) {
    ScopedEnv b("HCCL_CONNECT_TIMEOUT", bad);
    try {
      ascend_sim::hccl::connectTimeout(nullptr);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::exception& e) {  // HcclError(HCCL_E_PARA)
      EXPECT_TRUE(has(e.what(), "is not a number of seconds in 120..7200")) << e.what();
    }
  }
}

TEST(HcclApi, MissingRanksAreNamedAfterTheTimeout) {
  HcclRootInfo root;
  ASSERT_HCCL_OK(HcclGetRootInfo(&root));
  MemStore ms;
  HcclSimStore store = ms.view();
  HcclSimCommConfig cfg{300, nullptr};
  runRanks(4, [&](int r) {
    if (r == 1 || r == 3) return;  // never join
    HcclComm comm = nullptr;
    EXPECT_HCCL_ERR(HcclSimCommInitRootInfoStore(4, &root, r, &store, &cfg, &comm), HCCL_E_TIMEOUT);
    EXPECT_TRUE(has(lastAclMessage(), "timed out after 300 ms waiting for ranks 1, 3 of 4 to join")) << lastAclMessage();
  });
}

TEST(HcclApi, GroupSizeRuleOf910A) {
  if (std::string(aclrtGetSocName()) != "Ascend910A") GTEST_SKIP() << "the rule is the 910A's";
  for (int p : {3, 6}) {
    Group g(p);
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(g.initResult(r), HCCL_E_NOT_SUPPORT) << "p " << p << " rank " << r;
      EXPECT_TRUE(has(g.initMessage(r), "Ascend910A supports 1, 2, 4 or 8 ranks of a communicator per server"))
          << g.initMessage(r);
      EXPECT_TRUE(has(g.initMessage(r), "has " + std::to_string(p) + " (ranks 0, 1, 2")) << g.initMessage(r);
      EXPECT_TRUE(has(g.initMessage(r), "ASCEND_SIM_SOC_VERSION=Ascend910B2")) << g.initMessage(r);
    }
  }
}

TEST(HcclApi, QueriesAndBadHandles) {
  Group g(2);
  ASSERT_TRUE(g.ok());
  for (int r = 0; r < 2; ++r) {
    uint32_t v = 99;
    ASSERT_HCCL_OK(HcclGetRankSize(g.comm(r), &v));
    EXPECT_EQ(v, 2u);
    ASSERT_HCCL_OK(HcclGetRankId(g.comm(r), &v));
    EXPECT_EQ(v, static_cast<uint32_t>(r));
    HcclResult async = HCCL_E_INTERNAL;
    ASSERT_HCCL_OK(HcclGetCommAsyncError(g.comm(r), &async));
    EXPECT_EQ(async, HCCL_SUCCESS);
    char buf[8] = "x";
    ASSERT_HCCL_OK(HcclSimGetCommErrorMessage(g.comm(r), buf, sizeof buf));
    EXPECT_STREQ(buf, "");
  }
  uint32_t v = 0;
  EXPECT_HCCL_ERR(HcclGetRankSize(g.comm(0), nullptr), HCCL_E_PTR);
  EXPECT_HCCL_ERR(HcclGetRankSize(nullptr, &v), HCCL_E_PTR);
  EXPECT_TRUE(has(lastAclMessage(), "HcclGetRankSize: comm must not be null")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclGetRankId(reinterpret_cast<HcclComm>(0xdead0), &v), HCCL_E_UNAVAIL);
  EXPECT_TRUE(has(lastAclMessage(), "is not a live communicator")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclCommDestroy(reinterpret_cast<HcclComm>(0xdead0)), HCCL_E_UNAVAIL);
  EXPECT_HCCL_ERR(HcclSimGetCommErrorMessage(g.comm(0), nullptr, 4), HCCL_E_PTR);
  char c;
  EXPECT_HCCL_ERR(HcclSimGetCommErrorMessage(g.comm(0), &c, 0), HCCL_E_PARA);
}

// Argument checks on a one-rank communicator (rank 0 on device 0).
class HcclValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    g_ = std::make_unique<Group>(1);
    ASSERT_TRUE(g_->ok()) << g_->initMessage(0);
    buf_ = std::make_unique<DevBuf>(4096);
  }
  void TearDown() override {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    buf_.reset();
    g_.reset();
  }
  HcclComm comm() { return g_->comm(0); }
  aclrtStream stream() { return g_->stream(0); }
  void* dev() { return buf_->get(); }

  std::unique_ptr<Group> g_;
  std::unique_ptr<DevBuf> buf_;
};

TEST_F(HcclValidation, NullAndEmptyBuffers) {
  EXPECT_HCCL_ERR(HcclAllReduce(dev(), dev(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, stream()), HCCL_E_PTR);
  EXPECT_TRUE(has(lastAclMessage(), "HcclAllReduce: comm must not be null")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclAllReduce(nullptr, dev(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm(), stream()), HCCL_E_PTR);
  EXPECT_TRUE(has(lastAclMessage(), "HcclAllReduce: sendBuf must not be null (16 bytes)")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclBroadcast(nullptr, 1, HCCL_DATA_TYPE_INT8, 0, comm(), stream()), HCCL_E_PTR);
  // Count 0: buffers may be null; the collective still runs (and is sequenced).
  EXPECT_HCCL_OK(HcclAllReduce(nullptr, nullptr, 0, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm(), stream()));
  EXPECT_HCCL_OK(HcclAllGather(nullptr, nullptr, 0, HCCL_DATA_TYPE_FP64, comm(), stream()));
  EXPECT_ACL_OK(aclrtSynchronizeStream(stream()));
}

TEST_F(HcclValidation, BuffersMustBeLiveMemoryOfTheCommDevice) {
  std::vector<char> host(64);
  EXPECT_HCCL_ERR(HcclAllReduce(host.data(), dev(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm(), stream()),
                  HCCL_E_MEMORY);
  EXPECT_TRUE(has(lastAclMessage(), "HcclAllReduce: sendBuf: pointer")) << lastAclMessage();
  EXPECT_TRUE(has(lastAclMessage(), "is not device memory")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclAllReduce(dev(), dev(), 2048, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm(), stream()),
                  HCCL_E_MEMORY);
  EXPECT_TRUE(has(lastAclMessage(), "overruns its allocation")) << lastAclMessage();
  ASSERT_ACL_OK(aclrtSetDevice(1));
  {
    DevBuf other(64);
    ASSERT_ACL_OK(aclrtSetDevice(0));
    EXPECT_HCCL_ERR(HcclAllReduce(dev(), other.get(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm(), stream()),
                    HCCL_E_MEMORY);
    EXPECT_TRUE(has(lastAclMessage(), "recvBuf " )) << lastAclMessage();
    EXPECT_TRUE(has(lastAclMessage(), "is memory of device 1, but rank 0 of the communicator runs on device 0"))
        << lastAclMessage();
  }
}

TEST_F(HcclValidation, DtypesOpsRootsAndRanks) {
  EXPECT_HCCL_ERR(HcclAllReduce(dev(), dev(), 4, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM, comm(), stream()),
                  HCCL_E_NOT_SUPPORT);
  EXPECT_TRUE(has(lastAclMessage(),
                  "HcclAllReduce: HcclAllReduce cannot reduce INT64 (reductions support INT8, "
                  "INT32, FP16, BFP16, FP32)"))
      << lastAclMessage();
  EXPECT_HCCL_ERR(HcclReduce(dev(), dev(), 4, HCCL_DATA_TYPE_INT16, HCCL_REDUCE_MAX, 0, comm(), stream()),
                  HCCL_E_NOT_SUPPORT);
  EXPECT_TRUE(has(lastAclMessage(), "cannot reduce INT16")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclReduceScatter(dev(), dev(), 4, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_SUM, comm(), stream()),
                  HCCL_E_NOT_SUPPORT);
  EXPECT_HCCL_ERR(HcclAllReduce(dev(), dev(), 4, static_cast<HcclDataType>(77), HCCL_REDUCE_SUM, comm(), stream()),
                  HCCL_E_PARA);
  EXPECT_TRUE(has(lastAclMessage(), "dataType 77 is not an HcclDataType")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclAllReduce(dev(), dev(), 4, HCCL_DATA_TYPE_FP32, static_cast<HcclReduceOp>(9), comm(), stream()),
                  HCCL_E_PARA);
  EXPECT_TRUE(has(lastAclMessage(), "op 9 is not an HcclReduceOp")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclBroadcast(dev(), 4, HCCL_DATA_TYPE_FP32, 1, comm(), stream()), HCCL_E_PARA);
  EXPECT_TRUE(has(lastAclMessage(), "HcclBroadcast: root 1 is out of range (the communicator has 1 ranks: 0..0)"))
      << lastAclMessage();
  EXPECT_HCCL_ERR(HcclSend(dev(), 4, HCCL_DATA_TYPE_FP32, 0, comm(), stream()), HCCL_E_PARA);
  EXPECT_TRUE(has(lastAclMessage(), "a rank cannot send to itself")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclRecv(dev(), 4, HCCL_DATA_TYPE_FP32, 3, comm(), stream()), HCCL_E_PARA);
  // Movement collectives take any dtype.
  EXPECT_HCCL_OK(HcclBroadcast(dev(), 4, HCCL_DATA_TYPE_UINT64, 0, comm(), stream()));
  EXPECT_ACL_OK(aclrtSynchronizeStream(stream()));
}

TEST_F(HcclValidation, AlltoAllVArguments) {
  const uint64_t one[1] = {4}, zero[1] = {0}, three[1] = {3};
  EXPECT_HCCL_ERR(HcclAlltoAllV(dev(), nullptr, zero, HCCL_DATA_TYPE_FP32, dev(), one, zero, HCCL_DATA_TYPE_FP32,
                                comm(), stream()),
                  HCCL_E_PTR);
  EXPECT_TRUE(has(lastAclMessage(), "sendCounts must not be null")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclAlltoAllV(dev(), one, zero, HCCL_DATA_TYPE_FP32, dev(), one, zero, HCCL_DATA_TYPE_INT32, comm(),
                                stream()),
                  HCCL_E_PARA);
  EXPECT_TRUE(has(lastAclMessage(), "recvType INT32 differs from sendType FP32")) << lastAclMessage();
  EXPECT_HCCL_ERR(HcclAlltoAllV(dev(), one, zero, HCCL_DATA_TYPE_FP32, dev(), three, zero, HCCL_DATA_TYPE_FP32,
                                comm(), stream()),
                  HCCL_E_PARA);
  EXPECT_TRUE(has(lastAclMessage(), "rank 0 sends 4 elements to itself but expects 3")) << lastAclMessage();
  const uint64_t big[1] = {4096};
  EXPECT_HCCL_ERR(HcclAlltoAllV(dev(), big, zero, HCCL_DATA_TYPE_FP32, dev(), big, zero, HCCL_DATA_TYPE_FP32, comm(),
                                stream()),
                  HCCL_E_MEMORY);
}

TEST_F(HcclValidation, StreamMustBelongToTheCommDevice) {
  ASSERT_ACL_OK(aclrtSetDevice(1));
  aclrtStream other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_HCCL_ERR(HcclBarrier(comm(), other), HCCL_E_RUNTIME);
  EXPECT_TRUE(has(lastAclMessage(), "belongs to device 1, but rank 0 of the communicator runs on device 0"))
      << lastAclMessage();
  ASSERT_ACL_OK(aclrtDestroyStream(other));
  EXPECT_HCCL_ERR(HcclBarrier(comm(), other), HCCL_E_RUNTIME);
  EXPECT_TRUE(has(lastAclMessage(), "not a live stream")) << lastAclMessage();
  // NULL: the default stream of the communicator's device.
  EXPECT_HCCL_OK(HcclBarrier(comm(), nullptr));
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
}

TEST(HcclApi, TwoCommunicatorsShareOneStore) {
  HcclRootInfo ra, rb;
  ASSERT_HCCL_OK(HcclGetRootInfo(&ra));
  ASSERT_HCCL_OK(HcclGetRootInfo(&rb));
  MemStore ms;
  HcclSimStore store = ms.view();
  runRanks(2, [&](int r) {
    HcclComm a = nullptr, b = nullptr;
    HcclSimCommConfig cfg{20000, "127.0.0.1"};
    ASSERT_HCCL_OK(HcclSimCommInitRootInfoStore(2, &ra, r, &store, &cfg, &a));
    ASSERT_HCCL_OK(HcclSimCommInitRootInfoStore(2, &rb, r, &store, &cfg, &b));
    DevBuf x(400), y(400);
    x.upload(sampleBuffer(HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r, 100));
    y.upload(sampleBuffer(HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, r, 100));
    ASSERT_HCCL_OK(HcclAllReduce(x.get(), x.get(), 100, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, a, nullptr));
    ASSERT_HCCL_OK(HcclAllReduce(y.get(), y.get(), 100, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, b, nullptr));
    ASSERT_ACL_OK(aclrtSynchronizeDevice());
    EXPECT_EQ(firstMismatch(x.download(400), expectedReduction(HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, 2, 100), 4), "");
    EXPECT_EQ(firstMismatch(y.download(400), expectedReduction(HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, 2, 100), 4), "");
    EXPECT_HCCL_OK(HcclCommDestroy(a));
    EXPECT_HCCL_OK(HcclCommDestroy(b));
  });
}

}  // namespace
