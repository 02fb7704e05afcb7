#include "hccl/algorithms/allreduce_halving_doubling.h"

#include <cstring>
#include <stdexcept>

#include "hccl/algorithms/block_layout.h"

namespace ascend_sim {
namespace hccl {

void AllReduceHalvingDoubling::run(PeerIo& io, const CollectiveArgs& a, Reducer& reduce) {
  const size_t elem = a.elemSize();
  auto* buf = static_cast<uint8_t*>(a.recv);
  if (a.count == 0) return;
  if (a.send != a.recv) std::memmove(buf, a.send, a.count * elem);
  const int p = io.size(), r = io.rank();
  if (p == 1) return;
  if ((p & (p - 1)) != 0) throw std::logic_error("halving-doubling needs a power-of-two rank count");
  const BlockLayout blocks = BlockLayout::even(a.count, p);
  auto at = [&](int block) { return buf + blocks.offset(block) * elem; };
  uint32_t step = 0;
  // Reduce-scatter: keep the half of [lo, hi) named by bit d of r, send the other.
  int lo = 0, hi = p;
  for (int d = p / 2; d >= 1; d /= 2, ++step) {
    const int partner = r ^ d, mid = (lo + hi) / 2;
    const bool keep_low = (r & d) == 0;
    const int keep_lo = keep_low ? lo : mid, keep_hi = keep_low ? mid : hi;
    const int give_lo = keep_low ? mid : lo, give_hi = keep_low ? hi : mid;
    io.sendRecvReduce(step, partner, at(give_lo), blocks.size(give_lo, give_hi) * elem, partner, at(keep_lo),
                      blocks.size(keep_lo, keep_hi) * elem, reduce);
    lo = keep_lo;
    hi = keep_hi;
  }
  // All-gather: exchange the owned range with the partner's adjacent one.
  for (int d = 1; d < p; d *= 2, ++step) {
    const int partner = r ^ d, width = hi - lo;
    const int other_lo = (r & d) == 0 ? hi : lo - width;
    io.sendRecv(step, partner, at(lo), blocks.size(lo, hi) * elem, partner, at(other_lo),
                blocks.size(other_lo, other_lo + width) * elem);
    lo = std::min(lo, other_lo);
    hi = lo + 2 * width;
  }
}

}  // namespace hccl
}  // namespace ascend_sim
