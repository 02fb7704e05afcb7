// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter (OPS.md "Convolution and
// pooling") on the simulated Cube unit.
//
// Note [Convolution on the Cube]
// All three ops are matrix products on the Cube (Note [Cube numerics and
// blocking] in aicore/cube.cpp): one fp32 accumulator per output element adds
// the products of its reduction index in ascending order with FMA (bias last
// for Conv2D), and the result is rounded once to the output dtype. Operands
// are the logical NCHW views of the inputs (Note [Conv and pooling operands]);
// fp32 operands follow the launch's precision mode exactly as MatMul does
// (allow_fp32_to_fp16 / force_fp16 round x, filter and dy to fp16 first,
// saturating on a saturation-mode chip; force_fp16 also rounds the fp32
// result through fp16). Per group g (channels ci in [g·Ci/G, (g+1)·Ci/G),
// co in [g·Co/G, (g+1)·Co/G)):
//  * Conv2D: y[n,co,ho,wo] = Σ_(ci,i,j) cols[(n,ho,wo)][(ci,i,j)] · w[co,ci,i,j]
//    (+ bias[co] last). cols is the MTE img2col of x (zeros where the window
//    covers padding), so the accumulation runs over (ci, kh, kw) ascending,
//    K = Ci/G·kh·kw; padded positions contribute 0·w like every other product.
//  * Conv2DBackpropInput: dx[n,ci,h,w] = Σ_(co,i,j) A[(n,h,w)][(co,i,j)] · w[co,ci,i,j]
//    with A = dy[n,co,ho,wo] when h = ho·sh − pt + i·dh and w = wo·sw − pl + j·dw
//    for some in-range (ho, wo), else 0 — the img2col of the stride-dilated,
//    padded dy that the Cube multiplies with the transposed filter. The order
//    is (co, kh, kw) ascending (kh, kw index the filter as stored, not
//    flipped), K = Co/G·kh·kw; the zero entries are products too.
//  * Conv2DBackpropFilter: dw[co,ci,i,j] = Σ_(n,ho,wo) dy[n,co,ho,wo] · cols[(n,ho,wo)][(ci,i,j)],
//    ascending (n, ho, wo) over the whole batch in one accumulator, K = N·Ho·Wo.
// Note [Implicit img2col]: when the bands alone make enough tasks (no panel
// split), Conv2D builds each band's packed img2col rows in its task, in a
// per-thread buffer that stays in the host cache while the Cube multiplies it
// with every filter panel, instead of writing the whole column matrix to
// memory first and reading it back. The packed values and the products are
// the same, so the bits are too; only the host's memory traffic changes.
// Where the host's Cube can (AVX2 or AVX-512; Conv2D with width stride 1 or 2,
// Conv2DBackpropInput with stride 1, or by phases for larger strides (Note
// [Strided input gradient by phases]), Conv2DBackpropFilter always), nothing
// is packed at all: each (group, sample) of x, or of dy, is zero-padded once
// and the Cube reads A from it in place (PaddedRead below, Note [The Cube
// reads a padded input] in aicore/units.h), in bands of whole output rows.
// Work split (Note [Simulated cores on host threads]): forward and backprop
// input cut the rows of every (group, sample) product into 96-row bands, and
// those into groups of 16-column panels when there are fewer than 64 tasks
// (deep layers: few rows, many channels); the filter gradient cuts its
// [Co/G, Ci/G·kh·kw] result into 96-row bands x 4-panel column groups (96
// rows, not the simulated cores' 16: whole 12-row tiles of the host's wide
// micro-kernel, see Note [Host split of the Cube's work] in matmul.cpp). Each
// task writes disjoint outputs with the fixed order above, so results are
// bit-identical for any host thread count (the split only changes which task
// computes an element, never its accumulation order). The img2col matrices
// are built per (group, sample) in chunks of bounded size (32 MiB), the
// filter's fractal panels one 16-column panel per task (Cube load_b), and the
// multi-megabyte scratch buffers are reused per thread across launches.
// Zero entries of A (padding, stride gaps) are multiplied like the others, as
// the Cube does: with finite filters they do not change the bits (an fp32
// accumulator starting at +0 never becomes −0, and acc + 0·w = acc), with an
// inf/NaN filter tap they give NaN.
// Cost: cube MACs of the padded fractal products (M, K, N each padded to 16,
// per group), MTE bytes = storage bytes of every operand, block dim as MatMul
// (16-row bands, then 16-column panels, over the cube cores).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "common/dtype.h"
#include "ops/conv/conv_operands.h"
#include "ops/conv/conv_padded_read.h"
#include "ops/conv/conv_util.h"
#include "kernel/op_utils.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace {

using convops::EmitFn;
using convops::InputGradPhase;
using convops::loadRounded;
using convops::PaddedRead;
using convops::paddedUnits;
using convops::reportOverflow;
using convops::runPaddedRead;
using convops::takesPaddedRead;
using convutil::ceilDiv;
using convutil::kRowBand;
using convutil::OperandKind;
using convutil::ProductTasks;
using convutil::ResultRounding;
using convutil::resultRoundingOf;
using convutil::str;
using convutil::Window;

constexpr int64_t kTile = 16;                   // fractal edge
constexpr int64_t kPanelGroup = 4;              // 16-column panels per task (backprop filter)
constexpr int64_t kMinTasks = 64;               // forward / backprop input: split panels below this
constexpr int64_t kMinFilterTasks = 16;         // backprop filter from the padded input: split panels below this
constexpr int64_t kColsBudget = 8 * 1024 * 1024;  // floats of img2col scratch per chunk (32 MiB)

enum class ConvOp { kForward, kBackpropInput, kBackpropFilter };

ConvOp opOf(const OpCall& call) {
  if (call.op_type == "Conv2DBackpropInput") return ConvOp::kBackpropInput;
  if (call.op_type == "Conv2DBackpropFilter") return ConvOp::kBackpropFilter;
  return ConvOp::kForward;
}

struct ConvGeom {
  int64_t n = 0, ci = 0, h = 0, w = 0;  // x / dx
  int64_t co = 0, ho = 0, wo = 0;       // y / dy
  int64_t groups = 1, cig = 0, cog = 0;  // channels per group
  Window win;
  bool has_bias = false;
};

std::string dims(std::initializer_list<int64_t> v) { return str(Shape(v)); }

void checkCounts(const OpCall& call, size_t min_in, size_t max_in) {
  if (call.inputs.size() < min_in || call.inputs.size() > max_in)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + (min_in == max_in ? std::to_string(min_in) : std::to_string(min_in) + ".." + std::to_string(max_in)) +
             " inputs, got " + std::to_string(call.inputs.size()));
  if (call.outputs.size() != 1)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 1 output, got " + std::to_string(call.outputs.size()));
}

Shape attrShape4(const OpCall& call, const char* name) {
  std::vector<int64_t> v = convutil::attrList(call, name, 4, {}, true);
  for (int64_t d : v)
    if (d < 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute '") + name + "' " + str(v) + " has a negative dim");
  return v;
}

// Parses and validates the call (dtypes, formats, shapes, attributes).
ConvGeom geomOf(const OpCall& call) {
  const ConvOp op = opOf(call);
  checkCounts(call, 2, op == ConvOp::kForward ? 3 : 2);
  const TensorArg& out = call.outputs[0];
  // Operands and their names per op.
  const TensorArg* x = nullptr;
  const TensorArg* filter = nullptr;
  const TensorArg* y = nullptr;  // y or dy
  const char* xname = "input x";
  const char* fname = "input filter";
  const char* yname = "output y";
  switch (op) {
    case ConvOp::kForward:
      x = &call.inputs[0], filter = &call.inputs[1], y = &out;
      break;
    case ConvOp::kBackpropInput:
      filter = &call.inputs[0], y = &call.inputs[1], x = &out, xname = "output dx", yname = "input dy";
      break;
    case ConvOp::kBackpropFilter:
      x = &call.inputs[0], y = &call.inputs[1], filter = &out, fname = "output dw", yname = "input dy";
      break;
  }
  const TensorArg& first = call.inputs[0];
  const std::string first_name = op == ConvOp::kBackpropInput ? fname : xname;
  checkDtype(call, first, first_name, kFloatTypes);
  for (const TensorArg* t : {x, filter, y}) {
    if (t == &first) continue;
    const std::string nm = t == x ? xname : t == filter ? fname : yname;
    checkSameDtype(call, first, first_name, *t, nm);
  }

  ConvGeom g;
  const Shape xs = convutil::shape4dOf(call, *x, xname, OperandKind::kActivation);
  const Shape fs = convutil::shape4dOf(call, *filter, fname, OperandKind::kFilter);
  const Shape ys = convutil::shape4dOf(call, *y, yname, OperandKind::kActivation);
  if (op == ConvOp::kBackpropInput) {
    const Shape want = attrShape4(call, "input_size");
    if (want != xs) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output dx shape " + str(xs) + " does not match input_size " + str(want));
  }
  if (op == ConvOp::kBackpropFilter) {
    const Shape want = attrShape4(call, "filter_size");
    if (want != fs) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output dw shape " + str(fs) + " does not match filter_size " + str(want));
  }
  g.n = xs[0], g.ci = xs[1], g.h = xs[2], g.w = xs[3];
  g.co = fs[0], g.cig = fs[1], g.win.kh = fs[2], g.win.kw = fs[3];
  g.groups = attrInt(call, "groups", 1);
  if (g.groups < 1) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "groups " + std::to_string(g.groups) + " must be >= 1");
  if (g.cig * g.groups != g.ci)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "filter channels " + std::to_string(g.cig) + " x groups " + std::to_string(g.groups) + " != input channels " +
             std::to_string(g.ci) + " (" + fname + " " + str(fs) + ", " + xname + " " + str(xs) + ")");
  if (g.co % g.groups != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output channels " + std::to_string(g.co) + " (" + fname + " dim 0) are not divisible by groups " +
             std::to_string(g.groups));
  g.cog = g.co / g.groups;
  if (g.win.kh < 1 || g.win.kw < 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "kernel size " + dims({g.win.kh, g.win.kw}) + " (" + fname + " " + str(fs) + ") must be >= 1");
  convutil::parseWindowAttrs(call, &g.win, {1, 1});
  const Window& w = g.win;
  if (g.h + w.pt + w.pb < w.effH() || g.w + w.pl + w.pr < w.effW())
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "dilated kernel " + dims({w.effH(), w.effW()}) + " is larger than the padded input " +
             dims({g.h + w.pt + w.pb, g.w + w.pl + w.pr}));
  g.ho = convutil::windowOut(g.h, w.effH(), w.sh, w.pt, w.pb, false);
  g.wo = convutil::windowOut(g.w, w.effW(), w.sw, w.pl, w.pr, false);
  // Note [Cropped convolution outputs]
  // A transposed convolution with output_padding (PyTorch allows up to
  // max(stride, dilation) - 1) makes x larger than y's window count implies:
  // its trailing rows/columns feed no window of y. y may therefore be the
  // natural Ho x Wo cropped by fewer than max(stride, dilation) at the end;
  // the windows of y are the first ys[2] x ys[3] ones.
  const Shape want_y{g.n, g.co, g.ho, g.wo};
  const auto cropped_ok = [](int64_t got, int64_t natural, int64_t stride, int64_t dilation) {
    return got <= natural && natural - got < std::max(stride, dilation) && got > 0;
  };
  if (ys.size() != 4 || ys[0] != g.n || ys[1] != g.co || !cropped_ok(ys[2], g.ho, w.sh, w.dh) ||
      !cropped_ok(ys[3], g.wo, w.sw, w.dw))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(yname) + " shape " + str(ys) + " must be " + str(want_y) + " (N, Co, Ho, Wo) for " + xname + " " +
             str(xs) + ", " + fname + " " + str(fs));
  g.ho = ys[2], g.wo = ys[3];
  if (op == ConvOp::kForward && call.inputs.size() == 3) {
    const TensorArg& b = call.inputs[2];
    checkDtype(call, b, "input bias", dtBit(ACL_FLOAT) | dtBit(ACL_FLOAT16) | dtBit(ACL_BF16));
    const Shape bs = convutil::logicalShapeOf(call, b, "input bias", OperandKind::kChannel);
    if (bs != Shape{g.co} && bs != Shape{1, g.co, 1, 1})
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "bias shape " + str(bs) + " must be [" + std::to_string(g.co) + "] (Co)");
    g.has_bias = true;
  }
  return g;
}

void validateConv(const OpCall& call) { (void)geomOf(call); }

// ---- numerics helpers -------------------------------------------------------

Img2colParams img2colOf(const ConvGeom& g) {
  Img2colParams p;
  p.n = 1, p.c = g.cig, p.h = g.h, p.w = g.w, p.kh = g.win.kh, p.kw = g.win.kw;
  p.stride_h = g.win.sh, p.stride_w = g.win.sw;
  p.pad_top = g.win.pt, p.pad_bottom = g.win.pb, p.pad_left = g.win.pl, p.pad_right = g.win.pr;
  p.dilation_h = g.win.dh, p.dilation_w = g.win.dw;
  p.out_h = g.ho, p.out_w = g.wo;
  return p;
}

// One (group, sample) product A[R][K] x B[K][ncols] per unit u: `build(u, r0,
// r1, cols)` writes rows [r0, r1) of unit u's A as a packed Cube operand
// (CubeOperands::a_packed: micro panels of kCubePanelRows rows; zero-initialised
// first when `zero_cols`, for builders that write only the non-zero entries;
// bands of rows only when `rows_buildable`, see Note [Implicit img2col]); the
// product is cut into tasks of 96-row bands x groups of 16-column panels
// (enough tasks to keep the cores busy when R is small); `emit(u, r0, r1, j0,
// j1, c, cnt)` consumes rows [r0, r1), columns [j0, j1) of the unit's fp32
// result c[R][ncols].
template <typename Build, typename Emit>
void runUnits(int64_t units, int64_t rows, int64_t k, int64_t ncols, const float* bpanels,
              int64_t unit_group_div, const float* bias, bool zero_cols, bool rows_buildable, Build build,
              Emit emit, std::vector<UnitCounters>* counters) {
  const CubeUnit& cube = cubeUnit();
  const int64_t panels = ceilDiv(ncols, kTile), bsize = panels * k * kTile;
  const int64_t rows_pad = ceilDiv(rows, kCubePanelRows) * kCubePanelRows, asize = rows_pad * k;
  const int64_t per_chunk = std::max<int64_t>(1, kColsBudget / std::max<int64_t>(1, rows_pad * std::max(k, ncols)));
  const int64_t bands = ceilDiv(rows, kRowBand);
  if (rows_buildable && ceilDiv(kMinTasks, units * bands) <= 1) {  // Note [Implicit img2col]
    float* cbuf = threadScratch(ScratchSlot::kResult, units * rows * ncols);
    const size_t base = counters->size();
    counters->resize(base + static_cast<size_t>(units * bands));
    parallelFor(units * bands, [&](int64_t t) {
      const int64_t u = t / bands, r0 = t % bands * kRowBand, r1 = std::min(rows, r0 + kRowBand);
      float* band = threadScratch(ScratchSlot::kTask, kRowBand * k);  // this pool thread's own
      if (zero_cols) std::fill(band, band + ceilDiv(r1 - r0, kCubePanelRows) * kCubePanelRows * k, 0.0f);
      build(u, r0, r1, band);
      const int64_t grp = u / unit_group_div;
      const CubeOperands op{band, bpanels + grp * bsize, r1 - r0, ncols, k, /*a_packed=*/true};
      float* c = cbuf + u * rows * ncols;
      UnitCounters* uc = &(*counters)[base + static_cast<size_t>(t)];
      cube.mmad_f32(op, bias ? bias + grp * ncols : nullptr, 0, r1 - r0, 0, panels, c + r0 * ncols, uc);
      emit(u, r0, r1, 0, ncols, c, uc);
    });
    return;
  }
  const int64_t chunk_units = std::min(units, per_chunk);
  float* cols = threadScratch(ScratchSlot::kCols, chunk_units * asize);
  float* cbuf = threadScratch(ScratchSlot::kResult, chunk_units * rows * ncols);
  for (int64_t u0 = 0; u0 < units; u0 += per_chunk) {
    const int64_t u1 = std::min(units, u0 + per_chunk), nu = u1 - u0;
    if (zero_cols) std::fill(cols, cols + nu * asize, 0.0f);
    parallelFor(nu, [&](int64_t t) { build(u0 + t, 0, rows, cols + t * asize); });
    const ProductTasks tasks(nu, bands, panels, kMinTasks);
    const size_t base = counters->size();
    counters->resize(base + static_cast<size_t>(tasks.count()));
    parallelFor(tasks.count(), [&](int64_t t) {
      const auto [ui, band, p0, p1] = tasks[t];
      const int64_t r0 = band * kRowBand, r1 = std::min(rows, r0 + kRowBand);
      if (p0 == p1) return;
      const int64_t grp = (u0 + ui) / unit_group_div;
      const CubeOperands op{cols + ui * asize, bpanels + grp * bsize, rows, ncols, k, /*a_packed=*/true};
      float* c = cbuf + ui * rows * ncols;
      UnitCounters* uc = &(*counters)[base + static_cast<size_t>(t)];
      cube.mmad_f32(op, bias ? bias + grp * ncols : nullptr, r0, r1, p0, p1, c, uc);
      emit(u0 + ui, r0, r1, p0 * kTile, std::min(ncols, p1 * kTile), c, uc);
    });
  }
}

// ---- Conv2D -------------------------------------------------------------------

// The emit of runUnits / runPaddedRead for an NCHW result `out` with `channels` per sample: unit
// u = (group gi, sample n) writes channels gi * group_channels + j, each value rounded once.
// Product row r is output position r, or pos[r] when the product covers only some positions
// (Note [Strided input gradient by phases]).
auto emitNchw(float* out, const ConvGeom& g, int64_t channels, int64_t group_channels, int64_t rows,
              const ResultRounding& rr, const int64_t* pos = nullptr) {
  return [=, &g, &rr](int64_t u, int64_t r0, int64_t r1, int64_t j0, int64_t j1, const float* c, UnitCounters* uc) {
    const int64_t gi = u / g.n, n = u % g.n;
    for (int64_t j = j0; j < j1; ++j) {
      float* dst = out + (n * channels + gi * group_channels + j) * rows;
      for (int64_t r = r0; r < r1; ++r)
        dst[pos ? pos[r] : r] = rr.apply(c[r * group_channels + j], &uc->fp16_overflow);
    }
  };
}

// Note [Conv results straight into NC1HWC0] (conv_operands.h).
bool emitsNc1hwc0(const TensorArg& out, const ConvGeom& g, int64_t channels, int64_t rows_h, int64_t rows_w) {
  return g.groups == 1 && isNc1hwc0Of16(out, g.n, channels, rows_h, rows_w);
}

// Conv2D reads x: reduction step (c, i, j) is tap (i, j) of channel c.
PaddedRead forwardRead(const ConvGeom& g) {
  const Window& wn = g.win;
  PaddedRead read{g.cig, g.h, g.w, wn.pt, wn.pb, wn.pl, wn.pr, g.ho, g.wo, wn.sh, wn.sw, {}};
  for (int64_t c = 0; c < g.cig; ++c)
    for (int64_t i = 0; i < wn.kh; ++i)
      for (int64_t j = 0; j < wn.kw; ++j)
        read.k_offset.push_back(c * read.hp() * read.wp() + i * wn.dh * read.wp() + j * wn.dw);
  return read;
}

void computeForward(const OpCall& call, const ConvGeom& g) {
  const CubeRounding rnd = cubeRoundingOf(call);
  const ResultRounding rr = resultRoundingOf(call);
  bool overflow = false;
  const int64_t khw = g.win.kh * g.win.kw, k = g.cig * khw, rows = g.ho * g.wo, hw = g.h * g.w;
  std::vector<float> bias;
  if (g.has_bias) {
    bias.resize(static_cast<size_t>(g.co));
    convutil::loadLogicalF32(call.inputs[2], bias.data());
  }
  // L0B: per group the [K][Co/G] matrix w[co][k] seen transposed, in 16-column panels.
  const int64_t panels = ceilDiv(g.cog, kTile), bsize = panels * k * kTile;
  float* bp = threadScratch(ScratchSlot::kPanels, g.groups * bsize);
  if (g.groups != 1 || !convops::forwardFilterPanels(call.inputs[1], g.co, g.cig, 1, khw, rnd, bp, &overflow)) {
    const float* w = loadRounded(call.inputs[1], g.co * k, ScratchSlot::kIn1, rnd, &overflow);
    convops::forwardPanelsFromLogical(w, g.groups, g.cog, k, bp);
  }
  std::vector<UnitCounters> cnt;
  const float* bias_or_null = bias.empty() ? nullptr : bias.data();
  // Unit u = (group gi, sample n), u = gi * N + n; its x channels are contiguous.
  const TensorArg& out = call.outputs[0];
  const bool direct = emitsNc1hwc0(out, g, g.co, g.ho, g.wo);  // Note [Conv results straight into NC1HWC0]
  float* y = direct ? nullptr : threadScratch(ScratchSlot::kOut, g.n * g.co * rows);
  const EmitFn emit =
      direct ? EmitFn(convops::emitNc1hwc0(out, g.co, rows, rr)) : EmitFn(emitNchw(y, g, g.co, g.cog, rows, rr));
  const PaddedRead read = forwardRead(g);
  if (takesPaddedRead(read)) {
    const float* padded = paddedUnits(call.inputs[0], read, g.groups, g.n, rnd, ScratchSlot::kIn0, &overflow);
    runPaddedRead(read, g.groups * g.n, padded, bp, g.cog, g.n, bias_or_null, emit, &cnt);
  } else {
    const float* x = loadRounded(call.inputs[0], g.n * g.ci * hw, ScratchSlot::kIn0, rnd, &overflow);
    const Img2colParams p = img2colOf(g);
    runUnits(
        g.groups * g.n, rows, k, g.cog, bp, g.n, bias_or_null, /*zero_cols=*/false, /*rows_buildable=*/true,
        [&](int64_t u, int64_t r0, int64_t r1, float* cols) {
          const int64_t gi = u / g.n, n = u % g.n;
          mteUnit().img2col_packed(p, x + (n * g.ci + gi * g.cig) * hw, r0, r1, cols, nullptr);
        },
        emit, &cnt);
  }
  if (!direct) convutil::storeLogicalF32(out, y);
  reportOverflow(call, overflow, cnt);
}

// ---- Conv2DBackpropInput ------------------------------------------------------

// For output coordinate t (h or w) and filter tap i: the dy coordinate whose
// window puts tap i on t, or -1.
std::vector<int64_t> tapTable(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  std::vector<int64_t> tab(static_cast<size_t>(in * k), -1);
  for (int64_t t = 0; t < in; ++t)
    for (int64_t i = 0; i < k; ++i) {
      const int64_t num = t + pad - i * dil;
      if (num >= 0 && num % stride == 0 && num / stride < out) tab[t * k + i] = num / stride;
    }
  return tab;
}

// Conv2DBackpropInput with stride 1 reads dy: reduction step (co, i, j) puts tap (i, j) of output
// channel co on dx position (h, w), so A holds dy[co][h + pt - i * dh][w + pl - j * dw], zero
// outside dy (tapTable's -1). Padding dy by (kh - 1) * dh - pt on top (and likewise on the left)
// makes that padded[co][h + (kh - 1 - i) * dh][w + (kw - 1 - j) * dw]. A pad larger than the
// window leaves a negative padding, which takesPaddedRead refuses.
PaddedRead backpropInputRead(const ConvGeom& g) {
  const Window& wn = g.win;
  PaddedRead read{g.cog, g.ho, g.wo, (wn.kh - 1) * wn.dh - wn.pt, std::max<int64_t>(0, g.h + wn.pt - g.ho),
                  (wn.kw - 1) * wn.dw - wn.pl, std::max<int64_t>(0, g.w + wn.pl - g.wo), g.h, g.w, 1, 1, {}};
  if (wn.sh != 1 || wn.sw != 1 || read.pt < 0 || read.pl < 0) {
    read.pt = -1;  // not a padded read
    return read;
  }
  for (int64_t co = 0; co < g.cog; ++co)
    for (int64_t i = 0; i < wn.kh; ++i)
      for (int64_t j = 0; j < wn.kw; ++j)
        read.k_offset.push_back(co * read.hp() * read.wp() + (wn.kh - 1 - i) * wn.dh * read.wp() +
                                (wn.kw - 1 - j) * wn.dw);
  return read;
}

void computeBackpropInput(const OpCall& call, const ConvGeom& g) {
  const CubeRounding rnd = cubeRoundingOf(call);
  const ResultRounding rr = resultRoundingOf(call);
  bool overflow = false;
  const int64_t khw = g.win.kh * g.win.kw, k = g.cog * khw, rows = g.h * g.w, oplane = g.ho * g.wo;
  // L0B per group: rows (co, i, j), columns ci: w[gi*cog + co][ci][i][j]. For one co and one
  // 16-column panel that is a [kh*kw][16] block read with row stride 1, column stride kh*kw.
  const int64_t panels = ceilDiv(g.cig, kTile), bsize = panels * k * kTile;
  float* bp = threadScratch(ScratchSlot::kPanels, g.groups * bsize);
  if (g.groups != 1 || !convops::backpropInputFilterPanels(call.inputs[0], g.co, g.cig, 1, khw, rnd, bp, &overflow)) {
    const float* w = loadRounded(call.inputs[0], g.co * g.cig * khw, ScratchSlot::kIn0, rnd, &overflow);
    convops::backpropInputPanelsFromLogical(w, g.groups, g.cog, g.cig, khw, bp);
  }
  const std::vector<int64_t> th = tapTable(g.h, g.ho, g.win.kh, g.win.sh, g.win.pt, g.win.dh);
  const std::vector<int64_t> tw = tapTable(g.w, g.wo, g.win.kw, g.win.sw, g.win.pl, g.win.dw);
  const TensorArg& out = call.outputs[0];
  const bool direct = emitsNc1hwc0(out, g, g.ci, g.h, g.w);  // Note [Conv results straight into NC1HWC0]
  float* dx = direct ? nullptr : threadScratch(ScratchSlot::kOut, g.n * g.ci * rows);
  std::vector<UnitCounters> cnt;
  const int64_t kh = g.win.kh, kw = g.win.kw;
  const EmitFn emit =
      direct ? EmitFn(convops::emitNc1hwc0(out, g.ci, rows, rr)) : EmitFn(emitNchw(dx, g, g.ci, g.cig, rows, rr));
  const PaddedRead read = backpropInputRead(g);
  const bool by_phases = (g.win.sh > 1 || g.win.sw > 1) && cubeUnit().implicit_takes_stride(1) &&
                         convops::phasesKeepBits(call.inputs[0], rnd, bp, g.groups * bsize);
  if (by_phases) {  // Note [Strided input gradient by phases]
    PaddedRead phase_pad;
    const std::vector<InputGradPhase> phases = convops::inputGradPhases(g.cog, g.h, g.w, g.ho, g.wo, g.win, &phase_pad);
    const float* padded = paddedUnits(call.inputs[1], phase_pad, g.groups, g.n, rnd, ScratchSlot::kIn1, &overflow);
    for (const InputGradPhase& f : phases) {
      const int64_t kf = static_cast<int64_t>(f.b_rows.size()), fsize = panels * kf * kTile;
      float* bf = threadScratch(ScratchSlot::kAux, g.groups * fsize);
      parallelFor(g.groups * panels, [&](int64_t t) {  // the phase's rows of every panel
        const float* src = bp + t * k * kTile;
        float* dst = bf + t * kf * kTile;
        for (int64_t kk = 0; kk < kf; ++kk)
          std::copy(src + f.b_rows[kk] * kTile, src + (f.b_rows[kk] + 1) * kTile, dst + kk * kTile);
      });
      const EmitFn phase_emit = direct ? EmitFn(convops::emitNc1hwc0(out, g.ci, rows, rr, f.pos.data()))
                                       : EmitFn(emitNchw(dx, g, g.ci, g.cig, rows, rr, f.pos.data()));
      runPaddedRead(f.read, g.groups * g.n, padded, bf, g.cig, g.n, nullptr, phase_emit, &cnt);
    }
  } else if (takesPaddedRead(read)) {
    const float* padded = paddedUnits(call.inputs[1], read, g.groups, g.n, rnd, ScratchSlot::kIn1, &overflow);
    runPaddedRead(read, g.groups * g.n, padded, bp, g.cig, g.n, nullptr, emit, &cnt);
  } else {
    const float* dy = loadRounded(call.inputs[1], g.n * g.co * oplane, ScratchSlot::kIn1, rnd, &overflow);
    runUnits(
        g.groups * g.n, rows, k, g.cig, bp, g.n, nullptr, /*zero_cols=*/true, /*rows_buildable=*/true,
        [&](int64_t u, int64_t r0, int64_t r1, float* cols) {  // MTE: img2col of the stride-dilated, padded dy, packed
          const int64_t gi = u / g.n, n = u % g.n;
          const float* src = dy + (n * g.co + gi * g.cog) * oplane;
          constexpr int64_t mr = kCubePanelRows;
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t h = r / g.w, x = r % g.w, rel = r - r0;
            float* row = cols + rel / mr * k * mr + rel % mr;  // column kk at row[kk * mr]
            for (int64_t co = 0; co < g.cog; ++co)
              for (int64_t i = 0; i < kh; ++i) {
                const int64_t hi = th[h * kh + i];
                float* dst = row + (co * kh + i) * kw * mr;
                if (hi < 0) continue;  // cols are zero-filled
                const float* plane = src + co * oplane + hi * g.wo;
                for (int64_t j = 0; j < kw; ++j) {
                  const int64_t wi = tw[x * kw + j];
                  if (wi >= 0) dst[j * mr] = plane[wi];
                }
              }
          }
        },
        emit, &cnt);
  }
  if (!direct) convutil::storeLogicalF32(out, dx);
  reportOverflow(call, overflow, cnt);
}

// ---- Conv2DBackpropFilter -----------------------------------------------------

// Note [Filter gradient from the padded input]
// Where the host's Cube reads in place, Conv2DBackpropFilter computes the transposed product
// dw^T[(ci, i, j)][co] = sum over m = (n, ho, wo) ascending of X[(ci, i, j)][m] * DY[m][co]: A is x
// read in place from its zero-padded copy (Note [The Cube reads a padded input]), row (ci, i, j)
// at the tap's offset ci * hp * wp + i * dh * wp + j * dw and step m at n * plane + ho * sh * wp +
// wo * sw, any stride; B is dy packed into panels of 16 output channels, [m][16]. Every element
// still gets one FMA per m in ascending m from +0, and x * dy is the same exact product as dy * x,
// so the bits are those of the img2col product. What goes is the column matrix (N*Ho*Wo x
// Ci*kh*kw floats: 58 MB for 8x64x56x56 with a 3x3 window) written, copied into B panels and read
// again. Tasks: per group, bands of 96 taps x groups of panels; the result is transposed into dw
// (rounded once) at the end, straight into a FRACTAL_Z dw (Note [Conv operands from private
// formats]) or in 16 x 16 blocks into the logical one.
void backpropFilterFromPadded(const OpCall& call, const ConvGeom& g, CubeRounding rnd, const ResultRounding& rr,
                              float* dw, bool* overflow, std::vector<UnitCounters>* counters) {
  const Window& wn = g.win;
  const int64_t rows = g.ho * g.wo, m = g.n * rows, kc = g.cig * wn.kh * wn.kw;
  const PaddedRead read{g.cig, g.h, g.w, wn.pt, wn.pb, wn.pl, wn.pr, g.ho, g.wo, wn.sh, wn.sw, {}};
  const int64_t hp = read.hp(), wp = read.wp(), plane = g.cig * hp * wp;
  // Unit u = (group gi, sample n), u = gi * N + n: a group's samples are consecutive planes.
  const float* padded = paddedUnits(call.inputs[0], read, g.groups, g.n, rnd, ScratchSlot::kIn0, overflow);
  std::vector<int64_t> taps, steps(static_cast<size_t>(m));
  taps.reserve(static_cast<size_t>(kc));
  for (int64_t c = 0; c < g.cig; ++c)
    for (int64_t i = 0; i < wn.kh; ++i)
      for (int64_t j = 0; j < wn.kw; ++j) taps.push_back(c * hp * wp + i * wn.dh * wp + j * wn.dw);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow)
        steps[static_cast<size_t>((n * g.ho + oh) * g.wo + ow)] = n * plane + oh * wn.sh * wp + ow * wn.sw;
  // B: per group, panels [ceil(Co/G / 16)][m][16] of dy, zero columns past Co/G.
  const int64_t panels = ceilDiv(g.cog, kTile), bsize = panels * m * kTile;
  float* bp = threadScratch(ScratchSlot::kPanels, g.groups * bsize);
  if (g.groups != 1 || !convops::activationPanels(call.inputs[1], g.n, g.co, g.ho, g.wo, rnd, bp, overflow)) {
    const float* dy = loadRounded(call.inputs[1], g.n * g.co * rows, ScratchSlot::kIn1, rnd, overflow);
    convops::activationPanelsFromLogical(dy, g.n, g.groups, g.cog, rows, bp);
  }
  float* ct = threadScratch(ScratchSlot::kResult, g.groups * kc * g.cog);  // per group [kc][Co/G]
  const ProductTasks tasks(g.groups, ceilDiv(kc, kRowBand), panels, kMinFilterTasks);
  const size_t base = counters->size();
  counters->resize(base + static_cast<size_t>(tasks.count()));
  parallelFor(tasks.count(), [&](int64_t t) {
    const auto [gi, band, p0, p1] = tasks[t];
    const int64_t r0 = band * kRowBand, r1 = std::min(kc, r0 + kRowBand);
    if (p0 == p1) return;
    CubeImplicitA a{padded + gi * g.n * plane, steps.data(), wp, g.wo, wn.sh, wn.sw};
    a.row_offset = taps.data();
    cubeUnit().mmad_f32_implicit(a, bp + gi * bsize, g.cog, m, nullptr, r0, r1, p0, p1, ct + gi * kc * g.cog,
                                 &(*counters)[base + static_cast<size_t>(t)]);
  });
  const TensorArg& out = call.outputs[0];
  if (g.groups == 1 && convops::storeTransposedFilter(out, ct, g.co, g.cig, 1, wn.kh * wn.kw, rr, overflow)) return;
  convops::transposedFilterToLogical(ct, g.groups, g.cog, kc, rr, dw, overflow);
  convutil::storeLogicalF32(out, dw);
}

void computeBackpropFilter(const OpCall& call, const ConvGeom& g) {
  const CubeRounding rnd = cubeRoundingOf(call);
  const ResultRounding rr = resultRoundingOf(call);
  bool overflow = false;
  const int64_t hw = g.h * g.w, rows = g.ho * g.wo, m = g.n * rows;  // m: the reduction length
  const int64_t kc = g.cig * g.win.kh * g.win.kw;                     // result columns
  float* dw = threadScratch(ScratchSlot::kOut, g.co * kc);
  if (cubeUnit().implicit_takes_stride(1)) {  // Note [Filter gradient from the padded input]
    std::vector<UnitCounters> cnt;
    backpropFilterFromPadded(call, g, rnd, rr, dw, &overflow, &cnt);
    reportOverflow(call, overflow, cnt);
    return;
  }
  const float* x = loadRounded(call.inputs[0], g.n * g.ci * hw, ScratchSlot::kIn0, rnd, &overflow);
  const float* dy = loadRounded(call.inputs[1], g.n * g.co * rows, ScratchSlot::kIn1, rnd, &overflow);
  const int64_t panels = ceilDiv(kc, kTile), bsize = panels * m * kTile, asize = g.cog * m;
  const int64_t bands = ceilDiv(g.cog, kRowBand), pgroups = ceilDiv(panels, kPanelGroup);
  const int64_t per_chunk = std::max<int64_t>(1, kColsBudget / std::max<int64_t>(1, bsize + asize));
  const Img2colParams p = img2colOf(g);
  const int64_t chunk_groups = std::min(g.groups, per_chunk);
  float* a = threadScratch(ScratchSlot::kCols, chunk_groups * asize);
  float* b = threadScratch(ScratchSlot::kPanels, chunk_groups * bsize);
  std::vector<UnitCounters> cnt;
  for (int64_t g0 = 0; g0 < g.groups; g0 += per_chunk) {
    const int64_t g1 = std::min(g.groups, g0 + per_chunk), ng = g1 - g0;
    if (kc % kTile)  // the zero columns of each group's last panel
      for (int64_t gl = 0; gl < ng; ++gl) std::fill(b + gl * bsize + (panels - 1) * m * kTile, b + (gl + 1) * bsize, 0.0f);
    // L0A: dy of the group as [Co/G][N*Ho*Wo]; L0B: img2col of x as [N*Ho*Wo][Kc] in panels.
    parallelFor(ng * g.n, [&](int64_t t) {
      const int64_t gl = t / g.n, gi = g0 + gl, n = t % g.n;
      for (int64_t co = 0; co < g.cog; ++co)
        std::memcpy(a + gl * asize + co * m + n * rows, dy + (n * g.co + gi * g.cog + co) * rows,
                    static_cast<size_t>(rows) * sizeof(float));
      float* cols = threadScratch(ScratchSlot::kTask, rows * kc);  // this pool thread's own buffer
      mteUnit().img2col(p, x + (n * g.ci + gi * g.cig) * hw, cols, nullptr);
      float* bg = b + gl * bsize;
      for (int64_t r = 0; r < rows; ++r) {
        const float* src = cols + r * kc;
        const int64_t mm = n * rows + r;
        for (int64_t pp = 0; pp < panels; ++pp) {
          const int64_t j0 = pp * kTile, jn = std::min(kTile, kc - j0);
          std::memcpy(bg + (pp * m + mm) * kTile, src + j0, static_cast<size_t>(jn) * sizeof(float));
        }
      }
    });
    const size_t base = cnt.size();
    cnt.resize(base + static_cast<size_t>(ng * bands * pgroups));
    parallelFor(ng * bands * pgroups, [&](int64_t t) {
      const int64_t gl = t / (bands * pgroups), band = (t / pgroups) % bands, pg = t % pgroups;
      const int64_t gi = g0 + gl;
      const int64_t r0 = band * kRowBand, r1 = std::min(g.cog, r0 + kRowBand);
      const int64_t p0 = pg * kPanelGroup, p1 = std::min(panels, p0 + kPanelGroup);
      const CubeOperands op{a + gl * asize, b + gl * bsize, g.cog, kc, m};
      float* c = dw + gi * g.cog * kc;  // rows co of group gi: [Co/G][Kc]
      UnitCounters* uc = &cnt[base + static_cast<size_t>(t)];
      cubeUnit().mmad_f32(op, nullptr, r0, r1, p0, p1, c, uc);
      if (rr.through_fp16) {
        const int64_t j1 = std::min(kc, p1 * kTile);
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t j = p0 * kTile; j < j1; ++j) c[r * kc + j] = rr.apply(c[r * kc + j], &uc->fp16_overflow);
      }
    });
  }
  convutil::storeLogicalF32(call.outputs[0], dw);
  reportOverflow(call, overflow, cnt);
}

void computeConv(const OpCall& call) {
  const ConvGeom g = geomOf(call);
  if (call.outputs[0].numel() == 0) return;
  switch (opOf(call)) {
    case ConvOp::kForward:
      computeForward(call, g);
      break;
    case ConvOp::kBackpropInput:
      computeBackpropInput(call, g);
      break;
    case ConvOp::kBackpropFilter:
      computeBackpropFilter(call, g);
      break;
  }
}

// ---- cost ---------------------------------------------------------------------

KernelCost costConv(const OpCall& call) {
  const ConvGeom g = geomOf(call);
  const CubeUnit& cube = cubeUnit();
  const int64_t khw = g.win.kh * g.win.kw;
  int64_t m = 0, k = 0, n = 0;  // per-group matmul dims on the Cube
  switch (opOf(call)) {
    case ConvOp::kForward:
      m = g.n * g.ho * g.wo, k = g.cig * khw, n = g.cog;
      break;
    case ConvOp::kBackpropInput:
      m = g.n * g.h * g.w, k = g.cog * khw, n = g.cig;
      break;
    case ConvOp::kBackpropFilter:
      m = g.cog, k = g.n * g.ho * g.wo, n = g.cig * khw;
      break;
  }
  KernelCost c;
  c.core = CoreType::kCube;
  if (m > 0 && n > 0) c.cube_macs = static_cast<double>(g.groups) * cube.padded_macs(m, n, k);
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  c.flops = 2.0 * static_cast<double>(g.n) * static_cast<double>(g.co) * static_cast<double>(g.ho * g.wo) *
            static_cast<double>(g.cig * khw);
  // Block dim as MatMul: 16-row bands of every group, then 16-column panels.
  const int64_t cores = std::max(call.ctx.cube_cores, 1);
  const int64_t bands = g.groups * ceilDiv(m, kTile), nt = ceilDiv(n, kTile);
  int64_t blocks = 1;
  if (bands > 0 && nt > 0) blocks = bands >= cores ? cores : bands * std::max<int64_t>(1, std::min(nt, cores / bands));
  c.block_dim = static_cast<uint32_t>(std::max<int64_t>(blocks, 1));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Conv2D", &validateConv, &computeConv, &costConv});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Conv2DBackpropInput", &validateConv, &computeConv, &costConv});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Conv2DBackpropFilter", &validateConv, &computeConv, &costConv});

}  // namespace
}  // namespace ascend_sim
