#include "hccl/link_model.h"

#include <algorithm>
#include <unordered_map>

namespace ascend_sim {
namespace hccl {

namespace {
constexpr double kUsPerS = 1e6;

// A resource: one direction of one link (kind, two numbers).
enum Resource : uint64_t { kHccsLink, kPcieOut, kPcieIn, kGroupPath, kRoceOut, kRoceIn };
uint64_t key(Resource r, uint64_t a, uint64_t b = 0) { return (uint64_t(r) << 56) | (a << 28) | b; }
}  // namespace

PathKind LinkModel::pathOf(int src, int dst) const {
  if (src == dst) return PathKind::kSelf;
  if (place_.server[src] != place_.server[dst]) return PathKind::kRoce;
  const int g = std::max(1, chip_.hccs_group_size);
  return place_.slot[src] / g == place_.slot[dst] / g ? PathKind::kHccs : PathKind::kCrossGroup;
}

double LinkModel::stepUs(const std::vector<Flow>& flows) const {
  std::unordered_map<uint64_t, double> load;  // bytes per resource
  std::unordered_map<uint64_t, double> rate;  // bytes per second of the resource
  double alpha = 0;
  auto use = [&](uint64_t k, double bytes, double bytes_per_s) {
    load[k] += bytes;
    rate[k] = bytes_per_s;
  };
  for (const Flow& f : flows) {
    const PathKind path = pathOf(f.src, f.dst);
    const uint64_t s = static_cast<uint64_t>(f.src), d = static_cast<uint64_t>(f.dst);
    switch (path) {
      case PathKind::kSelf: continue;
      case PathKind::kHccs:
        use(key(kHccsLink, s, d), f.bytes, chip_.link_bytes_per_s);
        alpha = std::max(alpha, chip_.link_alpha_us);
        break;
      case PathKind::kCrossGroup: {
        const int g = std::max(1, chip_.hccs_group_size);
        use(key(kPcieOut, s), f.bytes, chip_.pcie_bytes_per_s);
        use(key(kPcieIn, d), f.bytes, chip_.pcie_bytes_per_s);
        use(key(kGroupPath, static_cast<uint64_t>(place_.server[f.src]), static_cast<uint64_t>(place_.slot[f.src] / g)),
            f.bytes, chip_.cross_group_bytes_per_s);
        alpha = std::max(alpha, chip_.link_alpha_us);
        break;
      }
      case PathKind::kRoce:
        use(key(kRoceOut, s), f.bytes, chip_.inter_host_bytes_per_s);
        use(key(kRoceIn, d), f.bytes, chip_.inter_host_bytes_per_s);
        alpha = std::max(alpha, chip_.inter_host_alpha_us);
        break;
    }
  }
  double busiest = 0;
  for (const auto& [k, bytes] : load) busiest = std::max(busiest, bytes / rate[k] * kUsPerS);
  return alpha + busiest;
}

}  // namespace hccl
}  // namespace ascend_sim
