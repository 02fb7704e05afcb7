// The α-β-γ cost of the collective algorithms (HCCL.md, "Cost (simulated time)").
//
// Note [Collective cost]
// For a communicator of p ranks, with α the latency of one algorithm step
// and β the time per byte on one chip-to-chip link (ChipConfig: HCCS within a
// host, RoCE when the communicator spans hosts; the per-step latencies and
// the 910B2 / RoCE rates are assumptions), and γ(b) the time to reduce b
// bytes (reduceUs below), one rank's collective takes:
//   ring all-reduce          2(p-1)α + 2(p-1)/p·n·β + γ((p-1)/p·n)   n = vector bytes
//   halving-doubling a.-r.   2·log2(p)·α + 2(p-1)/p·n·β + γ((p-1)/p·n)
//   ring all-gather          (p-1)α + (p-1)/p·n·β                  n = gathered bytes (p·send)
//   ring reduce-scatter      (p-1)α + (p-1)/p·n·β + γ((p-1)/p·n)   n = input bytes (p·recv)
//   binomial broadcast       ⌈log2 p⌉·(α + n·β)                    n = message bytes
//   binomial reduce          ⌈log2 p⌉·(α + n·β + γ(n))
//   pairwise all-to-all-v    (p-1)α + n·β                          n = max(bytes sent, received), self excluded
//   send / recv              α + n·β
//   dissemination barrier    ⌈log2 p⌉·α
//   mesh all-reduce          2α + 2·n/p·β + γ((p-1)/p·n)           p-1 links per rank at once
// These are the flat formulas (every pair one link). A collective on a
// communicator is priced on the cluster's links instead (Note [Cluster
// links] in hccl/link_model.h), which gives these on one HCCS group; a
// hierarchical all-reduce has no flat formula and is priced as ring here.
// A communicator of one rank costs 0 (no link is used).
// γ(b) = max(Vector time of b bytes, 3b / HBM bandwidth): the Vector unit
// reads two operands and writes one, usually HBM-bound.
#include <algorithm>
#include <cmath>

#include "cost/cost_model.h"

namespace ascend_sim {

namespace {
constexpr double kUsPerS = 1e6;           // microseconds per second
constexpr double kReduceHbmPasses = 3.0;  // reduction: read two operands, write one

double ceilLog2(int p) { return p <= 1 ? 0.0 : std::ceil(std::log2(static_cast<double>(p))); }
}  // namespace

double CostModel::linkAlphaUs(bool spans_hosts) const {
  return spans_hosts ? chip_.inter_host_alpha_us : chip_.link_alpha_us;
}

double CostModel::linkUsPerByte(bool spans_hosts) const {
  return kUsPerS / (spans_hosts ? chip_.inter_host_bytes_per_s : chip_.link_bytes_per_s);
}

double CostModel::reduceUs(double bytes) const {
  if (bytes <= 0) return 0;
  const double repeats = std::ceil(bytes / chip_.vector_bytes_per_repeat);
  const double vector_us = repeats * chip_.vector_cycles_per_repeat / (chip_.vector_cores * chip_.clock_hz) * kUsPerS;
  const double hbm_us = kReduceHbmPasses * bytes / chip_.hbm_bytes_per_s * kUsPerS;
  return std::max(vector_us, hbm_us);
}

double CostModel::collectiveUs(const CollectiveCostInput& c) const {
  const int p = c.ranks;
  if (p <= 1) return 0;
  const double a = linkAlphaUs(c.spans_hosts);
  const double b = linkUsPerByte(c.spans_hosts);
  const double n = std::max(0.0, c.bytes);
  const double share = static_cast<double>(p - 1) / p * n;  // (p-1)/p·n
  switch (c.algo) {
    case CollectiveAlgo::kMeshAllReduce: return 2 * a + 2 * n / p * b + reduceUs(share);
    case CollectiveAlgo::kHierarchicalAllReduce:
    case CollectiveAlgo::kRingAllReduce: return 2 * (p - 1) * a + 2 * share * b + reduceUs(share);
    case CollectiveAlgo::kHalvingDoublingAllReduce:
      return 2 * std::log2(static_cast<double>(p)) * a + 2 * share * b + reduceUs(share);
    case CollectiveAlgo::kRingAllGather: return (p - 1) * a + share * b;
    case CollectiveAlgo::kRingReduceScatter: return (p - 1) * a + share * b + reduceUs(share);
    case CollectiveAlgo::kBinomialBroadcast: return ceilLog2(p) * (a + n * b);
    case CollectiveAlgo::kBinomialReduce: return ceilLog2(p) * (a + n * b + reduceUs(n));
    case CollectiveAlgo::kPairwiseAlltoAll: return (p - 1) * a + n * b;
    case CollectiveAlgo::kPointToPoint:
    case CollectiveAlgo::kBatchPointToPoint: return a + n * b;  // n: max(sent, received)
    case CollectiveAlgo::kDisseminationBarrier: return ceilLog2(p) * a;
  }
  return 0;
}

}  // namespace ascend_sim
