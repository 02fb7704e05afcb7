// Where the ranks of a communicator live (learnt at rendezvous) and the
// group-size rule of the chip preset.
#pragma once

#include <string>
#include <vector>

#include "chip/chip_config.h"
#include "hccl/placement.h"

namespace ascend_sim {
namespace hccl {

struct RankPlace {
  std::string host;    // host identity (host name): decides the transport
  int device = 0;      // simulated device of the rank: its slot in its server
  std::string server;  // simulated server (Note [Servers] in placement.h)
};

// $ASCEND_SIM_SERVER_ID, else the host name (Note [Servers] in placement.h).
std::string serverName();
// The ranks' servers and slots.
Placement placementOf(const std::vector<RankPlace>& ranks, const ChipConfig& chip);

// True if the ranks are on more than one host.
bool spansHosts(const std::vector<RankPlace>& ranks);

// On a preset with hccl_ranks_per_host_1_2_4_8 (Ascend910A) every server must
// hold 1, 2, 4 or 8 ranks; throws HcclError(HCCL_E_NOT_SUPPORT) naming the
// server and its ranks otherwise.
void checkRanksPerHost(const std::vector<RankPlace>& ranks, const ChipConfig& chip);

}  // namespace hccl
}  // namespace ascend_sim
