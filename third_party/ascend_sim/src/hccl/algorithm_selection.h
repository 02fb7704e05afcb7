// Which algorithm a collective uses.
//
// Note [Algorithm choice]
// As CANN: inside a server the algorithm follows the hardware and cannot be
// configured; between servers (level 1) HCCL_ALGO may force it. All-reduce is
// hierarchical (Note [Hierarchy levels] in hccl/hierarchy.h): mesh inside
// each HCCS group, ring between the 910A's two groups, level 1 between
// servers; a hierarchy of one level is that level's algorithm alone (four
// NPUs of one group: mesh; one NPU per server: level 1 over all ranks).
// Level 1 is HCCL_ALGO's, else CANN's default: on the Atlas training series
// (910A) H-D_R when the server count is a power of two, else ring (CANN's
// documented rule); on the A2 series (910B2), whose rule CANN does not
// publish, the fastest of ring, H-D_R and pipeline for the message
// (assumed). Pipeline runs H-D_R (or ring) between servers in 4 chunks.
// ASCEND_SIM_HCCL_LEVEL0=ring|H-D|mesh (a simulator knob for studies and
// tests, not CANN's) forces one algorithm over each whole server.
// H-D_R on a rank count that is not a power of two runs ring (CANN's RHD
// would add traffic; the simulator does not implement that variant). Ranks
// not evenly spread over servers and groups get one ring over all.
// The other collectives have one algorithm each, priced on the links.
// HCCL_ALGO uses CANN's syntax, globally ("level0:NA;level1:ring") or per
// operator ("allreduce=level0:NA;level1:H-D_R/allgather=level0:NA;level1:ring");
// level1 takes ring, H-D_R or pipeline. NHR, NHR_V1, NB, AHC (and pairwise,
// for all-to-all only, which is pairwise here anyway) are CANN names the
// simulator does not implement: they are refused with HCCL_E_NOT_SUPPORT
// when the communicator is created, as is any malformed value (HCCL_E_PARA).
// Every rank of a communicator must see the same HCCL_ALGO.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "chip/chip_config.h"
#include "cost/cost_model.h"
#include "hccl/collective_schedule.h"
#include "hccl/hccl_types.h"
#include "hccl/placement.h"

namespace ascend_sim {
namespace hccl {

enum class Level1 { kAuto, kRing, kHalvingDoubling, kPipeline };
enum class Level0 { kAuto, kRing, kHalvingDoubling, kMesh };

constexpr int kPipelineChunks = 4;  // chunks of a pipelined all-reduce (assumed)

struct AlgoConfig {
  std::array<Level1, 11> level1{};  // by CollectiveKind value; kAuto unless HCCL_ALGO says otherwise
  Level0 level0 = Level0::kAuto;
};

// HCCL_ALGO and ASCEND_SIM_HCCL_LEVEL0 (nullptr: unset). Throws HcclError.
AlgoConfig parseAlgoConfig(const char* hccl_algo, const char* level0);
AlgoChoice chooseAlgorithm(CollectiveKind kind, const AlgoConfig& config, const Placement& place,
                           const ChipConfig& chip, uint64_t bytes);
// "ring", "halving_doubling", "mesh", "binomial_tree", "pairwise", "direct",
// "dissemination"; hierarchical: "<level0>/<level1>" with level 1 in CANN's
// spelling ("mesh/H-D_R", "ring/ring", "mesh/pipeline").
std::string choiceName(const AlgoChoice& choice);
const char* algorithmName(CollectiveAlgo algo);

}  // namespace hccl
}  // namespace ascend_sim
