// What an algorithm sees of the transport during one collective: sends and
// receives to ranks, tagged with the collective's tag base plus a step
// number, every wait bounded by the communicator's timeout, bytes counted
// for the profiler.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "hccl/transport/transport.h"

namespace ascend_sim {
namespace hccl {

class PeerIo {
 public:
  // Steps below kMaxStep are the algorithms'; the ones above are reserved
  // (signature exchange). See Note [Tags] in communicator.h.
  static constexpr uint32_t kMaxStep = 0xfff0;
  static constexpr uint32_t kStepMask = 0xffff;

  PeerIo(Transport& transport, uint64_t tag_base, std::chrono::milliseconds timeout)
      : t_(transport), tag_base_(tag_base), timeout_(timeout) {}

  // A view of `members` (ranks of the communicator; this rank among them) in which
  // rank i is members[i] and step s is the parent's step first_step + s: an
  // algorithm run on it is a sub-collective of the parent's collective (the
  // levels of a hierarchical all-reduce). Bytes count towards the parent.
  PeerIo subgroup(std::vector<int> members, uint32_t first_step);

  int rank() const { return members_.empty() ? t_.rank() : my_index_; }
  int size() const { return members_.empty() ? t_.size() : static_cast<int>(members_.size()); }

  struct Transfer {
    bool send;
    int peer;  // -1: skipped
    uint32_t step;
    void* data;
    size_t bytes;  // 0: skipped (both ends of a transfer must agree that it is empty)
    ReceiveReducer* reduce = nullptr;  // receives: reduce into data instead of storing
  };
  // Posts every transfer (receives first), then waits for all of them.
  // Throws TransportError.
  void exchange(std::initializer_list<Transfer> transfers) { exchange(std::vector<Transfer>(transfers)); }
  void exchange(const std::vector<Transfer>& transfers);

  void sendRecv(uint32_t step, int to, const void* send_buf, size_t send_bytes, int from, void* recv_buf,
                size_t recv_bytes) {
    exchange({{false, from, step, recv_buf, recv_bytes}, {true, to, step, const_cast<void*>(send_buf), send_bytes}});
  }
  // Like sendRecv, but the received bytes are reduced into acc (acc = acc (op)
  // incoming), while they arrive where the transport can, else after the wait.
  void sendRecvReduce(uint32_t step, int to, const void* send_buf, size_t send_bytes, int from, void* acc,
                      size_t recv_bytes, ReceiveReducer& reduce) {
    exchange({{false, from, step, acc, recv_bytes, &reduce},
              {true, to, step, const_cast<void*>(send_buf), send_bytes}});
  }
  void recvReduce(uint32_t step, int from, void* acc, size_t bytes, ReceiveReducer& reduce) {
    exchange({{false, from, step, acc, bytes, &reduce}});
  }
  void send(uint32_t step, int to, const void* buf, size_t bytes) {
    exchange({{true, to, step, const_cast<void*>(buf), bytes}});
  }
  void recv(uint32_t step, int from, void* buf, size_t bytes) { exchange({{false, from, step, buf, bytes}}); }

  // Like exchange, with a full tag per transfer (HcclBatchSendRecv: each item
  // has its own p2p sequence number).
  struct TaggedTransfer {
    bool send;
    int peer;
    uint64_t tag;
    void* data;
    size_t bytes;  // 0: skipped
    ReceiveReducer* reduce = nullptr;
  };
  void exchangeTagged(const std::vector<TaggedTransfer>& transfers);

  // Bytes this rank sent plus received so far.
  double bytesMoved() const { return bytes_; }

 private:
  int globalRank(int peer) const { return members_.empty() || peer < 0 ? peer : members_[peer]; }

  Transport& t_;
  const uint64_t tag_base_;
  const std::chrono::milliseconds timeout_;
  double bytes_ = 0;
  std::vector<int> members_;  // empty: the whole communicator
  int my_index_ = 0;
  uint32_t first_step_ = 0;
  PeerIo* parent_ = nullptr;  // counts the bytes of a subgroup too
};

}  // namespace hccl
}  // namespace ascend_sim
