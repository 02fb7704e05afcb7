// Vectorised fp16 <-> fp32 conversions for the hot paths of dtype.cpp
// (loads, stores, the Cube's operand rounding).
//
// Note [Vectorised half conversions]
// On x86-64 hosts with F16C and AVX2 the conversions use VCVTPH2PS /
// VCVTPS2PH with round-to-nearest-even: both are IEEE conversions, so for
// finite values, infinities and subnormals they give exactly the bits of the
// scalar floatToHalf / halfToFloat. NaNs are where hardware and the scalar
// code may differ (quieting, payload), so an 8-lane chunk that holds a NaN
// (or an fp16 inf/NaN pattern on loads) is converted by the scalar code.
// Results never depend on which path ran. Elsewhere these return false and
// the caller uses the scalar loop.
#pragma once

#include <cstdint>

namespace ascend_sim {
namespace simd {

// dst[i] = halfToFloat(src[i]) for i < n; false if not available on this host.
bool halvesToFloats(const uint16_t* src, int64_t n, float* dst);
// dst[i] = floatToHalf(src[i]) for i < n; false if not available on this host.
bool floatsToHalves(const float* src, int64_t n, uint16_t* dst);
// dst[i] = floatToHalf(src[i]) with fp16 saturation (±inf -> ±65504, NaN ->
// 0, the 910A's rule); returns whether any result was inf or NaN before
// saturation. Always succeeds (scalar fallback inside).
bool floatsToHalvesSaturating(const float* src, int64_t n, uint16_t* dst);
// v[i] = halfToFloat(floatToHalf(v[i])) in place; returns whether any result
// is inf or NaN (and, with `saturate`, replaces ±inf by ±65504 and NaN by 0).
// Always succeeds (scalar fallback inside).
bool roundThroughHalf(float* v, int64_t n, bool saturate);

}  // namespace simd
}  // namespace ascend_sim
