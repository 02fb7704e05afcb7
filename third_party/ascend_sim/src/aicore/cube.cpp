// The Cube unit: fractal (16x16x16) matrix multiply-accumulate.
//
// Note [Cube numerics and blocking]
// Contract (docs/simulated_device.md, "Chip preset and numerics"): each output element has one fp32 accumulator
// that adds a[i,k]*b[k,j] for k = 0, 1, ..., K-1 with a fused multiply-add,
// then adds the bias (fp32), then is rounded once to the output dtype (by the
// caller). fp16/bf16 operands are widened to fp32 exactly; their products are
// exact, so FMA and mul+add agree for them. fp32 operands are used as they are
// or first rounded to fp16 (precision mode, CubeRounding).
// Implementation (Note [Cube GEMM blocking]): load_a makes a row-major fp32
// copy of A [M,K] (transposes resolved there), load_b makes fp32 column panels
// of 16 columns laid out [panel][K][16] (zero padded) — the host analogue of
// L0A/L0B. mmad_f32 is a GotoBLAS-style driver over them: K is cut into
// blocks of kKc, rows into blocks of kMc that are packed k-major in micro
// panels of kMr rows, and a micro-kernel computes a kMr x 16 tile (12 x 32 on
// AVX-512 hosts, Note [Wide Cube tiles]) with the accumulators in registers,
// walking k in ascending order. Between K blocks
// the fp32 accumulators are parked in the fp32 result and reloaded (exact), so
// the order per element is exactly the contract's and the result does not
// depend on blocking, SIMD width, the split across simulated cores or host
// threads. On x86-64 hosts with FMA the micro-kernel uses AVX2 FMA (bitwise
// identical to std::fma); elsewhere a portable std::fma loop gives the same
// bits, more slowly.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "aicore/cube_tiles.h"
#include "aicore/units.h"
#include "common/dtype.h"
#include "common/dtype_simd.h"
#include "common/transpose16.h"

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

namespace ascend_sim {
namespace {

using cube_tiles::hostHasAvx512;

constexpr int64_t kFractal = 16;  // M0 = K0 = N0
constexpr int64_t kPanel = cube_tiles::kPanel;  // output columns per micro tile (= N0)
constexpr int64_t kMr = kCubePanelRows;  // output rows per micro tile
// Rows per packed A block (192 KB, kept in L2). A host region of a large product has 132 rows
// (Note [Host split of the Cube's work]): one block, so each B slice is fetched once per region,
// not twice as with 96-row blocks (one A/B, mm 2048: 118.8-128.2 -> 111.6-121.5 ms).
constexpr int64_t kMc = 192;
constexpr int64_t kKc = 256;      // reduction steps per block (B slice: 16 KiB, in L1)

// Note [Cube GEMM blocking]
// The micro-kernel computes C[0..6)[0..16) of one kMr x 16 tile: it starts
// from `c` (accumulate) or from zero, and adds ap[k*6 + r] * bp[k*16 + j] for
// k = 0..kc-1 in ascending order with one fused multiply-add each. ap is a
// packed A micro panel (k-major, 6 rows interleaved, zero rows past the end),
// bp a slice of a B panel. c is a 6 x 16 tile of row stride ldc: the result itself where the tile
// is whole, else a scratch tile (cube_tiles::runTile).

void microPortable(const float* ap, const float* bp, int64_t kc, float* c, int64_t ldc, bool accumulate) {
  float acc[kMr][kPanel];
  for (int64_t r = 0; r < kMr; ++r)
    for (int64_t j = 0; j < kPanel; ++j) acc[r][j] = accumulate ? c[r * ldc + j] : 0.0f;
  for (int64_t k = 0; k < kc; ++k)
    for (int64_t r = 0; r < kMr; ++r) {
      const float av = ap[k * kMr + r];
      for (int64_t j = 0; j < kPanel; ++j) acc[r][j] = std::fma(av, bp[k * kPanel + j], acc[r][j]);
    }
  for (int64_t r = 0; r < kMr; ++r)
    for (int64_t j = 0; j < kPanel; ++j) c[r * ldc + j] = acc[r][j];
}

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
// A packed A micro panel: step k holds the 6 rows' values at ap + k * 6.
struct PackedPanel {
  const float* ap;
  const float* step(int64_t k) const { return ap + k * kMr; }
  static const float* row(const float* step, int r) { return step + r; }
};

__attribute__((target("avx2,fma"))) void microAvx2(const float* ap, const float* bp, int64_t kc, float* c,
                                                   int64_t ldc, bool accumulate) {
  cube_tiles::fmaTile6x16(PackedPanel{ap}, bp, kc, c, ldc, accumulate);
}

// The same tile with one 16-float register per row: each output element gets
// the same fused multiply-adds in the same order as in microAvx2 and
// microPortable, so the bits are the same; a host with AVX-512 just issues
// half as many instructions.
__attribute__((target("avx512f"))) void microAvx512(const float* ap, const float* bp, int64_t kc, float* c,
                                                    int64_t ldc, bool accumulate) {
  __m512 c0, c1, c2, c3, c4, c5;
  if (accumulate) {
    c0 = _mm512_loadu_ps(c + 0 * ldc), c1 = _mm512_loadu_ps(c + 1 * ldc), c2 = _mm512_loadu_ps(c + 2 * ldc);
    c3 = _mm512_loadu_ps(c + 3 * ldc), c4 = _mm512_loadu_ps(c + 4 * ldc), c5 = _mm512_loadu_ps(c + 5 * ldc);
  } else {
    c0 = c1 = c2 = c3 = c4 = c5 = _mm512_setzero_ps();
  }
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 b = _mm512_loadu_ps(bp + k * kPanel);
    const float* a = ap + k * kMr;
    c0 = _mm512_fmadd_ps(_mm512_set1_ps(a[0]), b, c0);
    c1 = _mm512_fmadd_ps(_mm512_set1_ps(a[1]), b, c1);
    c2 = _mm512_fmadd_ps(_mm512_set1_ps(a[2]), b, c2);
    c3 = _mm512_fmadd_ps(_mm512_set1_ps(a[3]), b, c3);
    c4 = _mm512_fmadd_ps(_mm512_set1_ps(a[4]), b, c4);
    c5 = _mm512_fmadd_ps(_mm512_set1_ps(a[5]), b, c5);
  }
  _mm512_storeu_ps(c + 0 * ldc, c0), _mm512_storeu_ps(c + 1 * ldc, c1), _mm512_storeu_ps(c + 2 * ldc, c2);
  _mm512_storeu_ps(c + 3 * ldc, c3), _mm512_storeu_ps(c + 4 * ldc, c4), _mm512_storeu_ps(c + 5 * ldc, c5);
}

// Note [Wide Cube tiles]
// A 6 x 16 tile keeps only six accumulator chains in flight, fewer than the
// FMA latency times the FMA ports of a current core (4 x 2), so the 6 x 16
// kernels wait on their own results. On AVX-512 hosts the driver computes
// 12 x 32 tiles instead (two A micro panels x two B panels: 24 independent
// chains), or 6 x 32 where fewer than 12 rows are left. Every element still
// gets one FMA per k in ascending k from the same start value, so the bits
// equal those of the 6 x 16 kernels. The tile is read from and written to
// c with row stride ldc (the result itself, or a scratch tile at the edges).
template <int kAPanels>
__attribute__((target("avx512f"))) void microWideAvx512(const float* ap, int64_t ap_stride, const float* bp,
                                                        int64_t bp_stride, int64_t kc, float* c, int64_t ldc,
                                                        bool accumulate) {
  constexpr int kRows = kAPanels * static_cast<int>(kMr);
  __m512 acc[kRows][2];
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    acc[r][0] = accumulate ? _mm512_loadu_ps(c + r * ldc) : _mm512_setzero_ps();
    acc[r][1] = accumulate ? _mm512_loadu_ps(c + r * ldc + kPanel) : _mm512_setzero_ps();
  }
  const float* bp1 = bp + bp_stride;
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(bp + k * kPanel);
    const __m512 b1 = _mm512_loadu_ps(bp1 + k * kPanel);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      const __m512 av = _mm512_set1_ps(ap[(r / kMr) * ap_stride + k * kMr + r % kMr]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    _mm512_storeu_ps(c + r * ldc, acc[r][0]);
    _mm512_storeu_ps(c + r * ldc + kPanel, acc[r][1]);
  }
}
#endif

// (A micro panel, B slice, kc, C tile, its row stride, accumulate)
using MicroFn = void (*)(const float*, const float*, int64_t, float*, int64_t, bool);

MicroFn microKernel() {
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
  if (hostHasAvx512()) return &microAvx512;
  if (cube_tiles::hostHasAvx2Fma()) return &microAvx2;
#endif
  return &microPortable;
}

// Packs rows [i0, i1) x reduction steps [k0, k0 + kc) of row-major a (row
// length k) into micro panels of kMr rows: dst[(t * kc + kk) * kMr + r].
void packA(const float* a, int64_t k, int64_t i0, int64_t i1, int64_t k0, int64_t kc, float* dst) {
  for (int64_t i = i0; i < i1; i += kMr) {
    const int64_t rows = std::min(kMr, i1 - i);
    float* panel = dst + (i - i0) / kMr * kc * kMr;
    for (int64_t r = 0; r < rows; ++r) {
      const float* src = a + (i + r) * k + k0;
      for (int64_t kk = 0; kk < kc; ++kk) panel[kk * kMr + r] = src[kk];
    }
    for (int64_t r = rows; r < kMr; ++r)
      for (int64_t kk = 0; kk < kc; ++kk) panel[kk * kMr + r] = 0.0f;
  }
}

int64_t padTo16(int64_t v) { return (v + kFractal - 1) / kFractal * kFractal; }

double paddedMacs(int64_t m, int64_t n, int64_t k) {
  return static_cast<double>(padTo16(m)) * static_cast<double>(padTo16(n)) * static_cast<double>(padTo16(k));
}

double fractals(int64_t m, int64_t n) {
  return static_cast<double>(padTo16(m) / kFractal) * static_cast<double>(padTo16(n) / kFractal);
}

// Applies the precision-mode rounding to operands of storage dtype dt (fp32 only).
void roundOperands(aclDataType dt, CubeRounding rnd, float* v, int64_t n, UnitCounters* cnt) {
  if (dt == ACL_FLOAT && roundCubeOperands(rnd, v, n) && cnt) cnt->fp16_overflow = true;
}

void loadA(const GmMatrix& a, int64_t m, int64_t k, CubeRounding rnd, float* dst, UnitCounters* cnt) {
  for (int64_t i = 0; i < m; ++i) {
    loadFloat(a.dtype, a.base, a.offset + i * a.rs, a.cs, k, dst + i * k);
    roundOperands(a.dtype, rnd, dst + i * k, k, cnt);
  }
  if (cnt) cnt->mte_in_bytes += static_cast<double>(m * k) * static_cast<double>(dtypeSize(a.dtype));
}


#ifdef ASCEND_SIM_HAVE_AVX2_PATH
// Rows [i, i + rows) (rows <= 12) x the columns [j0, j0 + jn) (jn <= 32) of
// the two B panels at bslice, with the wide kernels (Note [Wide Cube tiles]).
void wideTile(const float* ap, int64_t ap_stride, const float* bslice, int64_t bp_stride, int64_t kc, bool first,
              const float* bias, int64_t n, int64_t i, int64_t rows, int64_t j0, int64_t jn, float* c) {
  const bool twelve = rows > kMr;
  cube_tiles::runTile(
      [&](float* dst, int64_t ld, bool accumulate) {
        if (twelve) {
          microWideAvx512<2>(ap, ap_stride, bslice, bp_stride, kc, dst, ld, accumulate);
        } else {
          microWideAvx512<1>(ap, ap_stride, bslice, bp_stride, kc, dst, ld, accumulate);
        }
      },
      twelve ? 2 * kMr : kMr, 2 * kPanel, first, bias, n, i, rows, j0, jn, c);
}
#endif

// Note [Prefetch across micro-kernels]
// In the 16-column path (AVX-512 hosts take two panels at a time, Note [Wide Cube tiles]),
// every micro-kernel of a row block reads the same 16 KB B slice from L1, and the next panel's
// slice starts K x 16 floats further on (the panels are [panel][K][16]: 128 KB at K = 2048),
// where the hardware prefetcher does not look. So the micro-kernels of one slice each prefetch
// an equal share of the next slice's lines towards L2 (prefetcht2), and a micro-kernel that
// accumulates into the result first asks for the C tile of the next one (six rows of one line
// each, 4 * n bytes apart). Hints only: the same loads and FMAs in the same order, the same
// bits; rows past the region are not asked for. mm 2048 fp32: 107-108.5 -> 100-102.5 ms; mm 1024 13.1-13.2 -> 13.3-13.4 ms (A/B,
// three runs each, after the 192-row blocks).
class NextSlicePrefetch {
 public:
  NextSlicePrefetch(const float* slice, int64_t kc, int64_t parts)
      : lines_(slice ? kc * kPanel * static_cast<int64_t>(sizeof(float)) / 64 : 0),
        per_part_((lines_ + parts - 1) / std::max<int64_t>(parts, 1)),
        slice_(reinterpret_cast<const char*>(slice)) {}
  void part(int64_t q) const {
    for (int64_t l = q * per_part_, end = std::min(lines_, l + per_part_); l < end; ++l)
      __builtin_prefetch(slice_ + l * 64, /*rw=*/0, /*locality=*/1);
  }

 private:
  int64_t lines_, per_part_;
  const char* slice_;
};

inline void prefetchTile(const float* c, int64_t ldc, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) __builtin_prefetch(c + r * ldc, /*rw=*/1, /*locality=*/3);
}

void mmadF32(const CubeOperands& op, const float* bias, int64_t r0, int64_t r1, int64_t p0, int64_t p1, float* c,
             UnitCounters* cnt) {
  const int64_t n = op.n, k = op.k;
  if (k == 0) {  // empty reduction: the accumulators stay +0, then the bias
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = p0 * kPanel; j < std::min(n, p1 * kPanel); ++j) c[i * n + j] = bias ? 0.0f + bias[j] : 0.0f;
  }
  static thread_local std::vector<float> apack_buf;
  apack_buf.resize(static_cast<size_t>(kMc * kKc));
  float* apack = apack_buf.data();
  const MicroFn micro = microKernel();
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
  const bool wide = hostHasAvx512();
#endif
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = std::min(kKc, k - k0);
    const bool first = k0 == 0, last = k0 + kc == k;
    for (int64_t i0 = r0; i0 < r1; i0 += kMc) {
      const int64_t i1 = std::min(r1, i0 + kMc);
      // A packed by the MTE is read in place: the panels of rows [i0, i1).
      const float* ablock = op.a_packed ? op.a + (i0 / kMr * k + k0) * kMr : apack;
      if (!op.a_packed) packA(op.a, k, i0, i1, k0, kc, apack);
      const int64_t ap_stride = op.a_packed ? k * kMr : kc * kMr;  // between micro panels
      for (int64_t p = p0; p < p1;) {
        const int64_t j0 = p * kPanel;
        const float* bslice = op.b + (p * k + k0) * kPanel;
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
        if (wide && p + 1 < p1) {  // Note [Wide Cube tiles]
          const int64_t jn = std::min(2 * kPanel, n - j0);
          for (int64_t i = i0; i < i1; i += 2 * kMr)
            wideTile(ablock + (i - i0) / kMr * ap_stride, ap_stride, bslice, k * kPanel, kc, first,
                     last ? bias : nullptr, n, i, std::min(2 * kMr, i1 - i), j0, jn, c);
          p += 2;
          continue;
        }
#endif
        const int64_t jn = std::min(kPanel, n - j0);
        const NextSlicePrefetch next_b(p + 1 < p1 ? op.b + ((p + 1) * k + k0) * kPanel : nullptr, kc,
                                       (i1 - i0 + kMr - 1) / kMr);
        for (int64_t i = i0; i < i1; i += kMr) {  // in place in c where the tile is whole
          next_b.part((i - i0) / kMr);  // Note [Prefetch across micro-kernels]
          if (!first && i + kMr < i1) prefetchTile(c + (i + kMr) * n + j0, n, std::min(kMr, i1 - i - kMr));
          const float* ap = ablock + (i - i0) / kMr * ap_stride;
          cube_tiles::runTile([&](float* dst, int64_t ld, bool accumulate) { micro(ap, bslice, kc, dst, ld, accumulate); },
                              kMr, kPanel, first, last ? bias : nullptr, n, i, std::min(kMr, i1 - i), j0, jn, c);
        }
        ++p;
      }
    }
  }
  if (cnt && r1 > r0 && p1 > p0) {
    const int64_t cols = std::min(n, p1 * kPanel) - p0 * kPanel;
    cnt->cube_macs += paddedMacs(r1 - r0, cols, k);
    cnt->cube_fractals += fractals(r1 - r0, cols);
  }
}

void mmadS8(const int8_t* a, const int8_t* b, const int32_t* bias, int64_t m, int64_t n, int64_t k, int64_t r0,
            int64_t r1, int64_t c0, int64_t c1, int32_t* c, UnitCounters* cnt) {
  (void)m;
  std::vector<int32_t> acc(static_cast<size_t>(c1 - c0));
  for (int64_t i = r0; i < r1; ++i) {
    std::fill(acc.begin(), acc.end(), 0);
    for (int64_t kk = 0; kk < k; ++kk) {
      const int32_t av = a[i * k + kk];
      const int8_t* brow = b + kk * n;
      for (int64_t j = c0; j < c1; ++j)  // wrapping int32 accumulation
        acc[j - c0] = static_cast<int32_t>(static_cast<uint32_t>(acc[j - c0]) +
                                           static_cast<uint32_t>(av * static_cast<int32_t>(brow[j])));
    }
    for (int64_t j = c0; j < c1; ++j)
      c[i * n + j] = bias ? static_cast<int32_t>(static_cast<uint32_t>(acc[j - c0]) + static_cast<uint32_t>(bias[j]))
                          : acc[j - c0];
  }
  if (cnt && r1 > r0 && c1 > c0) {
    cnt->cube_macs += paddedMacs(r1 - r0, c1 - c0, k);
    cnt->cube_fractals += fractals(r1 - r0, c1 - c0);
  }
}

}  // namespace

bool roundCubeOperands(CubeRounding rnd, float* v, int64_t n) {
  if (rnd == CubeRounding::kNone) return false;
  const bool sat = rnd == CubeRounding::kFp16Saturate;
  return simd::roundThroughHalf(v, n, sat) && sat;
}

const CubeUnit& cubeUnit() {
  static const CubeUnit unit{"Cube", kFractal, kFractal, kFractal, &paddedMacs, &fractals,
                             &loadA,  &cubeLoadB,   &mmadF32, &mmadF32Implicit, &implicitTakesStride, &mmadS8};
  return unit;
}

}  // namespace ascend_sim
