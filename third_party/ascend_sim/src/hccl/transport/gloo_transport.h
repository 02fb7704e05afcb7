// The Transport over gloo's TCP transport layer: a full mesh of gloo pairs
// (rendezvous through the caller's store) and one gloo unbound buffer per
// posted transfer. Only gloo's transport is used; the collective algorithms
// are ours (src/hccl/algorithms).
//
// Note [Waits, timeouts and abort over gloo]
// A wait is gloo's waitRecv/waitSend with the collective's timeout. When gloo
// times out it closes every pair of the context itself (the peers then see a
// closed connection), which matches our rule that a timeout is fatal for the
// communicator. abort() marks the transport aborted under mu_, wakes every
// wait in progress with abortWaitRecv/abortWaitSend (gloo keeps that flag
// until the next wait, so an abort that lands between our check and gloo's
// wait is not lost), then hard-closes the connections. Destroying the
// transport closes the connections softly (FIN after the queued bytes), so a
// peer finishing its last receive of a collective still gets its data.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "hccl/transport/sim_store.h"
#include "hccl/transport/transport.h"

namespace gloo {
class Context;
namespace transport {
class Device;
}
}  // namespace gloo

namespace ascend_sim {
namespace hccl {

class GlooTransfer;

class ASCEND_SIM_API GlooTransport final : public Transport {  // exported for the tests
 public:
  struct Options : TransportOptions {
    std::string ip;  // local address to listen on
  };
  // Connects this rank to every other one. Throws HcclError: HCCL_E_TIMEOUT if
  // a peer's address did not appear in the store in time, HCCL_E_TCP_CONNECT
  // for any other set-up failure.
  static std::unique_ptr<GlooTransport> connect(const Options& options, SimStore& store);
  ~GlooTransport() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* name() const override { return "tcp"; }
  std::unique_ptr<PendingTransfer> postSend(int peer, uint64_t tag, const void* data, size_t bytes) override;
  std::unique_ptr<PendingTransfer> postRecv(int peer, uint64_t tag, void* data, size_t bytes) override;
  void wait(PendingTransfer& t, std::chrono::milliseconds timeout) override;
  void abort() noexcept override;

 private:
  GlooTransport(int rank, int size) : rank_(rank), size_(size) {}
  std::unique_ptr<GlooTransfer> post(bool send, int peer, uint64_t tag, void* data, size_t bytes);
  TransportError translate(const std::exception& e, int peer, std::chrono::milliseconds timeout);
  void throwIfAborted(int peer);

  const int rank_;
  const int size_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> context_;
  std::mutex mu_;
  bool aborted_ = false;
  std::unordered_set<GlooTransfer*> waiting_;  // transfers inside a gloo wait (abort wakes them)
};

}  // namespace hccl
}  // namespace ascend_sim
