#include "hccl/algorithms/broadcast_binomial.h"

namespace ascend_sim {
namespace hccl {

namespace {
uint32_t bitIndex(int mask) {
  uint32_t k = 0;
  while ((1 << k) < mask) ++k;
  return k;
}
}  // namespace

void BroadcastBinomial::run(PeerIo& io, const CollectiveArgs& a, Reducer&) {
  const int p = io.size();
  const size_t bytes = a.count * a.elemSize();
  if (p == 1 || bytes == 0) return;
  const int v = (io.rank() - a.root + p) % p;  // virtual rank: root is 0
  auto real = [&](int vr) { return (vr + a.root) % p; };
  int mask = 1;
  for (; mask < p; mask <<= 1) {
    if (v & mask) {
      io.recv(bitIndex(mask), real(v - mask), a.recv, bytes);
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < p) io.send(bitIndex(mask), real(v + mask), a.recv, bytes);
}

}  // namespace hccl
}  // namespace ascend_sim
