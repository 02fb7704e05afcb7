// What the Cube's two GEMM drivers share (cube.cpp: operands in L0A/L0B;
// cube_implicit.cpp: A read from a padded input in place): the host check for
// the wide kernels and the copies of tiles parked in the fp32 result between
// K blocks (Note [Cube GEMM blocking]).
#pragma once

#include <algorithm>
#include <cstdint>

#include "aicore/units.h"
#include "common/transpose16.h"

// The same hosts as common/transpose16.h's: x86-64 compilers with intrinsics.
#ifdef ASCEND_SIM_HAVE_AVX512_PATH
#define ASCEND_SIM_HAVE_AVX2_PATH 1
#endif

namespace ascend_sim {
namespace cube_tiles {

constexpr int64_t kPanel = 16;  // output columns per B panel (= N0)

// Copies rows [i, i + rows) x columns [j0, j0 + jn) between the row-major
// result c (row length n) and a tile of row stride ldt.
inline void tileFromC(const float* c, int64_t n, int64_t i, int64_t rows, int64_t j0, int64_t jn, float* tile,
                      int64_t ldt = kPanel) {
  for (int64_t r = 0; r < rows; ++r) std::copy(c + (i + r) * n + j0, c + (i + r) * n + j0 + jn, tile + r * ldt);
}
// The way back, adding bias[j0 + j] (if non-null) to every element.
inline void tileToC(const float* tile, const float* bias, int64_t n, int64_t i, int64_t rows, int64_t j0,
                    int64_t jn, float* c, int64_t ldt = kPanel) {
  for (int64_t r = 0; r < rows; ++r) {
    float* dst = c + (i + r) * n + j0;
    const float* src = tile + r * ldt;
    if (bias) {
      for (int64_t j = 0; j < jn; ++j) dst[j] = src[j] + bias[j0 + j];
    } else {
      std::copy(src, src + jn, dst);
    }
  }
}

// Rows [i, i + rows) x columns [j0, j0 + jn) of the result c (row length n),
// computed by kernel(dst, ld, accumulate), which writes a kernel_rows x
// kernel_cols tile (at most 12 x 32) with row stride ld: in place in c when the
// tile is whole, else through a scratch tile, which starts from the fp32
// partial sums parked in c unless this is the first K block. bias, if
// non-null, is added last.
template <typename Kernel>
void runTile(Kernel kernel, int64_t kernel_rows, int64_t kernel_cols, bool first, const float* bias, int64_t n,
             int64_t i, int64_t rows, int64_t j0, int64_t jn, float* c) {
  constexpr int64_t kScratchCols = 2 * kPanel;
  alignas(64) float scratch[12 * kScratchCols];
  const bool in_place = rows == kernel_rows && jn == kernel_cols;
  float* dst = in_place ? c + i * n + j0 : scratch;
  const int64_t ld = in_place ? n : kScratchCols;
  if (!in_place && !first) tileFromC(c, n, i, rows, j0, jn, scratch, ld);
  kernel(dst, ld, !first);
  if (!in_place) {
    tileToC(scratch, bias, n, i, rows, j0, jn, c, ld);
  } else if (bias) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < jn; ++j) dst[r * n + j] = dst[r * n + j] + bias[j0 + j];
  }
}

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
// The AVX2 micro-kernel body (Note [Cube GEMM blocking]) for any A operand: C[0..6)[0..16) of row
// stride ldc, from c (accumulate) or from zero, plus A[r][k] * bp[k * 16 + j] for k = 0..kc-1 in
// ascending order with one FMA each, each row in two 8-float halves. A[r][k] is *a.row(a.step(k), r):
// packed panels (cube.cpp) or a padded input read in place (cube_implicit.cpp).
template <class A>
__attribute__((target("avx2,fma"), always_inline)) inline void fmaTile6x16(A a, const float* bp, int64_t kc,
                                                                           float* c, int64_t ldc, bool accumulate) {
  constexpr int kRows = 6;
  __m256 acc[kRows][2];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    acc[r][0] = accumulate ? _mm256_loadu_ps(c + r * ldc) : _mm256_setzero_ps();
    acc[r][1] = accumulate ? _mm256_loadu_ps(c + r * ldc + 8) : _mm256_setzero_ps();
  }
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k) {
    const float* ak = a.step(k);
    const __m256 b0 = _mm256_loadu_ps(bp + k * kPanel), b1 = _mm256_loadu_ps(bp + k * kPanel + 8);
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      const __m256 av = _mm256_broadcast_ss(a.row(ak, r));
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    _mm256_storeu_ps(c + r * ldc, acc[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
  }
}
#endif

// The wide kernels (Note [Wide Cube tiles]) need AVX-512F.
inline bool hostHasAvx512() { return simd::hostHasAvx512f(); }
// The AVX2 kernels need AVX2 with FMA (Note [Host SIMD level]).
inline bool hostHasAvx2Fma() { return hostIsa() >= HostIsa::kAvx2; }

}  // namespace cube_tiles

// cube_pack.cpp: CubeUnit::load_b.
void cubeLoadB(const GmMatrix& b, int64_t k, int64_t n, CubeRounding rnd, float* bp, UnitCounters* cnt);

// cube_implicit.cpp: CubeUnit::mmad_f32_implicit and implicit_takes_stride.
void mmadF32Implicit(const CubeImplicitA& a, const float* b, int64_t n, int64_t k, const float* bias, int64_t r0,
                     int64_t r1, int64_t p0, int64_t p1, float* c, UnitCounters* cnt);
bool implicitTakesStride(int64_t sw);

}  // namespace ascend_sim
