// The links of a simulated cluster and the time of one algorithm step on them.
//
// Note [Cluster links]
// Every link is full duplex; each direction is a separate resource.
//  - Inside a server, NPUs of one HCCS group (ChipConfig::hccs_group_size:
//    910A two groups of four, 910B2 one group of eight) have a dedicated HCCS
//    link per pair (link_bytes_per_s, latency link_alpha_us).
//  - 910A, between its two groups: out of the sender's PCIe link, over the
//    server's one group-to-group path in that direction, into the receiver's
//    PCIe link (pcie_bytes_per_s each, the path cross_group_bytes_per_s).
//    All flows from group 0 to group 1 of a server share the path.
//  - Between servers: out of the sender's RoCE port, into the receiver's
//    (inter_host_bytes_per_s each, latency inter_host_alpha_us); the switch
//    is non-blocking.
// A step in which several flows run at once takes the largest latency of
// their paths plus the busiest resource's bytes over its rate: flows that
// share a resource share its bandwidth (contention), flows on separate
// links run side by side.
#pragma once

#include <cstdint>
#include <vector>

#include "chip/chip_config.h"
#include "hccl/placement.h"

namespace ascend_sim {
namespace hccl {

struct Flow {
  int src = 0, dst = 0;  // ranks
  double bytes = 0;
};

enum class PathKind { kSelf, kHccs, kCrossGroup, kRoce };

class ASCEND_SIM_API LinkModel {
 public:
  LinkModel(const ChipConfig& chip, Placement placement) : chip_(chip), place_(std::move(placement)) {}

  const Placement& placement() const { return place_; }
  const ChipConfig& chip() const { return chip_; }
  PathKind pathOf(int src, int dst) const;
  // One step in which every flow runs at once [us] (0 for no flows).
  double stepUs(const std::vector<Flow>& flows) const;

 private:
  ChipConfig chip_;
  Placement place_;
};

}  // namespace hccl
}  // namespace ascend_sim
