// How a convolution's product reads a padded input in place (conv_padded_read.h).
#include "ops/conv/conv_padded_read.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <utility>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "common/dtype.h"
#include "ops/conv/conv_operands.h"
#include "ops/conv/conv_util.h"

namespace ascend_sim {
namespace convops {

using convutil::ceilDiv;

namespace {

constexpr int64_t kTile = 16;                    // fractal edge
constexpr int64_t kPaddedInputMinTasks = 16;     // below this, runPaddedRead splits panels too

// The taps of phase p along one dim (input extent n, kernel k, stride s, pad, dilation):
// (tap, offset into dy) in ascending tap order.
std::vector<std::pair<int64_t, int64_t>> phaseTaps(int64_t p, int64_t k, int64_t s, int64_t pad, int64_t dil) {
  std::vector<std::pair<int64_t, int64_t>> taps;
  for (int64_t t = 0; t < k; ++t) {
    const int64_t v = p + pad - t * dil;
    if (((v % s) + s) % s == 0) taps.emplace_back(t, v / s);
  }
  return taps;
}

}  // namespace

bool takesPaddedRead(const PaddedRead& read) {
  return cubeUnit().implicit_takes_stride(read.sw) && read.pt >= 0 && read.pl >= 0;
}

const float* paddedUnits(const TensorArg& t, const PaddedRead& read, int64_t groups, int64_t n, CubeRounding rnd,
                         ScratchSlot logical_slot, bool* overflow) {
  const int64_t hp = read.hp(), wp = read.wp(), plane = read.channels * hp * wp, units = groups * n;
  float* padded = threadScratch(ScratchSlot::kCols, units * plane + kPaddedInputSlack);
  std::fill(padded + units * plane, padded + units * plane + kPaddedInputSlack, 0.0f);
  if (groups == 1 &&
      convops::paddedPlanes(t, {n, read.channels, read.h, read.w, read.pt, read.pl, hp, wp}, rnd, padded, overflow))
    return padded;
  // Note [Padded planes from a plain input]
  // An input stored in logical order (ND / NCHW) is converted and rounded row by row straight into
  // the padded planes, on every thread. It used to be loaded and rounded whole into a logical copy
  // first, on this thread alone (about a twentieth of an 8x64x56x56 3x3 convolution, with the other
  // cores idle). Other layouts still take that way. Each element gets the same rounding either way.
  const int64_t hw = read.h * read.w;
  const bool plain = t.data != nullptr && convutil::storesLogicalOrder(t);
  const float* src = plain ? nullptr : loadRounded(t, n * groups * read.channels * hw, logical_slot, rnd, overflow);
  std::atomic<bool> saturated{false};
  parallelFor(units * read.channels, [&](int64_t task) {  // one channel plane per call
    const int64_t u = task / read.channels, c = task % read.channels;
    const int64_t first = ((u % n) * groups * read.channels + (u / n) * read.channels + c) * hw;  // logical index
    float* dst = padded + u * plane + c * hp * wp;
    std::fill(dst, dst + read.pt * wp, 0.0f);
    for (int64_t h = 0; h < read.h; ++h) {
      float* row = dst + (read.pt + h) * wp;
      std::fill(row, row + read.pl, 0.0f);
      float* body = row + read.pl;
      if (plain) {
        loadFloat(t.dtype, t.data, first + h * read.w, 1, read.w, body);
        if (roundCubeOperands(rnd, body, read.w)) saturated.store(true, std::memory_order_relaxed);
      } else {
        std::copy(src + first + h * read.w, src + first + (h + 1) * read.w, body);
      }
      std::fill(body + read.w, row + wp, 0.0f);
    }
    std::fill(dst + (read.pt + read.h) * wp, dst + hp * wp, 0.0f);
  });
  if (saturated.load()) *overflow = true;
  return padded;
}

void runPaddedRead(const PaddedRead& read, int64_t units, const float* padded, const float* bpanels, int64_t ncols,
                   int64_t unit_group_div, const float* bias, const EmitFn& emit, std::vector<UnitCounters>* counters,
                   const UnitBaseFn& unit_base) {
  const int64_t wp = read.wp(), plane = read.channels * read.hp() * wp;
  const int64_t rows = read.out_h * read.out_w, k = static_cast<int64_t>(read.k_offset.size());
  const int64_t band_rows = read.bandRows(), bands = ceilDiv(rows, band_rows), panels = ceilDiv(ncols, kTile);
  const int64_t bsize = panels * k * kTile;
  const bool strided_read = cubeUnit().implicit_takes_stride(read.sw);
  std::vector<int64_t> row_table;
  if (!strided_read)
    for (int64_t r = 0; r < rows; ++r) row_table.push_back(r / read.out_w * read.sh * wp + r % read.out_w * read.sw);
  const convutil::ProductTasks tasks(units, bands, panels, kPaddedInputMinTasks);
  float* cbuf = threadScratch(ScratchSlot::kResult, units * rows * ncols);
  const size_t base = counters->size();
  counters->resize(base + static_cast<size_t>(tasks.count()));
  parallelFor(tasks.count(), [&](int64_t t) {
    const auto [u, band, p0, p1] = tasks[t];
    const int64_t r0 = band * band_rows, r1 = std::min(rows, r0 + band_rows);
    if (p0 == p1) return;
    const int64_t grp = u / unit_group_div;
    CubeImplicitA a{
        unit_base ? unit_base(u) : padded + u * plane, read.k_offset.data(), wp, read.out_w, read.sh, read.sw};
    if (!strided_read) a.row_offset = row_table.data();
    float* c = cbuf + u * rows * ncols;
    UnitCounters* uc = &(*counters)[base + static_cast<size_t>(t)];
    cubeUnit().mmad_f32_implicit(a, bpanels + grp * bsize, ncols, k, bias ? bias + grp * ncols : nullptr, r0, r1, p0,
                                 p1, c, uc);
    emit(u, r0, r1, p0 * kTile, std::min(ncols, p1 * kTile), c, uc);
  });
}

void reportOverflow(const OpCall& call, bool overflow, const std::vector<UnitCounters>& counters) {
  for (const UnitCounters& u : counters) overflow = overflow || u.fp16_overflow;
  if (overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

std::vector<InputGradPhase> inputGradPhases(int64_t cog, int64_t h, int64_t w, int64_t ho, int64_t wo,
                                            const convutil::Window& wn, PaddedRead* pad) {
  int64_t top = 0, left = 0, bottom = ho, right = wo;  // dy rows / columns read: [-top, bottom)
  for (int64_t ph = 0; ph < std::min(wn.sh, h); ++ph)
    for (const auto& [i, oi] : phaseTaps(ph, wn.kh, wn.sh, wn.pt, wn.dh)) {
      (void)i;
      top = std::max(top, -oi);
      bottom = std::max(bottom, ceilDiv(h - ph, wn.sh) + oi);
    }
  for (int64_t pw = 0; pw < std::min(wn.sw, w); ++pw)
    for (const auto& [j, oj] : phaseTaps(pw, wn.kw, wn.sw, wn.pl, wn.dw)) {
      (void)j;
      left = std::max(left, -oj);
      right = std::max(right, ceilDiv(w - pw, wn.sw) + oj);
    }
  *pad = PaddedRead{cog, ho, wo, top, bottom - ho, left, right - wo, 0, 0, 1, 1, {}};
  const int64_t hp = pad->hp(), wp = pad->wp(), khw = wn.kh * wn.kw;
  std::vector<InputGradPhase> phases;
  for (int64_t ph = 0; ph < std::min(wn.sh, h); ++ph)
    for (int64_t pw = 0; pw < std::min(wn.sw, w); ++pw) {
      InputGradPhase f;
      f.read = *pad;
      f.read.out_h = ceilDiv(h - ph, wn.sh);
      f.read.out_w = ceilDiv(w - pw, wn.sw);
      const auto ti = phaseTaps(ph, wn.kh, wn.sh, wn.pt, wn.dh), tj = phaseTaps(pw, wn.kw, wn.sw, wn.pl, wn.dw);
      for (int64_t co = 0; co < cog; ++co)
        for (const auto& [i, oi] : ti)
          for (const auto& [j, oj] : tj) {
            f.b_rows.push_back(co * khw + i * wn.kw + j);
            f.read.k_offset.push_back(co * hp * wp + (oi + top) * wp + (oj + left));
          }
      for (int64_t a = 0; a < f.read.out_h; ++a)
        for (int64_t b = 0; b < f.read.out_w; ++b) f.pos.push_back((ph + wn.sh * a) * w + pw + wn.sw * b);
      phases.push_back(std::move(f));
    }
  return phases;
}

bool phasesKeepBits(const TensorArg& w, CubeRounding rnd, const float* bp, int64_t n) {
  const bool fp16_values = w.dtype == ACL_FLOAT16 || (w.dtype == ACL_FLOAT && rnd != CubeRounding::kNone);
  if (!fp16_values) return false;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(bp[i])) return false;
  return true;
}

}  // namespace convops
}  // namespace ascend_sim
