#include "hccl/placement.h"

#include <algorithm>
#include <map>

namespace ascend_sim {
namespace hccl {

int Placement::perServer() const {
  std::vector<int> count(servers, 0);
  for (int s : server) ++count[s];
  for (int c : count)
    if (c != count.front()) return 0;
  return count.empty() ? 0 : count.front();
}

std::vector<int> Placement::membersOf(int s) const {
  std::vector<int> members;
  for (int r = 0; r < size(); ++r)
    if (server[r] == s) members.push_back(r);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) { return slot[a] < slot[b]; });
  return members;
}

std::vector<int> Placement::peersAcrossServers(int rank) const {
  if (perServer() == 0) return {};
  const std::vector<int> mine = membersOf(server[rank]);
  const auto index = std::find(mine.begin(), mine.end(), rank) - mine.begin();
  std::vector<int> peers;
  for (int s = 0; s < servers; ++s) peers.push_back(membersOf(s)[index]);
  return peers;
}

std::string Placement::describe() const {
  const int k = perServer();
  const std::string sv = std::to_string(servers) + (servers == 1 ? " server" : " servers");
  if (k > 0) return sv + " x " + std::to_string(k) + (k == 1 ? " NPU" : " NPUs");
  std::vector<int> count(servers, 0);
  for (int s : server) ++count[s];
  const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
  return sv + " (" + std::to_string(*lo) + "-" + std::to_string(*hi) + " NPUs each)";
}

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
