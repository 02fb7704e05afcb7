#include "hccl/hierarchy.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "hccl/collective_schedule.h"

namespace ascend_sim {
namespace hccl {

namespace {

using Key = std::tuple<int, int>;

// Groups of the ranks with equal keys, members ordered by `order`; false if sizes differ.
template <typename KeyOf, typename OrderOf>
bool groupBy(int p, KeyOf key_of, OrderOf order_of, std::vector<std::vector<int>>* groups) {
  std::map<Key, std::vector<int>> by_key;
  for (int r = 0; r < p; ++r) by_key[key_of(r)].push_back(r);
  groups->clear();
  for (auto& [key, members] : by_key) {
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) { return order_of(a) < order_of(b); });
    if (!groups->empty() && members.size() != groups->front().size()) return false;
    groups->push_back(std::move(members));
  }
  return true;
}

}  // namespace

const std::vector<int>& HierarchyLevel::groupOf(int rank) const {
  for (const std::vector<int>& g : groups)
    if (std::find(g.begin(), g.end(), rank) != g.end()) return g;
  throw std::logic_error("HierarchyLevel: rank " + std::to_string(rank) + " is in no group");
}

std::vector<HierarchyLevel> hierarchyOf(const Placement& place, const AlgoChoice& choice) {
  const int p = place.size();
  const int g = choice.hccs_group > 0 ? choice.hccs_group : 1 << 30;  // 0: the server is one group
  auto group_of = [&](int r) { return place.slot[r] / g; };
  HierarchyLevel inner, across, servers;
  across.kind = LevelKind::kAcrossGroups;
  servers.kind = LevelKind::kServers;
  inner.algo = choice.level0;
  across.algo = CollectiveAlgo::kRingAllReduce;
  servers.algo = choice.level1;
  if (!groupBy(
          p,
          [&](int r) {
            return Key{place.server[r], group_of(r)};
          },
          [&](int r) { return place.slot[r]; }, &inner.groups))
    return {};
  std::vector<int> position(p);  // index within the HCCS group
  for (const auto& members : inner.groups)
    for (size_t i = 0; i < members.size(); ++i) position[members[i]] = static_cast<int>(i);
  if (!groupBy(
          p,
          [&](int r) {
            return Key{place.server[r], position[r]};
          },
          group_of, &across.groups))
    return {};
  std::vector<int> group_rank(p);  // index of the rank's HCCS group within its server
  for (const auto& members : across.groups)
    for (size_t i = 0; i < members.size(); ++i) group_rank[members[i]] = static_cast<int>(i);
  if (!groupBy(
          p,
          [&](int r) {
            return Key{position[r], group_rank[r]};
          },
          [&](int r) { return place.server[r]; }, &servers.groups))
    return {};
  std::vector<HierarchyLevel> levels;
  for (HierarchyLevel* level : {&inner, &across, &servers})
    if (level->groups.front().size() > 1) levels.push_back(std::move(*level));
  return levels;
}

}  // namespace hccl
}  // namespace ascend_sim
