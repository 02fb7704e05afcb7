// Halving-doubling all-reduce (Rabenseifner) for a power-of-two rank count:
// reduce-scatter by recursive halving (step k exchanges half of the current
// range with rank r XOR p/2^(k+1)), then all-gather by recursive doubling in
// the reverse order. 2·log2(p) steps, each rank moving 2(p-1)/p of the data.
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class AllReduceHalvingDoubling final : public Algorithm {
 public:
  // io.size() must be a power of two (the algorithm choice guarantees it).
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
