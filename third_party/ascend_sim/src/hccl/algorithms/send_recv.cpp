#include "hccl/algorithms/send_recv.h"

#include "hccl/hccl_error.h"

namespace ascend_sim {
namespace hccl {

namespace {
std::string describe(const P2pHeader& h) {
  return std::to_string(h.count) + " x " + hcclDtypeName(static_cast<HcclDataType>(h.dtype));
}
}  // namespace

void checkP2pHeaders(bool is_sender, int rank, int peer, const P2pHeader& mine, const P2pHeader& theirs) {
  if (theirs.count != mine.count || theirs.dtype != mine.dtype) {
    const P2pHeader& s = is_sender ? mine : theirs;
    const P2pHeader& r = is_sender ? theirs : mine;
    const int sender = is_sender ? rank : peer, receiver = is_sender ? peer : rank;
    throwHccl(HCCL_E_REMOTE, "send/recv mismatch: rank " + std::to_string(sender) + " called HcclSend(" +
                                 describe(s) + " to rank " + std::to_string(receiver) + "), rank " +
                                 std::to_string(receiver) + " called HcclRecv(" + describe(r) + " from rank " +
                                 std::to_string(sender) + ")");
  }
}

void PointToPoint::run(PeerIo& io, const CollectiveArgs& a, Reducer&) {
  const int peer = a.root;
  P2pHeader mine{a.count, a.dtype}, theirs{};
  io.sendRecv(0, peer, &mine, sizeof mine, peer, &theirs, sizeof theirs);
  checkP2pHeaders(sender_, io.rank(), peer, mine, theirs);
  const size_t bytes = a.count * a.elemSize();
  if (sender_)
    io.send(1, peer, a.send, bytes);
  else
    io.recv(1, peer, a.recv, bytes);
}

}  // namespace hccl
}  // namespace ascend_sim
