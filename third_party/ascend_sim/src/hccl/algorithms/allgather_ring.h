// Ring all-gather: each rank places its send buffer at block r of the
// receive buffer, then p-1 ring steps forward one block each.
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class AllGatherRing final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
