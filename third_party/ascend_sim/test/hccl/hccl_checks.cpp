// See hccl_checks.h.
#include "hccl_checks.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "hccl_reference.h"

namespace ascend_sim {
namespace test {

namespace {

std::string what(const char* api, HcclDataType dt, uint64_t count, int rank) {
  return std::string(api) + " dtype " + std::to_string(dt) + " count " + std::to_string(count) + " rank " +
         std::to_string(rank);
}

uint64_t maxOf(const std::vector<uint64_t>& v) {
  uint64_t m = 0;
  for (uint64_t x : v) m = std::max(m, x);
  return m;
}

}  // namespace

const std::vector<HcclDataType>& reducibleTypes() {
  static const std::vector<HcclDataType> v{HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_FP16,
                                           HCCL_DATA_TYPE_BFP16, HCCL_DATA_TYPE_FP32};
  return v;
}

const std::vector<HcclDataType>& movementTypes() {
  static const std::vector<HcclDataType> v{HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_FP16,
                                           HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_FP64};
  return v;
}

const std::vector<HcclReduceOp>& allOps() {
  static const std::vector<HcclReduceOp> v{HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN};
  return v;
}

void checkAllReduce(Group& g, const std::vector<HcclDataType>& dts, const std::vector<HcclReduceOp>& ops,
                    const std::vector<uint64_t>& counts) {
  const int p = g.size();
  runRanks(p, [&](int r) {
    const size_t cap = maxOf(counts) * 4;
    DevBuf send(cap), recv(cap);
    for (HcclDataType dt : dts)
      for (HcclReduceOp op : ops)
        for (uint64_t n : counts)
          for (bool in_place : {false, true}) {
            const size_t bytes = n * elemSize(dt);
            send.upload(sampleBuffer(dt, op, r, n));
            void* out = in_place ? send.get() : recv.get();
            ASSERT_HCCL_OK(HcclAllReduce(send.get(), out, n, dt, op, g.comm(r), g.stream(r)));
            ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
            const auto got = (in_place ? send : recv).download(bytes);
            EXPECT_EQ(firstMismatch(got, expectedReduction(dt, op, p, n), elemSize(dt)), "")
                << what("HcclAllReduce", dt, n, r) << " op " << op << (in_place ? " in place" : "");
          }
  });
}

void checkBroadcast(Group& g, const std::vector<HcclDataType>& dts, const std::vector<uint64_t>& counts) {
  const int p = g.size();
  runRanks(p, [&](int r) {
    DevBuf buf(maxOf(counts) * 8);
    int variant = 0;
    for (HcclDataType dt : dts)
      for (uint64_t n : counts) {
        const int root = (variant++ * 3 + 1) % p;  // roots vary across the calls
        const size_t bytes = n * elemSize(dt);
        buf.upload(r == root ? patternBytes(root, bytes) : std::vector<uint8_t>(bytes, 0xee));
        ASSERT_HCCL_OK(HcclBroadcast(buf.get(), n, dt, static_cast<uint32_t>(root), g.comm(r), g.stream(r)));
        ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
        EXPECT_EQ(firstMismatch(buf.download(bytes), patternBytes(root, bytes), elemSize(dt)), "")
            << what("HcclBroadcast", dt, n, r) << " root " << root;
      }
  });
}

void checkReduce(Group& g, const std::vector<HcclDataType>& dts, const std::vector<HcclReduceOp>& ops,
                 const std::vector<uint64_t>& counts) {
  const int p = g.size();
  runRanks(p, [&](int r) {
    const size_t cap = maxOf(counts) * 4;
    DevBuf send(cap), recv(cap);
    int variant = 0;
    for (HcclDataType dt : dts)
      for (HcclReduceOp op : ops)
        for (uint64_t n : counts) {
          const int root = (variant++) % p;
          const bool in_place = variant % 2 == 0;
          const size_t bytes = n * elemSize(dt);
          const auto input = sampleBuffer(dt, op, r, n);
          send.upload(input);
          recv.upload(std::vector<uint8_t>(bytes, 0xee));
          void* out = in_place ? send.get() : recv.get();
          ASSERT_HCCL_OK(HcclReduce(send.get(), out, n, dt, op, static_cast<uint32_t>(root), g.comm(r), g.stream(r)));
          ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
          if (r == root) {
            EXPECT_EQ(firstMismatch((in_place ? send : recv).download(bytes), expectedReduction(dt, op, p, n),
                                    elemSize(dt)),
                      "")
                << what("HcclReduce", dt, n, r) << " op " << op << " root " << root;
          } else {  // only the root's receive buffer is written; inputs stay
            EXPECT_EQ(firstMismatch(send.download(bytes), input, elemSize(dt)), "") << what("HcclReduce", dt, n, r);
            if (!in_place) {
              EXPECT_EQ(firstMismatch(recv.download(bytes), std::vector<uint8_t>(bytes, 0xee), 1), "")
                  << what("HcclReduce", dt, n, r);
            }
          }
        }
  });
}

void checkAllGather(Group& g, const std::vector<HcclDataType>& dts, const std::vector<uint64_t>& counts) {
  const int p = g.size();
  runRanks(p, [&](int r) {
    const size_t cap = maxOf(counts) * 8;
    DevBuf send(cap), recv(cap * p);
    for (HcclDataType dt : dts)
      for (uint64_t n : counts)
        for (bool in_place : {false, true}) {
          const size_t bytes = n * elemSize(dt);
          std::vector<uint8_t> want;
          for (int q = 0; q < p; ++q) {
            const auto part = patternBytes(q, bytes);
            want.insert(want.end(), part.begin(), part.end());
          }
          recv.upload(std::vector<uint8_t>(bytes * p, 0xee));
          void* in = send.get();
          if (in_place) {  // the send part is this rank's slice of the receive buffer
            in = recv.at(bytes * r);
            ASSERT_ACL_OK(aclrtMemcpy(in, bytes ? bytes : 1, patternBytes(r, bytes).data(), bytes,
                                      ACL_MEMCPY_HOST_TO_DEVICE));
          } else {
            send.upload(patternBytes(r, bytes));
          }
          ASSERT_HCCL_OK(HcclAllGather(in, recv.get(), n, dt, g.comm(r), g.stream(r)));
          ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
          EXPECT_EQ(firstMismatch(recv.download(bytes * p), want, elemSize(dt)), "")
              << what("HcclAllGather", dt, n, r) << (in_place ? " in place" : "");
        }
  });
}

void checkReduceScatter(Group& g, const std::vector<HcclDataType>& dts, const std::vector<HcclReduceOp>& ops,
                        const std::vector<uint64_t>& counts) {
  const int p = g.size();
  runRanks(p, [&](int r) {
    const size_t cap = maxOf(counts) * 4;
    DevBuf send(cap * p), recv(cap);
    for (HcclDataType dt : dts)
      for (HcclReduceOp op : ops)
        for (uint64_t n : counts)
          for (bool in_place : {false, true}) {
            const size_t bytes = n * elemSize(dt);
            const auto input = sampleBuffer(dt, op, r, n * p);
            send.upload(input);
            void* out = in_place ? send.at(bytes * r) : recv.get();
            ASSERT_HCCL_OK(HcclReduceScatter(send.get(), out, n, dt, op, g.comm(r), g.stream(r)));
            ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
            const auto got = in_place ? send.download(bytes * p) : recv.download(bytes);
            const auto want_block = expectedReduction(dt, op, p, n, n * r);
            if (in_place) {  // only this rank's slice changes
              auto want = input;
              std::copy(want_block.begin(), want_block.end(), want.begin() + bytes * r);
              EXPECT_EQ(firstMismatch(got, want, elemSize(dt)), "")
                  << what("HcclReduceScatter", dt, n, r) << " op " << op << " in place";
            } else {
              EXPECT_EQ(firstMismatch(got, want_block, elemSize(dt)), "")
                  << what("HcclReduceScatter", dt, n, r) << " op " << op;
              EXPECT_EQ(firstMismatch(send.download(bytes * p), input, elemSize(dt)), "") << "sendBuf changed";
            }
          }
  });
}

void checkAlltoAllV(Group& g, const std::vector<HcclDataType>& dts, const std::vector<uint64_t>& scales) {
  const int p = g.size();
  runRanks(p, [&](int r) {
    int k = 0;
    for (HcclDataType dt : dts)
      for (uint64_t scale : scales) {
        const size_t es = elemSize(dt);
        auto count = [&](int i, int j) { return static_cast<uint64_t>((3 * i + 5 * j + k) % 4) * scale; };
        std::vector<uint64_t> sc(p), sd(p), rc(p), rd(p);
        uint64_t s_end = 0, r_end = 0;
        for (int j = 0; j < p; ++j) {
          sc[j] = count(r, j), sd[j] = s_end, s_end += sc[j] + 1;
          rc[j] = count(j, r), rd[j] = r_end, r_end += rc[j] + 1;
        }
        // Part for rank j: the pattern of (r, j); rank j expects (j's sender) parts.
        std::vector<uint8_t> in(s_end * es, 0);
        for (int j = 0; j < p; ++j) {
          const auto part = patternBytes(r, sc[j] * es, 0, j);
          std::copy(part.begin(), part.end(), in.begin() + sd[j] * es);
        }
        std::vector<uint8_t> want(r_end * es, 0xee);
        for (int j = 0; j < p; ++j) {
          const auto part = patternBytes(j, rc[j] * es, 0, r);
          std::copy(part.begin(), part.end(), want.begin() + rd[j] * es);
        }
        DevBuf send(in.size()), recv(want.size());
        send.upload(in);
        recv.upload(std::vector<uint8_t>(want.size(), 0xee));
        ASSERT_HCCL_OK(HcclAlltoAllV(send.get(), sc.data(), sd.data(), dt, recv.get(), rc.data(), rd.data(), dt,
                                     g.comm(r), g.stream(r)));
        ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
        EXPECT_EQ(firstMismatch(recv.download(want.size()), want, es), "")
            << what("HcclAlltoAllV", dt, scale, r) << " k " << k;
        ++k;
      }
  });
}

void checkSendRecvOrder(Group& g, const std::vector<uint64_t>& counts) {
  const int p = g.size();
  runRanks(p, [&](int r) {
    const int peer = r ^ 1;
    if (peer >= p) return;  // odd p: the last rank sits out
    const bool sender = r % 2 == 0;
    std::vector<std::unique_ptr<DevBuf>> bufs;
    for (size_t m = 0; m < counts.size(); ++m) {
      const size_t bytes = counts[m] * 4;
      bufs.push_back(std::make_unique<DevBuf>(bytes));
      if (sender) {
        bufs.back()->upload(patternBytes(r, bytes, 0, static_cast<int>(m)));
        ASSERT_HCCL_OK(HcclSend(bufs.back()->get(), counts[m], HCCL_DATA_TYPE_FP32, peer, g.comm(r), g.stream(r)));
      } else {
        ASSERT_HCCL_OK(HcclRecv(bufs.back()->get(), counts[m], HCCL_DATA_TYPE_FP32, peer, g.comm(r), g.stream(r)));
      }
    }
    ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
    if (!sender) {
      for (size_t m = 0; m < counts.size(); ++m)
        EXPECT_EQ(firstMismatch(bufs[m]->download(counts[m] * 4), patternBytes(peer, counts[m] * 4, 0, int(m)), 4), "")
            << "message " << m << " on rank " << r;
    }
  });
}

namespace {
struct BarrierProbe {
  std::atomic<int>* arrived;
  int seen_after = -1;
};
void arrive(void* p) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  static_cast<BarrierProbe*>(p)->arrived->fetch_add(1);
}
void look(void* p) {
  auto* b = static_cast<BarrierProbe*>(p);
  b->seen_after = b->arrived->load();
}
}  // namespace

void checkBarrier(Group& g) {
  const int p = g.size();
  std::atomic<int> arrived{0};
  std::vector<BarrierProbe> probes(p, BarrierProbe{&arrived});
  runRanks(p, [&](int r) {
    // Later ranks arrive later; nobody may pass before the last one arrived.
    std::this_thread::sleep_for(std::chrono::milliseconds(10 * r));
    ASSERT_ACL_OK(aclrtLaunchCallback(&arrive, &probes[r], g.stream(r)));
    ASSERT_HCCL_OK(HcclBarrier(g.comm(r), g.stream(r)));
    ASSERT_ACL_OK(aclrtLaunchCallback(&look, &probes[r], g.stream(r)));
    ASSERT_ACL_OK(aclrtSynchronizeStream(g.stream(r)));
  });
  for (int r = 0; r < p; ++r) EXPECT_EQ(probes[r].seen_after, p) << "rank " << r << " left the barrier early";
}

}  // namespace test
}  // namespace ascend_sim
