#include "hccl/algorithms/ring_phases.h"

namespace ascend_sim {
namespace hccl {

namespace {
int mod(int a, int p) { return ((a % p) + p) % p; }
}  // namespace

void ringReduceScatter(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, Reducer& reduce,
                       uint32_t first_step) {
  const int p = io.size(), r = io.rank();
  const int right = mod(r + 1, p), left = mod(r - 1, p);
  for (int s = 0; s < p - 1; ++s) {
    const int out = mod(r - s - 1, p), in = mod(r - s - 2, p);
    io.sendRecvReduce(first_step + s, right, buf + blocks.offset(out) * elem, blocks.size(out) * elem, left,
                      buf + blocks.offset(in) * elem, blocks.size(in) * elem, reduce);
  }
}

void ringAllGather(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, uint32_t first_step) {
  const int p = io.size(), r = io.rank();
  const int right = mod(r + 1, p), left = mod(r - 1, p);
  for (int s = 0; s < p - 1; ++s) {
    const int out = mod(r - s, p), in = mod(r - s - 1, p);
    io.sendRecv(first_step + s, right, buf + blocks.offset(out) * elem, blocks.size(out) * elem, left,
                buf + blocks.offset(in) * elem, blocks.size(in) * elem);
  }
}

}  // namespace hccl
}  // namespace ascend_sim
