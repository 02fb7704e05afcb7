// The two phases of the mesh all-reduce (one server whose NPUs are all
// linked pairwise): every rank exchanges with every other rank at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hccl/algorithms/algorithm.h"
#include "hccl/algorithms/block_layout.h"

namespace ascend_sim {
namespace hccl {

// Step `step`: rank r sends block j to rank j for every j != r and reduces
// the p - 1 copies of block r it receives into its own.
void meshReduceScatter(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, Reducer& reduce,
                       uint32_t step);
// Step `step`: rank r sends block r to every rank and receives block j from rank j.
void meshAllGather(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, uint32_t step);

}  // namespace hccl
}  // namespace ascend_sim
