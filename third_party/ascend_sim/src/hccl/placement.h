// Where the ranks of a communicator sit in the cluster: which server, and
// which device slot of it (learnt at rendezvous, or made up by the scaling
// prediction for a cluster that does not exist).
//
// Note [Servers]
// A rank's server is $ASCEND_SIM_SERVER_ID if set (torch_npu sets it from the
// rank table's server_id, or from torchrun's GROUP_RANK), else its host name;
// its slot is its simulated device id. Servers are numbered in the order of
// their lowest rank. Transport (shared memory or TCP) follows the real hosts,
// the simulated time follows the servers: four processes on one host can be
// two simulated servers of two NPUs each.
#pragma once

#include <string>
#include <vector>

#include "ascend_sim/acl.h"

namespace ascend_sim {
namespace hccl {

struct ASCEND_SIM_API Placement {
  std::vector<int> server;  // server index of each rank
  std::vector<int> slot;    // device slot of each rank in its server
  int servers = 1;

  int size() const { return static_cast<int>(server.size()); }

  // servers x per_server ranks; rank r on server r / per_server, slot r % per_server.
  static Placement uniform(int servers, int per_server);
  // From per-rank server names and device ids.
  static Placement fromNames(const std::vector<std::string>& server_names, const std::vector<int>& slots);
};

}  // namespace hccl
}  // namespace ascend_sim
