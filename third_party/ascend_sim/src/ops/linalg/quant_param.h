// Note [Quant params]
// The int64 dequantisation parameter of the Cube's fixpipe, as TransQuantParamV2
// writes it and QuantBatchMatmulV3 reads it (the layout as this project models it):
//   bits 0..31   the fp32 scale with its 13 low mantissa bits cleared (the
//                hardware keeps 1 + 8 + 10 bits of it)
//   bits 37..45  the offset rounded to a 9-bit signed integer, clamped to [-256, 255]
//   bit 46       set when an offset was given
#pragma once

#include <cstdint>
#include <cstring>

namespace ascend_sim {

struct QuantParam {
  float scale = 0.0f, offset = 0.0f;
};

constexpr uint32_t kQuantScaleMask = 0xFFFFE000u;
constexpr int kQuantOffsetShift = 37;
constexpr uint64_t kQuantHasOffset = uint64_t{1} << 46;

inline uint64_t encodeQuantParam(float scale, const float* offset) {
  uint32_t bits = 0;
  std::memcpy(&bits, &scale, 4);
  uint64_t packed = bits & kQuantScaleMask;
  if (offset != nullptr) {
    float o = *offset;
    o = o != o ? 0.0f : (o < -256.0f ? -256.0f : (o > 255.0f ? 255.0f : o));
    const auto q = static_cast<int64_t>(__builtin_nearbyintf(o));
    packed |= (static_cast<uint64_t>(q) & 0x1FFu) << kQuantOffsetShift;
    packed |= kQuantHasOffset;
  }
  return packed;
}

inline QuantParam decodeQuantParam(uint64_t packed) {
  QuantParam p;
  const uint32_t bits = static_cast<uint32_t>(packed) & kQuantScaleMask;
  std::memcpy(&p.scale, &bits, 4);
  if (packed & kQuantHasOffset) {
    int64_t q = static_cast<int64_t>((packed >> kQuantOffsetShift) & 0x1FFu);
    if (q >= 256) q -= 512;  // sign-extend the 9 bits
    p.offset = static_cast<float>(q);
  }
  return p;
}

}  // namespace ascend_sim
