// See Note [Vectorised half conversions] in dtype_simd.h.
#include "common/dtype_simd.h"

#include <cmath>

#include "common/dtype.h"
#include "common/host_isa.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ASCEND_SIM_HAVE_F16C_PATH 1
#endif

namespace ascend_sim {
namespace simd {
namespace {

constexpr float kFp16Max = 65504.0f;

// Scalar round trip of one value; true if the result is not finite.
bool roundOne(float* v, bool saturate) {
  float h = halfToFloat(floatToHalf(*v));
  const bool bad = !std::isfinite(h);
  if (bad && saturate) h = std::isnan(h) ? 0.0f : (h > 0 ? kFp16Max : -kFp16Max);
  *v = h;
  return bad;
}

// Scalar conversion of one value with fp16 saturation; true if it was not finite.
bool saturateOne(float x, uint16_t* out) {
  uint16_t h = floatToHalf(x);
  const bool bad = (h & 0x7c00) == 0x7c00;
  if (bad) h = (h & 0x03ff) ? uint16_t{0} : static_cast<uint16_t>((h & 0x8000) | 0x7bff);
  *out = h;
  return bad;
}

#ifdef ASCEND_SIM_HAVE_F16C_PATH
bool hostHasF16c() { return hostIsa() >= HostIsa::kAvx2; }

constexpr int kRne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

__attribute__((target("avx2,f16c"))) void halvesToFloatsF16c(const uint16_t* src, int64_t n, float* dst) {
  const __m128i exp_mask = _mm_set1_epi16(0x7c00);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {  // two vectors per test: specials are rare
    const __m128i h0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i h1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 8));
    const __m128i special = _mm_or_si128(_mm_cmpeq_epi16(_mm_and_si128(h0, exp_mask), exp_mask),
                                         _mm_cmpeq_epi16(_mm_and_si128(h1, exp_mask), exp_mask));
    if (_mm_movemask_epi8(special)) break;  // finish this stretch 8 at a time
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h0));
    _mm256_storeu_ps(dst + i + 8, _mm256_cvtph_ps(h1));
  }
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i special = _mm_cmpeq_epi16(_mm_and_si128(h, exp_mask), exp_mask);  // inf / NaN
    if (_mm_movemask_epi8(special)) {
      for (int j = 0; j < 8; ++j) dst[i + j] = halfToFloat(src[i + j]);
    } else {
      _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
  }
  for (; i < n; ++i) dst[i] = halfToFloat(src[i]);
}

__attribute__((target("avx2,f16c"))) void floatsToHalvesF16c(const float* src, int64_t n, uint16_t* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {  // a NaN: scalar
      for (int j = 0; j < 8; ++j) dst[i + j] = floatToHalf(src[i + j]);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(v, kRne));
    }
  }
  for (; i < n; ++i) dst[i] = floatToHalf(src[i]);
}

// Converts, then applies fp16 saturation (±inf -> ±65504, NaN -> 0) to the
// results; true if any result was not finite. Specials are rare, so 16 results
// are tested with one compare and a group holding one is redone by the scalar
// code. A NaN input gives an all-ones exponent too, and saturation maps every
// NaN to 0, so the hardware's NaN payload never reaches the output.
__attribute__((target("avx2,f16c"))) bool floatsToHalvesSaturatingF16c(const float* src, int64_t n,
                                                                        uint16_t* dst) {
  const __m256i exp_mask = _mm256_set1_epi16(0x7c00);
  bool bad = false;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i h0 = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), kRne);
    const __m128i h1 = _mm256_cvtps_ph(_mm256_loadu_ps(src + i + 8), kRne);
    const __m256i h = _mm256_set_m128i(h1, h0);
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_and_si256(h, exp_mask), exp_mask))) {
      for (int j = 0; j < 16; ++j) bad = saturateOne(src[i + j], dst + i + j) || bad;
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), h);
    }
  }
  for (; i < n; ++i) bad = saturateOne(src[i], dst + i) || bad;
  return bad;
}

__attribute__((target("avx2,f16c"))) bool roundThroughHalfF16c(float* v, int64_t n, bool saturate) {
  const __m256 inf = _mm256_set1_ps(INFINITY);
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  bool bad = false;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(v + i);
    const __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(x, kRne));
    // not finite: |r| >= inf or unordered (NaN in x or r)
    const __m256 nonfinite = _mm256_cmp_ps(_mm256_and_ps(r, abs_mask), inf, _CMP_NLT_UQ);
    if (_mm256_movemask_ps(nonfinite)) {
      for (int j = 0; j < 8; ++j) bad = roundOne(v + i + j, saturate) || bad;
    } else {
      _mm256_storeu_ps(v + i, r);
    }
  }
  for (; i < n; ++i) bad = roundOne(v + i, saturate) || bad;
  return bad;
}
#endif

}  // namespace

bool halvesToFloats(const uint16_t* src, int64_t n, float* dst) {
#ifdef ASCEND_SIM_HAVE_F16C_PATH
  if (hostHasF16c()) {
    halvesToFloatsF16c(src, n, dst);
    return true;
  }
#endif
  return false;
}

bool floatsToHalves(const float* src, int64_t n, uint16_t* dst) {
#ifdef ASCEND_SIM_HAVE_F16C_PATH
  if (hostHasF16c()) {
    floatsToHalvesF16c(src, n, dst);
    return true;
  }
#endif
  return false;
}

bool floatsToHalvesSaturating(const float* src, int64_t n, uint16_t* dst) {
#ifdef ASCEND_SIM_HAVE_F16C_PATH
  if (hostHasF16c()) return floatsToHalvesSaturatingF16c(src, n, dst);
#endif
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) bad = saturateOne(src[i], dst + i) || bad;
  return bad;
}

bool roundThroughHalf(float* v, int64_t n, bool saturate) {
#ifdef ASCEND_SIM_HAVE_F16C_PATH
  if (hostHasF16c()) return roundThroughHalfF16c(v, n, saturate);
#endif
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) bad = roundOne(v + i, saturate) || bad;
  return bad;
}

}  // namespace simd
}  // namespace ascend_sim
