// Mesh all-reduce (one server, all ranks linked pairwise): mesh
// reduce-scatter then mesh all-gather, two steps (mesh_phases.h).
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class AllReduceMesh final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
