// Conv3D and its backprops on the host's Cube (conv3d_cube.h).
//
// Note [3-D convolution on the 2-D Cube path]
// A 3-D convolution is a sum of 2-D ones: output plane od of y reads input planes
// od·sd − pf + a·dd of x for the depth taps a. So each op runs as products the Cube reads in
// place from a zero-padded copy of one operand (Note [The Cube reads a padded input] in
// aicore/units.h), as Conv2D's do, with the depth folded into the reduction index and the
// base pointer:
//  * Conv3D: one product per (group, sample, od): rows the Ho·Wo positions of plane od, reduction
//    (ci, a, i, j) at offset ci·vol + a·dd·hp·wp + i·dh·wp + j·dw from the plane's first padded
//    row od·sd, columns the group's output channels (+ bias last).
//  * Conv3DBackpropInput: dy is stride-dilated (zeros between its elements, as the Cube's A of a
//    transposed convolution holds them) and padded so that every tap of every dx position lands
//    inside; one product per (group, sample, d): rows the H·W positions of dx plane d,
//    reduction (co, a, i, j) — the taps in stored, not flipped, order — columns the group's
//    input channels.
//  * Conv3DBackpropFilter: the transposed product dw^T[(ci, a, i, j)][co] over m = (n, od, oh, ow)
//    ascending, A read from the padded x through a table of taps (rows) and of steps (m), as
//    Conv2DBackpropFilter does (Note [Filter gradient from the padded input] in conv2d.cpp).
// Each output element therefore gets exactly the products of conv3d.cpp's reference loops,
// zero ones included, in the same ascending order with FMA from +0 (bias last), so the bits are
// those of the reference for every format, precision mode and SIMD level (a test runs both).
// Work split: per product, bands of whole output rows x groups of 16-column panels
// (convutil::ProductTasks); tasks write disjoint outputs, so the bits do not depend on the
// host's thread count. Without groups, NDC1HWC0 activations and FRACTAL_Z_3D filters are read
// and NDC1HWC0 results written straight from storage (Note [Conv operands from private formats]);
// other operands go through their logical NCDHW view (Note [Conv and pooling operands]).
#include "ops/conv/conv3d_cube.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "ops/conv/conv_operands.h"
#include "ops/conv/conv_padded_read.h"
#include "ops/conv/conv_util.h"
#include "kernel/op_utils.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace convops {
namespace {

using convutil::ceilDiv;
using convutil::ResultRounding;

constexpr int64_t kTile = 16;
constexpr int64_t kMinFilterTasks = 16;  // below this, the filter gradient splits its panels too

// A zero-padded copy of a 5-D operand, per (group, sample) unit [channels][dp][hp][wp]; source
// element (d, h, w) sits at (lo[0] + d·step[0], lo[1] + h·step[1], lo[2] + w·step[2]) (step > 1:
// the zeros of a stride-dilated dy).
struct Volume {
  int64_t channels = 0;
  int64_t in[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, ext[3] = {0, 0, 0}, step[3] = {1, 1, 1};
  int64_t plane() const { return ext[1] * ext[2]; }
  int64_t vol() const { return ext[0] * plane(); }
  int64_t unit() const { return channels * vol(); }
};

// The padded copy of operand t (logical [n][groups * channels][in...]) as n * groups units, unit
// u = gi * n + s, then kPaddedInputSlack zeros (the Cube's tiles read past the end): straight from
// NDC1HWC0 storage when it can (Note [Conv operands from private formats]), else through the
// logical fp32 copy in `logical_slot`.
const float* paddedOperand(const TensorArg& t, const Volume& v, int64_t groups, int64_t n, ScratchSlot logical_slot,
                           CubeRounding rnd, bool* overflow) {
  const int64_t units = groups * n, unit = v.unit(), in_vol = v.in[0] * v.in[1] * v.in[2];
  float* dst = threadScratch(ScratchSlot::kCols, units * unit + kPaddedInputSlack);
  std::fill(dst + units * unit, dst + units * unit + kPaddedInputSlack, 0.0f);
  const PaddedVolumes blocks{n,
                             v.channels,
                             {v.in[0], v.in[1], v.in[2]},
                             {v.lo[0], v.lo[1], v.lo[2]},
                             {v.ext[0], v.ext[1], v.ext[2]},
                             {v.step[0], v.step[1]}};
  if (groups == 1 && v.step[2] == 1 && paddedVolumes(t, blocks, rnd, dst, overflow)) return dst;
  const float* src = loadRounded(t, units * v.channels * in_vol, logical_slot, rnd, overflow);
  parallelFor(units * v.channels, [&](int64_t task) {  // one channel volume per call
    const int64_t u = task / v.channels, c = task % v.channels, gi = u / n, s = u % n;
    const float* from = src + ((s * groups + gi) * v.channels + c) * in_vol;
    float* to = dst + u * unit + c * v.vol();
    std::fill(to, to + v.vol(), 0.0f);
    for (int64_t d = 0; d < v.in[0]; ++d)
      for (int64_t h = 0; h < v.in[1]; ++h) {
        float* row = to + (v.lo[0] + d * v.step[0]) * v.plane() + (v.lo[1] + h * v.step[1]) * v.ext[2] + v.lo[2];
        const float* in_row = from + (d * v.in[1] + h) * v.in[2];
        for (int64_t w = 0; w < v.in[2]; ++w) row[w * v.step[2]] = in_row[w];
      }
  });
  return dst;
}

// The trailing padding a read of `out` windows needs along one dim beyond the input's end.
int64_t trailingPad(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad, int64_t dil) {
  return std::max<int64_t>(0, (out - 1) * s + (k - 1) * dil - pad - (in - 1));
}

// x padded as the forward and the filter gradient read it.
Volume inputVolume(const Geom3d& g) {
  Volume v;
  v.channels = g.cig;
  for (int d = 0; d < 3; ++d) {
    v.in[d] = g.in[d], v.lo[d] = g.pad[d];
    v.ext[d] = g.pad[d] + g.in[d] + trailingPad(g.in[d], g.out[d], g.k[d], g.s[d], g.pad[d], g.dil[d]);
  }
  return v;
}

// Reduction offsets (c, a, i, j) into a padded unit: tap (a, i, j) of channel c at `sign` times
// its dilated position from `origin` (per dim; sign -1: the input gradient's stored-order taps).
std::vector<int64_t> tapOffsets(const Volume& v, const Geom3d& g, int64_t channels, const int64_t origin[3],
                                int64_t sign) {
  std::vector<int64_t> off;
  off.reserve(static_cast<size_t>(channels * g.kvol()));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t a = 0; a < g.k[0]; ++a)
      for (int64_t i = 0; i < g.k[1]; ++i)
        for (int64_t j = 0; j < g.k[2]; ++j)
          off.push_back(c * v.vol() + (origin[0] + sign * a * g.dil[0]) * v.plane() +
                        (origin[1] + sign * i * g.dil[1]) * v.ext[2] + origin[2] + sign * j * g.dil[2]);
  return off;
}

// The read of products of rows_h x rows_w positions at strides (sh, sw) in the padded rows of `v`
// (runPaddedRead with a unit base per product: only the row width of the padded unit matters).
PaddedRead planeRead(const Volume& v, int64_t rows_h, int64_t rows_w, int64_t sh, int64_t sw,
                     std::vector<int64_t> k_offset) {
  PaddedRead read;
  read.h = v.ext[1], read.w = v.ext[2];
  read.out_h = rows_h, read.out_w = rows_w, read.sh = sh, read.sw = sw;
  read.k_offset = std::move(k_offset);
  return read;
}

// The emit of a product q = (group gi, sample s, plane z) into the logical NCDHW `out` with
// `channels` channels (`group_channels` per group) and `planes` planes of `rows` positions.
EmitFn emitPlanes(float* out, int64_t n, int64_t planes, int64_t rows, int64_t channels, int64_t group_channels,
                  const ResultRounding& rr) {
  return [=](int64_t q, int64_t r0, int64_t r1, int64_t j0, int64_t j1, const float* c, UnitCounters* uc) {
    const int64_t z = q % planes, u = q / planes, gi = u / n, s = u % n;
    for (int64_t j = j0; j < j1; ++j) {
      float* dst = out + ((s * channels + gi * group_channels + j) * planes + z) * rows;
      for (int64_t r = r0; r < r1; ++r) dst[r] = rr.apply(c[r * group_channels + j], &uc->fp16_overflow);
    }
  };
}

// An activation result: products q = (group, sample, plane) of rows_h x rows_w positions, into
// `out` [n][channels][planes][rows_h][rows_w]. Straight into an NDC1HWC0 `out` without groups
// (Note [Conv results straight into NC1HWC0]: its blocks (sample, plane) are the products), else
// into the logical copy that `finish` stores.
struct PlaneResult {
  EmitFn emit;
  float* logical = nullptr;
  void finish(const TensorArg& out) const {
    if (logical) convutil::storeLogicalF32(out, logical);
  }
};
PlaneResult planeResult(const TensorArg& out, const Geom3d& g, int64_t planes, int64_t rows_h, int64_t rows_w,
                        int64_t channels, int64_t group_channels, const ResultRounding& rr) {
  const int64_t rows = rows_h * rows_w;
  if (g.groups == 1 && out.data != nullptr && isNdc1hwc0Of16(out, g.n * planes, channels, rows_h, rows_w))
    return {emitNc1hwc0(out, channels, rows, rr)};
  float* logical = threadScratch(ScratchSlot::kOut, g.n * channels * planes * rows);
  return {emitPlanes(logical, g.n, planes, rows, channels, group_channels, rr), logical};
}

}  // namespace

bool conv3dOnCube() { return cubeUnit().implicit_takes_stride(1); }

void conv3dForwardOnCube(const OpCall& call, const Geom3d& g) {
  const CubeRounding rnd = cubeRoundingOf(call);
  const ResultRounding rr = convutil::resultRoundingOf(call);
  bool overflow = false;
  const int64_t k = g.cig * g.kvol();
  std::vector<float> bias;
  if (g.has_bias) {
    bias.resize(static_cast<size_t>(g.co));
    convutil::loadLogicalF32(call.inputs[2], bias.data());
  }
  float* bp = threadScratch(ScratchSlot::kPanels, g.groups * ceilDiv(g.cog, kTile) * k * kTile);
  if (g.groups != 1 || !forwardFilterPanels(call.inputs[1], g.co, g.cig, g.k[0], g.k[1] * g.k[2], rnd, bp, &overflow))
    forwardPanelsFromLogical(loadRounded(call.inputs[1], g.co * k, ScratchSlot::kIn1, rnd, &overflow), g.groups, g.cog,
                             k, bp);
  const Volume v = inputVolume(g);
  const float* padded = paddedOperand(call.inputs[0], v, g.groups, g.n, ScratchSlot::kIn0, rnd, &overflow);
  const int64_t origin[3] = {0, 0, 0};
  const PlaneResult y = planeResult(call.outputs[0], g, g.out[0], g.out[1], g.out[2], g.co, g.cog, rr);
  std::vector<UnitCounters> cnt;
  runPaddedRead(planeRead(v, g.out[1], g.out[2], g.s[1], g.s[2], tapOffsets(v, g, g.cig, origin, 1)),
                g.groups * g.n * g.out[0], padded, bp, g.cog, g.n * g.out[0], bias.empty() ? nullptr : bias.data(),
                y.emit, &cnt,
                [&](int64_t q) { return padded + q / g.out[0] * v.unit() + q % g.out[0] * g.s[0] * v.plane(); });
  y.finish(call.outputs[0]);
  reportOverflow(call, overflow, cnt);
}

void conv3dBackpropInputOnCube(const OpCall& call, const Geom3d& g) {
  const CubeRounding rnd = cubeRoundingOf(call);
  const ResultRounding rr = convutil::resultRoundingOf(call);
  bool overflow = false;
  const int64_t kv = g.kvol();
  float* bp = threadScratch(ScratchSlot::kPanels, g.groups * ceilDiv(g.cig, kTile) * g.cog * kv * kTile);
  if (g.groups != 1 ||
      !backpropInputFilterPanels(call.inputs[0], g.co, g.cig, g.k[0], g.k[1] * g.k[2], rnd, bp, &overflow))
    backpropInputPanelsFromLogical(loadRounded(call.inputs[0], g.co * g.cig * kv, ScratchSlot::kIn0, rnd, &overflow),
                                   g.groups, g.cog, g.cig, kv, bp);
  // dx position p and tap t read the stride-dilated dy at p + pad − t·dil: padded by `lead` in
  // front so that the smallest, pad − (k − 1)·dil, lands at or after 0.
  Volume v;
  v.channels = g.cog;
  int64_t origin[3], first[3];
  for (int d = 0; d < 3; ++d) {
    const int64_t reach = (g.k[d] - 1) * g.dil[d], lead = std::max<int64_t>(0, reach - g.pad[d]);
    v.in[d] = g.out[d], v.lo[d] = lead, v.step[d] = g.s[d];
    v.ext[d] = lead + std::max(g.in[d] + g.pad[d], (g.out[d] - 1) * g.s[d] + 1);
    origin[d] = reach;                   // tap t at origin − t·dil from the base
    first[d] = g.pad[d] + lead - reach;  // the base of dx position 0, >= 0
  }
  const float* padded = paddedOperand(call.inputs[1], v, g.groups, g.n, ScratchSlot::kIn1, rnd, &overflow);
  const PlaneResult dx = planeResult(call.outputs[0], g, g.in[0], g.in[1], g.in[2], g.ci, g.cig, rr);
  std::vector<UnitCounters> cnt;
  runPaddedRead(planeRead(v, g.in[1], g.in[2], 1, 1, tapOffsets(v, g, g.cog, origin, -1)), g.groups * g.n * g.in[0],
                padded, bp, g.cig, g.n * g.in[0], nullptr, dx.emit, &cnt, [&](int64_t q) {
                  return padded + q / g.in[0] * v.unit() + (q % g.in[0] + first[0]) * v.plane() + first[1] * v.ext[2] +
                         first[2];
                });
  dx.finish(call.outputs[0]);
  reportOverflow(call, overflow, cnt);
}

void conv3dBackpropFilterOnCube(const OpCall& call, const Geom3d& g) {
  const CubeRounding rnd = cubeRoundingOf(call);
  const ResultRounding rr = convutil::resultRoundingOf(call);
  bool overflow = false;
  const int64_t ov = g.outvol(), m = g.n * ov, kc = g.cig * g.kvol();
  const Volume v = inputVolume(g);
  const float* padded = paddedOperand(call.inputs[0], v, g.groups, g.n, ScratchSlot::kIn0, rnd, &overflow);
  const int64_t origin[3] = {0, 0, 0};
  const std::vector<int64_t> taps = tapOffsets(v, g, g.cig, origin, 1);
  std::vector<int64_t> steps;  // m = (n, od, oh, ow) ascending
  steps.reserve(static_cast<size_t>(m));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow)
          steps.push_back(n * v.unit() + od * g.s[0] * v.plane() + oh * g.s[1] * v.ext[2] + ow * g.s[2]);
  const int64_t panels = ceilDiv(g.cog, kTile), bsize = panels * m * kTile;
  float* bp = threadScratch(ScratchSlot::kPanels, g.groups * bsize);
  if (g.groups != 1 || !activationPanels(call.inputs[1], g.n * g.out[0], g.co, g.out[1], g.out[2], rnd, bp, &overflow))
    activationPanelsFromLogical(loadRounded(call.inputs[1], g.n * g.co * ov, ScratchSlot::kIn1, rnd, &overflow), g.n,
                                g.groups, g.cog, ov, bp);
  float* ct = threadScratch(ScratchSlot::kResult, g.groups * kc * g.cog);  // per group [kc][Co/G]
  const convutil::ProductTasks tasks(g.groups, ceilDiv(kc, convutil::kRowBand), panels, kMinFilterTasks);
  std::vector<UnitCounters> cnt(static_cast<size_t>(tasks.count()));
  parallelFor(tasks.count(), [&](int64_t t) {
    const auto [gi, band, p0, p1] = tasks[t];
    const int64_t r0 = band * convutil::kRowBand, r1 = std::min(kc, r0 + convutil::kRowBand);
    if (p0 == p1) return;
    CubeImplicitA a{padded + gi * g.n * v.unit(), steps.data(), v.ext[2], 1, 1, 1};
    a.row_offset = taps.data();
    cubeUnit().mmad_f32_implicit(a, bp + gi * bsize, g.cog, m, nullptr, r0, r1, p0, p1, ct + gi * kc * g.cog,
                                 &cnt[static_cast<size_t>(t)]);
  });
  const TensorArg& out = call.outputs[0];
  if (g.groups != 1 || !storeTransposedFilter(out, ct, g.co, g.cig, g.k[0], g.k[1] * g.k[2], rr, &overflow)) {
    float* dw = threadScratch(ScratchSlot::kOut, g.co * kc);
    transposedFilterToLogical(ct, g.groups, g.cog, kc, rr, dw, &overflow);
    convutil::storeLogicalF32(out, dw);
  }
  reportOverflow(call, overflow, cnt);
}

}  // namespace convops
}  // namespace ascend_sim
