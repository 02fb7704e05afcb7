// The Cube unit: fractal (16x16x16) matrix multiply-accumulate.
//
// Note [Cube numerics and blocking]
// Contract (SIMULATOR.md §3): each output element has one fp32 accumulator
// that adds a[i,k]*b[k,j] for k = 0, 1, ..., K-1 with a fused multiply-add,
// then adds the bias (fp32), then is rounded once to the output dtype (by the
// caller). fp16/bf16 operands are widened to fp32 exactly; their products are
// exact, so FMA and mul+add agree for them. fp32 operands are used as they are
// or first rounded to fp16 (precision mode, CubeRounding).
// Implementation: load_a makes a row-major fp32 copy of A [M,K] (transposes
// resolved there), load_b makes fp32 column panels of 16 columns laid out
// [panel][K][16] (zero padded) — the host analogue of L0A/L0B. A micro-kernel
// computes a kRows x 16 tile with the accumulators in registers, walking k in
// ascending order, so the order per element is exactly the contract's and the
// result does not depend on blocking, SIMD width, the split across simulated
// cores or host threads. On x86-64 hosts with FMA the micro-kernel uses AVX2
// FMA (bitwise identical to std::fma); elsewhere a portable std::fma loop
// gives the same bits, more slowly.
#include <algorithm>
#include <cmath>
#include <vector>

#include "aicore/units.h"
#include "common/dtype.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ASCEND_SIM_HAVE_AVX2_PATH 1
#endif

namespace ascend_sim {
namespace {

constexpr int64_t kFractal = 16;   // M0 = K0 = N0
constexpr int64_t kPanel = 16;     // output columns per micro tile (= N0)
constexpr int64_t kRows = 6;       // output rows per micro tile
constexpr int64_t kRowBlock = 96;  // rows of A kept hot while panels stream
constexpr float kFp16Max = 65504.0f;

// C[r][0..16) = sum_k A[r*lda + k] * Bp[k*16 + j], r < R, ascending k, fused.
template <int R>
void microPortable(const float* a, int64_t lda, const float* bp, int64_t k_len, float* c) {
  float acc[R][kPanel] = {};
  for (int64_t k = 0; k < k_len; ++k)
    for (int r = 0; r < R; ++r) {
      const float av = a[r * lda + k];
      for (int64_t j = 0; j < kPanel; ++j) acc[r][j] = std::fma(av, bp[k * kPanel + j], acc[r][j]);
    }
  for (int r = 0; r < R; ++r)
    for (int64_t j = 0; j < kPanel; ++j) c[r * kPanel + j] = acc[r][j];
}

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
template <int R>
__attribute__((target("avx2,fma"))) void microAvx2(const float* a, int64_t lda, const float* bp,
                                                   int64_t k_len, float* c) {
  __m256 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < k_len; ++k) {
    const __m256 b0 = _mm256_loadu_ps(bp + k * kPanel);
    const __m256 b1 = _mm256_loadu_ps(bp + k * kPanel + 8);
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + k);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(c + r * kPanel, acc[r][0]);
    _mm256_storeu_ps(c + r * kPanel + 8, acc[r][1]);
  }
}
bool hostHasFma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

using MicroFn = void (*)(const float*, int64_t, const float*, int64_t, float*);

MicroFn microFor(int64_t rows) {
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
  if (hostHasFma()) {
    static const MicroFn fns[] = {nullptr, microAvx2<1>, microAvx2<2>, microAvx2<3>,
                                  microAvx2<4>, microAvx2<5>, microAvx2<6>};
    return fns[rows];
  }
#endif
  static const MicroFn fns[] = {nullptr, microPortable<1>, microPortable<2>, microPortable<3>,
                                microPortable<4>, microPortable<5>, microPortable<6>};
  return fns[rows];
}

int64_t padTo16(int64_t v) { return (v + kFractal - 1) / kFractal * kFractal; }

double paddedMacs(int64_t m, int64_t n, int64_t k) {
  return static_cast<double>(padTo16(m)) * static_cast<double>(padTo16(n)) * static_cast<double>(padTo16(k));
}

double fractals(int64_t m, int64_t n) {
  return static_cast<double>(padTo16(m) / kFractal) * static_cast<double>(padTo16(n) / kFractal);
}

// Applies the precision-mode rounding of fp32 operands to v[0..n).
void roundOperands(aclDataType dt, CubeRounding rnd, float* v, int64_t n, UnitCounters* cnt) {
  if (dt != ACL_FLOAT || rnd == CubeRounding::kNone) return;
  const bool sat = rnd == CubeRounding::kFp16Saturate;
  for (int64_t i = 0; i < n; ++i) {
    float h = halfToFloat(floatToHalf(v[i]));
    if (sat && !std::isfinite(h)) {
      h = std::isnan(h) ? 0.0f : (h > 0 ? kFp16Max : -kFp16Max);
      if (cnt) cnt->fp16_overflow = true;
    }
    v[i] = h;
  }
}

void loadA(const GmMatrix& a, int64_t m, int64_t k, CubeRounding rnd, float* dst, UnitCounters* cnt) {
  for (int64_t i = 0; i < m; ++i) {
    loadFloat(a.dtype, a.base, a.offset + i * a.rs, a.cs, k, dst + i * k);
    roundOperands(a.dtype, rnd, dst + i * k, k, cnt);
  }
  if (cnt) cnt->mte_in_bytes += static_cast<double>(m * k) * static_cast<double>(dtypeSize(a.dtype));
}

void loadB(const GmMatrix& b, int64_t k, int64_t n, CubeRounding rnd, float* bp, UnitCounters* cnt) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  std::fill(bp, bp + panels * k * kPanel, 0.0f);
  if (b.cs == 1) {  // B rows are contiguous: read row by row, scatter into panels
    std::vector<float> row(static_cast<size_t>(n));
    for (int64_t kk = 0; kk < k; ++kk) {
      loadFloat(b.dtype, b.base, b.offset + kk * b.rs, 1, n, row.data());
      roundOperands(b.dtype, rnd, row.data(), n, cnt);
      for (int64_t j = 0; j < n; ++j) bp[((j / kPanel) * k + kk) * kPanel + j % kPanel] = row[j];
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

void mmadF32(const CubeOperands& op, const float* bias, int64_t r0, int64_t r1, int64_t p0, int64_t p1, float* c,
             UnitCounters* cnt) {
  const int64_t n = op.n, k = op.k;
  float tile[kRows * kPanel];
  for (int64_t i0 = r0; i0 < r1; i0 += kRowBlock) {
    const int64_t i1 = std::min(r1, i0 + kRowBlock);
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t j0 = p * kPanel, jn = std::min(kPanel, n - j0);
      for (int64_t i = i0; i < i1; i += kRows) {
        const int64_t rows = std::min(kRows, i1 - i);
        microFor(rows)(op.a + i * k, k, op.b + p * k * kPanel, k, tile);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < jn; ++j)
            c[(i + r) * n + j0 + j] = bias ? tile[r * kPanel + j] + bias[j0 + j] : tile[r * kPanel + j];
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

const CubeUnit& cubeUnit() {
  static const CubeUnit unit{"Cube", kFractal, kFractal, kFractal, &paddedMacs, &fractals,
                             &loadA,  &loadB,   &mmadF32, &mmadS8};
  return unit;
}

}  // namespace ascend_sim
