#include "hccl/algorithms/batch_send_recv.h"

#include "hccl/algorithms/send_recv.h"

namespace ascend_sim {
namespace hccl {

void BatchPointToPoint::run(PeerIo& io, const CollectiveArgs& a, Reducer&) {
  const std::vector<P2pItem>& items = *a.batch;
  std::vector<P2pHeader> mine(items.size()), theirs(items.size());
  std::vector<PeerIo::TaggedTransfer> headers, payloads;
  for (size_t i = 0; i < items.size(); ++i) {
    const P2pItem& it = items[i];
    mine[i] = P2pHeader{it.count, it.dtype};
    headers.push_back({true, it.peer, it.tag_base | 0, &mine[i], sizeof(P2pHeader)});
    headers.push_back({false, it.peer, it.tag_base | 0, &theirs[i], sizeof(P2pHeader)});
    payloads.push_back({it.send, it.peer, it.tag_base | 1, it.data, it.count * hcclDtypeSize(it.dtype)});
  }
  io.exchangeTagged(headers);
  for (size_t i = 0; i < items.size(); ++i) checkP2pHeaders(items[i].send, io.rank(), items[i].peer, mine[i], theirs[i]);
  io.exchangeTagged(payloads);
}

}  // namespace hccl
}  // namespace ascend_sim
