#include "hccl/algorithms/ring_phases.h"

#include <vector>

namespace ascend_sim {
namespace hccl {

namespace {
int mod(int a, int p) { return ((a % p) + p) % p; }
}  // namespace

void ringReduceScatter(PeerIo& io, uint8_t* buf, const BlockLayout& blocks, size_t elem, Reducer& reduce,
                       uint32_t first_step) {
  const int p = io.size(), r = io.rank();
  const int right = mod(r + 1, p), left = mod(r - 1, p);
  std::vector<uint8_t> scratch(blocks.largest() * elem);
  for (int s = 0; s < p - 1; ++s) {
    const int out = mod(r - s - 1, p), in = mod(r - s - 2, p);
    io.sendRecv(first_step + s, right, buf + blocks.offset(out) * elem, blocks.size(out) * elem, left,
                scratch.data(), blocks.size(in) * elem);
    reduce(buf + blocks.offset(in) * elem, scratch.data(), blocks.size(in));
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
