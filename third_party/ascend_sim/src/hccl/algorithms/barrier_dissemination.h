// Dissemination barrier: in round k rank r signals r + 2^k and waits for
// r - 2^k (mod p); after ⌈log2 p⌉ rounds every rank has (transitively) heard
// from every other, for any p.
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class BarrierDissemination final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
