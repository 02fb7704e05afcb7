// Binomial-tree reduce: with ranks renumbered so the root is 0, rank v
// reduces the partial results of v + 2^k (for each 2^k below lowbit(v), in
// increasing order) into its own, then sends to v - lowbit(v). Only the root
// writes its receive buffer; the others accumulate in host scratch.
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class ReduceBinomial final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
