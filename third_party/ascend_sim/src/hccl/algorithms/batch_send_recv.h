// HcclBatchSendRecv: every item's header exchange is posted at once and
// waited for together, then every payload — so mutual exchanges (ring
// shifts, pairwise swaps) cannot deadlock the way separate blocking
// HcclSend/HcclRecv tasks can. Items keep the matching rules of single
// send/recv (per (sender, receiver) order, count and dtype checked).
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

class BatchPointToPoint final : public Algorithm {
 public:
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;
};

}  // namespace hccl
}  // namespace ascend_sim
