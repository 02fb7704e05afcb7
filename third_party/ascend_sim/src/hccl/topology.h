// Where the ranks of a communicator live (learnt at rendezvous) and the
// group-size rule of the chip preset.
#pragma once

#include <string>
#include <vector>

#include "chip/chip_config.h"

namespace ascend_sim {
namespace hccl {

struct RankPlace {
  std::string host;  // host identity (host name)
  int device = 0;    // simulated device of the rank
};

// True if the ranks are on more than one host.
bool spansHosts(const std::vector<RankPlace>& ranks);

// On a preset with hccl_ranks_per_host_1_2_4_8 (Ascend910A) every host must
// hold 1, 2, 4 or 8 ranks; throws HcclError(HCCL_E_NOT_SUPPORT) naming the
// host and its ranks otherwise.
void checkRanksPerHost(const std::vector<RankPlace>& ranks, const ChipConfig& chip);

}  // namespace hccl
}  // namespace ascend_sim
