#include "hccl/algorithms/reduce_scatter_ring.h"

#include <cstring>
#include <vector>

#include "hccl/algorithms/ring_phases.h"

namespace ascend_sim {
namespace hccl {

void ReduceScatterRing::run(PeerIo& io, const CollectiveArgs& a, Reducer& reduce) {
  const size_t elem = a.elemSize();
  if (a.count == 0) return;
  const int p = io.size(), r = io.rank();
  const BlockLayout blocks = BlockLayout::uniform(a.count, p);
  const auto* send = static_cast<const uint8_t*>(a.send);
  std::vector<uint8_t> acc(send, send + blocks.size(0, p) * elem);
  if (p > 1) ringReduceScatter(io, acc.data(), blocks, elem, reduce, 0);
  std::memmove(a.recv, acc.data() + blocks.offset(r) * elem, a.count * elem);
}

}  // namespace hccl
}  // namespace ascend_sim
