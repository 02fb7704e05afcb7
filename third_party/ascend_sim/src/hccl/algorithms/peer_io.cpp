#include "hccl/algorithms/peer_io.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ascend_sim {
namespace hccl {

void PeerIo::exchange(std::initializer_list<Transfer> transfers) {
  std::vector<TaggedTransfer> tagged;
  tagged.reserve(transfers.size());
  for (const Transfer& x : transfers) {
    if (x.step > kStepMask) throw std::logic_error("PeerIo: step " + std::to_string(x.step) + " is out of range");
    tagged.push_back(TaggedTransfer{x.send, x.peer, tag_base_ | x.step, x.data, x.bytes});
  }
  exchangeTagged(tagged);
}

void PeerIo::exchangeTagged(const std::vector<TaggedTransfer>& transfers) {
  std::vector<std::pair<std::unique_ptr<PendingTransfer>, size_t>> posted;
  posted.reserve(transfers.size());
  for (int pass = 0; pass < 2; ++pass) {  // receives first: a peer's data can land at once
    for (const TaggedTransfer& x : transfers) {
      if (x.send != (pass == 1) || x.peer < 0 || x.bytes == 0) continue;
      posted.emplace_back(x.send ? t_.postSend(x.peer, x.tag, x.data, x.bytes)
                                 : t_.postRecv(x.peer, x.tag, x.data, x.bytes),
                          x.bytes);
    }
  }
  for (auto& [pending, bytes] : posted) {
    t_.wait(*pending, timeout_);
    bytes_ += static_cast<double>(bytes);
  }
}

}  // namespace hccl
}  // namespace ascend_sim
