// Note [Conv operands from private formats] (conv_operands.h).
#include "ops/conv/conv_operands.h"

#include <algorithm>
#include <cstring>

#include "aicore/thread_pool.h"
#include "common/dtype.h"
#include "common/transpose16.h"
#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace convops {
namespace {

constexpr int64_t k16 = 16;

int64_t ceil16(int64_t v) { return (v + k16 - 1) / k16; }

// Whether w is an fp32 or fp16 FRACTAL_Z (kd = 1) or FRACTAL_Z_3D filter [co][ci][kd][khw]: storage
// [kd * ceil(ci/16) * khw][ceil(co/16)][16][16], fractal (a, c1, tap, n1) at ((a * c1s + c1) * khw + tap) * n1 + n1.
bool isFractalZ(const TensorArg& w, int64_t co, int64_t ci, int64_t kd, int64_t khw) {
  const bool format = w.format == ACL_FRACTAL_Z_3D || (w.format == ACL_FORMAT_FRACTAL_Z && kd == 1);
  return format && (w.dtype == ACL_FLOAT || w.dtype == ACL_FLOAT16) && formatC0(w.format, w.dtype) == k16 &&
         w.data != nullptr && w.shape == Shape{kd * ceil16(ci) * khw, ceil16(co), k16, k16};
}

// Whether t is an fp32 or fp16 activation with data whose blocks (n, c1) are [h * w][16]: NC1HWC0
// [n][c][h][w], or NDC1HWC0 with n = N * D blocks (n, d).
bool isNc1hwc0(const TensorArg& t, int64_t n, int64_t c, int64_t h, int64_t w) {
  return t.data != nullptr && (isNc1hwc0Of16(t, n, c, h, w) || isNdc1hwc0Of16(t, n, c, h, w));
}


// n values of t's storage from element `offset` into dst, rounded per rnd; lanes [valid, n) of
// every 16-value run are zeros when valid < 16.
void loadRun(const TensorArg& t, int64_t offset, int64_t n, int64_t valid, CubeRounding rnd, float* dst,
             bool* overflow) {
  loadFloat(t.dtype, t.data, offset, 1, n, dst);
  if (valid < k16)
    for (int64_t i = 0; i < n; i += k16) std::fill(dst + i + valid, dst + i + k16, 0.0f);
  if (roundCubeOperands(rnd, dst, n)) *overflow = true;
}

// dst[j * 16 + i] = src[i * 16 + j]: a 16 x 16 block by register transposes (nc1hwc0BlockPlanes with 16
// positions of 16 channels), or element by element on hosts without AVX2.
void transpose16(float* src, float* dst) {
  if (nc1hwc0BlockPlanes(src, k16, k16, dst, k16, true)) return;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) dst[j * 16 + i] = src[i * 16 + j];
}

// parallelFor(tasks, elements, fn) where fn(t, &flag) may raise its task's overflow flag; true if any did.
template <typename Fn>
bool parallelForFlagged(int64_t tasks, int64_t elements, Fn fn) {
  std::vector<char> flags(static_cast<size_t>(tasks), 0);
  parallelFor(tasks, elements, [&](int64_t t) {
    bool flag = false;
    fn(t, &flag);
    flags[static_cast<size_t>(t)] = flag;
  });
  return std::find(flags.begin(), flags.end(), 1) != flags.end();
}

}  // namespace

const float* loadRounded(const TensorArg& t, int64_t logical_numel, ScratchSlot slot, CubeRounding rnd,
                         bool* overflow) {
  float* v = threadScratch(slot, logical_numel);
  if (logical_numel) convutil::loadLogicalF32(t, v);
  if (roundCubeOperands(rnd, v, logical_numel)) *overflow = true;
  return v;
}

bool forwardFilterPanels(const TensorArg& w, int64_t co, int64_t ci, int64_t kd, int64_t khw, CubeRounding rnd,
                         float* bp, bool* overflow) {
  if (!isFractalZ(w, co, ci, kd, khw)) return false;
  const int64_t n1 = ceil16(co), c1s = ceil16(ci), kvol = kd * khw, k = ci * kvol;
  const bool bad = parallelForFlagged(n1 * c1s, n1 * c1s * kvol * 256, [&](int64_t t, bool* flag) {
    const int64_t p = t / c1s, c1 = t % c1s;  // panel p, input channel block c1
    const int64_t cols = std::min(k16, co - p * k16), channels = std::min(k16, ci - c1 * k16);
    alignas(64) float block[256], rows[256];
    for (int64_t tap = 0; tap < kvol; ++tap) {  // tap = a * khw + (tap within the plane)
      // fractal (a, c1, tap, p): [co % 16][c % 16]; rows past `cols` are pads
      loadRun(w, (((tap / khw * c1s + c1) * khw + tap % khw) * n1 + p) * 256, cols * k16, channels, rnd, block, flag);
      std::fill(block + cols * k16, block + 256, 0.0f);
      transpose16(block, rows);  // rows[c0 * 16 + j]
      for (int64_t c0 = 0; c0 < channels; ++c0)
        std::memcpy(bp + (p * k + (c1 * k16 + c0) * kvol + tap) * k16, rows + c0 * k16, k16 * sizeof(float));
    }
  });
  if (bad) *overflow = true;
  return true;
}

bool backpropInputFilterPanels(const TensorArg& w, int64_t co, int64_t ci, int64_t kd, int64_t khw, CubeRounding rnd,
                               float* bp, bool* overflow) {
  if (!isFractalZ(w, co, ci, kd, khw)) return false;
  const int64_t n1 = ceil16(co), c1s = ceil16(ci), kvol = kd * khw, k = co * kvol;
  const bool bad = parallelForFlagged(c1s * kvol, c1s * kvol * n1 * 256, [&](int64_t t, bool* flag) {
    const int64_t p = t / kvol, tap = t % kvol, channels = std::min(k16, ci - p * k16);  // panel p = c1, tap
    const int64_t fractal_row = (tap / khw * c1s + p) * khw + tap % khw;                 // fractals (a, p, tap, all)
    for (int64_t o = 0; o < co; ++o)  // row (o, tap): the 16 input channels of fractal (.., o / 16), row o % 16
      loadRun(w, (fractal_row * n1 + o / k16) * 256 + o % k16 * k16, k16, channels, rnd,
              bp + (p * k + o * kvol + tap) * k16, flag);
  });
  if (bad) *overflow = true;
  return true;
}

bool activationPanels(const TensorArg& dy, int64_t n, int64_t c, int64_t h, int64_t w, CubeRounding rnd, float* bp,
                      bool* overflow) {
  if (!isNc1hwc0(dy, n, c, h, w)) return false;
  const int64_t hw = h * w;
  const int64_t c1s = ceil16(c);
  const bool bad = parallelForFlagged(n * c1s, n * c1s * hw * k16, [&](int64_t t, bool* flag) {
    const int64_t s = t / c1s, p = t % c1s;  // sample s, panel p: one storage block
    loadRun(dy, (s * c1s + p) * hw * k16, hw * k16, std::min(k16, c - p * k16), rnd, bp + (p * n + s) * hw * k16,
            flag);
  });
  if (bad) *overflow = true;
  return true;
}

bool storeTransposedFilter(const TensorArg& dw, const float* ct, int64_t co, int64_t ci, int64_t kd, int64_t khw,
                           const convutil::ResultRounding& rr, bool* overflow) {
  if (!isFractalZ(dw, co, ci, kd, khw)) return false;
  const int64_t n1 = ceil16(co), c1s = ceil16(ci), kvol = kd * khw;
  const bool bad = parallelForFlagged(c1s * kvol, c1s * kvol * n1 * 256, [&](int64_t t, bool* flag) {
    const int64_t c1 = t / kvol, tap = t % kvol, channels = std::min(k16, ci - c1 * k16);  // fractals (c1, tap, all)
    const int64_t fractal_row = (tap / khw * c1s + c1) * khw + tap % khw;
    alignas(64) float rows[256], block[256];
    for (int64_t p = 0; p < n1; ++p) {
      const int64_t cols = std::min(k16, co - p * k16);
      for (int64_t c0 = 0; c0 < k16; ++c0) {  // rows[c0][j] = ct[(c1 * 16 + c0) * khw + tap][p * 16 + j]
        float* row = rows + c0 * k16;
        const float* src = ct + ((c1 * k16 + c0) * kvol + tap) * co + p * k16;
        for (int64_t j = 0; j < k16; ++j) row[j] = c0 < channels && j < cols ? rr.apply(src[j], flag) : 0.0f;
      }
      transpose16(rows, block);  // block[j][c0]: fractal (c1, tap, p)
      storeFloat(dw.dtype, dw.data, (fractal_row * n1 + p) * 256, 256, block);
    }
  });
  if (bad) *overflow = true;
  return true;
}

bool paddedPlanes(const TensorArg& x, const PaddedPlanes& g, CubeRounding rnd, float* padded, bool* overflow) {
  if (!isNc1hwc0(x, g.n, g.c, g.h, g.w) || !simd::hostHasAvx2()) return false;
  const int64_t c1s = ceil16(g.c), plane = g.hp * g.wp;
  const bool bad = parallelForFlagged(g.n * c1s, g.n * c1s * g.h * g.w * k16, [&](int64_t t, bool* flag) {
    const int64_t s = t / c1s, c1 = t % c1s, channels = std::min(k16, g.c - c1 * k16);  // sample s, block c1
    float* planes = padded + (s * g.c + c1 * k16) * plane;
    float* row = threadScratch(ScratchSlot::kTask, g.w * k16);  // this pool thread's own
    for (int64_t ch = 0; ch < channels; ++ch) {  // the borders
      float* dst = planes + ch * plane;
      std::fill(dst, dst + g.pt * g.wp, 0.0f);
      for (int64_t h = 0; h < g.h; ++h) {
        std::fill(dst + (g.pt + h) * g.wp, dst + (g.pt + h) * g.wp + g.pl, 0.0f);
        std::fill(dst + (g.pt + h) * g.wp + g.pl + g.w, dst + (g.pt + h + 1) * g.wp, 0.0f);
      }
      std::fill(dst + (g.pt + g.h) * g.wp, dst + plane, 0.0f);
    }
    for (int64_t h = 0; h < g.h; ++h) {  // one (s, c1, h) block: w positions x 16 channels
      loadRun(x, ((s * c1s + c1) * g.h + h) * g.w * k16, g.w * k16, channels, rnd, row, flag);
      nc1hwc0BlockPlanes(row, g.w, channels, planes + (g.pt + h) * g.wp + g.pl, plane, true);
    }
  });
  if (bad) *overflow = true;
  return true;
}

bool paddedVolumes(const TensorArg& x, const PaddedVolumes& g, CubeRounding rnd, float* padded, bool* overflow) {
  const int64_t d = g.in[0], h = g.in[1], w = g.in[2];
  if (!isNdc1hwc0Of16(x, g.n * d, g.c, h, w) || x.data == nullptr || !simd::hostHasAvx2()) return false;
  const int64_t c1s = ceil16(g.c), plane = g.ext[1] * g.ext[2], vol = g.ext[0] * plane;
  parallelFor(g.n * g.c, g.n * g.c * vol,
              [&](int64_t t) { std::fill(padded + t * vol, padded + (t + 1) * vol, 0.0f); });
  const bool bad = parallelForFlagged(g.n * d * c1s, g.n * d * c1s * h * w * k16, [&](int64_t t, bool* flag) {
    const int64_t s = t / (d * c1s), z = t / c1s % d, c1 = t % c1s, channels = std::min(k16, g.c - c1 * k16);
    float* volumes = padded + (s * g.c + c1 * k16) * vol + (g.lo[0] + z * g.step[0]) * plane + g.lo[2];
    float* row = threadScratch(ScratchSlot::kTask, w * k16);  // this pool thread's own
    for (int64_t y = 0; y < h; ++y) {                         // one (s, z, c1, y) run: w positions x 16 channels
      loadRun(x, (((s * d + z) * c1s + c1) * h + y) * w * k16, w * k16, channels, rnd, row, flag);
      nc1hwc0BlockPlanes(row, w, channels, volumes + (g.lo[1] + y * g.step[1]) * g.ext[2], vol, true);
    }
  });
  if (bad) *overflow = true;
  return true;
}

EmitFn emitNc1hwc0(const TensorArg& out, int64_t channels, int64_t rows, const convutil::ResultRounding& rr,
                   const int64_t* pos) {
  const int64_t c1s = ceil16(channels);
  const aclDataType dt = out.dtype;
  void* base = out.data;
  return [=](int64_t n, int64_t r0, int64_t r1, int64_t j0, int64_t j1, const float* c, UnitCounters* uc) {
    static const float kZeros[k16] = {};
    float rounded[k16];
    for (int64_t c1 = j0 / k16; c1 * k16 < j1; ++c1) {  // j0, j1 are whole panels (multiples of 16)
      const int64_t lanes = std::min(k16, channels - c1 * k16);
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t dst = ((n * c1s + c1) * rows + (pos ? pos[r] : r)) * k16;  // element offset in the output
        const float* src = c + r * channels + c1 * k16;
        if (rr.through_fp16) {
          for (int64_t l = 0; l < lanes; ++l) rounded[l] = rr.apply(src[l], &uc->fp16_overflow);
          src = rounded;
        }
        if (dt == ACL_FLOAT) {
          std::memcpy(static_cast<float*>(base) + dst, src, static_cast<size_t>(lanes) * sizeof(float));
        } else {
          storeFloat(dt, base, dst, lanes, src);
        }
        if (lanes < k16) storeFloat(dt, base, dst + lanes, k16 - lanes, kZeros);
      }
    }
  };
}

void forwardPanelsFromLogical(const float* w, int64_t groups, int64_t cog, int64_t k, float* bp) {
  const int64_t panels = ceil16(cog), bsize = panels * k * k16;
  parallelFor(groups * panels, [&](int64_t t) {  // one 16-column panel per call
    const int64_t gi = t / panels, p = t % panels, n0 = p * k16;
    cubeUnit().load_b(GmMatrix{ACL_FLOAT, w, (gi * cog + n0) * k, 1, k}, k, std::min(k16, cog - n0),
                      CubeRounding::kNone, bp + gi * bsize + p * k * k16, nullptr);
  });
}

void backpropInputPanelsFromLogical(const float* w, int64_t groups, int64_t cog, int64_t cig, int64_t taps, float* bp) {
  const int64_t panels = ceil16(cig), k = cog * taps, bsize = panels * k * k16;
  parallelFor(groups * panels, [&](int64_t t) {  // per output channel, a [taps][16] block: row stride 1
    const int64_t gi = t / panels, p = t % panels, c0 = p * k16, nc = std::min(k16, cig - c0);
    for (int64_t co = 0; co < cog; ++co)
      cubeUnit().load_b(GmMatrix{ACL_FLOAT, w, ((gi * cog + co) * cig + c0) * taps, 1, taps}, taps, nc,
                        CubeRounding::kNone, bp + gi * bsize + (p * k + co * taps) * k16, nullptr);
  });
}

void activationPanelsFromLogical(const float* dy, int64_t n, int64_t groups, int64_t cog, int64_t rows, float* bp) {
  const int64_t panels = ceil16(cog), m = n * rows, bsize = panels * m * k16;
  parallelFor(groups * panels * n, [&](int64_t t) {
    const int64_t gi = t / (panels * n), p = t / n % panels, s = t % n;
    const int64_t c0 = p * k16, width = std::min(k16, cog - c0);
    const float* src = dy + (s * groups * cog + gi * cog + c0) * rows;
    float* dst = bp + gi * bsize + (p * m + s * rows) * k16;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < width; ++c) dst[r * k16 + c] = src[c * rows + r];
      std::fill(dst + r * k16 + width, dst + (r + 1) * k16, 0.0f);
    }
  });
}

void transposedFilterToLogical(const float* ct, int64_t groups, int64_t cog, int64_t kc,
                               const convutil::ResultRounding& rr, float* dw, bool* overflow) {
  const int64_t cblocks = ceil16(cog);
  const bool bad = parallelForFlagged(groups * cblocks, groups * cog * kc, [&](int64_t t, bool* flag) {
    const int64_t gi = t / cblocks, c0 = t % cblocks * k16, cn = std::min(k16, cog - c0);
    const float* src = ct + gi * kc * cog;
    for (int64_t j0 = 0; j0 < kc; j0 += k16)
      for (int64_t cl = c0; cl < c0 + cn; ++cl)
        for (int64_t j = j0; j < std::min(kc, j0 + k16); ++j)
          dw[(gi * cog + cl) * kc + j] = rr.apply(src[j * cog + cl], flag);
  });
  if (bad) *overflow = true;
}

}  // namespace convops
}  // namespace ascend_sim
