// The dropout masks the kernels make and read (Note [Dropout bit masks] in
// dropout.cpp): DropOutGenMask / DropOutDoMask, the fused softmax-dropout
// kernels and MultiHeadAttention share the bit mask; DropOutGenMaskV3 writes
// the same draws one byte per element (AttentionScore's drop_mask).
#pragma once

#include <cstdint>

namespace ascend_sim {

// The mask kernels split the elements into blocks of whole mask bytes (and
// whole Philox groups of 4) over the simulated cores: each block writes its
// own bytes, and every element's value depends only on its index, so the
// result does not depend on the split.
constexpr int64_t kDropoutMaskBlock = 16384;  // elements; a multiple of 128

// Bytes of the bit mask of n elements: ceil(n / 128) * 16.
inline int64_t dropoutMaskBytes(int64_t n) { return (n + 127) / 128 * 16; }

// Whether element i is kept by a bit mask.
inline bool dropoutMaskBit(const uint8_t* mask, int64_t i) { return (mask[i >> 3] >> (i & 7)) & 1; }

// Writes the whole bit mask of n elements (dropoutMaskBytes(n) bytes, the
// padding bits 0): bit i is set iff element i of the Philox uniform stream
// (seed, offset) is below keep_prob. Blocks of whole bytes run in parallel.
void generateDropoutBits(uint64_t seed, uint64_t offset, float keep_prob, int64_t n, uint8_t* mask);

// The same draws one byte per element: mask[i] = 1 (kept) or 0, n bytes.
void generateDropoutBytes(uint64_t seed, uint64_t offset, float keep_prob, int64_t n, uint8_t* mask);

}  // namespace ascend_sim
