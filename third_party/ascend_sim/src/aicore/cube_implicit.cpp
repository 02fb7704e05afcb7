// The Cube multiplying a convolution's padded input in place (Note [The Cube
// reads a padded input] in units.h): the GEMM of cube.cpp without the packed
// A operand. Tiles are 12 output positions of one output row x 32 (or 16)
// output channels, computed with the accumulation order of Note [Cube
// numerics and blocking], so the bits equal those of img2col + mmad_f32.
#include <algorithm>

#include "aicore/cube_tiles.h"
#include "aicore/units.h"

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

namespace ascend_sim {
namespace {

using cube_tiles::kPanel;
constexpr int64_t kTileRows = 12;  // output positions per tile
constexpr int64_t kKc = 256;       // reduction steps per block (as cube.cpp)

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
// C[0..12)[0..16 * kPanels) of one tile, from c (row stride ldc) or from zero:
// one FMA per k in ascending k. Row rr of A at step k is rows(x + k_offset[k], rr).
template <int kPanels, class Rows>
__attribute__((target("avx512f"), always_inline)) inline void microTile(const float* x, Rows rows,
                                                                        const int64_t* k_offset, int64_t kc,
                                                                        const float* bp, int64_t bp_stride, float* c,
                                                                        int64_t ldc, bool accumulate) {
  __m512 acc[kTileRows][kPanels];
#pragma GCC unroll 12
  for (int r = 0; r < kTileRows; ++r)
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p)
      acc[r][p] = accumulate ? _mm512_loadu_ps(c + r * ldc + p * kPanel) : _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    const float* a = x + k_offset[k];
    __m512 b[kPanels];
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p) b[p] = _mm512_loadu_ps(bp + p * bp_stride + k * kPanel);
#pragma GCC unroll 12
    for (int r = 0; r < kTileRows; ++r) {
      const __m512 av = _mm512_set1_ps(rows(a, r));
#pragma GCC unroll 2
      for (int p = 0; p < kPanels; ++p) acc[r][p] = _mm512_fmadd_ps(av, b[p], acc[r][p]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < kTileRows; ++r)
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p) _mm512_storeu_ps(c + r * ldc + p * kPanel, acc[r][p]);
}

// A tile within one output row: its rows are kStride apart in the padded input.
template <int kStride>
struct StridedRows {
  float operator()(const float* a, int r) const { return a[r * kStride]; }
};
template <int kPanels, int kStride>
__attribute__((target("avx512f"))) void microImplicitAvx512(const float* xrow, const int64_t* k_offset, int64_t kc,
                                                            const float* bp, int64_t bp_stride, float* c,
                                                            int64_t ldc, bool accumulate) {
  microTile<kPanels>(xrow, StridedRows<kStride>{}, k_offset, kc, bp, bp_stride, c, ldc, accumulate);
}

// Note [Tiles across output rows]
// A tile of 12 output positions that fits in its output row reads A at a fixed stride
// (microImplicitAvx512). At the end of a row whose width is not a multiple of 12 the remainder
// (4 positions of a 28-wide row, 2 of a 14-wide one) used to take a whole 12-row tile of Cube
// work: 22 % and 42 % of those layers' products thrown away. Such a tile now continues into the
// next output row(s), its rows read through a table of 12 offsets into the padded input. Every
// element still gets one FMA per k in ascending k from the same start value, so the bits are
// those of the per-row tiles.
struct TableRows {
  int64_t offset[kTileRows];
  float operator()(const float* a, int r) const { return a[offset[r]]; }
};
template <int kPanels>
__attribute__((target("avx512f"))) void microGatherAvx512(const float* x, const int64_t* row_offset,
                                                          const int64_t* k_offset, int64_t kc, const float* bp,
                                                          int64_t bp_stride, float* c, int64_t ldc, bool accumulate) {
  TableRows rows;
  std::copy(row_offset, row_offset + kTileRows, rows.offset);
  microTile<kPanels>(x, rows, k_offset, kc, bp, bp_stride, c, ldc, accumulate);
}

using MicroFn = void (*)(const float*, const int64_t*, int64_t, const float*, int64_t, float*, int64_t, bool);

MicroFn microFor(int64_t panels, int64_t sw) {
  if (sw == 1) return panels == 2 ? &microImplicitAvx512<2, 1> : &microImplicitAvx512<1, 1>;
  return panels == 2 ? &microImplicitAvx512<2, 2> : &microImplicitAvx512<1, 2>;
}
#endif

}  // namespace

bool implicitTakesStride(int64_t sw) { return cube_tiles::hostHasAvx512() && (sw == 1 || sw == 2); }

void mmadF32Implicit(const CubeImplicitA& a, const float* b, int64_t n, int64_t k, const float* bias, int64_t r0,
                     int64_t r1, float* c, UnitCounters* cnt) {
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
  const int64_t panels = (n + kPanel - 1) / kPanel;
  if (k == 0) {  // empty reduction: the accumulators stay +0, then the bias
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < n; ++j) c[r * n + j] = bias ? 0.0f + bias[j] : 0.0f;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = std::min(kKc, k - k0);
    const bool first = k0 == 0, last = k0 + kc == k;
    for (int64_t p = 0; p < panels; p += 2) {
      const int64_t np = std::min<int64_t>(2, panels - p), j0 = p * kPanel, jn = std::min(np * kPanel, n - j0);
      const MicroFn micro = microFor(np, a.sw);
      const float* bslice = b + (p * k + k0) * kPanel;
      for (int64_t r = r0; r < r1;) {
        const int64_t oh = r / a.wo, ow = r % a.wo, rows = std::min(kTileRows, r1 - r);
        if (ow + rows <= a.wo) {  // the tile lies in one output row: A at a fixed stride
          const float* xrow = a.x + oh * a.sh * a.wp + ow * a.sw;
          cube_tiles::runTile(
              [&](float* dst, int64_t ld, bool accumulate) {
                micro(xrow, a.k_offset + k0, kc, bslice, k * kPanel, dst, ld, accumulate);
              },
              kTileRows, np * kPanel, first, last ? bias : nullptr, n, r, rows, j0, jn, c);
        } else {  // Note [Tiles across output rows]; rows past r1 repeat the last one (discarded)
          int64_t row_offset[kTileRows];
          for (int64_t rr = 0; rr < kTileRows; ++rr) {
            const int64_t q = std::min(r + rr, r1 - 1);
            row_offset[rr] = q / a.wo * a.sh * a.wp + q % a.wo * a.sw;
          }
          cube_tiles::runTile(
              [&](float* dst, int64_t ld, bool accumulate) {
                (np == 2 ? &microGatherAvx512<2> : &microGatherAvx512<1>)(
                    a.x, row_offset, a.k_offset + k0, kc, bslice, k * kPanel, dst, ld, accumulate);
              },
              kTileRows, np * kPanel, first, last ? bias : nullptr, n, r, rows, j0, jn, c);
        }
        r += rows;
      }
    }
  }
  if (cnt && r1 > r0) {
    cnt->cube_macs += cubeUnit().padded_macs(r1 - r0, n, k);
    cnt->cube_fractals += cubeUnit().fractals(r1 - r0, n);
  }
#else
  (void)a, (void)b, (void)n, (void)k, (void)bias, (void)r0, (void)r1, (void)c, (void)cnt;
#endif
}

}  // namespace ascend_sim
