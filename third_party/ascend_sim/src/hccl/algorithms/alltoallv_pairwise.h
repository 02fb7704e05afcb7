// Pairwise-exchange all-to-all-v: the own part is copied locally, then in
// round k (1..p-1) rank r sends its part for r+k and receives the part of
// r-k. Each round first exchanges a header ({count I send you, count I
// expect from you}), so both ranks of every pair check that their counts
// agree before any data moves (HCCL_E_REMOTE naming both otherwise).
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class AlltoAllVPairwise final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
