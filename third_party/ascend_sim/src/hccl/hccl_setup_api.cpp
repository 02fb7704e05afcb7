// C API: error strings, communicator set-up and tear-down, queries.
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "ascend_sim/hccl.h"
#include "ascend_sim/hccl_sim.h"
#include "hccl/algorithm_selection.h"
#include "hccl/collective_schedule.h"
#include "hccl/comm_registry.h"
#include "hccl/hccl_guard.h"
#include "hccl/rendezvous.h"
#include "hccl/link_model.h"
#include "hccl/placement.h"
#include "hccl/root_info.h"
#include "chip/chip_config.h"
#include "cost/cost_model.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

using namespace ascend_sim;
using namespace ascend_sim::hccl;

namespace {

// A stable C string for a choice name (there are few distinct ones).
const char* internedName(const std::string& name) {
  static std::mutex mu;
  static std::set<std::string> names;
  std::lock_guard<std::mutex> lock(mu);
  return names.insert(name).first->c_str();
}
void requireOut(const void* p, const char* what) {
  if (!p) throwHccl(HCCL_E_PTR, std::string(what) + " must not be null");
}
}  // namespace

extern "C" {

ASCEND_SIM_API const char* HcclGetErrorString(HcclResult code) {
  switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "parameter error";
    case HCCL_E_PTR: return "empty pointer";
    case HCCL_E_MEMORY: return "memory error";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "not supported";
    case HCCL_E_NOT_FOUND: return "not found";
    case HCCL_E_UNAVAIL: return "resource unavailable";
    case HCCL_E_SYSCALL: return "system call error";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_OPEN_FILE_FAILURE: return "open file failure";
    case HCCL_E_TCP_CONNECT: return "tcp connect failure";
    case HCCL_E_ROCE_CONNECT: return "roce connect failure";
    case HCCL_E_TCP_TRANSFER: return "tcp transfer failure";
    case HCCL_E_ROCE_TRANSFER: return "roce transfer failure";
    case HCCL_E_RUNTIME: return "runtime error";
    case HCCL_E_DRV: return "driver error";
    case HCCL_E_PROFILING: return "profiling error";
    case HCCL_E_CCE: return "cce error";
    case HCCL_E_NETWORK: return "network error";
    case HCCL_E_AGAIN: return "try again";
    case HCCL_E_REMOTE: return "remote error (ranks called different operations)";
  }
  return "unknown HcclResult";
}

ASCEND_SIM_API HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) {
  return guardHccl("HcclGetRootInfo", [&] {
    requireOut(rootInfo, "rootInfo");
    makeRootInfo(rootInfo);
  });
}

ASCEND_SIM_API HcclResult HcclSimCommInitRootInfoStore(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                                       const HcclSimStore* store, const HcclSimCommConfig* config,
                                                       HcclComm* comm) {
  return guardHccl("HcclSimCommInitRootInfoStore", [&] {
    requireOut(comm, "comm");
    *comm = nullptr;
    requireOut(rootInfo, "rootInfo");
    requireOut(store, "store");
    if (nRanks == 0) throwHccl(HCCL_E_PARA, "nRanks must be at least 1");
    if (rank >= nRanks)
      throwHccl(HCCL_E_PARA, "rank " + std::to_string(rank) + " is out of range for nRanks " + std::to_string(nRanks) +
                                 " (valid ranks are 0.." + std::to_string(nRanks - 1) + ")");
    *comm = registerComm(joinCommunicator(nRanks, *rootInfo, rank, *store, config));
  });
}

ASCEND_SIM_API HcclResult HcclCommDestroy(HcclComm comm) {
  return guardHccl("HcclCommDestroy", [&] {
    std::shared_ptr<Communicator> c = unregisterComm(comm);
    // From a stream callback the queued collectives may sit behind the caller:
    // do not wait there (they then fail with "the communicator was destroyed").
    if (!Stream::onWorkerThread()) c->waitForTasks();
    c->close();
  });
}

ASCEND_SIM_API HcclResult HcclSimCommAbort(HcclComm comm) {
  return guardHccl("HcclSimCommAbort", [&] { lookupComm(comm)->abort(); });
}

ASCEND_SIM_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) {
  return guardHccl("HcclGetRankSize", [&] {
    auto c = lookupComm(comm);
    requireOut(rankSize, "rankSize");
    *rankSize = static_cast<uint32_t>(c->size());
  });
}

ASCEND_SIM_API HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) {
  return guardHccl("HcclGetRankId", [&] {
    auto c = lookupComm(comm);
    requireOut(rank, "rank");
    *rank = static_cast<uint32_t>(c->rank());
  });
}

ASCEND_SIM_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) {
  return guardHccl("HcclGetCommAsyncError", [&] {
    auto c = lookupComm(comm);
    requireOut(asyncError, "asyncError");
    *asyncError = c->asyncError();
  });
}

ASCEND_SIM_API HcclResult HcclSimGetCommErrorMessage(HcclComm comm, char* buf, size_t len) {
  return guardHccl("HcclSimGetCommErrorMessage", [&] {
    auto c = lookupComm(comm);
    requireOut(buf, "buf");
    if (len == 0) throwHccl(HCCL_E_PARA, "len must be at least 1 (room for the terminating NUL)");
    std::string msg;
    c->asyncError(&msg);
    const size_t n = std::min(msg.size(), len - 1);
    std::memcpy(buf, msg.data(), n);
    buf[n] = '\0';
  });
}

ASCEND_SIM_API HcclResult HcclSimAllReduceAlgorithm(HcclComm comm, uint64_t bytes, const char** name) {
  return guardHccl("HcclSimAllReduceAlgorithm", [&] {
    auto c = lookupComm(comm);
    requireOut(name, "name");
    *name = internedName(choiceName(chooseAlgorithm(CollectiveKind::kAllReduce, c->info().algo_config,
                                                    c->info().links->placement(), Runtime::get().chip(), bytes)));
  });
}

ASCEND_SIM_API HcclResult HcclSimCommTransport(HcclComm comm, const char** name) {
  return guardHccl("HcclSimCommTransport", [&] {
    auto c = lookupComm(comm);
    requireOut(name, "name");
    *name = c->transportName();
  });
}

}  // extern "C"

namespace {

constexpr uint64_t kMaxPredictedNpus = 8192;  // the all-to-all schedule holds p^2 flows

CollectiveKind kindNamed(const std::string& kind) {
  static const std::pair<const char*, CollectiveKind> kinds[] = {{"allreduce", CollectiveKind::kAllReduce},
                                                                 {"allgather", CollectiveKind::kAllGather},
                                                                 {"reducescatter", CollectiveKind::kReduceScatter},
                                                                 {"broadcast", CollectiveKind::kBroadcast},
                                                                 {"reduce", CollectiveKind::kReduce},
                                                                 {"alltoall", CollectiveKind::kAlltoAllV},
                                                                 {"barrier", CollectiveKind::kBarrier},
                                                                 {"send", CollectiveKind::kSend}};
  for (const auto& [name, k] : kinds)
    if (kind == name) return k;
  throwHccl(
      HCCL_E_PARA,
      "kind '" + kind + "' is not allreduce, allgather, reducescatter, broadcast, reduce, alltoall, barrier or send");
}

}  // namespace

ASCEND_SIM_API HcclResult HcclSimPredictCollective(const char* socVersion, uint32_t servers, uint32_t perServer,
                                                   const char* kind, double bytes, const char* hcclAlgo, double* us,
                                                   const char** algoName) {
  return guardHccl("HcclSimPredictCollective", [&] {
    requireOut(us, "us");
    if (!socVersion || !kind) throwHccl(HCCL_E_PTR, "socVersion and kind must not be null");
    const ChipConfig chip = ChipConfig::preset(socVersion);
    if (servers == 0 || perServer == 0 || perServer > static_cast<uint32_t>(chip.server_devices) ||
        uint64_t(servers) * perServer > kMaxPredictedNpus)
      throwHccl(HCCL_E_PARA, "a cluster of " + std::to_string(servers) + " x " + std::to_string(perServer) +
                                 " NPUs: servers must be >= 1, NPUs per server 1.." +
                                 std::to_string(chip.server_devices) + " (" + chip.soc_name + "), and at most " +
                                 std::to_string(kMaxPredictedNpus) + " NPUs");
    if (chip.hccl_ranks_per_host_1_2_4_8 && perServer != 1 && perServer != 2 && perServer != 4 && perServer != 8)
      throwHccl(HCCL_E_NOT_SUPPORT, std::string(chip.soc_name) +
                                        " supports 1, 2, 4 or 8 ranks of a communicator per "
                                        "server, not " +
                                        std::to_string(perServer));
    if (!(bytes >= 0) || bytes > 1e18)
      throwHccl(HCCL_E_PARA, "bytes must be in 0..1e18 (got " + std::to_string(bytes) + ")");
    const LinkModel links(chip, Placement::uniform(static_cast<int>(servers), static_cast<int>(perServer)));
    const CollectiveKind k = kindNamed(kind);
    const AlgoChoice choice =
        chooseAlgorithm(k, parseAlgoConfig(hcclAlgo, nullptr), links.placement(), chip, static_cast<uint64_t>(bytes));
    const int p = links.placement().size();
    const std::vector<Flow> p2p =
        k == CollectiveKind::kSend && p > 1 ? std::vector<Flow>{Flow{0, p - 1, bytes}} : std::vector<Flow>{};
    *us = scheduleUs(CostModel(chip), links, choice, bytes, 0, p2p);
    if (algoName) *algoName = internedName(choiceName(choice));
  });
}
