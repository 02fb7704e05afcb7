// Which algorithm a collective uses.
//
// Note [All-reduce algorithm choice]
// HCCL_ALGO (read when the communicator is created) forces the all-reduce
// algorithm: a value containing "H-D" (any case; CANN's spelling, e.g.
// "level0:NA;level1:H-D_R") selects halving-doubling, else one containing
// "ring" selects ring. Unset (or neither): halving-doubling for messages
// below kHalvingDoublingMaxBytes when the rank count is a power of two, ring
// otherwise. Halving-doubling needs a power-of-two rank count, so a forced
// "H-D" on another count runs ring. Every rank of a communicator must see
// the same HCCL_ALGO (a mismatch shows up as a timeout, as on real HCCL).
// The other collectives have one algorithm each.
#pragma once

#include <cstdint>

#include "cost/cost_model.h"
#include "hccl/hccl_types.h"

namespace ascend_sim {
namespace hccl {

enum class AllReducePolicy { kAuto, kRing, kHalvingDoubling };

constexpr uint64_t kHalvingDoublingMaxBytes = uint64_t(1) << 20;  // auto: H-D below 1 MiB [B]

AllReducePolicy parseHcclAlgo(const char* value);  // nullptr: kAuto
CollectiveAlgo chooseAllReduce(AllReducePolicy policy, int ranks, uint64_t bytes);
CollectiveAlgo algorithmFor(CollectiveKind kind, AllReducePolicy policy, int ranks, uint64_t bytes);
// "ring", "halving_doubling", "binomial_tree", "pairwise", "direct", "dissemination" (static strings).
const char* algorithmName(CollectiveAlgo algo);

}  // namespace hccl
}  // namespace ascend_sim
