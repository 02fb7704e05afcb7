#include "hccl/algorithms/allreduce_hierarchical.h"

#include <algorithm>
#include <cstring>

#include "hccl/algorithms/allreduce_halving_doubling.h"
#include "hccl/algorithms/allreduce_mesh.h"
#include "hccl/algorithms/allreduce_ring.h"
#include "hccl/algorithms/block_layout.h"
#include "hccl/algorithms/mesh_phases.h"
#include "hccl/algorithms/ring_phases.h"

namespace ascend_sim {
namespace hccl {

namespace {
// Steps one level may take: reduce-scatter and all-gather at most k - 1 each,
// an all-reduce at most 2(k - 1).
uint32_t levelSteps(const AllReduceHierarchical::Level& level) { return 2 * static_cast<uint32_t>(level.group.size()); }
}  // namespace

void AllReduceHierarchical::runLevel(PeerIo& io, size_t l, uint8_t* buf, uint64_t count, uint32_t first_step,
                                     const CollectiveArgs& a, Reducer& reduce) const {
  const Level& level = levels_[l];
  PeerIo group = io.subgroup(level.group, first_step);
  if (l + 1 == levels_.size()) {  // the top level all-reduces what the inner levels left to this rank
    CollectiveArgs block = a;
    block.send = block.recv = buf;
    block.count = count;
    if (level.algo == CollectiveAlgo::kHalvingDoublingAllReduce)
      AllReduceHalvingDoubling().run(group, block, reduce);
    else if (level.algo == CollectiveAlgo::kMeshAllReduce)
      AllReduceMesh().run(group, block, reduce);
    else
      AllReduceRing().run(group, block, reduce);
    return;
  }
  const size_t elem = a.elemSize();
  const bool mesh = level.algo == CollectiveAlgo::kMeshAllReduce;
  const BlockLayout blocks = BlockLayout::even(count, group.size());
  if (mesh)
    meshReduceScatter(group, buf, blocks, elem, reduce, 0);
  else
    ringReduceScatter(group, buf, blocks, elem, reduce, 0);
  const int mine = group.rank();  // both phases leave block r reduced on rank r
  runLevel(io, l + 1, buf + blocks.offset(mine) * elem, blocks.size(mine), first_step + levelSteps(level), a, reduce);
  const uint32_t gather_step = levelSteps(level) / 2;  // after the reduce-scatter's steps, before the next level's
  if (mesh)
    meshAllGather(group, buf, blocks, elem, gather_step);
  else
    ringAllGather(group, buf, blocks, elem, gather_step);
}

void AllReduceHierarchical::run(PeerIo& io, const CollectiveArgs& a, Reducer& reduce) {
  const size_t elem = a.elemSize();
  auto* buf = static_cast<uint8_t*>(a.recv);
  if (a.count == 0) return;
  if (a.send != a.recv) std::memmove(buf, a.send, a.count * elem);
  uint32_t chunk_steps = 0;
  for (const Level& level : levels_) chunk_steps += levelSteps(level);
  const int chunks = std::max(1, chunks_);
  const BlockLayout layout = BlockLayout::even(a.count, chunks);
  for (int c = 0; c < chunks; ++c)
    runLevel(io, 0, buf + layout.offset(c) * elem, layout.size(c), static_cast<uint32_t>(c) * chunk_steps, a, reduce);
}

}  // namespace hccl
}  // namespace ascend_sim
