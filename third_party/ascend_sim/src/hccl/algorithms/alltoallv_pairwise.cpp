#include "hccl/algorithms/alltoallv_pairwise.h"

#include <cstring>

#include "hccl/hccl_error.h"

namespace ascend_sim {
namespace hccl {

namespace {
struct CountHeader {
  uint64_t sends;    // elements the sender sends to the receiver
  uint64_t expects;  // elements the sender expects from the receiver
};
}  // namespace

void AlltoAllVPairwise::run(PeerIo& io, const CollectiveArgs& a, Reducer&) {
  const AlltoAllVLayout& l = *a.alltoallv;
  const size_t elem = a.elemSize();
  const int p = io.size(), r = io.rank();
  const auto* send = static_cast<const uint8_t*>(a.send);
  auto* recv = static_cast<uint8_t*>(a.recv);
  if (l.send_counts[r] > 0)
    std::memmove(recv + l.rdispls[r] * elem, send + l.sdispls[r] * elem, l.send_counts[r] * elem);
  for (int k = 1; k < p; ++k) {
    const int to = (r + k) % p, from = (r - k + p) % p;
    const uint32_t step = 2 * static_cast<uint32_t>(k);
    CountHeader mine{l.send_counts[to], l.recv_counts[to]}, theirs{};
    io.sendRecv(step, to, &mine, sizeof mine, from, &theirs, sizeof theirs);
    if (theirs.sends != l.recv_counts[from] || theirs.expects != l.send_counts[from])
      throwHccl(HCCL_E_REMOTE, "HcclAlltoAllV counts disagree: rank " + std::to_string(from) + " sends " +
                                   std::to_string(theirs.sends) + " elements to rank " + std::to_string(r) +
                                   " and expects " + std::to_string(theirs.expects) + " back, but rank " +
                                   std::to_string(r) + " expects " + std::to_string(l.recv_counts[from]) +
                                   " and sends " + std::to_string(l.send_counts[from]));
    io.sendRecv(step + 1, to, send + l.sdispls[to] * elem, l.send_counts[to] * elem, from,
                recv + l.rdispls[from] * elem, l.recv_counts[from] * elem);
  }
}

}  // namespace hccl
}  // namespace ascend_sim
