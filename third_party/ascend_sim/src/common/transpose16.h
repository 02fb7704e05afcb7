// A 16 x 16 fp32 transpose in AVX-512 registers, shared by the Cube's B
// packing (aicore/cube.cpp, Note [B panels in one pass]) and the NC1HWC0 <->
// NCHW moves of kernel/format_access.cpp (Note [NC1HWC0 rows by transposes]),
// and the 8 x 8 one in AVX2 registers that the AVX2 forms of both use.
#pragma once

#include "common/host_isa.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ASCEND_SIM_HAVE_AVX512_PATH 1
#include <immintrin.h>
#endif

namespace ascend_sim {
namespace simd {

// Whether the AVX2 forms run (Note [Host SIMD level]).
inline bool hostHasAvx2() {
#ifdef ASCEND_SIM_HAVE_AVX512_PATH
  return hostIsa() >= HostIsa::kAvx2;
#else
  return false;
#endif
}

// Whether the AVX-512 forms run.
inline bool hostHasAvx512f() {
#ifdef ASCEND_SIM_HAVE_AVX512_PATH
  return hostIsa() == HostIsa::kAvx512;
#else
  return false;
#endif
}

#ifdef ASCEND_SIM_HAVE_AVX512_PATH
// Transposes the 16 x 16 matrix whose row i is v[i]. GCC 12's unmasked
// unpack and shuffle intrinsics start from "undefined" registers and warn
// (-Wmaybe-uninitialized); their all-lanes masked forms are the same instructions.
__attribute__((target("avx512f"))) inline void transpose16x16(__m512 v[16]) {
  __m512 t[16], u[16];
#pragma GCC unroll 8
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_maskz_unpacklo_ps(0xFFFF, v[i], v[i + 1]);
    t[i + 1] = _mm512_maskz_unpackhi_ps(0xFFFF, v[i], v[i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 16; i += 4) {  // u[i + q]: element q (mod 4) of rows i..i+3, per 128-bit lane
    u[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const __m512 even0 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[q], u[4 + q], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 even1 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[8 + q], u[12 + q], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 odd0 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[q], u[4 + q], _MM_SHUFFLE(3, 1, 3, 1));
    const __m512 odd1 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[8 + q], u[12 + q], _MM_SHUFFLE(3, 1, 3, 1));
    v[q] = _mm512_maskz_shuffle_f32x4(0xFFFF, even0, even1, _MM_SHUFFLE(2, 0, 2, 0));
    v[8 + q] = _mm512_maskz_shuffle_f32x4(0xFFFF, even0, even1, _MM_SHUFFLE(3, 1, 3, 1));
    v[4 + q] = _mm512_maskz_shuffle_f32x4(0xFFFF, odd0, odd1, _MM_SHUFFLE(2, 0, 2, 0));
    v[12 + q] = _mm512_maskz_shuffle_f32x4(0xFFFF, odd0, odd1, _MM_SHUFFLE(3, 1, 3, 1));
  }
}

// Transposes the 8 x 8 matrix whose row i is v[i].
__attribute__((target("avx2"))) inline void transpose8x8(__m256 v[8]) {
  __m256 t[8], u[8];
#pragma GCC unroll 4
  for (int i = 0; i < 8; i += 2) {  // t[i], t[i + 1]: rows i, i+1 interleaved per 128-bit lane
    t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 8; i += 4) {  // u[i + q]: element q (mod 4) of rows i..i+3, per 128-bit lane
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    v[q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x20);
    v[4 + q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x31);
  }
}
#endif

}  // namespace simd
}  // namespace ascend_sim
