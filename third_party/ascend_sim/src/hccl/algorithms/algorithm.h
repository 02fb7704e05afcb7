// The interface every collective algorithm implements (one class per
// algorithm, as in Gloo), and what it is given: the call's arguments with
// host views of the device buffers, the peer I/O of this collective, and the
// reduction to apply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ascend_sim/hccl.h"
#include "cost/cost_model.h"
#include "hccl/algorithms/peer_io.h"
#include "hccl/hccl_types.h"

namespace ascend_sim {
namespace hccl {

// HcclAlltoAllV's per-rank counts and displacements, in elements.
struct AlltoAllVLayout {
  std::vector<uint64_t> send_counts, sdispls, recv_counts, rdispls;
};

// One transfer of HcclBatchSendRecv, with the tag base of its (sender,
// receiver) p2p sequence number (Note [Tags] in communicator.h).
struct P2pItem {
  bool send = false;
  int peer = -1;
  HcclDataType dtype = HCCL_DATA_TYPE_INT8;
  uint64_t count = 0;
  void* data = nullptr;  // host view (nullptr when empty)
  uint64_t tag_base = 0;
};

struct CollectiveArgs {
  CollectiveKind kind = CollectiveKind::kBarrier;
  HcclDataType dtype = HCCL_DATA_TYPE_INT8;
  HcclReduceOp op = HCCL_REDUCE_SUM;   // reducing collectives only
  uint64_t count = 0;                  // as in hccl.h (AllGather: sendCount, ReduceScatter: recvCount)
  int root = 0;                        // Broadcast / Reduce root; Send: destination; Recv: source
  const void* send = nullptr;          // host views of the device buffers (nullptr when empty)
  void* recv = nullptr;                // Broadcast: the buffer (send == recv)
  std::shared_ptr<const AlltoAllVLayout> alltoallv;
  std::shared_ptr<const std::vector<P2pItem>> batch;  // kBatchSendRecv
  bool fp16_saturate = false;          // chip saturates fp16 (see reduce_kernel.h)

  size_t elemSize() const { return hcclDtypeSize(dtype); }
};

// Applies the call's reduction; remembers whether an fp16 result overflowed.
// Also what a reducing receive applies (PeerIo::sendRecvReduce).
class Reducer final : public ReceiveReducer {
 public:
  explicit Reducer(const CollectiveArgs& a) : dtype_(a.dtype), op_(a.op), saturate_(a.fp16_saturate) {}
  void operator()(void* dst, const void* src, uint64_t elems);
  size_t elementBytes() const override { return hcclDtypeSize(dtype_); }
  void reduceBytes(void* dst, const void* src, size_t bytes) override { (*this)(dst, src, bytes / elementBytes()); }
  bool overflowed() const { return overflow_; }

 private:
  HcclDataType dtype_;
  HcclReduceOp op_;
  bool saturate_;
  bool overflow_ = false;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  // This rank's part of the collective. Throws TransportError (transport
  // failures) or HcclError (e.g. counts that disagree between ranks).
  virtual void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) = 0;
};

struct AlgoChoice;
struct Placement;
// The implementation of `choice` for `kind` (kPointToPoint: send or receive
// side) on `rank` of `placement`.
std::unique_ptr<Algorithm> makeAlgorithm(const AlgoChoice& choice, CollectiveKind kind, const Placement& placement,
                                         int rank);

}  // namespace hccl
}  // namespace ascend_sim
