#include "hccl/topology.h"

#include <cstdlib>
#include <map>

#include "hccl/hccl_error.h"
#include "hccl/transport/local_address.h"

namespace ascend_sim {
namespace hccl {

std::string serverName() {
  const char* id = std::getenv("ASCEND_SIM_SERVER_ID");
  return id && *id ? std::string(id) : localHostName();
}

Placement placementOf(const std::vector<RankPlace>& ranks, const ChipConfig&) {
  std::vector<std::string> names;
  std::vector<int> slots;
  for (const RankPlace& r : ranks) {
    names.push_back(r.server);
    slots.push_back(r.device);
  }
  return Placement::fromNames(names, slots);
}

bool spansHosts(const std::vector<RankPlace>& ranks) {
  for (const RankPlace& r : ranks)
    if (r.host != ranks.front().host) return true;
  return false;
}

void checkRanksPerHost(const std::vector<RankPlace>& ranks, const ChipConfig& chip) {
  if (!chip.hccl_ranks_per_host_1_2_4_8) return;
  std::map<std::string, std::vector<int>> by_host;
  for (size_t r = 0; r < ranks.size(); ++r) by_host[ranks[r].server].push_back(static_cast<int>(r));
  for (const auto& [host, members] : by_host) {
    const size_t n = members.size();
    if (n == 1 || n == 2 || n == 4 || n == 8) continue;
    std::string list;
    for (int r : members) list += (list.empty() ? "" : ", ") + std::to_string(r);
    throwHccl(HCCL_E_NOT_SUPPORT, std::string(chip.soc_name) +
                                      " supports 1, 2, 4 or 8 ranks of a communicator per server (its HCCS "
                                      "topology), but server '" +
                                      host + "' has " + std::to_string(n) + " (ranks " + list +
                                      "); use a group of 1, 2, 4 or 8 ranks per server, or the Ascend910B2 preset "
                                      "(ASCEND_SIM_SOC_VERSION=Ascend910B2)");
  }
}

}  // namespace hccl
}  // namespace ascend_sim
