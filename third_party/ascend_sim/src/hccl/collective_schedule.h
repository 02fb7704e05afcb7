// A collective as a sequence of steps (the flows every rank sends at once)
// on the cluster's links, and its simulated time.
//
// Note [Collective schedule]
// Each algorithm's data movement (hccl/algorithms/) is mirrored here as
// steps: in step s rank i sends `bytes` to rank j (a Flow), all ranks at
// once, and a step may reduce bytes on arrival. A step's time is
// LinkModel::stepUs of its flows plus γ(reduced bytes) (CostModel::reduceUs);
// the collective's time is the sum of its steps. Nothing else is priced, so
// the simulated time follows the links a collective really crosses: ring
// steps inside one HCCS group are α + n/p·β as the flat formula says, and a
// step crossing the 910A's two groups or the RoCE network pays their rates
// and their contention.
//
// A hierarchical all-reduce (Note [Hierarchy levels] in hccl/hierarchy.h)
// reduce-scatters n bytes inside the innermost groups (mesh or ring), hands
// each rank's n/k block to the next level, all-reduces at the last level
// (between servers: ring or halving-doubling) and all-gathers back out. All
// groups of a level run their steps together, so their flows share the step.
// `pipeline` cuts the vector into C chunks and runs chunk c's top-level phase
// while chunk c+1 is in the inner levels:
//   T = r + a + g + (C - 1)·max(r + g, a)      (r, a, g: the phases of one chunk)
// since the inner phases share the server's links and the top level uses the
// RoCE ports.
#pragma once

#include <vector>

#include "cost/cost_model.h"
#include "hccl/hccl_types.h"
#include "hccl/link_model.h"

namespace ascend_sim {
namespace hccl {

// What to run for one collective (chosen in algorithm_selection.cpp).
struct AlgoChoice {
  CollectiveAlgo algo = CollectiveAlgo::kRingAllReduce;
  // kHierarchicalAllReduce only (Note [Hierarchy levels] in hccl/hierarchy.h):
  CollectiveAlgo level0 = CollectiveAlgo::kRingAllReduce;  // inside an HCCS group: kMeshAllReduce or kRingAllReduce
  CollectiveAlgo level1 =
      CollectiveAlgo::kRingAllReduce;  // between servers: kRingAllReduce or kHalvingDoublingAllReduce
  int hccs_group = 0;                  // ranks per HCCS group; 0: a server is one group
  int chunks = 1;                      // > 1: pipeline
  bool inner_groups = false;           // it has the level inside HCCS groups (for its name)
  bool across_groups = false;          // it has the level between the HCCS groups of a server (for its name)
  bool across_servers = false;         // it has the level between servers (for its name)
};

struct Step {
  std::vector<Flow> flows;
  double reduce_bytes = 0;  // reduced by each receiving rank
  int repeat = 1;           // the same step this many times
};

// The steps of a flat algorithm among `members` (global ranks; index i is
// the algorithm's rank i). n as in Note [Collective cost]; root: an index.
std::vector<Step> flatSteps(CollectiveAlgo algo, const std::vector<int>& members, double n, int root = 0);

// Simulated time of one collective [us]. `n`: bytes as in Note [Collective
// cost]; `p2p`: the flows of a send / receive / batch (other kinds: unused).
double scheduleUs(const CostModel& cost, const LinkModel& links, const AlgoChoice& choice, double n, int root,
                  const std::vector<Flow>& p2p);

}  // namespace hccl
}  // namespace ascend_sim
