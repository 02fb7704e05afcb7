// Binomial-tree broadcast: with ranks renumbered so the root is 0, rank v
// receives from v - lowbit(v) and then sends to v + 2^k for every 2^k below
// lowbit(v). ⌈log2 p⌉ rounds, each moving the whole message.
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class BroadcastBinomial final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
