#include "hccl/placement.h"

#include <map>

namespace ascend_sim {
namespace hccl {

Placement Placement::uniform(int servers, int per_server) {
  Placement p;
  p.servers = servers;
  for (int r = 0; r < servers * per_server; ++r) {
    p.server.push_back(r / per_server);
    p.slot.push_back(r % per_server);
  }
  return p;
}

Placement Placement::fromNames(const std::vector<std::string>& server_names, const std::vector<int>& slots) {
  Placement p;
  std::map<std::string, int> index;
  for (const std::string& name : server_names) {
    auto it = index.emplace(name, static_cast<int>(index.size())).first;
    p.server.push_back(it->second);
  }
  p.slot = slots;
  p.servers = static_cast<int>(index.size());
  return p;
}

}  // namespace hccl
}  // namespace ascend_sim
