// Ring all-reduce: ring reduce-scatter then ring all-gather over p blocks of
// the receive buffer (any p, any count; blocks may be empty).
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class AllReduceRing final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
