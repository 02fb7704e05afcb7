// The levels of a hierarchical all-reduce (Note [Collective schedule]).
//
// Note [Hierarchy levels]
// From the inside out:
//   HCCS group  the ranks of one server in one HCCS group (ChipConfig::hccs_group_size;
//               910A: slots 0-3 and 4-7; 910B2: the whole server). Algorithm: AlgoChoice::level0.
//   groups      the ranks of one server at the same position of their groups (the 910A's
//               two groups: pairs across the group-to-group path). Algorithm: ring.
//   servers     the ranks at the same position of every server. Algorithm: AlgoChoice::level1.
// With AlgoChoice::hccs_group == 0 a server is one group (ASCEND_SIM_HCCL_LEVEL0 forces the
// inside-a-server algorithm over the whole server). Levels whose groups hold one rank are left
// out. Every level but the last reduce-scatters among its group and hands its block to the
// next level; the last all-reduces; then the inner levels all-gather in reverse. Every group of
// a level must have the same size (ranks evenly spread); else there is no hierarchy.
#pragma once

#include <vector>

#include "cost/cost_model.h"
#include "hccl/placement.h"

namespace ascend_sim {
namespace hccl {

struct AlgoChoice;

enum class LevelKind { kHccsGroup, kAcrossGroups, kServers };

struct HierarchyLevel {
  LevelKind kind = LevelKind::kHccsGroup;
  std::vector<std::vector<int>> groups;  // a partition of the ranks, members in position order
  CollectiveAlgo algo = CollectiveAlgo::kRingAllReduce;
  const std::vector<int>& groupOf(int rank) const;
};

// Innermost first; empty if the ranks are not evenly spread.
std::vector<HierarchyLevel> hierarchyOf(const Placement& place, const AlgoChoice& choice);

}  // namespace hccl
}  // namespace ascend_sim
