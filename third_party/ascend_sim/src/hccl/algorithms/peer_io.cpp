#include "hccl/algorithms/peer_io.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ascend_sim {
namespace hccl {

PeerIo PeerIo::subgroup(std::vector<int> members, uint32_t first_step) {
  if (!members_.empty()) throw std::logic_error("PeerIo::subgroup: a subgroup of a subgroup");
  PeerIo sub(t_, tag_base_, timeout_);
  const int me = t_.rank();
  const auto it = std::find(members.begin(), members.end(), me);
  if (it == members.end()) throw std::logic_error("PeerIo::subgroup: rank " + std::to_string(me) + " is not a member");
  sub.my_index_ = static_cast<int>(it - members.begin());
  sub.members_ = std::move(members);
  sub.first_step_ = first_step_ + first_step;
  sub.parent_ = this;
  return sub;
}

void PeerIo::exchange(const std::vector<Transfer>& transfers) {
  std::vector<TaggedTransfer> tagged;
  tagged.reserve(transfers.size());
  for (const Transfer& x : transfers) {
    const uint32_t step = first_step_ + x.step;
    if (step > kStepMask) throw std::logic_error("PeerIo: step " + std::to_string(step) + " is out of range");
    tagged.push_back(TaggedTransfer{x.send, globalRank(x.peer), tag_base_ | step, x.data, x.bytes, x.reduce});
  }
  exchangeTagged(tagged);
}

void PeerIo::exchangeTagged(const std::vector<TaggedTransfer>& transfers) {
  struct Posted {
    std::unique_ptr<PendingTransfer> pending;
    const TaggedTransfer* x;
    std::unique_ptr<uint8_t[]> scratch;  // a reducing receive the transport cannot reduce itself
  };
  std::vector<Posted> posted;
  posted.reserve(transfers.size());
  for (int pass = 0; pass < 2; ++pass) {  // receives first: a peer's data can land at once
    for (const TaggedTransfer& x : transfers) {
      if (x.send != (pass == 1) || x.peer < 0 || x.bytes == 0) continue;
      Posted p{nullptr, &x, nullptr};
      if (x.send) {
        p.pending = t_.postSend(x.peer, x.tag, x.data, x.bytes);
      } else if (!x.reduce) {
        p.pending = t_.postRecv(x.peer, x.tag, x.data, x.bytes);
      } else if (t_.reducesOnReceive()) {
        p.pending = t_.postRecvReduce(x.peer, x.tag, x.data, x.bytes, *x.reduce);
      } else {
        p.scratch.reset(new uint8_t[x.bytes]);
        p.pending = t_.postRecv(x.peer, x.tag, p.scratch.get(), x.bytes);
      }
      posted.push_back(std::move(p));
    }
  }
  for (Posted& p : posted) {
    t_.wait(*p.pending, timeout_);
    for (PeerIo* io = this; io; io = io->parent_) io->bytes_ += static_cast<double>(p.x->bytes);
    if (p.scratch) p.x->reduce->reduceBytes(p.x->data, p.scratch.get(), p.x->bytes);
  }
}

}  // namespace hccl
}  // namespace ascend_sim
