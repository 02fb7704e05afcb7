#include "ascend_sim/hccl_sim.h"
#include "hccl/communicator.h"

#include "hccl/hccl_error.h"
#include "hccl/signature.h"

namespace ascend_sim {
namespace hccl {

namespace {
constexpr uint64_t kP2pBit = uint64_t(1) << 63;
constexpr uint64_t kDirectionBit = uint64_t(1) << 62;
constexpr int kSeqShift = 16;

HcclResult codeOf(TransportFailure f) {
  switch (f) {
    case TransportFailure::kClosed:
    case TransportFailure::kFailed: return HCCL_E_TCP_TRANSFER;
    case TransportFailure::kTimeout: return HCCL_E_TIMEOUT;
    case TransportFailure::kAborted: return HCCL_E_UNAVAIL;
  }
  return HCCL_E_INTERNAL;
}

bool isP2p(CollectiveKind k) {
  return k == CollectiveKind::kSend || k == CollectiveKind::kRecv || k == CollectiveKind::kBatchSendRecv;
}
}  // namespace

Communicator::Communicator(CommunicatorInfo info, std::unique_ptr<Transport> transport)
    : info_(std::move(info)), transport_(std::move(transport)) {}

const char* Communicator::transportName() const {
  const std::shared_ptr<Transport> t = transport();
  return t ? t->name() : "closed";
}

uint64_t Communicator::nextP2pSeq(bool send, int peer) {
  std::lock_guard<std::mutex> lock(mu_);
  return ++(send ? send_seq_ : recv_seq_)[peer];
}

void Communicator::throwIfFailed() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_code_ != HCCL_SUCCESS) throwHccl(HCCL_E_UNAVAIL, "communicator failed earlier: " + failure_message_);
}

std::string Communicator::describe(const CollectivePlan& plan) const {
  const CollectiveKind k = plan.args.kind;
  if (k == CollectiveKind::kBatchSendRecv)
    return collectiveName(k) + " (" + std::to_string(plan.args.batch ? plan.args.batch->size() : 0) +
           " transfers) on rank " + std::to_string(rank()) + " of " + std::to_string(size());
  std::string s = collectiveName(k) + " (seq " + std::to_string(plan.seq);
  if (k == CollectiveKind::kSend) s += " to rank " + std::to_string(plan.args.root);
  if (k == CollectiveKind::kRecv) s += " from rank " + std::to_string(plan.args.root);
  return s + ") on rank " + std::to_string(rank()) + " of " + std::to_string(size());
}

uint64_t Communicator::tagBase(const CollectivePlan& plan) const {
  if (!isP2p(plan.args.kind)) return plan.seq << kSeqShift;
  return p2pTagBase(plan.args.kind == CollectiveKind::kSend, plan.args.root, plan.seq);  // batch: per item
}

uint64_t Communicator::p2pTagBase(bool send, int peer, uint64_t seq) const {
  const int sender = send ? rank() : peer, receiver = send ? peer : rank();
  return kP2pBit | (sender < receiver ? kDirectionBit : 0) | (seq << kSeqShift);
}

std::shared_ptr<Transport> Communicator::transport() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!transport_) throwHccl(HCCL_E_UNAVAIL, "the communicator was destroyed");
  return transport_;
}

CollectiveOutcome Communicator::run(const CollectivePlan& plan) {
  std::shared_ptr<Transport> transport;
  try {
    throwIfFailed();  // queued behind a failure: fail without touching the network
    transport = this->transport();
  } catch (const HcclError& e) {
    throwHccl(e.code(), describe(plan) + ": " + e.what());  // nothing new to record
  }
  PeerIo io(*transport, tagBase(plan), info_.timeout);
  Reducer reduce(plan.args);
  try {
    if (!isP2p(plan.args.kind)) {
      PeerIo control(*transport, tagBase(plan), info_.timeout);  // not counted as data moved
      exchangeSignatures(control, Signature::of(plan.seq, plan.args));
    }
    makeAlgorithm(plan.choice, plan.args.kind, info_.links->placement(), rank())->run(io, plan.args, reduce);
  } catch (const TransportError& e) {
    failRun(plan, *transport, codeOf(e.kind()), e.what());
  } catch (const HcclError& e) {
    failRun(plan, *transport, e.code(), e.what());
  } catch (const std::exception& e) {
    failRun(plan, *transport, HCCL_E_INTERNAL, std::string("internal error: ") + e.what());
  }
  return CollectiveOutcome{io.bytesMoved(), reduce.overflowed()};
}

void Communicator::failRun(const CollectivePlan& plan, Transport& transport, HcclResult code, const std::string& why) {
  const std::string msg = describe(plan) + ": " + why;
  fail(code, msg);
  transport.abort();  // (fail() already did, unless a racing close() took transport_)
  throwHccl(code, msg);
}

void Communicator::fail(HcclResult code, const std::string& message) {
  std::shared_ptr<Transport> t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_code_ == HCCL_SUCCESS) {
      failure_code_ = code;
      failure_message_ = message;
    }
    t = transport_;
  }
  if (t) t->abort();  // outside the lock: abort may take a while to close sockets
}

void Communicator::close() {
  std::shared_ptr<Transport> t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    t = std::move(transport_);
  }
  // The last reference (here, or a racing run()) closes the connections.
}

void Communicator::abort() {
  fail(HCCL_E_UNAVAIL, "the communicator was aborted (HcclSimCommAbort) on rank " + std::to_string(rank()) +
                           " of " + std::to_string(size()));
}

HcclResult Communicator::asyncError(std::string* message) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (message) *message = failure_message_;
  return failure_code_;
}

void Communicator::taskSubmitted() {
  std::lock_guard<std::mutex> lock(mu_);
  ++pending_tasks_;
}

void Communicator::taskFinished() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --pending_tasks_;
  }
  tasks_cv_.notify_all();
}

void Communicator::waitForTasks() {
  std::unique_lock<std::mutex> lock(mu_);
  tasks_cv_.wait(lock, [&] { return pending_tasks_ == 0; });
}

}  // namespace hccl
}  // namespace ascend_sim
