#include "hccl/algorithm_selection.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ascend_sim {
namespace hccl {

namespace {
bool isPowerOfTwo(int p) { return p > 0 && (p & (p - 1)) == 0; }
}  // namespace

AllReducePolicy parseHcclAlgo(const char* value) {
  if (!value) return AllReducePolicy::kAuto;
  std::string v(value);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v.find("h-d") != std::string::npos) return AllReducePolicy::kHalvingDoubling;
  if (v.find("ring") != std::string::npos) return AllReducePolicy::kRing;
  return AllReducePolicy::kAuto;
}

CollectiveAlgo chooseAllReduce(AllReducePolicy policy, int ranks, uint64_t bytes) {
  if (!isPowerOfTwo(ranks)) return CollectiveAlgo::kRingAllReduce;
  switch (policy) {
    case AllReducePolicy::kRing: return CollectiveAlgo::kRingAllReduce;
    case AllReducePolicy::kHalvingDoubling: return CollectiveAlgo::kHalvingDoublingAllReduce;
    case AllReducePolicy::kAuto: break;
  }
  return bytes < kHalvingDoublingMaxBytes ? CollectiveAlgo::kHalvingDoublingAllReduce : CollectiveAlgo::kRingAllReduce;
}

CollectiveAlgo algorithmFor(CollectiveKind kind, AllReducePolicy policy, int ranks, uint64_t bytes) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return chooseAllReduce(policy, ranks, bytes);
    case CollectiveKind::kBroadcast: return CollectiveAlgo::kBinomialBroadcast;
    case CollectiveKind::kReduce: return CollectiveAlgo::kBinomialReduce;
    case CollectiveKind::kAllGather: return CollectiveAlgo::kRingAllGather;
    case CollectiveKind::kReduceScatter: return CollectiveAlgo::kRingReduceScatter;
    case CollectiveKind::kAlltoAllV: return CollectiveAlgo::kPairwiseAlltoAll;
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv: return CollectiveAlgo::kPointToPoint;
    case CollectiveKind::kBarrier: return CollectiveAlgo::kDisseminationBarrier;
    case CollectiveKind::kBatchSendRecv: return CollectiveAlgo::kBatchPointToPoint;
  }
  return CollectiveAlgo::kRingAllReduce;
}

const char* algorithmName(CollectiveAlgo algo) {
  switch (algo) {
    case CollectiveAlgo::kRingAllReduce:
    case CollectiveAlgo::kRingAllGather:
    case CollectiveAlgo::kRingReduceScatter: return "ring";
    case CollectiveAlgo::kHalvingDoublingAllReduce: return "halving_doubling";
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
