// The two phases of the ring algorithms, shared by ring all-reduce,
// all-gather and reduce-scatter. Rank r sends to r+1 and receives from r-1
// (mod p); every step moves one block per rank, so each link carries
// (p-1)/p of the data per phase whatever p is (powers of two or not).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hccl/algorithms/algorithm.h"
#include "hccl/algorithms/block_layout.h"

namespace ascend_sim {
namespace hccl {

// In place over the blocks of buf (p steps - 1, tags first_step..): afterwards
// block r of rank r holds the reduction of every rank's block r (other
// blocks hold partial results). Step s sends block r-s-1 and reduces the
// received block r-s-2 into place.
void ringReduceScatter(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, Reducer& reduce,
                       uint32_t first_step);

// In place: rank r contributes block r; afterwards every rank holds every
// block. Step s forwards block r-s and receives block r-s-1.
void ringAllGather(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, uint32_t first_step);

}  // namespace hccl
}  // namespace ascend_sim
