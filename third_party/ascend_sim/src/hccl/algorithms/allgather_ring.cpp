#include "hccl/algorithms/allgather_ring.h"

#include <cstring>

#include "hccl/algorithms/ring_phases.h"

namespace ascend_sim {
namespace hccl {

void AllGatherRing::run(PeerIo& io, const CollectiveArgs& a, Reducer&) {
  const size_t elem = a.elemSize();
  if (a.count == 0) return;
  const BlockLayout blocks = BlockLayout::uniform(a.count, io.size());
  auto* buf = static_cast<uint8_t*>(a.recv);
  uint8_t* mine = buf + blocks.offset(io.rank()) * elem;
  if (a.send != mine) std::memmove(mine, a.send, a.count * elem);  // in place: already there
  ringAllGather(io, buf, blocks, elem, 0);
}

}  // namespace hccl
}  // namespace ascend_sim
