#include "ascend_sim/acl_sim.h"
#include "hccl/collective_submit.h"

#include <limits>
#include <numeric>

#include "hccl/hccl_error.h"
#include "hccl/hccl_types.h"
#include "runtime/error_state.h"
#include "runtime/runtime.h"

namespace ascend_sim {
namespace hccl {

namespace {

// Bytes the cost formula calls n (Note [Collective cost]).
double costBytes(const CollectiveArgs& a, int p, int rank) {
  const double es = static_cast<double>(a.elemSize());
  switch (a.kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: return static_cast<double>(a.count) * p * es;
    case CollectiveKind::kAlltoAllV: {
      const AlltoAllVLayout& l = *a.alltoallv;
      double sent = 0, received = 0;
      for (int j = 0; j < p; ++j) {
        if (j == rank) continue;  // the own part is a local copy
        sent += static_cast<double>(l.send_counts[j]);
        received += static_cast<double>(l.recv_counts[j]);
      }
      return std::max(sent, received) * es;
    }
    case CollectiveKind::kBarrier: return 0;
    case CollectiveKind::kBatchSendRecv: {
      double sent = 0, received = 0;
      for (const P2pItem& it : *a.batch)
        (it.send ? sent : received) += static_cast<double>(it.count * hcclDtypeSize(it.dtype));
      return std::max(sent, received);
    }
    default: return static_cast<double>(a.count) * es;
  }
}

// The flows of a send, receive or batch, from this rank's side.
std::vector<Flow> p2pFlows(const CollectiveArgs& a, int rank, double n) {
  switch (a.kind) {
    case CollectiveKind::kSend: return {Flow{rank, a.root, n}};
    case CollectiveKind::kRecv: return {Flow{a.root, rank, n}};
    case CollectiveKind::kBatchSendRecv: {
      std::vector<Flow> flows;
      for (const P2pItem& it : *a.batch) {
        const double bytes = static_cast<double>(it.count * hcclDtypeSize(it.dtype));
        flows.push_back(it.send ? Flow{rank, it.peer, bytes} : Flow{it.peer, rank, bytes});
      }
      return flows;
    }
    default: return {};
  }
}

std::string shapesOf(const CollectiveArgs& a, const std::string& algo, int p) {
  std::string s;
  switch (a.kind) {
    case CollectiveKind::kBarrier: return "barrier:" + algo + ":p=" + std::to_string(p);
    case CollectiveKind::kBatchSendRecv:
      return "items=" + std::to_string(a.batch->size()) + ":" + algo + ":p=" + std::to_string(p);
    case CollectiveKind::kAllGather: s = "sendCount=" + std::to_string(a.count); break;
    case CollectiveKind::kReduceScatter: s = "recvCount=" + std::to_string(a.count); break;
    case CollectiveKind::kAlltoAllV: {
      const AlltoAllVLayout& l = *a.alltoallv;
      s = "send=" + std::to_string(std::accumulate(l.send_counts.begin(), l.send_counts.end(), uint64_t(0))) +
          ",recv=" + std::to_string(std::accumulate(l.recv_counts.begin(), l.recv_counts.end(), uint64_t(0)));
      break;
    }
    default: s = "count=" + std::to_string(a.count);
  }
  s += ":" + hcclDtypeName(a.dtype);
  if (isReducing(a.kind)) s += ":" + hcclOpName(a.op);
  s += ":" + algo + ":p=" + std::to_string(p);
  if (a.kind == CollectiveKind::kBroadcast || a.kind == CollectiveKind::kReduce) s += ":root=" + std::to_string(a.root);
  if (a.kind == CollectiveKind::kSend) s += ":dst=" + std::to_string(a.root);
  if (a.kind == CollectiveKind::kRecv) s += ":src=" + std::to_string(a.root);
  return s;
}

}  // namespace

std::shared_ptr<Stream> collectiveStream(const Communicator& comm, aclrtStream handle) {
  Runtime& rt = Runtime::get();
  if (!handle) return rt.device(comm.device()).defaultStream();
  std::shared_ptr<Stream> s;
  try {
    s = rt.stream(handle);
  } catch (const AclError& e) {
    throwHccl(HCCL_E_RUNTIME, e.what());
  }
  if (s->capture()) {  // Note [Model capture]: checked before the collective takes its sequence number
    s->invalidateCapture("a collective");
    throwHccl(HCCL_E_NOT_SUPPORT,
              "stream " + std::to_string(s->id()) + " of device " + std::to_string(s->device()) +
                  " is capturing a model; collectives cannot be captured (the capture is invalidated)");
  }
  if (s->device() != comm.device())
    throwHccl(HCCL_E_RUNTIME, "stream " + ptrString(handle) + " belongs to device " + std::to_string(s->device()) +
                                  ", but rank " + std::to_string(comm.rank()) + " of the communicator runs on device " +
                                  std::to_string(comm.device()) + " (use a stream created on that device)");
  return s;
}

void* deviceView(const Communicator& comm, const void* p, uint64_t bytes, const char* what) {
  if (bytes == 0) return nullptr;
  if (!p) throwHccl(HCCL_E_PTR, std::string(what) + " must not be null (" + std::to_string(bytes) + " bytes)");
  DeviceRange r;
  try {
    r = Runtime::get().resolve(p, bytes);
  } catch (const AclError& e) {
    throwHccl(HCCL_E_MEMORY, std::string(what) + ": " + e.what());
  }
  if (r.device != comm.device())
    throwHccl(HCCL_E_MEMORY, std::string(what) + " " + ptrString(p) + " is memory of device " +
                                 std::to_string(r.device) + ", but rank " + std::to_string(comm.rank()) +
                                 " of the communicator runs on device " + std::to_string(comm.device()));
  return r.host;
}

uint64_t checkedBytes(HcclDataType dt, uint64_t count, bool reducing, const char* api) {
  const size_t es = hcclDtypeSize(dt);
  if (es == 0)
    throwHccl(HCCL_E_PARA, "dataType " + std::to_string(static_cast<int>(dt)) + " is not an HcclDataType");
  if (reducing && !isReducibleDtype(dt))
    throwHccl(HCCL_E_NOT_SUPPORT, std::string(api) + " cannot reduce " + hcclDtypeName(dt) +
                                      " (reductions support " + kReducibleDtypes + ")");
  if (count > std::numeric_limits<uint64_t>::max() / es)
    throwHccl(HCCL_E_PARA, "count " + std::to_string(count) + " of " + hcclDtypeName(dt) + " overflows a byte size");
  return count * es;
}

void checkOp(HcclReduceOp op) {
  if (!isValidOp(op))
    throwHccl(HCCL_E_PARA, "op " + std::to_string(static_cast<int>(op)) +
                               " is not an HcclReduceOp (HCCL_REDUCE_SUM, _PROD, _MAX or _MIN)");
}

void checkRank(const Communicator& comm, uint32_t r, const char* what) {
  if (r >= static_cast<uint32_t>(comm.size()))
    throwHccl(HCCL_E_PARA, std::string(what) + " " + std::to_string(r) + " is out of range (the communicator has " +
                               std::to_string(comm.size()) + " ranks: 0.." + std::to_string(comm.size() - 1) + ")");
}

void submitCollective(const std::shared_ptr<Communicator>& comm, Stream& stream, CollectiveArgs args) {
  comm->throwIfFailed();
  Runtime& rt = Runtime::get();
  CollectivePlan plan;
  args.fp16_saturate = rt.chip().fp16_saturation;
  const int p = comm->size();
  const double n = costBytes(args, p, comm->rank());
  const LinkModel& links = *comm->info().links;
  plan.choice =
      chooseAlgorithm(args.kind, comm->info().algo_config, links.placement(), rt.chip(), static_cast<uint64_t>(n));
  auto detail = std::make_shared<TaskDetail>();
  detail->shapes = shapesOf(args, choiceName(plan.choice), p);
  detail->core = ACL_CORE_DMA;
  const double us = scheduleUs(rt.cost(), links, plan.choice, n, args.root, p2pFlows(args, comm->rank(), n));
  plan.args = std::move(args);
  Device* device = &rt.device(comm->device());
  // After every check that can fail: a sequence number once taken must reach
  // the stream, or this rank would be out of step with its peers.
  const bool p2p = plan.args.kind == CollectiveKind::kSend || plan.args.kind == CollectiveKind::kRecv;
  if (plan.args.kind == CollectiveKind::kBatchSendRecv)
    plan.seq = 0;  // each item took its own p2p seq (HcclBatchSendRecv)
  else
    plan.seq = p2p ? comm->nextP2pSeq(plan.args.kind == CollectiveKind::kSend, plan.args.root) : comm->nextCollectiveSeq();

  struct Finished {  // counts the task as finished however run() ends
    Communicator* c;
    ~Finished() { c->taskFinished(); }
  };
  Task task;
  task.kind = TaskKind::kCollective;
  task.name = collectiveName(plan.args.kind);
  task.run = [comm, plan, detail, device, us](Stream&) {
    Finished finished{comm.get()};
    const CollectiveOutcome out = comm->run(plan);
    detail->bytes = out.bytes_moved;
    if (out.fp16_overflow) device->raiseOverflow();
    return us;
  };
  task.detail = detail;
  comm->taskSubmitted();
  try {
    stream.submit(std::move(task));
  } catch (...) {
    comm->taskFinished();
    throw;
  }
}

}  // namespace hccl
}  // namespace ascend_sim
