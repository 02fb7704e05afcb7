// The Cube's B operand (L0B): column panels [ceil(n/16)][k][16] of a GM matrix,
// rounded per the precision mode (Note [Cube numerics and blocking] in
// cube.cpp). Row-major and transposed fp32 B and row-major fp16 B are packed
// in one vectorized pass on AVX2 and AVX-512 hosts (Note [B panels in one
// pass]); anything else goes through loadFloat rows or columns.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "aicore/cube_tiles.h"
#include "aicore/units.h"
#include "common/dtype.h"
#include "common/transpose16.h"

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

namespace ascend_sim {
namespace {

using cube_tiles::kPanel;

// Applies the precision-mode rounding to operands of storage dtype dt (fp32 only).
void roundOperands(aclDataType dt, CubeRounding rnd, float* v, int64_t n, UnitCounters* cnt) {
  if (dt == ACL_FLOAT && roundCubeOperands(rnd, v, n) && cnt) cnt->fp16_overflow = true;
}

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
// Note [B panels in one pass]
// With AVX-512 or AVX2 an fp32 B is packed in one pass, 16 (AVX2: 8)
// reduction steps x one panel (16 columns) at a time. A row-major B gives a
// panel row per load (two with AVX2); a transposed B gives 16 (8) contiguous
// steps of one column per load, and the vectors are transposed in registers
// (16 x 16, or two 8 x 8 per panel). Values are rounded through fp16 in
// registers as the precision mode asks; the last panel's padding columns come
// out as zeros. A vector with a lane that rounds to inf or NaN goes through
// roundCubeOperands, so values and the overflow flag equal those of the
// two-pass path (load, then round). Returns whether an operand overflowed.
__attribute__((target("avx512f"))) inline __m512 roundLanes(__m512 x, CubeRounding rnd, bool* bad) {
  if (rnd == CubeRounding::kNone) return x;
  constexpr int kRne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  // The masked forms: GCC 12's unmasked ones start from "undefined" registers and warn.
  const __m512 r = _mm512_maskz_cvtph_ps(0xFFFF, _mm512_maskz_cvtps_ph(0xFFFF, x, kRne));
  const __m512 magnitude = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(r), _mm512_set1_epi32(0x7fffffff)));
  if (!_mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(INFINITY), _CMP_NLT_UQ)) return r;
  alignas(64) float lanes[kPanel];
  _mm512_store_ps(lanes, x);
  *bad = roundCubeOperands(rnd, lanes, kPanel) || *bad;
  return _mm512_load_ps(lanes);
}

// One block of the B panels: reduction steps k0 .. k0 + steps of panel p
// (columns p * kPanel .. + width), packed at dst.
struct PanelBlock {
  int64_t k0, steps, p, width;
  float* dst;
};

// Calls pack(block) for the B panels of a k x n B in blocks of `block_steps`
// reduction steps x one panel: the walk the packers share. A target-specific
// packer passes a lambda with its own target attribute (a lambda does not
// inherit its function's); always_inline puts the walk in the packer first,
// so that GCC then inlines the lambda into it (without, it stays a call).
template <typename PackBlock>
__attribute__((always_inline)) inline void forEachPanelBlock(int64_t block_steps, int64_t k, int64_t n, float* bp,
                                                             const PackBlock& pack) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  for (int64_t k0 = 0; k0 < k; k0 += block_steps) {
    const int64_t steps = std::min(block_steps, k - k0);
    for (int64_t p = 0; p < panels; ++p)
      pack(PanelBlock{k0, steps, p, std::min(kPanel, n - p * kPanel), bp + (p * k + k0) * kPanel});
  }
}

__attribute__((target("avx512f"))) bool packBAvx512(const float* b, int64_t rs, int64_t cs, int64_t k, int64_t n,
                                                   CubeRounding rnd, float* bp) {
  constexpr int64_t kBlock = 16;
  bool bad = false;
  const auto pack_block = [&](const PanelBlock& blk) __attribute__((target("avx512f"))) {
    if (cs == 1) {  // row-major B: one panel row per load
      const __mmask16 lanes = static_cast<__mmask16>((1u << blk.width) - 1u);
      for (int64_t kk = 0; kk < blk.steps; ++kk)
        _mm512_storeu_ps(blk.dst + kk * kPanel,
                         roundLanes(_mm512_maskz_loadu_ps(lanes, b + (blk.k0 + kk) * rs + blk.p * kPanel), rnd, &bad));
      return;
    }
    // transposed B (rs == 1): column j's steps are contiguous
    const __mmask16 step_lanes = static_cast<__mmask16>((1u << blk.steps) - 1u);
    __m512 v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      v[j] = j < blk.width
                 ? roundLanes(_mm512_maskz_loadu_ps(step_lanes, b + (blk.p * kPanel + j) * cs + blk.k0), rnd, &bad)
                 : _mm512_setzero_ps();
    simd::transpose16x16(v);
    if (blk.steps == kBlock) {
#pragma GCC unroll 16
      for (int kk = 0; kk < 16; ++kk) _mm512_storeu_ps(blk.dst + kk * kPanel, v[kk]);
    } else {
      for (int64_t kk = 0; kk < blk.steps; ++kk) _mm512_storeu_ps(blk.dst + kk * kPanel, v[kk]);
    }
  };
  forEachPanelBlock(kBlock, k, n, bp, pack_block);
  return bad;
}

// A row-major fp16 B, widened straight into its panels (fp16 values are exact in fp32 and no
// precision mode rounds them), in the order of packBAvx512.
__attribute__((target("avx512f"))) void packHalfBRowsAvx512(const uint16_t* b, int64_t rs, int64_t k, int64_t n,
                                                            float* bp) {
  constexpr int64_t kBlock = 16;
  const auto pack_block = [&](const PanelBlock& blk) __attribute__((target("avx512f"))) {
    for (int64_t kk = 0; kk < blk.steps; ++kk) {
      const uint16_t* src = b + (blk.k0 + kk) * rs + blk.p * kPanel;
      uint16_t edge[kPanel];
      if (blk.width < kPanel) {  // the last panel's padding columns are zeros
        std::fill(edge + blk.width, edge + kPanel, uint16_t{0});
        std::memcpy(edge, src, static_cast<size_t>(blk.width) * sizeof(uint16_t));
        src = edge;
      }
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
      _mm512_storeu_ps(blk.dst + kk * kPanel, _mm512_maskz_cvtph_ps(0xFFFF, h));
    }
  };
  forEachPanelBlock(kBlock, k, n, bp, pack_block);
}

// The AVX2 forms of packBAvx512 and packHalfBRowsAvx512: 8 reduction steps at a time, each panel
// row as two 8-float halves, a transposed B through two 8 x 8 register transposes per panel.
__attribute__((target("avx2,f16c"))) inline __m256 roundLanesAvx2(__m256 x, CubeRounding rnd, bool* bad) {
  if (rnd == CubeRounding::kNone) return x;
  constexpr int kRne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(x, kRne));
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), r);
  if (!_mm256_movemask_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(INFINITY), _CMP_NLT_UQ))) return r;
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, x);
  *bad = roundCubeOperands(rnd, lanes, 8) || *bad;
  return _mm256_load_ps(lanes);
}

// 8 lanes from src, of which the first `valid` (<= 8) are read and the rest are zeros.
__attribute__((target("avx2"))) inline __m256 loadLanes(const float* src, int64_t valid) {
  if (valid >= 8) return _mm256_loadu_ps(src);
  if (valid <= 0) return _mm256_setzero_ps();
  alignas(32) static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_maskload_ps(src, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - valid)));
}

__attribute__((target("avx2,f16c"))) bool packBAvx2(const float* b, int64_t rs, int64_t cs, int64_t k, int64_t n,
                                                   CubeRounding rnd, float* bp) {
  constexpr int64_t kBlock = 8;
  bool bad = false;
  const auto pack_block = [&](const PanelBlock& blk) __attribute__((target("avx2,f16c"))) {
    if (cs == 1) {  // row-major B: a panel row is two loads
      for (int64_t kk = 0; kk < blk.steps; ++kk) {
        const float* row = b + (blk.k0 + kk) * rs + blk.p * kPanel;
        _mm256_storeu_ps(blk.dst + kk * kPanel, roundLanesAvx2(loadLanes(row, blk.width), rnd, &bad));
        _mm256_storeu_ps(blk.dst + kk * kPanel + 8, roundLanesAvx2(loadLanes(row + 8, blk.width - 8), rnd, &bad));
      }
      return;
    }
    for (int64_t half = 0; half < 2; ++half) {  // transposed B (rs == 1): columns half * 8 .. + 8
      __m256 v[8];
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        const int64_t col = half * 8 + j;
        v[j] = col < blk.width
                   ? roundLanesAvx2(loadLanes(b + (blk.p * kPanel + col) * cs + blk.k0, blk.steps), rnd, &bad)
                   : _mm256_setzero_ps();
      }
      simd::transpose8x8(v);
      for (int64_t kk = 0; kk < blk.steps; ++kk) _mm256_storeu_ps(blk.dst + kk * kPanel + half * 8, v[kk]);
    }
  };
  forEachPanelBlock(kBlock, k, n, bp, pack_block);
  return bad;
}

__attribute__((target("avx2,f16c"))) void packHalfBRowsAvx2(const uint16_t* b, int64_t rs, int64_t k, int64_t n,
                                                           float* bp) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t width = std::min(kPanel, n - p * kPanel);
    for (int64_t kk = 0; kk < k; ++kk) {
      const uint16_t* src = b + kk * rs + p * kPanel;
      float* dst = bp + (p * k + kk) * kPanel;
      if (width == kPanel) {
        _mm256_storeu_ps(dst, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src))));
        _mm256_storeu_ps(dst + 8, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 8))));
      } else {  // the last panel's padding columns are zeros
        uint16_t edge[kPanel] = {};
        std::memcpy(edge, src, static_cast<size_t>(width) * sizeof(uint16_t));
        _mm256_storeu_ps(dst, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(edge))));
        _mm256_storeu_ps(dst + 8, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(edge + 8))));
      }
    }
  }
}
#endif

}  // namespace

void cubeLoadB(const GmMatrix& b, int64_t k, int64_t n, CubeRounding rnd, float* bp, UnitCounters* cnt) {
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
  if (b.dtype == ACL_FLOAT16 && cube_tiles::hostHasAvx2Fma() && b.cs == 1) {
    const uint16_t* src = static_cast<const uint16_t*>(b.base) + b.offset;
    if (cube_tiles::hostHasAvx512()) {
      packHalfBRowsAvx512(src, b.rs, k, n, bp);
    } else {
      packHalfBRowsAvx2(src, b.rs, k, n, bp);
    }
    if (cnt) cnt->mte_in_bytes += static_cast<double>(k * n) * static_cast<double>(dtypeSize(b.dtype));
    return;
  }
  // Note [B panels in one pass]
  if (b.dtype == ACL_FLOAT && cube_tiles::hostHasAvx2Fma() && (b.cs == 1 || b.rs == 1)) {
    const float* src = static_cast<const float*>(b.base) + b.offset;
    const bool bad = cube_tiles::hostHasAvx512() ? packBAvx512(src, b.rs, b.cs, k, n, rnd, bp)
                                                 : packBAvx2(src, b.rs, b.cs, k, n, rnd, bp);
    if (cnt) {
      if (bad) cnt->fp16_overflow = true;
      cnt->mte_in_bytes += static_cast<double>(k * n) * static_cast<double>(dtypeSize(b.dtype));
    }
    return;
  }
#endif
  const int64_t panels = (n + kPanel - 1) / kPanel;
  // Only the last panel has padding columns; every other element is written below.
  if (n % kPanel != 0) std::fill(bp + (panels - 1) * k * kPanel, bp + panels * k * kPanel, 0.0f);
  if (b.cs == 1) {
    // B rows are contiguous: read kRows rows at a time, then write each panel's part of them as
    // one contiguous run (a row at a time would write every panel at a stride of k * kPanel).
    constexpr int64_t kRows = 16;
    static thread_local std::vector<float> rows;  // Note [Reused scratch]
    rows.resize(static_cast<size_t>(kRows * n));
    for (int64_t k0 = 0; k0 < k; k0 += kRows) {
      const int64_t kr = std::min(kRows, k - k0);
      for (int64_t r = 0; r < kr; ++r) {
        loadFloat(b.dtype, b.base, b.offset + (k0 + r) * b.rs, 1, n, rows.data() + r * n);
        roundOperands(b.dtype, rnd, rows.data() + r * n, n, cnt);
      }
      for (int64_t p = 0; p < panels; ++p) {
        float* dst = bp + (p * k + k0) * kPanel;
        const float* src = rows.data() + p * kPanel;
        const int64_t width = std::min(kPanel, n - p * kPanel);
        for (int64_t r = 0; r < kr; ++r)
          std::memcpy(dst + r * kPanel, src + r * n, static_cast<size_t>(width) * sizeof(float));
      }
    }
  } else {  // B columns are contiguous (transposed B)
    std::vector<float> col(static_cast<size_t>(k));
    for (int64_t j = 0; j < n; ++j) {
      loadFloat(b.dtype, b.base, b.offset + j * b.cs, b.rs, k, col.data());
      roundOperands(b.dtype, rnd, col.data(), k, cnt);
      float* dst = &bp[(j / kPanel) * k * kPanel + j % kPanel];
      for (int64_t kk = 0; kk < k; ++kk) dst[kk * kPanel] = col[kk];
    }
  }
  if (cnt) cnt->mte_in_bytes += static_cast<double>(k * n) * static_cast<double>(dtypeSize(b.dtype));
}

}  // namespace ascend_sim
