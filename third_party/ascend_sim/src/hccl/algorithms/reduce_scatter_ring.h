// Ring reduce-scatter: the ring reduce-scatter phase over a host copy of the
// send buffer (which stays unchanged), then block r goes to the receive
// buffer.
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class ReduceScatterRing final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
