// See Note [Vectorised half conversions] in dtype_simd.h.
#include "common/dtype_simd.h"

#include <cmath>

#include "common/dtype.h"

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

#ifdef ASCEND_SIM_HAVE_F16C_PATH
bool hostHasF16c() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return has;
}

constexpr int kRne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

__attribute__((target("avx2,f16c"))) void halvesToFloatsF16c(const uint16_t* src, int64_t n, float* dst) {
  const __m128i exp_mask = _mm_set1_epi16(0x7c00);
  int64_t i = 0;
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
