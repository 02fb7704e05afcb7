#include "hccl/algorithms/barrier_dissemination.h"

namespace ascend_sim {
namespace hccl {

void BarrierDissemination::run(PeerIo& io, const CollectiveArgs&, Reducer&) {
  const int p = io.size(), r = io.rank();
  uint8_t out = 1, in = 0;
  uint32_t step = 0;
  for (int d = 1; d < p; d <<= 1, ++step) io.sendRecv(step, (r + d) % p, &out, 1, (r - d + p) % p, &in, 1);
}

}  // namespace hccl
}  // namespace ascend_sim
