// How a buffer of `count` elements is cut into one block per rank.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ascend_sim {
namespace hccl {

class BlockLayout {
 public:
  // `parts` near-equal blocks: the first count % parts are one element longer
  // (blocks may be empty when count < parts).
  static BlockLayout even(uint64_t count, int parts) {
    BlockLayout l;
    const uint64_t base = count / parts, extra = count % parts;
    l.offsets_.push_back(0);
    for (int b = 0; b < parts; ++b) l.offsets_.push_back(l.offsets_.back() + base + (uint64_t(b) < extra ? 1 : 0));
    return l;
  }
  // `parts` blocks of `block` elements each.
  static BlockLayout uniform(uint64_t block, int parts) {
    BlockLayout l;
    for (int b = 0; b <= parts; ++b) l.offsets_.push_back(block * b);
    return l;
  }
  // Elements of blocks [first, last).
  uint64_t offset(int first) const { return offsets_[first]; }
  uint64_t size(int first, int last) const { return offsets_[last] - offsets_[first]; }
  uint64_t size(int b) const { return size(b, b + 1); }
  uint64_t largest() const {
    uint64_t m = 0;
    for (size_t b = 0; b + 1 < offsets_.size(); ++b) m = std::max(m, offsets_[b + 1] - offsets_[b]);
    return m;
  }

 private:
  std::vector<uint64_t> offsets_;  // parts + 1 entries
};

}  // namespace hccl
}  // namespace ascend_sim
