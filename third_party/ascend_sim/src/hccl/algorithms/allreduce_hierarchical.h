// Hierarchical all-reduce (Note [Hierarchy levels] in hccl/hierarchy.h):
// reduce-scatter inside this rank's group at every inner level, all-reduce of
// the remaining block at the top level, all-gather back out. With chunks > 1
// (pipeline) the vector goes through the levels chunk by chunk; the overlap
// of the chunks is in the simulated time only.
#pragma once

#include <vector>

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class AllReduceHierarchical final : public Algorithm {
 public:
  struct Level {
    std::vector<int> group;  // this rank's group at the level (communicator ranks, in position order)
    CollectiveAlgo algo;
  };
  AllReduceHierarchical(std::vector<Level> levels, int chunks) : levels_(std::move(levels)), chunks_(chunks) {}
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;

 private:
  void runLevel(PeerIo& io, size_t level, uint8_t* buf, uint64_t count, uint32_t first_step, const CollectiveArgs& args,
                Reducer& reduce) const;

  std::vector<Level> levels_;
  int chunks_;
};

}  // namespace hccl
}  // namespace ascend_sim
