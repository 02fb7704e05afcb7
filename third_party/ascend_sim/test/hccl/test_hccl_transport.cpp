// The byte movers under the HCCL algorithms (Note [Transport contract]):
// the shared-memory transport and the TCP (gloo) one, driven directly by two
// rank threads of this process, and the choice between them at rendezvous.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "ascend_sim/hccl_sim.h"
#include "hccl/transport/gloo_transport.h"
#include "hccl/transport/shm_segment.h"
#include "hccl/transport/shm_transport.h"
#include "hccl/transport/sim_store.h"
#include "hccl_test_util.h"
#include "sim_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

using hccl::PendingTransfer;
using hccl::Transport;
using hccl::TransportError;
using hccl::TransportFailure;
using std::chrono::milliseconds;

constexpr milliseconds kTimeout{20000};

std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<char>((i * 131 + seed * 17 + (i >> 12)) & 0xff);
  return v;
}

// Two connected transports of the kind under test (ring of the shared-memory
// one: 64 KB, so that megabytes wrap it many times).
class TransportPair {
 public:
  explicit TransportPair(const std::string& kind) : t_(2) {
    HcclSimStore view = store_.view();
    runRanks(2, [&](int r) {
      hccl::SimStore store(view, "transport-test/");
      if (kind == "shm") {
        hccl::ShmTransport::Options o;
        static_cast<hccl::TransportOptions&>(o) = {r, 2, kTimeout};
        o.ring_bytes = 64 << 10;
        std::string why;
        t_[r] = hccl::ShmTransport::connect(o, store, &why);
        EXPECT_NE(t_[r], nullptr) << why;
      } else {
        hccl::GlooTransport::Options o;
        static_cast<hccl::TransportOptions&>(o) = {r, 2, kTimeout};
        o.ip = "127.0.0.1";
        t_[r] = hccl::GlooTransport::connect(o, store);
      }
    });
  }
  Transport& operator[](int r) { return *t_[r]; }
  void destroy(int r) { t_[r].reset(); }

 private:
  MemStore store_;
  std::vector<std::unique_ptr<Transport>> t_;
};

// The failure a wait ends with (or "none").
std::string failureOf(Transport& t, PendingTransfer& p, milliseconds timeout, TransportFailure* kind = nullptr) {
  try {
    t.wait(p, timeout);
  } catch (const TransportError& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "none";
}

class TransportTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TransportTest, ReceivesMatchSendsByTagInWhateverOrderTheyArePosted) {
  TransportPair pair(GetParam());
  const auto small = pattern(100, 1), big = pattern(3 << 20, 2), last = pattern(7, 3);
  runRanks(2, [&](int r) {
    if (r == 0) {
      auto a = pair[0].postSend(1, 10, small.data(), small.size());
      auto b = pair[0].postSend(1, 20, big.data(), big.size());
      auto c = pair[0].postSend(1, 10, last.data(), last.size());  // same tag again: matched in order
      EXPECT_EQ(failureOf(pair[0], *a, kTimeout), "none");
      EXPECT_EQ(failureOf(pair[0], *b, kTimeout), "none");
      EXPECT_EQ(failureOf(pair[0], *c, kTimeout), "none");
    } else {
      std::vector<char> got_big(big.size()), got_small(small.size()), got_last(last.size());
      auto b = pair[1].postRecv(0, 20, got_big.data(), got_big.size());
      EXPECT_EQ(failureOf(pair[1], *b, kTimeout), "none");  // the tag-10 frame ahead of it is parked
      auto a = pair[1].postRecv(0, 10, got_small.data(), got_small.size());
      auto c = pair[1].postRecv(0, 10, got_last.data(), got_last.size());
      EXPECT_EQ(failureOf(pair[1], *c, kTimeout), "none");
      EXPECT_EQ(failureOf(pair[1], *a, kTimeout), "none");
      EXPECT_EQ(got_big, big);
      EXPECT_EQ(got_small, small);
      EXPECT_EQ(got_last, last);
    }
  });
}

TEST_P(TransportTest, TwoRanksSendingMoreThanARingToEachOtherBothFinish) {
  TransportPair pair(GetParam());
  const size_t bytes = 5 << 20;
  const std::vector<char> out[2] = {pattern(bytes, 4), pattern(bytes, 5)};
  runRanks(2, [&](int r) {
    std::vector<char> in(bytes);
    auto recv = pair[r].postRecv(1 - r, 7, in.data(), bytes);
    auto send = pair[r].postSend(1 - r, 7, out[r].data(), bytes);
    EXPECT_EQ(failureOf(pair[r], *send, kTimeout), "none");  // progress must drain the peer's ring meanwhile
    EXPECT_EQ(failureOf(pair[r], *recv, kTimeout), "none");
    EXPECT_TRUE(in == out[1 - r]) << "rank " << r;
  });
}

TEST_P(TransportTest, AWaitWithNoPeerTimesOutNamingThePeer) {
  TransportPair pair(GetParam());
  char buf[8];
  auto recv = pair[0].postRecv(1, 1, buf, sizeof buf);
  TransportFailure kind{};
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(failureOf(pair[0], *recv, milliseconds(150), &kind), "timed out after 150 ms waiting for rank 1");
  EXPECT_EQ(kind, TransportFailure::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, milliseconds(140));
}

TEST_P(TransportTest, AbortEndsAWaitInProgressAndLaterPosts) {
  TransportPair pair(GetParam());
  char buf[8];
  auto recv = pair[0].postRecv(1, 1, buf, sizeof buf);
  std::thread aborter([&] {
    std::this_thread::sleep_for(milliseconds(100));
    pair[0].abort();
  });
  TransportFailure kind{};
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(failureOf(pair[0], *recv, kTimeout, &kind), "the communicator was aborted");
  aborter.join();
  EXPECT_EQ(kind, TransportFailure::kAborted);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(5000));
  EXPECT_THROW(pair[0].postSend(1, 2, buf, sizeof buf), TransportError);
  // The peer learns that rank 0 is gone (gloo may tell it at the post already).
  try {
    auto peer_recv = pair[1].postRecv(0, 3, buf, sizeof buf);
    EXPECT_EQ(failureOf(pair[1], *peer_recv, kTimeout, &kind), "rank 0 closed the connection");
  } catch (const TransportError& e) {
    EXPECT_STREQ(e.what(), "rank 0 closed the connection");
    kind = e.kind();
  }
  EXPECT_EQ(kind, TransportFailure::kClosed);
}

// (Over TCP the receive must be posted before the close for that.)
TEST(ShmTransport, DataSentBeforeThePeerClosedIsStillReceived) {
  TransportPair pair("shm");
  const auto data = pattern(1000, 6);
  auto send = pair[0].postSend(1, 5, data.data(), data.size());
  EXPECT_EQ(failureOf(pair[0], *send, kTimeout), "none");
  send.reset();
  pair.destroy(0);
  std::vector<char> got(data.size());
  auto recv = pair[1].postRecv(0, 5, got.data(), got.size());
  EXPECT_EQ(failureOf(pair[1], *recv, kTimeout), "none");
  EXPECT_EQ(got, data);
  auto more = pair[1].postRecv(0, 6, got.data(), got.size());
  EXPECT_EQ(failureOf(pair[1], *more, kTimeout), "rank 0 closed the connection");
}

INSTANTIATE_TEST_SUITE_P(Kinds, TransportTest, ::testing::Values("shm", "tcp"),
                         [](const auto& info) { return info.param; });

TEST(ShmTransport, AReceiveDroppedBeforeItsFrameArrivesLeavesTheStreamUsable) {
  TransportPair pair("shm");
  const auto first = pattern(200 << 10, 7), second = pattern(300, 8);
  {
    std::vector<char> sink(first.size());
    auto dropped = pair[1].postRecv(0, 1, sink.data(), sink.size());
  }  // its frame will be parked, then matched by nobody
  std::vector<char> got(second.size());
  runRanks(2, [&](int r) {
    if (r == 1) {
      auto recv = pair[1].postRecv(0, 2, got.data(), got.size());
      EXPECT_EQ(failureOf(pair[1], *recv, kTimeout), "none");
      return;
    }
    auto a = pair[0].postSend(1, 1, first.data(), first.size());
    auto b = pair[0].postSend(1, 2, second.data(), second.size());
    EXPECT_EQ(failureOf(pair[0], *a, kTimeout), "none");
    EXPECT_EQ(failureOf(pair[0], *b, kTimeout), "none");
  });
  EXPECT_EQ(got, second);
}

TEST(ShmTransport, ASizeThatDisagreesWithTheReceiveFailsIt) {
  TransportPair pair("shm");
  const auto data = pattern(64, 9);
  std::vector<char> got(32);
  auto recv = pair[1].postRecv(0, 1, got.data(), got.size());
  auto send = pair[0].postSend(1, 1, data.data(), data.size());
  EXPECT_EQ(failureOf(pair[0], *send, kTimeout), "none");
  EXPECT_EQ(failureOf(pair[1], *recv, kTimeout), "rank 0 sent 64 bytes with tag 1 where this rank expected 32");
}

// A ring collective's left neighbour is a step ahead: its next frame is in
// the ring before this rank posts the receive. It must wait there, not be
// parked (a second copy); a frame is parked only when a later frame's
// receive is waiting behind it.
TEST(ShmTransport, AFrameWaitsInTheRingUntilItsReceiveIsPosted) {
  TransportPair pair("shm");
  const auto first = pattern(1000, 16), second = pattern(2000, 17);
  auto a = pair[0].postSend(1, 1, first.data(), first.size());
  auto b = pair[0].postSend(1, 2, second.data(), second.size());
  EXPECT_EQ(failureOf(pair[0], *a, kTimeout), "none");  // both frames are in rank 1's ring now
  EXPECT_EQ(failureOf(pair[0], *b, kTimeout), "none");
  auto& shm = static_cast<hccl::ShmTransport&>(pair[1]);
  std::vector<char> got_first(first.size()), got_second(second.size());
  auto ra = pair[1].postRecv(0, 1, got_first.data(), got_first.size());
  EXPECT_EQ(failureOf(pair[1], *ra, kTimeout), "none");
  EXPECT_EQ(shm.framesParked(), 0u);
  auto rb = pair[1].postRecv(0, 2, got_second.data(), got_second.size());
  EXPECT_EQ(failureOf(pair[1], *rb, kTimeout), "none");
  EXPECT_EQ(shm.framesParked(), 0u);
  EXPECT_EQ(got_first, first);
  EXPECT_EQ(got_second, second);
  // Posted out of order, the receive of tag 4 needs tag 3's frame out of the way.
  auto c = pair[0].postSend(1, 3, first.data(), first.size());
  auto d = pair[0].postSend(1, 4, second.data(), second.size());
  EXPECT_EQ(failureOf(pair[0], *c, kTimeout), "none");
  EXPECT_EQ(failureOf(pair[0], *d, kTimeout), "none");
  auto rd = pair[1].postRecv(0, 4, got_second.data(), got_second.size());
  EXPECT_EQ(failureOf(pair[1], *rd, kTimeout), "none");
  EXPECT_EQ(shm.framesParked(), 1u);
  auto rc = pair[1].postRecv(0, 3, got_first.data(), got_first.size());
  EXPECT_EQ(failureOf(pair[1], *rc, kTimeout), "none");
  EXPECT_EQ(got_first, first);
  EXPECT_EQ(got_second, second);
}

// dst += src on wrapping 32-bit integers, counting the calls; checks that both are aligned.
class AddInt32 final : public hccl::ReceiveReducer {
 public:
  size_t elementBytes() const override { return 4; }
  void reduceBytes(void* dst, const void* src, size_t bytes) override {
    ASSERT_EQ(bytes % 4, 0u);
    // Aligned operands, as the vectorised reduction loops need them.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(dst) % 4, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(src) % 4, 0u);
    for (size_t i = 0; i < bytes; i += 4) {
      uint32_t a, b;
      std::memcpy(&a, static_cast<char*>(dst) + i, 4);
      std::memcpy(&b, static_cast<const char*>(src) + i, 4);
      a += b;
      std::memcpy(static_cast<char*>(dst) + i, &a, 4);
    }
    ++calls;
  }
  int calls = 0;
};

std::vector<char> added(const std::vector<char>& a, const std::vector<char>& b) {
  std::vector<char> sum = a;
  AddInt32().reduceBytes(sum.data(), b.data(), sum.size());
  return sum;
}

// Note [Reducing while receiving]: a 7-byte frame first, so that every later
// chunk (64 KB ring, wrapped ~16 times) starts and ends inside an element.
TEST(ShmTransport, AReducingReceiveReducesChunksSplitInsideElements) {
  TransportPair pair("shm");
  const auto odd = pattern(7, 10), incoming = pattern((1 << 20) + 12, 11), start = pattern(incoming.size(), 12);
  std::vector<char> got_odd(odd.size()), acc = start;
  AddInt32 add;
  runRanks(2, [&](int r) {
    if (r == 0) {
      auto a = pair[0].postSend(1, 1, odd.data(), odd.size());
      auto b = pair[0].postSend(1, 2, incoming.data(), incoming.size());
      EXPECT_EQ(failureOf(pair[0], *a, kTimeout), "none");
      EXPECT_EQ(failureOf(pair[0], *b, kTimeout), "none");
      return;
    }
    auto a = pair[1].postRecv(0, 1, got_odd.data(), got_odd.size());
    auto b = pair[1].postRecvReduce(0, 2, acc.data(), acc.size(), add);
    EXPECT_EQ(failureOf(pair[1], *a, kTimeout), "none");
    EXPECT_EQ(failureOf(pair[1], *b, kTimeout), "none");
  });
  EXPECT_EQ(got_odd, odd);
  EXPECT_TRUE(acc == added(start, incoming));
  EXPECT_GT(add.calls, 16);  // reduced chunk by chunk, not staged
}

TEST(ShmTransport, AReducingReceivePostedAfterItsFrameArrivedReducesTheParkedCopy) {
  TransportPair pair("shm");
  const auto early = pattern(1000, 13), later = pattern(24, 14), start = pattern(early.size(), 15);
  std::vector<char> got_later(later.size()), acc = start;
  AddInt32 add;
  runRanks(2, [&](int r) {
    if (r == 0) {
      auto a = pair[0].postSend(1, 1, early.data(), early.size());
      auto b = pair[0].postSend(1, 2, later.data(), later.size());
      EXPECT_EQ(failureOf(pair[0], *a, kTimeout), "none");
      EXPECT_EQ(failureOf(pair[0], *b, kTimeout), "none");
      return;
    }
    auto b = pair[1].postRecv(0, 2, got_later.data(), got_later.size());
    EXPECT_EQ(failureOf(pair[1], *b, kTimeout), "none");  // tag 1's frame is parked by now
    auto a = pair[1].postRecvReduce(0, 1, acc.data(), acc.size(), add);
    EXPECT_EQ(failureOf(pair[1], *a, kTimeout), "none");
  });
  EXPECT_EQ(got_later, later);
  EXPECT_TRUE(acc == added(start, early));
}

TEST(ShmSegment, ThePeerSeesTheOwnerAliveUntilTheOwnerLetsGo) {
  const std::string name = "/ascend_sim_test_segment." + std::to_string(::getpid());
  std::string why;
  auto owner = hccl::ShmSegment::create(name, 0, 2, 4096, 42, &why);
  ASSERT_NE(owner, nullptr) << why;
  EXPECT_EQ(hccl::ShmSegment::open(name, 0, 2, 41, &why), nullptr);  // wrong nonce: another segment
  EXPECT_NE(why.find("does not hold the segment rank 0 published"), std::string::npos) << why;
  auto peer = hccl::ShmSegment::open(name, 0, 2, 42, &why);
  ASSERT_NE(peer, nullptr) << why;
  owner->unlink();
  EXPECT_TRUE(peer->ownerAlive());
  owner.reset();  // what the kernel does for a process that dies: its flock goes
  EXPECT_FALSE(peer->ownerAlive());
}

TEST(HcclTransportChoice, RanksOnOneHostUseSharedMemoryUnlessTcpIsAskedFor) {
  const char* name = nullptr;
  {
    Group g(2);
    ASSERT_TRUE(g.ok()) << g.initMessage(0);
    ASSERT_HCCL_OK(HcclSimCommTransport(g.comm(1), &name));
    EXPECT_STREQ(name, "shm");
  }
  {
    ScopedEnv tcp("ASCEND_SIM_HCCL_TRANSPORT", "tcp");
    Group g(2);
    ASSERT_TRUE(g.ok()) << g.initMessage(0);
    ASSERT_HCCL_OK(HcclSimCommTransport(g.comm(0), &name));
    EXPECT_STREQ(name, "tcp");
  }
  ScopedEnv bad("ASCEND_SIM_HCCL_TRANSPORT", "udp");
  Group g(2);
  EXPECT_EQ(g.initResult(0), HCCL_E_PARA);
  EXPECT_NE(g.initMessage(0).find("ASCEND_SIM_HCCL_TRANSPORT='udp' is not one of auto, shm, tcp"), std::string::npos)
      << g.initMessage(0);
}

TEST(HcclTransportChoice, CollectivesAndFailuresBehaveTheSameOverTcp) {
  if (isTestChild()) GTEST_SKIP();
  ChildResult r = runSelf("HcclCollectives*:HcclFailures.*:HcclBatch*", "ASCEND_SIM_HCCL_TRANSPORT=tcp");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[  PASSED  ]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
