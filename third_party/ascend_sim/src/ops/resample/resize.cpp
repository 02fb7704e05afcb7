// Resize ops (OPS.md "Dense prediction, padding, layout and indexing"):
// ResizeNearestNeighborV2, ResizeBilinearV2, ResizeD (linear 1-D, cubic 2-D),
// UpsampleNearest3d, UpsampleTrilinear3d and their gradients, on one
// separable engine with PyTorch's CPU numerics.
//
// Note [Resize numerics]
// x is [N, C, *in] with 1-3 spatial dims, y is [N, C, *out]. Per spatial dim
// every output index o reads `taps` input indices with weights, computed as
// PyTorch's UpSample.h does (ratio r = attr `scales` if > 0 — the caller
// passes PyTorch's (float)(1.0 / scale_factor) — else (float)in / out; with
// align_corners r = (float)(in - 1) / (out - 1), or 0 when out == 1):
//   nearest        1 tap: o (out == in), o >> 1 (out == 2·in), else
//                  min(floorf(o·r), in − 1)
//   nearest exact  1 tap: min(floorf((float)((o + 0.5)·r)), in − 1)
//   linear         2 taps: out == in: (o, 1), (o, 0); else s = r·o
//                  (align_corners) or max(0, r·(o + 0.5) − 0.5), in double;
//                  i0 = (int)s, i1 = min(i0 + 1, in − 1), λ1 = (float)(s − i0),
//                  λ0 = 1 − λ1
//   cubic          4 taps: s = r·o or r·(o + 0.5) − 0.5 in float, i = floorf(s),
//                  t = s − i; indices i−1..i+2 clamped to [0, in − 1] with
//                  Keys' weights (a = attr cubic_coeff_a, −0.75) of t + 1, t,
//                  1 − t, 2 − t
// Forward (fp32): nearest copies bits (any dtype); the others evaluate
// y = Σ_k w_k · (inner dims' value at tap k), outermost spatial dim first,
// each sum left to right as t0·w0 + t1·w1 + ... (PyTorch's Interpolate).
// Backward: dx = 0, then for every dy element in row-major order and every
// tap combination in lexicographic order dx[taps] += (w_d·w_h·w_w)·dy, fp32
// per (n, c) plane, one rounding. Work split: forward over (plane, first
// output dim) rows, backward over planes; each row / plane is computed in
// the fixed order above, so the bits do not depend on the host thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

enum class Interp { kNearest, kNearestExact, kLinear, kCubic };

struct ResizeGeom {
  Interp interp = Interp::kNearest;
  bool grad = false;
  bool align_corners = false;
  float cubic_a = -0.75f;
  int64_t planes = 0;
  Shape in, out;              // spatial sizes
  std::vector<float> ratios;  // attr scales (0 = derive from the sizes)
};

struct AxisTaps {
  int n = 1;
  std::vector<int64_t> idx;  // [out * n]
  std::vector<float> w;
};

// ---- op types: attributes and shapes ---------------------------------------------------------

bool endsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Spatial rank and interpolation of the op type (grad: the forward's).
void opKind(const OpCall& call, ResizeGeom* g, size_t* spatial) {
  const std::string& t = call.op_type;
  g->grad = endsWith(t, "Grad") || t == "ResizeGradD";
  const bool exact = attrBool(call, "half_pixel_centers", false);
  if (t.rfind("ResizeNearestNeighborV2", 0) == 0 || t.rfind("UpsampleNearest3d", 0) == 0) {
    *spatial = t[0] == 'U' ? 3 : 2;
    g->interp = exact ? Interp::kNearestExact : Interp::kNearest;
    if (attrBool(call, "align_corners", false))
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "align_corners=true is not supported by nearest resizing");
  } else if (t.rfind("ResizeBilinearV2", 0) == 0 || t.rfind("UpsampleTrilinear3d", 0) == 0) {
    *spatial = t[0] == 'U' ? 3 : 2;
    g->interp = Interp::kLinear;
    g->align_corners = attrBool(call, "align_corners", false);
  } else {  // ResizeD / ResizeGradD
    const std::string mode = attrString(call, "mode", "");
    if (mode != "linear" && mode != "cubic")
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'mode' is \"" + mode + "\"; expected \"linear\" or \"cubic\"");
    *spatial = mode == "linear" ? 1 : 2;
    g->interp = mode == "linear" ? Interp::kLinear : Interp::kCubic;
    const std::string ctm = attrString(call, "coordinate_transformation_mode", "pytorch_half_pixel");
    if (ctm != "align_corners" && ctm != "pytorch_half_pixel")
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attribute 'coordinate_transformation_mode' is \"" + ctm +
               "\"; expected \"align_corners\" or \"pytorch_half_pixel\"");
    g->align_corners = ctm == "align_corners";
    g->cubic_a = attrFloat(call, "cubic_coeff_a", -0.75f);
  }
}

ResizeGeom geomOf(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  ResizeGeom g;
  size_t spatial = 0;
  opKind(call, &g, &spatial);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const char* xn = g.grad ? "input grads" : "input x";
  const char* yn = g.grad ? "output y (the gradient of x)" : "output y";
  const bool bits = g.interp == Interp::kNearest || g.interp == Interp::kNearestExact;
  checkDtype(call, x, xn, !g.grad && bits ? kAllTypes : kFloatTypes);
  checkSameDtype(call, x, xn, y, yn);
  const size_t rank = spatial + 2;
  for (const TensorArg* t : {&x, &y})
    if (t->shape.size() != rank)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string(t == &x ? xn : yn) + " shape " + shapeToString(t->shape) + " must be " + std::to_string(rank) +
               "-D [N, C, " + std::to_string(spatial) + " spatial dims]");
  if (x.shape[0] != y.shape[0] || x.shape[1] != y.shape[1])
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(yn) + " shape " + shapeToString(y.shape) + " must have the N, C of " + xn + " shape " +
             shapeToString(x.shape));
  // The forward's input and output sizes (a gradient maps out -> in).
  const TensorArg& fin = g.grad ? y : x;
  const TensorArg& fout = g.grad ? x : y;
  g.in.assign(fin.shape.begin() + 2, fin.shape.end());
  g.out.assign(fout.shape.begin() + 2, fout.shape.end());
  for (size_t d = 0; d < spatial; ++d)
    if (g.in[d] < 1 || g.out[d] < 1)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "spatial sizes must be positive: input " + shapeToString(g.in) + ", output " + shapeToString(g.out));
  g.planes = x.shape[0] * x.shape[1];
  if (call.attrs.has("scales")) {
    const AttrValue& v = call.attrs.all().at("scales");
    const auto* list = std::get_if<std::vector<float>>(&v);
    if (!list || list->size() != spatial)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attribute 'scales' must be a list of " + std::to_string(spatial) + " floats (0 = from the sizes)");
    for (float s : *list)
      if (!(s >= 0))
        fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'scales' entries must be >= 0, got " + std::to_string(s));
    g.ratios = *list;
  }
  g.ratios.resize(spatial, 0.0f);
  return g;
}

// ---- taps (Note [Resize numerics]) -----------------------------------------------------------

float cubicNear(float x, float a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
float cubicFar(float x, float a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

AxisTaps axisTaps(const ResizeGeom& g, size_t d) {
  const int64_t in = g.in[d], out = g.out[d];
  const float ratio = g.align_corners ? (out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f)
                                      : (g.ratios[d] > 0 ? g.ratios[d] : static_cast<float>(in) / static_cast<float>(out));
  AxisTaps t;
  t.n = g.interp == Interp::kLinear ? 2 : g.interp == Interp::kCubic ? 4 : 1;
  t.idx.resize(static_cast<size_t>(out * t.n));
  t.w.resize(t.idx.size());
  for (int64_t o = 0; o < out; ++o) {
    int64_t* idx = &t.idx[static_cast<size_t>(o * t.n)];
    float* w = &t.w[static_cast<size_t>(o * t.n)];
    switch (g.interp) {
      case Interp::kNearest:
        idx[0] = out == in ? o : out == 2 * in ? o >> 1
                                               : std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * ratio)), in - 1);
        w[0] = 1;
        break;
      case Interp::kNearestExact:
        idx[0] = std::min(static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * ratio))),
                          in - 1);
        w[0] = 1;
        break;
      case Interp::kLinear: {
        if (out == in) {
          idx[0] = idx[1] = o;
          w[0] = 1, w[1] = 0;
          break;
        }
        const double s = g.align_corners ? static_cast<double>(ratio) * static_cast<double>(o)
                                         : std::max(0.0, static_cast<double>(ratio) * (static_cast<double>(o) + 0.5) - 0.5);
        idx[0] = static_cast<int64_t>(s);
        idx[1] = idx[0] + (idx[0] < in - 1 ? 1 : 0);
        w[1] = static_cast<float>(s - static_cast<double>(idx[0]));
        w[0] = 1.0f - w[1];
        break;
      }
      case Interp::kCubic: {
        const float s = g.align_corners ? ratio * static_cast<float>(o) : ratio * (static_cast<float>(o) + 0.5f) - 0.5f;
        const int64_t i = static_cast<int64_t>(std::floor(s));
        const float tt = s - static_cast<float>(i);
        const float x2 = static_cast<float>(1.0 - static_cast<double>(tt));
        w[0] = cubicFar(static_cast<float>(static_cast<double>(tt) + 1.0), g.cubic_a);
        w[1] = cubicNear(tt, g.cubic_a);
        w[2] = cubicNear(x2, g.cubic_a);
        w[3] = cubicFar(static_cast<float>(static_cast<double>(x2) + 1.0), g.cubic_a);
        for (int k = 0; k < 4; ++k) idx[k] = std::max<int64_t>(0, std::min(i - 1 + k, in - 1));
        break;
      }
    }
  }
  return t;
}

struct Plan {
  std::vector<AxisTaps> taps;
  Shape in_st, out_st;  // element strides inside one plane
  int64_t in_plane = 1, out_plane = 1;
};

Plan planOf(const ResizeGeom& g) {
  Plan p;
  for (size_t d = 0; d < g.in.size(); ++d) p.taps.push_back(axisTaps(g, d));
  p.in_st = contiguousStrides(g.in);
  p.out_st = contiguousStrides(g.out);
  p.in_plane = numelOf(g.in);
  p.out_plane = numelOf(g.out);
  return p;
}

// y at output coordinates o[0..]: Σ_k w_k · value(d + 1, tap k), left to right.
float interpolate(const Plan& p, const float* plane, const int64_t* o, size_t d, int64_t base) {
  const AxisTaps& t = p.taps[d];
  const int64_t* idx = &t.idx[static_cast<size_t>(o[d] * t.n)];
  const float* w = &t.w[static_cast<size_t>(o[d] * t.n)];
  float acc = 0;
  for (int k = 0; k < t.n; ++k) {
    const int64_t off = base + idx[k] * p.in_st[d];
    const float v = d + 1 == p.taps.size() ? plane[off] : interpolate(p, plane, o, d + 1, off);
    acc = k == 0 ? v * w[k] : acc + v * w[k];
  }
  return acc;
}

// dx[taps of o] += (product of the tap weights) · g, taps in lexicographic order.
void distribute(const Plan& p, float* plane, const int64_t* o, size_t d, int64_t base, float wprod, float g) {
  const AxisTaps& t = p.taps[d];
  const int64_t* idx = &t.idx[static_cast<size_t>(o[d] * t.n)];
  const float* w = &t.w[static_cast<size_t>(o[d] * t.n)];
  for (int k = 0; k < t.n; ++k) {
    const int64_t off = base + idx[k] * p.in_st[d];
    const float wk = d == 0 ? w[k] : wprod * w[k];
    if (d + 1 == p.taps.size()) plane[off] += wk * g;
    else distribute(p, plane, o, d + 1, off, wk, g);
  }
}

// Output coordinates of flat position `flat` inside one plane.
void coordsIn(int64_t flat, const Shape& s, int64_t* o) {
  for (size_t d = s.size(); d-- > 0;) {
    o[d] = flat % s[d];
    flat /= s[d];
  }
}

void validateResize(const OpCall& call) { geomOf(call); }

void computeForward(const OpCall& call, const ResizeGeom& g, const Plan& p) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const int64_t rows = g.planes * g.out[0];
  const int64_t row_len = p.out_plane / g.out[0];
  const int64_t blocks = blocksFor(call, rows, y.numel());
  if (g.interp == Interp::kNearest || g.interp == Interp::kNearestExact) {
    const size_t es = dtypeSize(x.dtype);
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(y.data);
    splitRange(rows, blocks, [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> oc(g.out.size());
      int64_t* o = oc.data();
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t plane = r / g.out[0];
        for (int64_t i = 0; i < row_len; ++i) {
          const int64_t pos = (r % g.out[0]) * row_len + i;
          coordsIn(pos, g.out, o);
          int64_t off = plane * p.in_plane;
          for (size_t d = 0; d < g.out.size(); ++d) off += p.taps[d].idx[static_cast<size_t>(o[d])] * p.in_st[d];
          std::memcpy(dst + static_cast<size_t>(plane * p.out_plane + pos) * es, src + static_cast<size_t>(off) * es, es);
        }
      }
    });
    return;
  }
  std::vector<float> xf(static_cast<size_t>(x.numel())), yf(static_cast<size_t>(y.numel()));
  loadFloat(x.dtype, x.data, 0, 1, x.numel(), xf.data());
  splitRange(rows, blocks, [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> oc(g.out.size());
    int64_t* o = oc.data();
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t plane = r / g.out[0];
      for (int64_t i = 0; i < row_len; ++i) {
        const int64_t pos = (r % g.out[0]) * row_len + i;
        coordsIn(pos, g.out, o);
        yf[static_cast<size_t>(plane * p.out_plane + pos)] = interpolate(p, xf.data() + plane * p.in_plane, o, 0, 0);
      }
    }
  });
  storeFloat(y.dtype, y.data, 0, y.numel(), yf.data());
}

void computeBackward(const OpCall& call, const ResizeGeom& g, const Plan& p) {
  const TensorArg& dy = call.inputs[0];
  const TensorArg& dx = call.outputs[0];
  std::vector<float> gf(static_cast<size_t>(dy.numel())), xf(static_cast<size_t>(dx.numel()), 0.0f);
  loadFloat(dy.dtype, dy.data, 0, 1, dy.numel(), gf.data());
  splitRange(g.planes, blocksFor(call, g.planes, dy.numel()), [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> oc(g.out.size());
    int64_t* o = oc.data();
    for (int64_t plane = lo; plane < hi; ++plane)
      for (int64_t pos = 0; pos < p.out_plane; ++pos) {
        coordsIn(pos, g.out, o);
        distribute(p, xf.data() + plane * p.in_plane, o, 0, 0, 1.0f, gf[static_cast<size_t>(plane * p.out_plane + pos)]);
      }
  });
  storeFloat(dx.dtype, dx.data, 0, dx.numel(), xf.data());
}

void computeResize(const OpCall& call) {
  const ResizeGeom g = geomOf(call);
  const Plan p = planOf(g);
  if (g.grad) computeBackward(call, g, p);
  else computeForward(call, g, p);
}

KernelCost costResize(const OpCall& call) {
  const ResizeGeom g = geomOf(call);
  KernelCost c = vectorCost(call);
  const int n = g.interp == Interp::kLinear ? 2 : g.interp == Interp::kCubic ? 4 : 1;
  double combos = 1;
  for (size_t d = 0; d < g.in.size(); ++d) combos *= n;
  c.flops = static_cast<double>(g.planes * numelOf(g.out)) * (n == 1 ? 0 : 2 * combos);
  c.block_dim = static_cast<uint32_t>(g.grad ? blocksFor(call, g.planes, call.inputs[0].numel())
                                             : blocksFor(call, g.planes * g.out[0], call.outputs[0].numel()));
  return c;
}

#define RESIZE_KERNEL(name) ASCEND_SIM_REGISTER_KERNEL(KernelDef{name, &validateResize, &computeResize, &costResize})
RESIZE_KERNEL("ResizeNearestNeighborV2");
RESIZE_KERNEL("ResizeNearestNeighborV2Grad");
RESIZE_KERNEL("ResizeBilinearV2");
RESIZE_KERNEL("ResizeBilinearV2Grad");
RESIZE_KERNEL("ResizeD");
RESIZE_KERNEL("ResizeGradD");
RESIZE_KERNEL("UpsampleNearest3d");
RESIZE_KERNEL("UpsampleNearest3dGrad");
RESIZE_KERNEL("UpsampleTrilinear3d");
RESIZE_KERNEL("UpsampleTrilinear3dGrad");
#undef RESIZE_KERNEL

}  // namespace
}  // namespace ascend_sim
