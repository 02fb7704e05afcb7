// The byte mover under the collective algorithms: tagged sends and receives
// of byte ranges to one peer, each completed by a wait with a timeout.
//
// Note [Transport contract]
// - A send posted with tag t to peer q matches the receive q posts with tag t
//   from this rank; several transfers with one (peer, tag) match in posting
//   order. Sizes must agree (the algorithms guarantee it).
// - The memory of a posted transfer must stay valid until its wait returns,
//   or until the transport is aborted / destroyed.
// - wait() ends within `timeout` (TransportError kTimeout) or when the peer's
//   connection breaks (kClosed). A timeout or a broken connection leaves the
//   transport unusable: the communicator treats either as fatal.
// - abort() may be called from any thread at any time: every wait in progress
//   ends promptly and every later post or wait fails with kAborted; the
//   connections are closed so that the peers fail too.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace ascend_sim {
namespace hccl {

enum class TransportFailure {
  kClosed,   // the peer closed (or reset) its connection
  kTimeout,  // the peer did not complete the transfer in time
  kAborted,  // this transport was aborted
  kFailed,   // any other transfer error
};

class TransportError : public std::runtime_error {
 public:
  TransportError(TransportFailure kind, int peer, const std::string& msg)
      : std::runtime_error(msg), kind_(kind), peer_(peer) {}
  TransportFailure kind() const { return kind_; }
  int peer() const { return peer_; }  // -1 if not about one peer

 private:
  TransportFailure kind_;
  int peer_;
};

// A posted send or receive, completed by Transport::wait.
class PendingTransfer {
 public:
  virtual ~PendingTransfer() = default;
};

// What a reducing receive applies to the bytes it receives, instead of
// storing them: dst = dst (op) src, element by element (Note [Reducing while
// receiving] in shm_transport.h).
class ReceiveReducer {
 public:
  virtual size_t elementBytes() const = 0;
  // bytes is a whole number of elements.
  virtual void reduceBytes(void* dst, const void* src, size_t bytes) = 0;

 protected:
  ~ReceiveReducer() = default;
};

// What every transport is connected with.
struct TransportOptions {
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout{0};  // set-up waits (store, connections)
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "shm" or "tcp" (static storage).
  virtual const char* name() const = 0;
  // Post a transfer (never blocks for the peer). Throw TransportError.
  virtual std::unique_ptr<PendingTransfer> postSend(int peer, uint64_t tag, const void* data, size_t bytes) = 0;
  virtual std::unique_ptr<PendingTransfer> postRecv(int peer, uint64_t tag, void* data, size_t bytes) = 0;
  // A receive that reduces the incoming bytes into `data` (which holds the
  // other operand) instead of overwriting it. Only where reducesOnReceive();
  // elsewhere the caller receives into scratch and reduces after the wait.
  virtual bool reducesOnReceive() const { return false; }
  virtual std::unique_ptr<PendingTransfer> postRecvReduce(int peer, uint64_t tag, void* data, size_t bytes,
                                                          ReceiveReducer& reducer) {
    (void)peer, (void)tag, (void)data, (void)bytes, (void)reducer;
    throw std::logic_error(std::string(name()) + " transport does not reduce while receiving");
  }
  // Blocks until `t` completes; throws TransportError (see the Note).
  virtual void wait(PendingTransfer& t, std::chrono::milliseconds timeout) = 0;
  virtual void abort() noexcept = 0;
};

}  // namespace hccl
}  // namespace ascend_sim
