// The Cube multiplying a convolution's padded input in place (Note [The Cube
// reads a padded input] in units.h): the GEMM of cube.cpp without the packed
// A operand. Tiles are 12 output positions x 32 output channels on AVX-512
// hosts and 6 x 16 with AVX2 (Note [Implicit tiles per host]), computed with
// the accumulation order of Note [Cube numerics and blocking], so the bits
// equal those of img2col + mmad_f32.
#include <algorithm>

#include "aicore/cube_tiles.h"
#include "aicore/units.h"

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

namespace ascend_sim {
namespace {

using cube_tiles::kPanel;
constexpr int64_t kMaxTileRows = 12;  // output positions per tile, at most (AVX-512)
constexpr int64_t kKc = 256;          // reduction steps per block (as cube.cpp)

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
// Note [Implicit tiles per host]
// A tile is kRows output positions x kPanels 16-column panels, its
// accumulators in registers: 12 x 32 on AVX-512 hosts (24 zmm chains), 6 x 16
// with AVX2 (12 ymm chains, two per row, as cube.cpp's microAvx2: the 16 ymm
// registers hold 12 accumulators, the two B halves and the broadcast A value).
// Every element gets one FMA per k in ascending k from the same start value
// on either host, so the bits are the same.

// C[0..12)[0..16 * kPanels) of one tile, from c (row stride ldc) or from zero:
// one FMA per k in ascending k. Row rr of A at step k is rows(x + k_offset[k], rr).
template <int kPanels, class Rows>
__attribute__((target("avx512f"), always_inline)) inline void microTileAvx512(const float* x, Rows rows,
                                                                              const int64_t* k_offset, int64_t kc,
                                                                              const float* bp, int64_t bp_stride,
                                                                              float* c, int64_t ldc, bool accumulate) {
  constexpr int kTileRows = 12;
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

// The AVX2 tile: C[0..6)[0..16) (cube_tiles::fmaTile6x16), row r of A at step k at
// rows.address(x + k_offset[k], r).
template <class Rows>
struct ImplicitA {
  const float* x;
  const int64_t* k_offset;
  Rows rows;
  const float* step(int64_t k) const { return x + k_offset[k]; }
  const float* row(const float* step, int r) const { return rows.address(step, r); }
};
template <class Rows>
__attribute__((target("avx2,fma"), always_inline)) inline void microTileAvx2(const float* x, Rows rows,
                                                                             const int64_t* k_offset, int64_t kc,
                                                                             const float* bp, float* c, int64_t ldc,
                                                                             bool accumulate) {
  cube_tiles::fmaTile6x16(ImplicitA<Rows>{x, k_offset, rows}, bp, kc, c, ldc, accumulate);
}

// A tile within one output row: its rows are kStride apart in the padded input.
template <int kStride>
struct StridedRows {
  const float* address(const float* a, int r) const { return a + r * kStride; }
  float operator()(const float* a, int r) const { return *address(a, r); }
};

// Note [Tiles across output rows]
// A tile of output positions that fits in its output row reads A at a fixed stride
// (StridedRows). At the end of a row whose width is not a multiple of the tile's rows the
// remainder (4 positions of a 28-wide row, 2 of a 14-wide one, with 12-row tiles) used to take a
// whole tile of Cube work: 22 % and 42 % of those layers' products thrown away. Such a tile now
// continues into the next output row(s), its rows read through a table of offsets into the
// padded input. Every element still gets one FMA per k in ascending k from the same start
// value, so the bits are those of the per-row tiles.
template <int kRows>
struct TableRows {
  int64_t offset[kRows];
  const float* address(const float* a, int r) const { return a + offset[r]; }
  float operator()(const float* a, int r) const { return *address(a, r); }
};

// Arguments: x (a row's first position, or the unit's first element for a gather tile), the
// gather tile's row offsets (else null), k_offset, kc, the B panels, their stride, c, ldc, accumulate.
using MicroFn = void (*)(const float*, const int64_t*, const int64_t*, int64_t, const float*, int64_t, float*,
                         int64_t, bool);

template <int kPanels, int kStride>
__attribute__((target("avx512f"))) void stridedAvx512(const float* xrow, const int64_t*, const int64_t* k_offset,
                                                      int64_t kc, const float* bp, int64_t bp_stride, float* c,
                                                      int64_t ldc, bool accumulate) {
  microTileAvx512<kPanels>(xrow, StridedRows<kStride>{}, k_offset, kc, bp, bp_stride, c, ldc, accumulate);
}
template <int kPanels>
__attribute__((target("avx512f"))) void gatherAvx512(const float* x, const int64_t* row_offset,
                                                     const int64_t* k_offset, int64_t kc, const float* bp,
                                                     int64_t bp_stride, float* c, int64_t ldc, bool accumulate) {
  TableRows<12> rows;
  std::copy(row_offset, row_offset + 12, rows.offset);
  microTileAvx512<kPanels>(x, rows, k_offset, kc, bp, bp_stride, c, ldc, accumulate);
}
template <int kStride>
__attribute__((target("avx2,fma"))) void stridedAvx2(const float* xrow, const int64_t*, const int64_t* k_offset,
                                                     int64_t kc, const float* bp, int64_t, float* c, int64_t ldc,
                                                     bool accumulate) {
  microTileAvx2(xrow, StridedRows<kStride>{}, k_offset, kc, bp, c, ldc, accumulate);
}
__attribute__((target("avx2,fma"))) void gatherAvx2(const float* x, const int64_t* row_offset,
                                                    const int64_t* k_offset, int64_t kc, const float* bp, int64_t,
                                                    float* c, int64_t ldc, bool accumulate) {
  TableRows<6> rows;
  std::copy(row_offset, row_offset + 6, rows.offset);
  microTileAvx2(x, rows, k_offset, kc, bp, c, ldc, accumulate);
}

// Note [Implicit tiles per host]: the tile shape and its kernels.
struct Tiles {
  int64_t rows, panels;
  MicroFn strided[2][2];  // [panels - 1][sw - 1]
  MicroFn gather[2];      // [panels - 1]
};

const Tiles& tilesOfHost() {
  static const Tiles avx512{12,
                            2,
                            {{&stridedAvx512<1, 1>, &stridedAvx512<1, 2>}, {&stridedAvx512<2, 1>, &stridedAvx512<2, 2>}},
                            {&gatherAvx512<1>, &gatherAvx512<2>}};
  static const Tiles avx2{6, 1, {{&stridedAvx2<1>, &stridedAvx2<2>}, {nullptr, nullptr}}, {&gatherAvx2, nullptr}};
  return cube_tiles::hostHasAvx512() ? avx512 : avx2;
}

// Where row q of A starts in a.x (Note [The Cube reads a padded input]).
int64_t rowOffset(const CubeImplicitA& a, int64_t q) {
  return a.row_offset ? a.row_offset[q] : q / a.wo * a.sh * a.wp + q % a.wo * a.sw;
}
#endif

}  // namespace

bool implicitTakesStride(int64_t sw) { return cube_tiles::hostHasAvx2Fma() && (sw == 1 || sw == 2); }

void mmadF32Implicit(const CubeImplicitA& a, const float* b, int64_t n, int64_t k, const float* bias, int64_t r0,
                     int64_t r1, int64_t p0, int64_t p1, float* c, UnitCounters* cnt) {
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
  const Tiles& tiles = tilesOfHost();
  const int64_t tile_rows = tiles.rows, col_end = std::min(n, p1 * kPanel);
  if (k == 0) {  // empty reduction: the accumulators stay +0, then the bias
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = p0 * kPanel; j < col_end; ++j) c[r * n + j] = bias ? 0.0f + bias[j] : 0.0f;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = std::min(kKc, k - k0);
    const bool first = k0 == 0, last = k0 + kc == k;
    for (int64_t p = p0; p < p1; p += tiles.panels) {
      const int64_t np = std::min(tiles.panels, p1 - p), j0 = p * kPanel, jn = std::min(np * kPanel, n - j0);
      const MicroFn gather = tiles.gather[np - 1];
      const MicroFn strided = a.row_offset ? nullptr : tiles.strided[np - 1][a.sw - 1];
      const float* bslice = b + (p * k + k0) * kPanel;
      for (int64_t r = r0; r < r1;) {
        const int64_t rows = std::min(tile_rows, r1 - r);
        if (!a.row_offset && r % a.wo + rows <= a.wo) {  // the tile lies in one output row: A at a fixed stride
          const float* xrow = a.x + rowOffset(a, r);
          cube_tiles::runTile(
              [&](float* dst, int64_t ld, bool accumulate) {
                strided(xrow, nullptr, a.k_offset + k0, kc, bslice, k * kPanel, dst, ld, accumulate);
              },
              tile_rows, np * kPanel, first, last ? bias : nullptr, n, r, rows, j0, jn, c);
        } else {  // rows from the table, or Note [Tiles across output rows]; rows past r1 repeat the last one
          int64_t row_offset[kMaxTileRows];
          for (int64_t rr = 0; rr < tile_rows; ++rr) row_offset[rr] = rowOffset(a, std::min(r + rr, r1 - 1));
          cube_tiles::runTile(
              [&](float* dst, int64_t ld, bool accumulate) {
                gather(a.x, row_offset, a.k_offset + k0, kc, bslice, k * kPanel, dst, ld, accumulate);
              },
              tile_rows, np * kPanel, first, last ? bias : nullptr, n, r, rows, j0, jn, c);
        }
        r += rows;
      }
    }
  }
  if (cnt && r1 > r0 && p1 > p0) {
    const int64_t cols = col_end - p0 * kPanel;
    cnt->cube_macs += cubeUnit().padded_macs(r1 - r0, cols, k);
    cnt->cube_fractals += cubeUnit().fractals(r1 - r0, cols);
  }
#else
  (void)a, (void)b, (void)n, (void)k, (void)bias, (void)r0, (void)r1, (void)p0, (void)p1, (void)c, (void)cnt;
#endif
}

}  // namespace ascend_sim
