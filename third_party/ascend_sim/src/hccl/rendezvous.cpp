#include "ascend_sim/hccl_sim.h"
#include "hccl/rendezvous.h"

#include <cstdlib>
#include <sstream>
#include <vector>

#include "hccl/hccl_error.h"
#include "hccl/root_info.h"
#include "hccl/topology.h"
#include "hccl/transport/gloo_transport.h"
#include "hccl/transport/local_address.h"
#include "hccl/transport/shm_transport.h"
#include "hccl/transport/sim_store.h"
#include "runtime/runtime.h"

namespace ascend_sim {
namespace hccl {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string rankKey(uint32_t r) { return "rank/" + std::to_string(r); }

RankPlace parsePlace(const std::string& value, uint32_t r) {
  std::istringstream in(value);
  RankPlace p;
  std::string device, ip;
  if (!std::getline(in, p.host) || !std::getline(in, device) || !std::getline(in, ip) || !std::getline(in, p.server))
    throwHccl(HCCL_E_INTERNAL, "malformed rendezvous record of rank " + std::to_string(r) + ": '" + value + "'");
  p.device = std::atoi(device.c_str());
  return p;
}

// Every rank's place, in rank order; HCCL_E_TIMEOUT naming the missing ranks.
std::vector<RankPlace> gatherPlaces(SimStore& store, uint32_t nranks, uint32_t rank, const RankPlace& mine,
                                    milliseconds timeout) {
  std::vector<RankPlace> places(nranks);
  places[rank] = mine;
  const auto deadline = Clock::now() + timeout;
  std::vector<uint32_t> missing;
  for (uint32_t r = 0; r < nranks; ++r) {
    if (r == rank) continue;
    // After the deadline each remaining rank still gets a 1 ms look, so that
    // the error names every missing rank, not just the first.
    const auto left = std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
    std::string value;
    const auto asked = Clock::now();
    if (store.get(rankKey(r), left, &value)) {
      places[r] = parsePlace(value, r);
    } else if (Clock::now() - asked + milliseconds(50) < left) {
      // The store gave up long before the deadline: it failed, nobody timed out.
      throwHccl(HCCL_E_TCP_CONNECT, "the rendezvous store failed while rank " + std::to_string(rank) +
                                        " was reading the record of rank " + std::to_string(r) + " of " +
                                        std::to_string(nranks) + " (is the store's server, e.g. rank 0, still alive?)");
    } else {
      missing.push_back(r);
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (uint32_t r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
    throwHccl(HCCL_E_TIMEOUT, "timed out after " + std::to_string(timeout.count()) + " ms waiting for rank" +
                                  (missing.size() > 1 ? "s " : " ") + list + " of " + std::to_string(nranks) +
                                  " to join (every rank must call HcclSimCommInitRootInfoStore with the same "
                                  "root info and store)");
  }
  return places;
}

enum class TransportChoice { kAuto, kShm, kTcp };

TransportChoice transportChoice() {
  const char* env = std::getenv("ASCEND_SIM_HCCL_TRANSPORT");
  if (!env || !*env || std::string(env) == "auto") return TransportChoice::kAuto;
  if (std::string(env) == "shm") return TransportChoice::kShm;
  if (std::string(env) == "tcp") return TransportChoice::kTcp;
  throwHccl(HCCL_E_PARA, std::string("ASCEND_SIM_HCCL_TRANSPORT='") + env +
                             "' is not one of auto, shm, tcp (unset it to choose by host)");
}

// Note [Choosing the transport]
// Ranks that all live on one host move bytes through shared memory
// (ShmTransport), the others over TCP (GlooTransport, which also serves a
// communicator of which only some ranks share a host). "One host" is the
// host name of the rendezvous records, and then proven: every rank must map
// every other rank's segment and find the random nonce it published (two
// containers with one host name but separate /dev/shm fail that, and fall
// back to TCP together, since all ranks read the same verdicts from the
// store). ASCEND_SIM_HCCL_TRANSPORT=shm|tcp forces one; shm then fails when
// it is not possible instead of falling back.
std::unique_ptr<Transport> connectTransport(const CommunicatorInfo& info, const LocalAddress& addr, SimStore& store) {
  const TransportChoice choice = transportChoice();
  if (choice == TransportChoice::kShm && info.spans_hosts)
    throwHccl(HCCL_E_PARA, "ASCEND_SIM_HCCL_TRANSPORT=shm, but the ranks of this communicator are on several hosts");
  const TransportOptions common{info.rank, info.size, info.timeout};
  if (choice != TransportChoice::kTcp && !info.spans_hosts) {
    ShmTransport::Options opt;
    static_cast<TransportOptions&>(opt) = common;
    std::string why;
    if (auto shm = ShmTransport::connect(opt, store, &why)) return shm;
    if (choice == TransportChoice::kShm)
      throwHccl(HCCL_E_PARA, "ASCEND_SIM_HCCL_TRANSPORT=shm, but the shared-memory transport is not possible: " + why);
  }
  GlooTransport::Options opt;
  static_cast<TransportOptions&>(opt) = common;
  opt.ip = addr.ip;
  return GlooTransport::connect(opt, store);
}

}  // namespace

milliseconds commTimeout(const HcclSimCommConfig* config) {
  if (config && config->timeoutMs > 0) return milliseconds(config->timeoutMs);
  if (const char* env = std::getenv("HCCL_EXEC_TIMEOUT"); env && *env) {
    char* end = nullptr;
    const long long s = std::strtoll(env, &end, 10);
    if (*end != '\0' || s <= 0 || s > 24 * 3600)
      throwHccl(HCCL_E_PARA, std::string("HCCL_EXEC_TIMEOUT='") + env +
                                 "' is not a number of seconds in 1..86400 (unset it for the default 1836)");
    return std::chrono::seconds(s);
  }
  return kDefaultExecTimeout;
}

milliseconds connectTimeout(const HcclSimCommConfig* config) {
  if (config && config->timeoutMs > 0) return milliseconds(config->timeoutMs);
  if (const char* env = std::getenv("HCCL_CONNECT_TIMEOUT"); env && *env) {
    char* end = nullptr;
    const long long s = std::strtoll(env, &end, 10);
    if (*end != '\0' || s < 120 || s > 7200)
      throwHccl(HCCL_E_PARA,
                std::string("HCCL_CONNECT_TIMEOUT='") + env +
                    "' is not a number of seconds in 120..7200 (CANN's range; unset it for the default 120)");
    return std::chrono::seconds(s);
  }
  return kDefaultConnectTimeout;
}

std::shared_ptr<Communicator> joinCommunicator(uint32_t nranks, const HcclRootInfo& root, uint32_t rank,
                                               const HcclSimStore& store_cb, const HcclSimCommConfig* config) {
  CommunicatorInfo info;
  info.id = rootInfoId(root);
  info.rank = static_cast<int>(rank);
  info.size = static_cast<int>(nranks);
  info.timeout = commTimeout(config);
  Runtime& rt = Runtime::get();
  info.device = rt.currentDeviceId();
  rt.device(info.device);  // validates the current device
  const LocalAddress addr = chooseLocalAddress(config ? config->ifIp : nullptr);

  SimStore store(store_cb, "hccl/" + info.id + "/");
  info.algo_config = parseAlgoConfig(std::getenv("HCCL_ALGO"), std::getenv("ASCEND_SIM_HCCL_LEVEL0"));
  const milliseconds connect = connectTimeout(config);  // checked before this rank shows itself to the others
  const std::string server = config && config->serverId ? config->serverId : serverName();
  if (server.empty() || server.find('\n') != std::string::npos)
    throwHccl(HCCL_E_PARA,
              "the server id of rank " + std::to_string(rank) + " must be a non-empty line (got '" + server + "')");
  const RankPlace mine{localHostName(), info.device, server};
  store.set(rankKey(rank), mine.host + "\n" + std::to_string(mine.device) + "\n" + addr.ip + "\n" + mine.server);
  const std::vector<RankPlace> places = gatherPlaces(store, nranks, rank, mine, connect);
  checkRanksPerHost(places, rt.chip());
  info.spans_hosts = spansHosts(places);
  info.links = std::make_shared<const LinkModel>(rt.chip(), placementOf(places, rt.chip()));

  std::unique_ptr<Transport> transport = connectTransport(info, addr, store);
  return std::make_shared<Communicator>(std::move(info), std::move(transport));
}

}  // namespace hccl
}  // namespace ascend_sim
