// Pooling on the simulated Vector unit (OPS.md "Convolution and pooling"):
// MaxPoolWithArgmaxV1, MaxPoolGradWithArgmaxV1, AvgPoolV2, AvgPoolV2Grad,
// AdaptiveAvgPool2d, AdaptiveAvgPool2dGrad.
//
// Note [Pooling numerics]
// PyTorch's CPU semantics, fp32 internal math, one rounding to the output
// dtype; every operand NCHW or NC1HWC0 (Note [Conv and pooling operands]).
// Output extents: floor((H + pt + pb − dh·(kh−1) − 1) / sh) + 1, or with
// ceil_mode the ceiling, minus one if the last window would start at or past
// H + pt (PyTorch's pooling_output_shape). As PyTorch, each pad must be at
// most half the (dilated) kernel extent.
//  * Max: the window's in-range elements in row-major (kh, kw) order; the
//    first element is the initial maximum, a later one replaces it if it is
//    greater, or NaN while the maximum is not NaN — so the first maximum wins
//    and the first NaN wins (PyTorch's CPU kernel keeps the last NaN; the
//    value is NaN either way). argmax = ih·W + iw. Padding never wins; a
//    window with no in-range element (possible only with dilation > input)
//    gives −inf and argmax −1.
//  * Max grad: dx = 0, then for every output element in ascending order
//    dx[argmax] += dy (fp32); argmax −1 is skipped, other indices outside
//    [0, H·W) are a device fault.
//  * Avg: sum of the in-range elements in row-major order (fp32), divided by
//    divisor_override if non-zero (negative allowed), else by the window size clipped to the
//    padded input (count_include_pad) or to the input; a window entirely in
//    the padding gives 0. Grad: for each output in ascending order
//    delta = dy / divisor, added to every in-range dx of its window.
//  * Adaptive avg: window [floor(i·H/Ho), ceil((i+1)·H/Ho)); y = sum / kh / kw
//    (two divisions, as PyTorch); grad: delta = dy / kh / kw added in
//    ascending output order.
// Work split: (n, c) planes in 16-plane blocks across the vector cores; each
// plane is computed by one task in the fixed order above, so results do not
// depend on the host thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "common/dtype.h"
#include "ops/conv/conv_util.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

using convutil::OperandKind;
using convutil::str;
using convutil::Window;

constexpr int64_t kPlanesPerTask = 16;

enum class PoolOp { kMax, kMaxGrad, kAvg, kAvgGrad, kAdaptive, kAdaptiveGrad };

PoolOp opOf(const OpCall& call) {
  const std::string& t = call.op_type;
  if (t == "MaxPoolWithArgmaxV1") return PoolOp::kMax;
  if (t == "MaxPoolGradWithArgmaxV1") return PoolOp::kMaxGrad;
  if (t == "AvgPoolV2") return PoolOp::kAvg;
  if (t == "AvgPoolV2Grad") return PoolOp::kAvgGrad;
  if (t == "AdaptiveAvgPool2d") return PoolOp::kAdaptive;
  return PoolOp::kAdaptiveGrad;
}

struct PoolGeom {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input (x / dx)
  int64_t ho = 0, wo = 0;              // output (y / dy)
  Window win;
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor = 0;  // divisor_override (0 = none)
  int64_t planes() const { return n * c; }
};

void checkCounts(const OpCall& call, size_t nin, size_t nout) {
  if (call.inputs.size() != nin)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(nin) + " inputs, got " + std::to_string(call.inputs.size()));
  if (call.outputs.size() != nout)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "expected " + std::to_string(nout) + " outputs, got " + std::to_string(call.outputs.size()));
}

constexpr DtypeMask kPoolTypes = dtBit(ACL_FLOAT) | dtBit(ACL_FLOAT16) | dtBit(ACL_BF16);

// ksize / strides / pads / dilations / ceil_mode, the PyTorch pad rule, and
// the output extent over the input [.., h, w].
void parseWindow(const OpCall& call, PoolGeom* g, bool dilation_allowed) {
  const std::vector<int64_t> k = convutil::attrList(call, "ksize", 2, {}, true);
  if (k[0] < 1 || k[1] < 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "ksize " + str(k) + " must be >= 1");
  g->win.kh = k[0];
  g->win.kw = k[1];
  convutil::parseWindowAttrs(call, &g->win, k);
  const Window& w = g->win;
  if (!dilation_allowed && (w.dh != 1 || w.dw != 1))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "dilations " + str({w.dh, w.dw}) + " are not supported (must be [1,1])");
  g->ceil_mode = attrBool(call, "ceil_mode", false);
  const int64_t eh = w.effH(), ew = w.effW();
  if (w.pt > eh / 2 || w.pb > eh / 2 || w.pl > ew / 2 || w.pr > ew / 2)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "pads " + str({w.pt, w.pb, w.pl, w.pr}) + " must be at most half of the effective kernel size " + str({eh, ew}));
  if (g->h < 1 || g->w < 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input spatial size " + str({g->h, g->w}) + " must be non-empty");
  g->ho = convutil::windowOut(g->h, eh, w.sh, w.pt, w.pb, g->ceil_mode);
  g->wo = convutil::windowOut(g->w, ew, w.sw, w.pl, w.pr, g->ceil_mode);
  if (g->ho < 1 || g->wo < 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output size " + str({g->ho, g->wo}) + " is too small: input " + str({g->h, g->w}) + ", kernel " +
             str({eh, ew}) + ", pads " + str({w.pt, w.pb, w.pl, w.pr}));
}

void setInput(PoolGeom* g, const Shape& s) {
  g->n = s[0], g->c = s[1], g->h = s[2], g->w = s[3];
}

void checkOutShape(const OpCall& call, const PoolGeom& g, const Shape& s, const std::string& who) {
  const Shape want{g.n, g.c, g.ho, g.wo};
  if (s != want)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         who + " shape " + str(s) + " must be " + str(want) + " for input " + str({g.n, g.c, g.h, g.w}));
}

Shape attrShape4(const OpCall& call, const char* name) {
  return convutil::attrList(call, name, 4, {}, true);
}

PoolGeom geomOf(const OpCall& call) {
  const PoolOp op = opOf(call);
  PoolGeom g;
  auto act = [&](const TensorArg& t, const std::string& who) {
    return convutil::shape4dOf(call, t, who, OperandKind::kActivation);
  };
  switch (op) {
    case PoolOp::kMax: {
      checkCounts(call, 1, 2);
      checkDtype(call, call.inputs[0], "input x", kPoolTypes);
      checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "y");
      checkDtype(call, call.outputs[1], "output argmax", kIndexTypes);
      setInput(&g, act(call.inputs[0], "input x"));
      parseWindow(call, &g, true);
      checkOutShape(call, g, act(call.outputs[0], "output y"), "output y");
      checkOutShape(call, g, act(call.outputs[1], "output argmax"), "output argmax");
      break;
    }
    case PoolOp::kMaxGrad: {
      checkCounts(call, 3, 1);
      checkDtype(call, call.inputs[1], "input dy", kPoolTypes);
      checkSameDtype(call, call.inputs[1], "dy", call.outputs[0], "dx");
      checkDtype(call, call.inputs[0], "input x", kPoolTypes);
      checkDtype(call, call.inputs[2], "input argmax", kIndexTypes);
      const Shape xs = act(call.inputs[0], "input x");
      const Shape dxs = act(call.outputs[0], "output dx");
      if (dxs != xs) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output dx shape " + str(dxs) + " must equal input x shape " + str(xs));
      setInput(&g, xs);
      const Shape dys = act(call.inputs[1], "input dy");
      const Shape as = act(call.inputs[2], "input argmax");
      if (as != dys)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input argmax shape " + str(as) + " must equal input dy shape " + str(dys));
      if (call.attrs.has("ksize")) {  // the forward's attributes: dy must be its output shape
        parseWindow(call, &g, true);
        checkOutShape(call, g, dys, "input dy");
      } else {
        if (dys[0] != g.n || dys[1] != g.c)
          fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input dy shape " + str(dys) + " must have N, C of input x " + str(xs));
        g.ho = dys[2], g.wo = dys[3];
      }
      break;
    }
    case PoolOp::kAvg:
    case PoolOp::kAvgGrad: {
      checkCounts(call, 1, 1);
      checkDtype(call, call.inputs[0], op == PoolOp::kAvg ? "input x" : "input dy", kPoolTypes);
      checkSameDtype(call, call.inputs[0], op == PoolOp::kAvg ? "x" : "dy", call.outputs[0], op == PoolOp::kAvg ? "y" : "dx");
      Shape xs;
      if (op == PoolOp::kAvg) {
        xs = act(call.inputs[0], "input x");
      } else {
        xs = act(call.outputs[0], "output dx");
        const Shape want = attrShape4(call, "orig_input_shape");
        if (want != xs)
          fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output dx shape " + str(xs) + " does not match orig_input_shape " + str(want));
      }
      setInput(&g, xs);
      parseWindow(call, &g, false);
      g.count_include_pad = attrBool(call, "count_include_pad", true);
      g.divisor = attrInt(call, "divisor_override", 0);  // any non-zero value, negative ones too (as PyTorch)
      if (op == PoolOp::kAvg)
        checkOutShape(call, g, act(call.outputs[0], "output y"), "output y");
      else
        checkOutShape(call, g, act(call.inputs[0], "input dy"), "input dy");
      break;
    }
    case PoolOp::kAdaptive:
    case PoolOp::kAdaptiveGrad: {
      checkCounts(call, 1, 1);
      const bool fwd = op == PoolOp::kAdaptive;
      checkDtype(call, call.inputs[0], fwd ? "input x" : "input dy", kPoolTypes);
      checkSameDtype(call, call.inputs[0], fwd ? "x" : "dy", call.outputs[0], fwd ? "y" : "dx");
      Shape xs, ys;
      if (fwd) {
        xs = act(call.inputs[0], "input x");
        ys = act(call.outputs[0], "output y");
        const std::vector<int64_t> os = convutil::attrList(call, "output_size", 2, {}, true);
        if (os[0] < 0 || os[1] < 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "output_size " + str(os) + " must be >= 0");
        g.ho = os[0], g.wo = os[1];
      } else {
        xs = act(call.outputs[0], "output dx");
        ys = act(call.inputs[0], "input dy");
        const Shape want = attrShape4(call, "orig_input_shape");
        if (want != xs)
          fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output dx shape " + str(xs) + " does not match orig_input_shape " + str(want));
        g.ho = ys[2], g.wo = ys[3];
      }
      setInput(&g, xs);
      if (g.h < 1 || g.w < 1)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input spatial size " + str({g.h, g.w}) + " must be non-empty");
      checkOutShape(call, g, ys, fwd ? "output y" : "input dy");
      break;
    }
  }
  return g;
}

void validatePool(const OpCall& call) { (void)geomOf(call); }

// Runs fn(plane) for every (n, c) plane, kPlanesPerTask planes per task.
template <typename Fn>
void forPlanes(int64_t planes, Fn fn) {
  const int64_t tasks = (planes + kPlanesPerTask - 1) / kPlanesPerTask;
  parallelFor(tasks, [&](int64_t t) {
    const int64_t p1 = std::min(planes, (t + 1) * kPlanesPerTask);
    for (int64_t p = t * kPlanesPerTask; p < p1; ++p) fn(p);
  });
}

std::vector<float> loadAll(const TensorArg& t, int64_t numel) {
  std::vector<float> v(static_cast<size_t>(numel));
  if (numel) convutil::loadLogicalF32(t, v.data());
  return v;
}

// The clipped window [h0, h1) x [w0, w1) of output (oh, ow) and its divisor (avg pooling).
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  int64_t divisor;
};

AvgWindow avgWindow(const PoolGeom& g, int64_t oh, int64_t ow) {
  const Window& w = g.win;
  int64_t h0 = oh * w.sh - w.pt, w0 = ow * w.sw - w.pl;
  int64_t h1 = std::min(h0 + w.kh, g.h + w.pb), w1 = std::min(w0 + w.kw, g.w + w.pr);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.h), w1 = std::min(w1, g.w);
  AvgWindow a{h0, h1, w0, w1, 0};
  if (g.divisor)
    a.divisor = g.divisor;
  else
    a.divisor = g.count_include_pad ? pool_size : (h1 - h0) * (w1 - w0);
  return a;
}

int64_t adaptiveStart(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t adaptiveEnd(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

void computeMax(const OpCall& call, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.ho * g.wo;
  const std::vector<float> x = loadAll(call.inputs[0], g.planes() * hw);
  std::vector<float> y(static_cast<size_t>(g.planes() * ohw));
  std::vector<int64_t> idx(y.size());
  const Window& w = g.win;
  forPlanes(g.planes(), [&](int64_t p) {
    const float* xp = x.data() + p * hw;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const int64_t hs = oh * w.sh - w.pt, ws = ow * w.sw - w.pl;
        float best = -std::numeric_limits<float>::infinity();
        int64_t bi = -1;
        for (int64_t i = 0; i < w.kh; ++i) {
          const int64_t ih = hs + i * w.dh;
          if (ih < 0 || ih >= g.h) continue;
          for (int64_t j = 0; j < w.kw; ++j) {
            const int64_t iw = ws + j * w.dw;
            if (iw < 0 || iw >= g.w) continue;
            const float v = xp[ih * g.w + iw];
            if (bi < 0 || v > best || (std::isnan(v) && !std::isnan(best))) {
              best = v;
              bi = ih * g.w + iw;
            }
          }
        }
        y[p * ohw + oh * g.wo + ow] = best;
        idx[p * ohw + oh * g.wo + ow] = bi;
      }
  });
  convutil::storeLogicalF32(call.outputs[0], y.data());
  convutil::storeLogicalI64(call.outputs[1], idx.data());
}

void computeMaxGrad(const OpCall& call, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.ho * g.wo;
  const std::vector<float> dy = loadAll(call.inputs[1], g.planes() * ohw);
  std::vector<int64_t> idx(dy.size());
  if (!idx.empty()) convutil::loadLogicalI64(call.inputs[2], idx.data());
  for (size_t o = 0; o < idx.size(); ++o)
    if (idx[o] != -1 && (idx[o] < 0 || idx[o] >= hw))
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "argmax " + std::to_string(idx[o]) + " at output element " + std::to_string(o) + " is out of range [0, " +
               std::to_string(hw) + ") (H*W of input " + str({g.n, g.c, g.h, g.w}) + ")");
  std::vector<float> dx(static_cast<size_t>(g.planes() * hw), 0.0f);
  forPlanes(g.planes(), [&](int64_t p) {
    float* dxp = dx.data() + p * hw;
    for (int64_t o = p * ohw; o < (p + 1) * ohw; ++o)
      if (idx[o] >= 0) dxp[idx[o]] += dy[o];
  });
  convutil::storeLogicalF32(call.outputs[0], dx.data());
}

void computeAvg(const OpCall& call, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.ho * g.wo;
  const std::vector<float> x = loadAll(call.inputs[0], g.planes() * hw);
  std::vector<float> y(static_cast<size_t>(g.planes() * ohw));
  forPlanes(g.planes(), [&](int64_t p) {
    const float* xp = x.data() + p * hw;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const AvgWindow a = avgWindow(g, oh, ow);
        float out = 0.0f;
        if (a.h0 < a.h1 && a.w0 < a.w1) {
          float sum = 0.0f;
          for (int64_t ih = a.h0; ih < a.h1; ++ih)
            for (int64_t iw = a.w0; iw < a.w1; ++iw) sum += xp[ih * g.w + iw];
          out = sum / static_cast<float>(a.divisor);
        }
        y[p * ohw + oh * g.wo + ow] = out;
      }
  });
  convutil::storeLogicalF32(call.outputs[0], y.data());
}

void computeAvgGrad(const OpCall& call, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.ho * g.wo;
  const std::vector<float> dy = loadAll(call.inputs[0], g.planes() * ohw);
  std::vector<float> dx(static_cast<size_t>(g.planes() * hw), 0.0f);
  forPlanes(g.planes(), [&](int64_t p) {
    float* dxp = dx.data() + p * hw;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const AvgWindow a = avgWindow(g, oh, ow);
        if (a.h0 >= a.h1 || a.w0 >= a.w1) continue;
        const float delta = dy[p * ohw + oh * g.wo + ow] / static_cast<float>(a.divisor);
        for (int64_t ih = a.h0; ih < a.h1; ++ih)
          for (int64_t iw = a.w0; iw < a.w1; ++iw) dxp[ih * g.w + iw] += delta;
      }
  });
  convutil::storeLogicalF32(call.outputs[0], dx.data());
}

void computeAdaptive(const OpCall& call, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.ho * g.wo;
  const std::vector<float> x = loadAll(call.inputs[0], g.planes() * hw);
  std::vector<float> y(static_cast<size_t>(g.planes() * ohw));
  forPlanes(g.planes(), [&](int64_t p) {
    const float* xp = x.data() + p * hw;
    for (int64_t oh = 0; oh < g.ho; ++oh) {
      const int64_t h0 = adaptiveStart(oh, g.ho, g.h), h1 = adaptiveEnd(oh, g.ho, g.h);
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const int64_t w0 = adaptiveStart(ow, g.wo, g.w), w1 = adaptiveEnd(ow, g.wo, g.w);
        float sum = 0.0f;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) sum += xp[ih * g.w + iw];
        y[p * ohw + oh * g.wo + ow] = sum / static_cast<float>(h1 - h0) / static_cast<float>(w1 - w0);
      }
    }
  });
  convutil::storeLogicalF32(call.outputs[0], y.data());
}

void computeAdaptiveGrad(const OpCall& call, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.ho * g.wo;
  const std::vector<float> dy = loadAll(call.inputs[0], g.planes() * ohw);
  std::vector<float> dx(static_cast<size_t>(g.planes() * hw), 0.0f);
  forPlanes(g.planes(), [&](int64_t p) {
    float* dxp = dx.data() + p * hw;
    for (int64_t oh = 0; oh < g.ho; ++oh) {
      const int64_t h0 = adaptiveStart(oh, g.ho, g.h), h1 = adaptiveEnd(oh, g.ho, g.h);
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const int64_t w0 = adaptiveStart(ow, g.wo, g.w), w1 = adaptiveEnd(ow, g.wo, g.w);
        const float delta =
            dy[p * ohw + oh * g.wo + ow] / static_cast<float>(h1 - h0) / static_cast<float>(w1 - w0);
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) dxp[ih * g.w + iw] += delta;
      }
    }
  });
  convutil::storeLogicalF32(call.outputs[0], dx.data());
}

void computePool(const OpCall& call) {
  const PoolGeom g = geomOf(call);
  switch (opOf(call)) {
    case PoolOp::kMax:
      computeMax(call, g);
      break;
    case PoolOp::kMaxGrad:
      computeMaxGrad(call, g);
      break;
    case PoolOp::kAvg:
      computeAvg(call, g);
      break;
    case PoolOp::kAvgGrad:
      computeAvgGrad(call, g);
      break;
    case PoolOp::kAdaptive:
      computeAdaptive(call, g);
      break;
    case PoolOp::kAdaptiveGrad:
      computeAdaptiveGrad(call, g);
      break;
  }
}

// Vector cost: every operand streamed once (storage bytes, pads included),
// plus one pass over the window elements of every output (fp32 lanes).
KernelCost costPool(const OpCall& call) {
  const PoolGeom g = geomOf(call);
  KernelCost c = vectorCost(call);
  int64_t window = 1;
  switch (opOf(call)) {
    case PoolOp::kMax:
    case PoolOp::kAvg:
    case PoolOp::kAvgGrad:
      window = g.win.kh * g.win.kw;
      break;
    case PoolOp::kMaxGrad:
      window = 1;
      break;
    case PoolOp::kAdaptive:
    case PoolOp::kAdaptiveGrad:
      window = ((g.h + g.ho - 1) / std::max<int64_t>(g.ho, 1) + 1) * ((g.w + g.wo - 1) / std::max<int64_t>(g.wo, 1) + 1);
      break;
  }
  const int64_t elems = g.planes() * g.ho * g.wo * window;
  c.vector_repeats += vectorUnit().repeats(elems, ACL_FLOAT);
  c.vector_bytes += static_cast<double>(elems) * sizeof(float);
  c.flops = static_cast<double>(elems);
  const int64_t tasks = (g.planes() + kPlanesPerTask - 1) / kPlanesPerTask;
  c.block_dim = static_cast<uint32_t>(std::max<int64_t>(1, std::min<int64_t>(tasks, call.ctx.vector_cores)));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MaxPoolWithArgmaxV1", &validatePool, &computePool, &costPool});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MaxPoolGradWithArgmaxV1", &validatePool, &computePool, &costPool});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AvgPoolV2", &validatePool, &computePool, &costPool});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AvgPoolV2Grad", &validatePool, &computePool, &costPool});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AdaptiveAvgPool2d", &validatePool, &computePool, &costPool});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AdaptiveAvgPool2dGrad", &validatePool, &computePool, &costPool});

}  // namespace
}  // namespace ascend_sim
