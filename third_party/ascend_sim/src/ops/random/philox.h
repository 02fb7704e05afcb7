// The Philox4x32-10 counter-based generator behind every random kernel
// (Note [Philox streams] in random.cpp): the random ops and the dropout of
// FlashAttentionScore / FlashAttentionScoreGrad draw from the same streams.
#pragma once

#include <cstdint>

namespace ascend_sim {

// One Philox4x32-10 block (Salmon et al., Random123): key = seed (k0 = low,
// k1 = high 32 bits), counter = `counter` as a 128-bit number (c0 = low,
// c1 = high 32 bits, c2 = c3 = 0). Writes the four 32-bit lanes.
void philox4x32_10(uint64_t counter, uint64_t seed, uint32_t out[4]);

// A 32-bit draw as a uniform in [0, 1): (u >> 8) * 2^-24 (exact in fp32).
inline float philoxUnit(uint32_t u) { return static_cast<float>(u >> 8) * (1.0f / 16777216.0f); }

// Uniform i of the stream (seed, offset): lane i % 4 of block offset + i / 4
// (PhiloxRandomUniform's element i for [0, 1)).
inline float philoxUniform(uint64_t seed, uint64_t offset, uint64_t i) {
  uint32_t r[4];
  philox4x32_10(offset + i / 4, seed, r);
  return philoxUnit(r[i % 4]);
}

}  // namespace ascend_sim
