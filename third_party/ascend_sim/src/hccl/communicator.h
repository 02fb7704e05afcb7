// One rank's communicator: who it is (rank, size, device), its transport,
// the sequence numbers that order its collectives, and its first failure.
//
// Note [Tags]
// Every transfer is tagged (gloo "slot") so that concurrent or consecutive
// operations never mix their bytes:
//   collective  bit 63 = 0 | seq << 16            | step (16 bits)
//   send/recv   bit 63 = 1 | (sender < receiver) << 62 | p2p seq << 16 | step
// seq counts the collectives of the communicator in call order (from 1);
// the p2p seq counts the sends from one rank to another in call order, so
// the k-th HcclSend from a to b meets the k-th HcclRecv of b from a.
//
// Note [Failure is sticky]
// The first failure of any collective (transport error, timeout, mismatch,
// abort) is recorded with its code and message, and the transport is
// aborted: waits in progress end, connections close, so the peers fail fast
// too. From then on every collective fails at once with "communicator failed
// earlier: <first message>" (at the call if it comes later, when it runs if
// it was queued). Nothing is retried: the communicator must be destroyed.
//
// Threading: run() executes on stream worker threads (possibly several
// streams at once); the call-time methods, abort() and asyncError() may be
// called from any thread at any time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "hccl/algorithm_selection.h"
#include "hccl/algorithms/algorithm.h"
#include "hccl/link_model.h"
#include "hccl/transport/transport.h"

namespace ascend_sim {
namespace hccl {

struct CommunicatorInfo {
  std::string id;  // from the root info
  int rank = 0;
  int size = 1;
  int device = 0;
  std::chrono::milliseconds timeout{0};
  AlgoConfig algo_config;                  // HCCL_ALGO (Note [Algorithm choice])
  bool spans_hosts = false;                // real hosts: decides the transport
  std::shared_ptr<const LinkModel> links;  // the simulated servers and links: decide the time
};

// One collective as decided at call time.
struct CollectivePlan {
  CollectiveArgs args;
  uint64_t seq = 0;  // collective seq, or the p2p seq of (sender, receiver)
  AlgoChoice choice;
};

struct CollectiveOutcome {
  double bytes_moved = 0;      // sent + received by this rank
  bool fp16_overflow = false;  // a saturated fp16 reduction (raise the device flag)
};

class Communicator {
 public:
  Communicator(CommunicatorInfo info, std::unique_ptr<Transport> transport);
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  const CommunicatorInfo& info() const { return info_; }
  int rank() const { return info_.rank; }
  int size() const { return info_.size; }
  int device() const { return info_.device; }
  // The transport's name ("shm", "tcp"), or "closed" after close().
  const char* transportName() const;

  // Call time: reserve the next sequence number (see Note [Tags]).
  uint64_t nextCollectiveSeq() { return ++coll_seq_; }
  uint64_t nextP2pSeq(bool send, int peer);
  // The tag base of the seq-th transfer between this rank and `peer` (Note [Tags]).
  uint64_t p2pTagBase(bool send, int peer, uint64_t seq) const;
  // HcclError(HCCL_E_UNAVAIL) once failed; see Note [Failure is sticky].
  void throwIfFailed() const;

  // Runs the plan on the calling thread. Throws HcclError.
  CollectiveOutcome run(const CollectivePlan& plan);

  // HcclSimCommAbort: records the failure (if first) and aborts the transport.
  void abort();
  // HcclCommDestroy, after waitForTasks(): closes the connections (softly).
  // Later runs fail with HCCL_E_UNAVAIL.
  void close();
  // HCCL_SUCCESS while nothing failed; else the first failure's code (and message).
  HcclResult asyncError(std::string* message = nullptr) const;

  // Collectives submitted and not finished yet (HcclCommDestroy waits).
  void taskSubmitted();
  void taskFinished();
  void waitForTasks();

  // "HcclAllReduce (seq 7) on rank 0 of 2", "HcclSend (seq 2 to rank 1) on rank 0 of 2".
  std::string describe(const CollectivePlan& plan) const;

 private:
  uint64_t tagBase(const CollectivePlan& plan) const;
  void fail(HcclResult code, const std::string& message);
  // Records the failure of `plan`, aborts, and throws HcclError.
  [[noreturn]] void failRun(const CollectivePlan& plan, Transport& transport, HcclResult code, const std::string& why);
  std::shared_ptr<Transport> transport() const;

  const CommunicatorInfo info_;
  std::atomic<uint64_t> coll_seq_{0};

  mutable std::mutex mu_;
  std::shared_ptr<Transport> transport_;  // null once closed
  std::map<int, uint64_t> send_seq_, recv_seq_;  // per peer
  HcclResult failure_code_ = HCCL_SUCCESS;
  std::string failure_message_;
  uint64_t pending_tasks_ = 0;
  std::condition_variable tasks_cv_;
};

}  // namespace hccl
}  // namespace ascend_sim
