#include "hccl/algorithms/reduce_binomial.h"

#include <cstring>
#include <vector>

namespace ascend_sim {
namespace hccl {

void ReduceBinomial::run(PeerIo& io, const CollectiveArgs& a, Reducer& reduce) {
  const int p = io.size();
  const size_t bytes = a.count * a.elemSize();
  if (bytes == 0) return;
  const int v = (io.rank() - a.root + p) % p;
  auto real = [&](int vr) { return (vr + a.root) % p; };
  // The root accumulates in its receive buffer (in place allowed), others in scratch.
  std::vector<uint8_t> own;
  uint8_t* acc;
  if (v == 0) {
    acc = static_cast<uint8_t*>(a.recv);
    if (a.send != a.recv) std::memmove(acc, a.send, bytes);
  } else {
    own.assign(static_cast<const uint8_t*>(a.send), static_cast<const uint8_t*>(a.send) + bytes);
    acc = own.data();
  }
  uint32_t step = 0;
  for (int mask = 1; mask < p; mask <<= 1, ++step) {
    if (v & mask) {
      io.send(step, real(v - mask), acc, bytes);
      return;
    }
    if (v + mask < p) io.recvReduce(step, real(v + mask), acc, bytes, reduce);
  }
}

}  // namespace hccl
}  // namespace ascend_sim
