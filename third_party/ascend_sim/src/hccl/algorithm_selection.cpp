#include "hccl/algorithm_selection.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "hccl/hccl_error.h"
#include "hccl/hierarchy.h"
#include "hccl/link_model.h"

namespace ascend_sim {
namespace hccl {

namespace {

bool isPowerOfTwo(int p) { return p > 0 && (p & (p - 1)) == 0; }

std::string lower(std::string v) {
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(trim(part));
  return parts;
}

[[noreturn]] void badAlgo(const std::string& value, const std::string& why) {
  throwHccl(HCCL_E_PARA, "HCCL_ALGO='" + value + "': " + why +
                             " (CANN's syntax: \"level0:NA;level1:<algo>\", or per operator "
                             "\"allreduce=level0:NA;level1:<algo>/allgather=...\"; <algo>: ring, H-D_R or pipeline)");
}

Level1 parseLevel1(const std::string& value, const std::string& algo) {
  const std::string a = lower(algo);
  if (a == "ring") return Level1::kRing;
  if (a == "h-d_r") return Level1::kHalvingDoubling;
  if (a == "pipeline") return Level1::kPipeline;
  if (a == "nhr" || a == "nhr_v1" || a == "nb" || a == "ahc" || a == "pairwise")
    throwHccl(HCCL_E_NOT_SUPPORT, "HCCL_ALGO='" + value + "': level1 algorithm '" + algo +
                                      "' is CANN's but the simulator does not implement it (supported: ring, "
                                      "H-D_R, pipeline; all-to-all is always pairwise)");
  badAlgo(value, "unknown level1 algorithm '" + algo + "'");
}

// "level0:NA;level1:ring" -> kRing.
Level1 parseLevels(const std::string& value, const std::string& levels) {
  Level1 result = Level1::kAuto;
  bool seen = false;
  for (const std::string& item : split(levels, ';')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) badAlgo(value, "'" + item + "' is not <level>:<algo>");
    const std::string level = lower(trim(item.substr(0, colon))), algo = trim(item.substr(colon + 1));
    if (level == "level0") {
      if (lower(algo) != "na") badAlgo(value, "level0 (inside a server) must be NA: HCCL chooses it from the hardware");
    } else if (level == "level1") {
      result = parseLevel1(value, algo);
      seen = true;
    } else if (level != "level2") {
      badAlgo(value, "unknown level '" + level + "'");
    }
  }
  if (!seen) badAlgo(value, "no level1 algorithm");
  return result;
}

int kindIndex(const std::string& value, const std::string& op) {
  const std::string o = lower(op);
  if (o == "allreduce") return static_cast<int>(CollectiveKind::kAllReduce);
  if (o == "allgather") return static_cast<int>(CollectiveKind::kAllGather);
  if (o == "reducescatter") return static_cast<int>(CollectiveKind::kReduceScatter);
  if (o == "broadcast") return static_cast<int>(CollectiveKind::kBroadcast);
  if (o == "reduce") return static_cast<int>(CollectiveKind::kReduce);
  if (o == "alltoall" || o == "scatter") return -1;  // one algorithm each here: accepted, no effect
  badAlgo(value,
          "unknown operator '" + op + "' (allreduce, allgather, reducescatter, broadcast, reduce, scatter, alltoall)");
}

CollectiveAlgo level1Algo(Level1 l1, int servers) {
  if (l1 == Level1::kHalvingDoubling && isPowerOfTwo(servers)) return CollectiveAlgo::kHalvingDoublingAllReduce;
  return CollectiveAlgo::kRingAllReduce;
}

CollectiveAlgo level0Override(Level0 l0, int ranks) {
  switch (l0) {
    case Level0::kRing: return CollectiveAlgo::kRingAllReduce;
    case Level0::kMesh: return CollectiveAlgo::kMeshAllReduce;
    case Level0::kHalvingDoubling:
      return isPowerOfTwo(ranks) ? CollectiveAlgo::kHalvingDoublingAllReduce : CollectiveAlgo::kRingAllReduce;
    case Level0::kAuto: break;
  }
  return CollectiveAlgo::kRingAllReduce;
}

// The hierarchical all-reduce with level 1 = `l1`, made flat when it has one level (Note [Hierarchy levels]).
AlgoChoice hierarchical(const AlgoConfig& config, const Placement& place, const ChipConfig& chip, Level1 l1) {
  AlgoChoice c;
  c.algo = CollectiveAlgo::kHierarchicalAllReduce;
  if (config.level0 == Level0::kAuto) {
    c.hccs_group = chip.hccs_group_size;
    c.level0 = CollectiveAlgo::kMeshAllReduce;
  } else {  // forced over the whole server; halving-doubling has no reduce-scatter phase here: ring
    c.level0 = config.level0 == Level0::kMesh ? CollectiveAlgo::kMeshAllReduce : CollectiveAlgo::kRingAllReduce;
  }
  c.level1 = level1Algo(l1 == Level1::kPipeline ? Level1::kHalvingDoubling : l1, place.servers);
  c.chunks = l1 == Level1::kPipeline && place.servers > 1 ? kPipelineChunks : 1;  // overlaps the servers level
  const std::vector<HierarchyLevel> levels = hierarchyOf(place, c);
  AlgoChoice flat;
  if (levels.empty()) {  // ranks not evenly spread: one ring (or level 1) over all ranks
    flat.algo = place.servers == 1 ? CollectiveAlgo::kRingAllReduce : level1Algo(l1, place.size());
    return flat;
  }
  if (levels.size() == 1) {
    flat.algo = levels.front().algo;
    return flat;
  }
  for (const HierarchyLevel& level : levels) {
    c.inner_groups |= level.kind == LevelKind::kHccsGroup;
    c.across_groups |= level.kind == LevelKind::kAcrossGroups;
    c.across_servers |= level.kind == LevelKind::kServers;
  }
  return c;
}

// CANN's default level 1 (Note [Algorithm choice]): the training series' rule; on the A2 series the
// fastest of ring, H-D_R and pipeline for this message (assumed: CANN does not publish its rule).
Level1 defaultLevel1(const AlgoConfig& config, const Placement& place, const ChipConfig& chip, uint64_t bytes) {
  const Level1 rule = isPowerOfTwo(place.servers) ? Level1::kHalvingDoubling : Level1::kRing;
  if (!chip.hccl_a2_algorithm_rules) return rule;
  const CostModel cost(chip);
  const LinkModel links(chip, place);
  auto time = [&](Level1 l1) {
    return scheduleUs(cost, links, hierarchical(config, place, chip, l1), static_cast<double>(bytes), 0, {});
  };
  Level1 best = rule;
  double best_us = time(rule);
  for (Level1 l1 : {Level1::kRing, Level1::kHalvingDoubling, Level1::kPipeline}) {
    const double us = time(l1);
    if (us < best_us) best = l1, best_us = us;
  }
  return best;
}

AlgoChoice chooseAllReduce(const AlgoConfig& config, const Placement& place, const ChipConfig& chip, uint64_t bytes) {
  AlgoChoice c;
  if (place.size() <= 1) return c;
  if (place.servers == 1 && config.level0 != Level0::kAuto) {
    c.algo = level0Override(config.level0, place.size());
    return c;
  }
  Level1 l1 = config.level1[static_cast<int>(CollectiveKind::kAllReduce)];
  if (place.servers > 1 && l1 == Level1::kAuto) l1 = defaultLevel1(config, place, chip, bytes);
  return hierarchical(config, place, chip, l1 == Level1::kAuto ? Level1::kRing : l1);
}

}  // namespace

AlgoConfig parseAlgoConfig(const char* hccl_algo, const char* level0) {
  AlgoConfig config;
  if (hccl_algo && *hccl_algo) {
    const std::string value(hccl_algo);
    if (value.find('=') == std::string::npos) {
      config.level1.fill(parseLevels(value, value));
    } else {
      for (const std::string& entry : split(value, '/')) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos) badAlgo(value, "'" + entry + "' is not <op>=<levels>");
        const Level1 l1 = parseLevels(value, entry.substr(eq + 1));
        const int index = kindIndex(value, trim(entry.substr(0, eq)));
        if (index >= 0) config.level1[index] = l1;
      }
    }
  }
  if (level0 && *level0) {
    const std::string v = lower(level0);
    if (v == "ring")
      config.level0 = Level0::kRing;
    else if (v == "h-d" || v == "h-d_r")
      config.level0 = Level0::kHalvingDoubling;
    else if (v == "mesh")
      config.level0 = Level0::kMesh;
    else
      throwHccl(HCCL_E_PARA, std::string("ASCEND_SIM_HCCL_LEVEL0='") + level0 + "' is not ring, H-D or mesh");
  }
  return config;
}

AlgoChoice chooseAlgorithm(CollectiveKind kind, const AlgoConfig& config, const Placement& place,
                           const ChipConfig& chip, uint64_t bytes) {
  AlgoChoice c;
  switch (kind) {
    case CollectiveKind::kAllReduce: return chooseAllReduce(config, place, chip, bytes);
    case CollectiveKind::kBroadcast: c.algo = CollectiveAlgo::kBinomialBroadcast; break;
    case CollectiveKind::kReduce: c.algo = CollectiveAlgo::kBinomialReduce; break;
    case CollectiveKind::kAllGather: c.algo = CollectiveAlgo::kRingAllGather; break;
    case CollectiveKind::kReduceScatter: c.algo = CollectiveAlgo::kRingReduceScatter; break;
    case CollectiveKind::kAlltoAllV: c.algo = CollectiveAlgo::kPairwiseAlltoAll; break;
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv: c.algo = CollectiveAlgo::kPointToPoint; break;
    case CollectiveKind::kBarrier: c.algo = CollectiveAlgo::kDisseminationBarrier; break;
    case CollectiveKind::kBatchSendRecv: c.algo = CollectiveAlgo::kBatchPointToPoint; break;
  }
  return c;
}

std::string choiceName(const AlgoChoice& c) {
  if (c.algo != CollectiveAlgo::kHierarchicalAllReduce) return algorithmName(c.algo);
  std::vector<std::string> parts;  // the levels present, inside out
  if (c.inner_groups) parts.push_back(algorithmName(c.level0));
  if (c.across_groups) parts.push_back("ring");
  if (c.across_servers)
    parts.push_back(c.chunks > 1                                            ? "pipeline"
                    : c.level1 == CollectiveAlgo::kHalvingDoublingAllReduce ? "H-D_R"
                                                                            : "ring");
  std::string name;
  for (const std::string& part : parts) name += (name.empty() ? "" : "/") + part;
  return name;
}

const char* algorithmName(CollectiveAlgo algo) {
  switch (algo) {
    case CollectiveAlgo::kRingAllReduce:
    case CollectiveAlgo::kRingAllGather:
    case CollectiveAlgo::kRingReduceScatter: return "ring";
    case CollectiveAlgo::kHalvingDoublingAllReduce: return "halving_doubling";
    case CollectiveAlgo::kMeshAllReduce: return "mesh";
    case CollectiveAlgo::kHierarchicalAllReduce: return "hierarchical";
    case CollectiveAlgo::kBinomialBroadcast:
    case CollectiveAlgo::kBinomialReduce: return "binomial_tree";
    case CollectiveAlgo::kPairwiseAlltoAll: return "pairwise";
    case CollectiveAlgo::kPointToPoint: return "direct";
    case CollectiveAlgo::kBatchPointToPoint: return "direct_batch";
    case CollectiveAlgo::kDisseminationBarrier: return "dissemination";
  }
  return "unknown";
}

}  // namespace hccl
}  // namespace ascend_sim
