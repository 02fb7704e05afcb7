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
//  * a FRACTAL_Z fractal (c1, tap, n1) is a 16 x 16 block [co % 16][c % 16]:
//    transposed, its rows are Conv2D's B panel rows (k = (c, tap), 16 output
//    channels); untransposed, each row is a Conv2DBackpropInput panel row
//    (k = (co, tap), 16 input channels);
//  * an NC1HWC0 block (n, c1) is [h * w][16]: the filter gradient's dy panel
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
#include "ops/conv/conv_util.h"
#include "kernel/kernel.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace convops {

// The logical fp32 view of t (Note [Conv and pooling operands]) in this thread's scratch `slot`,
// rounded per the precision mode; raises *overflow when a value saturates.
const float* loadRounded(const TensorArg& t, int64_t logical_numel, ScratchSlot slot, CubeRounding rnd,
                         bool* overflow);

// Filter w [co][ci][kh][kw] (one group) as Conv2D's B: per 16-output-channel
// panel p, bp[(p * K + (c * kh * kw + tap)) * 16 + j] = w[p * 16 + j][c][tap],
// K = ci * kh * kw, zero columns past co.
bool forwardFilterPanels(const TensorArg& w, int64_t co, int64_t ci, int64_t khw, CubeRounding rnd, float* bp,
                         bool* overflow);

// Filter w (one group) as Conv2DBackpropInput's B: per 16-input-channel panel
// p, bp[(p * K + (o * kh * kw + tap)) * 16 + j] = w[o][p * 16 + j][tap],
// K = co * kh * kw, zero columns past ci.
bool backpropInputFilterPanels(const TensorArg& w, int64_t co, int64_t ci, int64_t khw, CubeRounding rnd, float* bp,
                               bool* overflow);

// Activation dy [n][c][h][w] (one group) as the filter gradient's B: per
// 16-channel panel p, bp[(p * n * hw + (s * hw + r)) * 16 + j] = dy[s][p * 16 + j][r]
// (hw = h * w), zero columns past c.
bool activationPanels(const TensorArg& dy, int64_t n, int64_t c, int64_t h, int64_t w, CubeRounding rnd, float* bp,
                      bool* overflow);

// The filter gradient's result dw^T [ci * kh * kw][co] (fp32, one group), each
// value rounded by rr, stored into a FRACTAL_Z dw (pads zero).
bool storeTransposedFilter(const TensorArg& dw, const float* ct, int64_t co, int64_t ci, int64_t khw,
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

}  // namespace convops
}  // namespace ascend_sim
