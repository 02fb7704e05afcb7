#include "hccl/algorithms/mesh_phases.h"

#include <cstring>
#include <memory>
#include <vector>

namespace ascend_sim {
namespace hccl {

void meshReduceScatter(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, Reducer& reduce,
                       uint32_t step) {
  const int p = io.size(), r = io.rank();
  const size_t mine = blocks.size(r) * elem;
  // One scratch copy per peer: the copies arrive at once and are reduced after.
  std::unique_ptr<uint8_t[]> scratch(new uint8_t[mine * static_cast<size_t>(p) + 1]);  // copy j at j·mine
  std::vector<PeerIo::Transfer> transfers;
  for (int j = 0; j < p; ++j) {
    if (j == r) continue;
    transfers.push_back({false, j, step, scratch.get() + mine * j, mine});
    transfers.push_back({true, j, step, buf + blocks.offset(j) * elem, blocks.size(j) * elem});
  }
  io.exchange(transfers);
  // Note [Mesh reduction order]: the copies are reduced in rank order, ((x0 + x1) + x2) + ..., whoever
  // owns the block, so an element's result does not depend on how the vector was cut into blocks
  // (a tiled all-reduce gives the same bits as the whole one, as with halving-doubling).
  uint8_t* own = buf + blocks.offset(r) * elem;
  if (r != 0) {
    std::memcpy(scratch.get() + mine * r, own, mine);  // this rank's copy takes its place in the order
    std::memcpy(own, scratch.get(), mine);             // start from rank 0's copy
  }
  for (int j = 1; j < p; ++j) reduce(own, scratch.get() + mine * j, blocks.size(r));
}

void meshAllGather(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, uint32_t step) {
  const int p = io.size(), r = io.rank();
  std::vector<PeerIo::Transfer> transfers;
  for (int j = 0; j < p; ++j) {
    if (j == r) continue;
    transfers.push_back({false, j, step, buf + blocks.offset(j) * elem, blocks.size(j) * elem});
    transfers.push_back({true, j, step, buf + blocks.offset(r) * elem, blocks.size(r) * elem});
  }
  io.exchange(transfers);
}

}  // namespace hccl
}  // namespace ascend_sim
