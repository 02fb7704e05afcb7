// Point-to-point HcclSend / HcclRecv. The two sides first swap a header
// (count, dtype) so that a mismatched pair fails on both ranks with
// HCCL_E_REMOTE naming both calls; then the payload moves. Pairs are matched
// per (sender, receiver) in call order through the tag (Note [Tags] in
// communicator.h).
#pragma once

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

// What the two sides of a send/recv pair swap before the payload.
struct P2pHeader {
  uint64_t count;
  int64_t dtype;
};
// Throws HCCL_E_REMOTE naming both calls if the headers of a pair disagree.
void checkP2pHeaders(bool sender, int rank, int peer, const P2pHeader& mine, const P2pHeader& theirs);

class PointToPoint final : public Algorithm {
 public:
  explicit PointToPoint(bool sender) : sender_(sender) {}
  // args.root is the peer (destination of a send, source of a receive).
  void run(PeerIo& io, const CollectiveArgs& args, Reducer& reduce) override;

 private:
  bool sender_;
};

}  // namespace hccl
}  // namespace ascend_sim
