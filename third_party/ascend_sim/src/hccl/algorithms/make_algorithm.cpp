// The algorithm classes behind CollectiveAlgo, and the Reducer.
#include <stdexcept>

#include "hccl/algorithms/algorithm.h"
#include "hccl/algorithms/allgather_ring.h"
#include "hccl/algorithms/allreduce_halving_doubling.h"
#include "hccl/algorithms/allreduce_hierarchical.h"
#include "hccl/algorithms/allreduce_mesh.h"
#include "hccl/algorithms/allreduce_ring.h"
#include "hccl/algorithms/alltoallv_pairwise.h"
#include "hccl/algorithms/barrier_dissemination.h"
#include "hccl/algorithms/batch_send_recv.h"
#include "hccl/algorithms/broadcast_binomial.h"
#include "hccl/algorithms/reduce_binomial.h"
#include "hccl/algorithms/reduce_scatter_ring.h"
#include "hccl/algorithms/send_recv.h"
#include "hccl/collective_schedule.h"
#include "hccl/hierarchy.h"
#include "hccl/placement.h"
#include "hccl/reduce_kernel.h"

namespace ascend_sim {
namespace hccl {

void Reducer::operator()(void* dst, const void* src, uint64_t elems) {
  if (reduceInto(dst, src, elems, dtype_, op_, saturate_)) overflow_ = true;
}

std::unique_ptr<Algorithm> makeAlgorithm(const AlgoChoice& choice, CollectiveKind kind, const Placement& placement,
                                         int rank) {
  switch (choice.algo) {
    case CollectiveAlgo::kMeshAllReduce: return std::make_unique<AllReduceMesh>();
    case CollectiveAlgo::kHierarchicalAllReduce: {
      std::vector<AllReduceHierarchical::Level> levels;
      for (const HierarchyLevel& level : hierarchyOf(placement, choice))
        levels.push_back({level.groupOf(rank), level.algo});
      if (levels.empty()) throw std::logic_error("hierarchical all-reduce on ranks that are not evenly spread");
      return std::make_unique<AllReduceHierarchical>(std::move(levels), choice.chunks);
    }
    case CollectiveAlgo::kRingAllReduce: return std::make_unique<AllReduceRing>();
    case CollectiveAlgo::kHalvingDoublingAllReduce: return std::make_unique<AllReduceHalvingDoubling>();
    case CollectiveAlgo::kRingAllGather: return std::make_unique<AllGatherRing>();
    case CollectiveAlgo::kRingReduceScatter: return std::make_unique<ReduceScatterRing>();
    case CollectiveAlgo::kBinomialBroadcast: return std::make_unique<BroadcastBinomial>();
    case CollectiveAlgo::kBinomialReduce: return std::make_unique<ReduceBinomial>();
    case CollectiveAlgo::kPairwiseAlltoAll: return std::make_unique<AlltoAllVPairwise>();
    case CollectiveAlgo::kPointToPoint: return std::make_unique<PointToPoint>(kind == CollectiveKind::kSend);
    case CollectiveAlgo::kDisseminationBarrier: return std::make_unique<BarrierDissemination>();
    case CollectiveAlgo::kBatchPointToPoint: return std::make_unique<BatchPointToPoint>();
  }
  throw std::logic_error("makeAlgorithm: unknown algorithm");
}

}  // namespace hccl
}  // namespace ascend_sim
