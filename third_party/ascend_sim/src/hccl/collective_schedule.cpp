#include "hccl/collective_schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "hccl/hierarchy.h"

namespace ascend_sim {
namespace hccl {

namespace {

bool isPowerOfTwo(int p) { return p > 0 && (p & (p - 1)) == 0; }

// Every member sends `bytes` to the member `shift` places on (a ring step).
Step shiftStep(const std::vector<int>& m, int shift, double bytes, double reduce_bytes, int repeat) {
  Step s;
  const int p = static_cast<int>(m.size());
  for (int i = 0; i < p; ++i) s.flows.push_back(Flow{m[i], m[(i + shift) % p], bytes});
  s.reduce_bytes = reduce_bytes;
  s.repeat = repeat;
  return s;
}

// Every member exchanges `bytes` with the member whose index differs in bit d.
Step partnerStep(const std::vector<int>& m, int d, double bytes, double reduce_bytes) {
  Step s;
  for (int i = 0; i < static_cast<int>(m.size()); ++i) s.flows.push_back(Flow{m[i], m[i ^ d], bytes});
  s.reduce_bytes = reduce_bytes;
  return s;
}

Step meshStep(const std::vector<int>& m, double bytes, double reduce_bytes) {
  Step s;
  for (int i : m)
    for (int j : m)
      if (i != j) s.flows.push_back(Flow{i, j, bytes});
  s.reduce_bytes = reduce_bytes;
  return s;
}

// Binomial tree rounds from `root` (index), as broadcast_binomial.cpp and
// reduce_binomial.cpp move the data (v: rank relative to the root). Broadcast,
// masks from the largest down: v with v % 2m == 0 sends to v + m. Reduce,
// masks from 1 up: v with v % 2m == m sends (and reduces into) v - m.
std::vector<Step> binomialSteps(const std::vector<int>& m, double n, int root, bool reduce) {
  const int p = static_cast<int>(m.size());
  std::vector<int> masks;
  for (int mask = 1; mask < p; mask <<= 1) masks.push_back(mask);
  if (!reduce) std::reverse(masks.begin(), masks.end());
  auto real = [&](int v) { return m[(v + root) % p]; };
  std::vector<Step> rounds;
  for (int mask : masks) {
    Step s;
    for (int v = 0; v < p; ++v) {
      if (!reduce && v % (2 * mask) == 0 && v + mask < p) s.flows.push_back(Flow{real(v), real(v + mask), n});
      if (reduce && v % (2 * mask) == mask) s.flows.push_back(Flow{real(v), real(v - mask), n});
    }
    s.reduce_bytes = reduce ? n : 0;
    rounds.push_back(std::move(s));
  }
  return rounds;
}

double stepsUs(const CostModel& cost, const LinkModel& links, const std::vector<Step>& steps) {
  double us = 0;
  for (const Step& s : steps) us += s.repeat * (links.stepUs(s.flows) + cost.reduceUs(s.reduce_bytes));
  return us;
}

// The steps of `algo` run by every group at once (groups of equal size).
std::vector<Step> mergedSteps(CollectiveAlgo algo, const std::vector<std::vector<int>>& groups, double n) {
  std::vector<Step> merged;
  for (const std::vector<int>& g : groups) {
    std::vector<Step> steps = flatSteps(algo, g, n);
    if (merged.empty()) {
      merged = std::move(steps);
      continue;
    }
    for (size_t i = 0; i < steps.size() && i < merged.size(); ++i)
      merged[i].flows.insert(merged[i].flows.end(), steps[i].flows.begin(), steps[i].flows.end());
  }
  return merged;
}

// Level 0's reduce-scatter (first half of its all-reduce steps) or all-gather (second half).
std::vector<Step> half(std::vector<Step> steps, bool first) {
  const size_t mid = steps.size() / 2;
  if (first)
    steps.resize(mid);
  else
    steps.erase(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(mid));
  return steps;
}

double hierarchicalUs(const CostModel& cost, const LinkModel& links, const AlgoChoice& c, double n) {
  const std::vector<HierarchyLevel> levels = hierarchyOf(links.placement(), c);
  if (levels.empty()) throw std::logic_error("hierarchical all-reduce on ranks that are not evenly spread");
  const int chunks = std::max(1, c.chunks);
  double bytes = n / chunks, r = 0, g = 0;
  for (size_t l = 0; l + 1 < levels.size(); ++l) {  // inner levels: reduce-scatter out, all-gather back
    const std::vector<Step> steps = mergedSteps(levels[l].algo, levels[l].groups, bytes);
    r += stepsUs(cost, links, half(steps, true));
    g += stepsUs(cost, links, half(steps, false));
    bytes /= static_cast<double>(levels[l].groups.front().size());
  }
  const double a = stepsUs(cost, links, mergedSteps(levels.back().algo, levels.back().groups, bytes));
  return r + a + g + (chunks - 1) * std::max(r + g, a);
}

}  // namespace

std::vector<Step> flatSteps(CollectiveAlgo algo, const std::vector<int>& m, double n, int root) {
  const int p = static_cast<int>(m.size());
  if (p <= 1) return {};
  const double block = n / p;
  switch (algo) {
    case CollectiveAlgo::kHierarchicalAllReduce:  // flat view: ring (scheduleUs prices the hierarchy)
    case CollectiveAlgo::kRingAllReduce:
      return {shiftStep(m, 1, block, block, p - 1), shiftStep(m, 1, block, 0, p - 1)};
    case CollectiveAlgo::kRingReduceScatter: return {shiftStep(m, 1, block, block, p - 1)};
    case CollectiveAlgo::kRingAllGather: return {shiftStep(m, 1, block, 0, p - 1)};
    case CollectiveAlgo::kMeshAllReduce: return {meshStep(m, block, (p - 1) * block), meshStep(m, block, 0)};
    case CollectiveAlgo::kHalvingDoublingAllReduce: {
      if (!isPowerOfTwo(p)) return flatSteps(CollectiveAlgo::kRingAllReduce, m, n, root);
      std::vector<Step> steps;
      for (int d = p / 2; d >= 1; d /= 2) steps.push_back(partnerStep(m, d, n * d / p, n * d / p));
      for (int d = 1; d < p; d *= 2) steps.push_back(partnerStep(m, d, n * d / p, 0));
      return steps;
    }
    case CollectiveAlgo::kBinomialBroadcast: return binomialSteps(m, n, root, false);
    case CollectiveAlgo::kBinomialReduce: return binomialSteps(m, n, root, true);
    case CollectiveAlgo::kPairwiseAlltoAll: {
      std::vector<Step> steps;
      for (int s = 1; s < p; ++s) steps.push_back(shiftStep(m, s, n / (p - 1), 0, 1));
      return steps;
    }
    case CollectiveAlgo::kDisseminationBarrier: {
      std::vector<Step> steps;
      for (int d = 1; d < p; d *= 2) steps.push_back(shiftStep(m, d, 0, 0, 1));
      return steps;
    }
    case CollectiveAlgo::kPointToPoint:
    case CollectiveAlgo::kBatchPointToPoint: return {};  // their flows come from the call
  }
  return {};
}

double scheduleUs(const CostModel& cost, const LinkModel& links, const AlgoChoice& choice, double n, int root,
                  const std::vector<Flow>& p2p) {
  const int p = links.placement().size();
  if (p <= 1) return 0;
  switch (choice.algo) {
    case CollectiveAlgo::kPointToPoint:
    case CollectiveAlgo::kBatchPointToPoint: return links.stepUs(p2p);
    case CollectiveAlgo::kHierarchicalAllReduce: return hierarchicalUs(cost, links, choice, n);
    default: break;
  }
  std::vector<int> all(p);
  for (int r = 0; r < p; ++r) all[r] = r;
  return stepsUs(cost, links, flatSteps(choice.algo, all, n, root));
}

}  // namespace hccl
}  // namespace ascend_sim
