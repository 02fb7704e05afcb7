// The dropout masks (ops/random/dropout_mask.h).
#include "ops/random/dropout_mask.h"

#include <algorithm>

#include "aicore/thread_pool.h"
#include "ops/random/philox.h"

namespace ascend_sim {
namespace {

// Calls keep(i, kept) for every element of the stream, 8 at a time, in parallel blocks.
template <typename F>
void forEachDraw(uint64_t seed, uint64_t offset, float keep_prob, int64_t n, F keep) {
  parallelFor((n + kDropoutMaskBlock - 1) / kDropoutMaskBlock, [&](int64_t b) {
    const int64_t lo = b * kDropoutMaskBlock, hi = std::min(n, lo + kDropoutMaskBlock);
    for (int64_t i = lo; i < hi; i += 8) {  // two Philox blocks
      uint32_t r[8];
      philox4x32_10(offset + static_cast<uint64_t>(i / 4), seed, r);
      philox4x32_10(offset + static_cast<uint64_t>(i / 4) + 1, seed, r + 4);
      uint8_t bits = 0;
      for (int64_t lane = 0; lane < 8 && i + lane < n; ++lane)
        if (philoxUnit(r[lane]) < keep_prob) bits = static_cast<uint8_t>(bits | (1u << lane));
      keep(i, bits);
    }
  });
}

}  // namespace

void generateDropoutBits(uint64_t seed, uint64_t offset, float keep_prob, int64_t n, uint8_t* mask) {
  std::fill(mask + n / 8, mask + dropoutMaskBytes(n), uint8_t{0});  // the padding bits (and a partial last byte)
  forEachDraw(seed, offset, keep_prob, n, [&](int64_t i, uint8_t bits) { mask[i >> 3] = bits; });
}

void generateDropoutBytes(uint64_t seed, uint64_t offset, float keep_prob, int64_t n, uint8_t* mask) {
  forEachDraw(seed, offset, keep_prob, n, [&](int64_t i, uint8_t bits) {
    for (int64_t lane = 0; lane < 8 && i + lane < n; ++lane) mask[i + lane] = (bits >> lane) & 1;
  });
}

}  // namespace ascend_sim
