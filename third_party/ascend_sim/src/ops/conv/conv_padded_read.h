// How a convolution's Cube product reads its A operand from a zero-padded copy of an activation
// in place (Note [The Cube reads a padded input] in aicore/units.h): the copy, the product's host
// tasks, and the phases of a strided input gradient (conv2d.cpp uses them for all three ops).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "aicore/units.h"
#include "ops/conv/conv_util.h"
#include "kernel/kernel.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace convops {

// The padded copy is followed by this many zeros: >= 11 * sw floats (Note [The Cube reads a padded input]).
constexpr int64_t kPaddedInputSlack = 32;

// How a product reads one (group, sample) unit of an operand zero-padded, in
// place (Note [The Cube reads a padded input]): Conv2D reads x this way, and
// Conv2DBackpropInput reads dy (for a stride, by phases), Conv2DBackpropFilter reads x through a
// table of taps (Note [Filter gradient from the padded input] in conv2d.cpp).
struct PaddedRead {
  int64_t channels = 0, h = 0, w = 0;            // one unit of the source, NCHW
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;        // zeros around each plane
  int64_t out_h = 0, out_w = 0, sh = 1, sw = 1;  // product row r = (r / out_w, r % out_w)
  std::vector<int64_t> k_offset;                 // per reduction step, into one padded unit
  int64_t hp() const { return h + pt + pb; }
  int64_t wp() const { return w + pl + pr; }
  int64_t bandRows() const { return std::max<int64_t>(1, convutil::kRowBand / out_w) * out_w; }
};

// Whether the host's Cube takes `read`, rather than packed img2col bands (Note [Implicit img2col] in
// conv2d.cpp). Rows of any width: tiles continue across output rows (Note [Tiles across output rows]).
bool takesPaddedRead(const PaddedRead& read);

// The zero-padded copy of operand t (logical [N][groups * read.channels][read.h][read.w]) as
// N * groups (group, sample) units, unit u = gi * N + n: [units][channels][hp][wp], then
// kPaddedInputSlack zeros; rounded per the precision mode like loadRounded. Straight from NC1HWC0
// storage when it can (Note [Conv operands from private formats]), else through the logical fp32
// copy in `logical_slot`.
const float* paddedUnits(const TensorArg& t, const PaddedRead& read, int64_t groups, int64_t n, CubeRounding rnd,
                         ScratchSlot logical_slot, bool* overflow);

// Consumes rows [r0, r1), columns [j0, j1) of unit u's fp32 product c[rows][ncols] (conv2d.cpp's
// emits); called once per task.
using EmitFn = std::function<void(int64_t u, int64_t r0, int64_t r1, int64_t j0, int64_t j1, const float* c,
                                  UnitCounters* uc)>;

// Where unit u's padded copy starts, for products whose units are not whole padded units (Conv3D's
// (group, sample, plane) products, Note [3-D convolution on the 2-D Cube path] in conv3d_cube.cpp).
using UnitBaseFn = std::function<const float*(int64_t u)>;

// Products of `units` (group, sample) units of `padded` (paddedUnits) read through `read`, against
// the panels of group u / unit_group_div: bands of whole product rows (and groups of panels, when
// the bands make few tasks: convutil::ProductTasks) per task, each handed to `emit`. With
// `unit_base`, unit u starts there instead of at padded + u * (one padded unit). A row width step
// the host's strided read does not take (implicit_takes_stride) reads through a table of row
// offsets instead, with the same values.
void runPaddedRead(const PaddedRead& read, int64_t units, const float* padded, const float* bpanels, int64_t ncols,
                   int64_t unit_group_div, const float* bias, const EmitFn& emit, std::vector<UnitCounters>* counters,
                   const UnitBaseFn& unit_base = {});

// Reports to the launch an overflow of the operands' rounding (`overflow`) or of any task's result
// rounding (its counters).
void reportOverflow(const OpCall& call, bool overflow, const std::vector<UnitCounters>& counters);

// Note [Strided input gradient by phases]
// With a stride s > 1, Conv2DBackpropInput's A (the img2col of the stride-dilated dy) is mostly
// zeros: at dx position (h, w) only the taps i with (h + pt - i * dh) % sh == 0 (and likewise j)
// meet a dy element; for a 3x3 window with stride 2, three quarters of A are zero entries that
// the Cube multiplies like the others. Which taps meet depends only on the phase (h % sh, w % sw),
// so per phase the product is a stride-1 one: A read in place from one zero-padded dy, row (a, b)
// at dy row a + oi and column b + oj (oi = (ph + pt - i * dh) / sh, exact), B the rows
// (co, i, j) of the full B for the phase's taps in ascending order, and the result of row (a, b)
// written to dx position (ph + sh * a, pw + sw * b). Each element then gets the same non-zero
// products in the same order, without the zero ones. That keeps the bits when adding a zero
// product never changes the accumulator: the filter is finite (0 * inf is NaN), and every operand
// is an fp16 value (fp16 data, or fp32 the precision mode rounds to fp16) — every product is then
// a multiple of 2^-48, held exactly in fp32, so the accumulator, which starts at +0, only ever
// becomes zero as +0, never -0 (for which -0 + +0 = +0 would differ). Otherwise (fp32 under
// must_keep_origin_dtype, bf16, an inf or NaN tap) the zeros are multiplied as before.
struct InputGradPhase {
  PaddedRead read;              // rows (a, b) of out_h x out_w; k_offset per phase step (co, i, j)
  std::vector<int64_t> b_rows;  // per phase step: its row co * kh * kw + i * kw + j of the full B
  std::vector<int64_t> pos;     // per row: dx position h * W + w
};

// The phases with at least one position, and the zero padding of dy they read (`pad`).
// Channels per group `cog` of dy [.., cog, ho, wo]; dx is h x w; window `wn`.
std::vector<InputGradPhase> inputGradPhases(int64_t cog, int64_t h, int64_t w, int64_t ho, int64_t wo,
                                            const convutil::Window& wn, PaddedRead* pad);

// Whether skipping the zero entries keeps the bits (Note [Strided input gradient by phases]):
// fp16-valued operands and a finite filter (its B panels, bp[0..n)).
bool phasesKeepBits(const TensorArg& w, CubeRounding rnd, const float* bp, int64_t n);

}  // namespace convops
}  // namespace ascend_sim
