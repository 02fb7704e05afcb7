#include "hccl/algorithms/allreduce_ring.h"

#include <cstring>

#include "hccl/algorithms/ring_phases.h"

namespace ascend_sim {
namespace hccl {

void AllReduceRing::run(PeerIo& io, const CollectiveArgs& a, Reducer& reduce) {
  const size_t elem = a.elemSize();
  auto* buf = static_cast<uint8_t*>(a.recv);
  if (a.count == 0) return;
  if (a.send != a.recv) std::memmove(buf, a.send, a.count * elem);
  const int p = io.size();
  if (p == 1) return;
  const BlockLayout blocks = BlockLayout::even(a.count, p);
  ringReduceScatter(io, buf, blocks, elem, reduce, 0);
  ringAllGather(io, buf, blocks, elem, static_cast<uint32_t>(p - 1));
}

}  // namespace hccl
}  // namespace ascend_sim
