// The Transport between ranks on one host: byte rings in shared memory
// (Note [Shared-memory rings] in shm_segment.h), two memcpys per byte and no
// kernel on the data path. Chosen by the rendezvous when every rank is on one
// host and every rank could map every other rank's segment (Note [Choosing
// the transport] in rendezvous.cpp); GlooTransport serves the other cases.
//
// Note [Progress in shared memory]
// Nothing moves data in the background: a thread inside wait() moves every
// posted transfer of the transport as far as the rings allow (sends in
// posting order per peer, each as a header {tag, bytes} and its payload;
// received frames matched to posted receives of that peer by tag, in posting
// order), then sleeps on its doorbell until a peer rings it. Moving all of
// them, not just the one waited for, is what lets two ranks that each wait
// on a send larger than a ring drain each other. A frame whose receive is not
// posted yet stays in the ring (Note [Frames wait in the ring]) unless a
// later frame's receive is waiting behind it: then it is parked in an
// unexpected-message buffer and copied when its receive comes. Copies go in
// chunks, each published at once, so the reader copies out while the writer
// copies in.
//
// Note [Frames wait in the ring]
// A frame is read out of the ring only while some receive from that peer is
// posted. In a ring collective the left neighbour is often a step ahead: its
// next frame arrives while this rank still works on the current step. Parked,
// that frame would cost a buffer the size of the block and a second copy;
// left in the ring, it is read straight into (or reduced into) its
// destination once the next step posts its receive, and the sender meanwhile
// fills the ring and then waits, which is flow control. Waiting for the
// receive cannot deadlock a collective: every algorithm posts its receives
// before it waits for its sends (PeerIo::exchange).
//
// Note [Reducing while receiving]
// A reducing receive (postRecvReduce: the reduce-scatter steps of the
// reducing collectives) applies each chunk to its buffer straight from the
// ring, dst = dst (op) ring, instead of copying it to scratch and reducing
// afterwards: one pass over the data instead of three (copy out, read back,
// reduce), and no scratch buffer. The ring's chunks split at any byte (the
// writer publishes what fits, the ring wraps), so a chunk's tail that is not
// a whole element waits in the transfer's carry until the next chunk
// completes it. After a frame of odd length the ring's elements are not
// aligned; such runs are copied to an aligned buffer first, since the
// reduction loops (vectorised) need aligned operands. A frame parked before
// its receive was posted is reduced from the parked copy. Each element is
// reduced once, with the same operands in the same order as after a plain
// receive: the bits do not change.
//
// Failures follow Note [Transport contract]: a wait past its timeout is
// kTimeout; a peer that set `closed` (destroyed or aborted) or whose process
// is gone is kClosed once its ring holds nothing more for us; abort() wakes
// this rank's waits (kAborted) and sets `closed`, so the peers fail too.
#pragma once

#include <chrono>
#include <memory>

#include "hccl/transport/sim_store.h"
#include "hccl/transport/transport.h"

namespace ascend_sim {
namespace hccl {

class ShmEngine;

class ASCEND_SIM_API ShmTransport final : public Transport {  // exported for the tests
 public:
  struct Options : TransportOptions {
    size_t ring_bytes = 0;  // per peer; 0: the default
  };
  // Creates this rank's segment and maps every peer's through the store.
  // Null when some rank could not (then every rank returns null, having agreed
  // through the store), with the first reason in *why. Throws HcclError
  // (HCCL_E_TIMEOUT) if a rank did not answer in time.
  static std::unique_ptr<ShmTransport> connect(const Options& options, SimStore& store, std::string* why);
  ~ShmTransport() override;

  int rank() const override;
  int size() const override;
  const char* name() const override { return "shm"; }
  std::unique_ptr<PendingTransfer> postSend(int peer, uint64_t tag, const void* data, size_t bytes) override;
  std::unique_ptr<PendingTransfer> postRecv(int peer, uint64_t tag, void* data, size_t bytes) override;
  bool reducesOnReceive() const override { return true; }
  std::unique_ptr<PendingTransfer> postRecvReduce(int peer, uint64_t tag, void* data, size_t bytes,
                                                  ReceiveReducer& reducer) override;
  void wait(PendingTransfer& t, std::chrono::milliseconds timeout) override;
  void abort() noexcept override;
  // Frames read into the unexpected-message buffer so far (Note [Frames wait in the ring]).
  uint64_t framesParked() const;

 private:
  explicit ShmTransport(std::shared_ptr<ShmEngine> engine) : engine_(std::move(engine)) {}
  std::shared_ptr<ShmEngine> engine_;
};

}  // namespace hccl
}  // namespace ascend_sim
