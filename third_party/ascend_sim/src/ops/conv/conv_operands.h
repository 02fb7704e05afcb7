// Convolution operands read straight from the private formats a trained CNN
// keeps them in (FRACTAL_Z filters, NC1HWC0 activations), into the layouts the
// Cube takes (conv2d.cpp).
//
// Note [Conv operands from private formats]
// The convolutions used to load every operand into a logical NCHW fp32 copy
// (Note [Conv and pooling operands]) and then rearrange that copy once more: a
// filter into 16-column B panels, an activation into its zero-padded planes
// (Note [The Cube reads a padded input]), dy into the filter gradient's
// panels. For the fp32 / fp16 private formats with C0 = 16 the second layout
// is reachable from the storage directly, in whole 16-element runs:
//  * a FRACTAL_Z fractal (c1, tap, n1) — FRACTAL_Z_3D: (a, c1, tap, n1) with
//    tap (a, tap) of the 3-D window — is a 16 x 16 block [co % 16][c % 16]:
//    transposed, its rows are Conv2D's B panel rows (k = (c, tap), 16 output
//    channels); untransposed, each row is a Conv2DBackpropInput panel row
//    (k = (co, tap), 16 input channels);
//  * an NC1HWC0 block (n, c1) — NDC1HWC0: (n, d, c1) — is [h * w][16]: the filter gradient's dy panel
//    rows as they are, or, by the 16 x 16 / 8 x 8 register transposes of
//    nc1hwc0BlockPlanes, 16 channel planes written into the padded copy;
//  * the filter gradient's transposed result [(c, tap)][co] gives each
//    FRACTAL_Z fractal of dw as a transposed 16 x 16 block.
// Values are rounded per the precision mode exactly as loadRounded rounds them
// (every value once, the same overflow flag); padding lanes of the layouts are
// written as zeros whatever the storage's pads hold. So the Cube sees the same
// operands and the bits do not change; what goes is one full pass over every
// operand. Each function returns false, doing nothing, when the operand does
// not qualify (another format or dtype, groups, no AVX2 for the transposes);
// the caller then takes the logical NCHW path.
#pragma once

#include <cstdint>

#include "aicore/units.h"
#include "ops/conv/conv_padded_read.h"
#include "ops/conv/conv_util.h"
#include "kernel/kernel.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace convops {

// The logical fp32 view of t (Note [Conv and pooling operands]) in this thread's scratch `slot`,
// rounded per the precision mode; raises *overflow when a value saturates.
const float* loadRounded(const TensorArg& t, int64_t logical_numel, ScratchSlot slot, CubeRounding rnd,
                         bool* overflow);

// The filters below are [co][ci][kd][kh * kw] (kd = 1: 2-D, FRACTAL_Z; else FRACTAL_Z_3D), taps
// tap = a * kh * kw + (i * kw + j) of a kd * kh * kw = kvol window.
// Filter w (one group) as the forward's B: per 16-output-channel panel p,
// bp[(p * K + (c * kvol + tap)) * 16 + j] = w[p * 16 + j][c][tap], K = ci * kvol, zero columns past co.
bool forwardFilterPanels(const TensorArg& w, int64_t co, int64_t ci, int64_t kd, int64_t khw, CubeRounding rnd,
                         float* bp, bool* overflow);

// Filter w (one group) as the input gradient's B: per 16-input-channel panel p,
// bp[(p * K + (o * kvol + tap)) * 16 + j] = w[o][p * 16 + j][tap], K = co * kvol, zero columns past ci.
bool backpropInputFilterPanels(const TensorArg& w, int64_t co, int64_t ci, int64_t kd, int64_t khw, CubeRounding rnd,
                               float* bp, bool* overflow);

// Activation dy [n][c][h][w] (one group; NDC1HWC0 [N, c, D, h, w] as n = N * D samples) as the filter
// gradient's B: per 16-channel panel p, bp[(p * n * hw + (s * hw + r)) * 16 + j] = dy[s][p * 16 + j][r]
// (hw = h * w), zero columns past c.
bool activationPanels(const TensorArg& dy, int64_t n, int64_t c, int64_t h, int64_t w, CubeRounding rnd, float* bp,
                      bool* overflow);

// The filter gradient's result dw^T [ci * kvol][co] (fp32, one group), each
// value rounded by rr, stored into a FRACTAL_Z / FRACTAL_Z_3D dw (pads zero).
bool storeTransposedFilter(const TensorArg& dw, const float* ct, int64_t co, int64_t ci, int64_t kd, int64_t khw,
                           const convutil::ResultRounding& rr, bool* overflow);

// The same Cube B operands built from logical fp32 operands (loadRounded), any number of groups;
// the convolutions of every rank use them when the storage fast paths above do not apply.
// Filter w [groups * cog][k] (k = cig * taps) as the forward's B: per group, 16-column panels of
// [k][cog], zero columns past cog.
void forwardPanelsFromLogical(const float* w, int64_t groups, int64_t cog, int64_t k, float* bp);
// Filter w [groups * cog][cig][taps] as the input gradient's B: per group, rows (o, tap)
// (k = cog * taps), 16-column panels of input channels, zero columns past cig.
void backpropInputPanelsFromLogical(const float* w, int64_t groups, int64_t cog, int64_t cig, int64_t taps, float* bp);
// Activation dy [n][groups * cog][rows] as the filter gradient's B: per group, panels
// [ceil(cog / 16)][n * rows][16], zero columns past cog.
void activationPanelsFromLogical(const float* dy, int64_t n, int64_t groups, int64_t cog, int64_t rows, float* bp);
// The filter gradient's per-group result ct [groups][kc][cog] into dw [groups * cog][kc], each
// value rounded by rr, in 16 x 16 blocks (a column walk of ct misses the cache on every read).
void transposedFilterToLogical(const float* ct, int64_t groups, int64_t cog, int64_t kc,
                               const convutil::ResultRounding& rr, float* dw, bool* overflow);

// Geometry of a zero-padded copy: planes [n][c][hp][wp] with the source's
// h x w plane at row pt, column pl.
struct PaddedPlanes {
  int64_t n, c, h, w, pt, pl, hp, wp;
};

// Activation x [n][c][h][w] (one group) into its zero-padded copy `padded`.
bool paddedPlanes(const TensorArg& x, const PaddedPlanes& g, CubeRounding rnd, float* padded, bool* overflow);

// Geometry of zero-padded volumes: [n][c][ext[0]][ext[1]][ext[2]] with source element (d, h, w) at
// (lo[0] + d * step[0], lo[1] + h * step[1], lo[2] + w) (step > 1: the zeros of a stride-dilated dy).
struct PaddedVolumes {
  int64_t n, c, in[3], lo[3], ext[3], step[2];
};

// An NDC1HWC0 activation x [n][c][in...] (one group) into zero-padded volumes `padded`, by blocks.
bool paddedVolumes(const TensorArg& x, const PaddedVolumes& g, CubeRounding rnd, float* padded, bool* overflow);

// Note [Conv results straight into NC1HWC0]
// A product's result rows are output positions and its columns output channels, so in NC1HWC0
// (the layout of every activation of a trained CNN) each row's 16 channels of one C1 block are 16
// contiguous values on both sides: the emit copies them (fp32) or converts them with storeFloat
// (fp16), with the same per-value rounding as a logical store, instead of transposing into an
// NCHW scratch that a second pass then scatters into NC1HWC0. Pad channels (C not a multiple of
// 16) are zeroed by the emit of the last columns. Taken for an fp32 or fp16 NC1HWC0 output without
// groups (whose units are the samples), and for NDC1HWC0 ones, whose (sample, depth) blocks are
// NC1HWC0's samples; the result's bits and the zero pads are those of the two-pass path.
// The emit of unit n's product c[rows][channels], rows [r0, r1) (output position r, or pos[r]),
// columns [j0, j1) (whole 16-column panels), into block n of `out`.
EmitFn emitNc1hwc0(const TensorArg& out, int64_t channels, int64_t rows, const convutil::ResultRounding& rr,
                   const int64_t* pos = nullptr);

}  // namespace convops
}  // namespace ascend_sim
