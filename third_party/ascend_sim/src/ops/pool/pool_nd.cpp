// N-d pooling on the simulated Vector unit (OPS.md "Dense prediction,
// padding, layout and indexing"): AdaptiveMaxPool2d / 3d, AdaptiveAvgPool3d,
// AvgPool3D, MaxPool3DWithArgmax and their gradients (the 2-D max / avg /
// adaptive-avg pools with private formats are in pooling.cpp).
//
// Note [N-d pooling numerics]
// x is [N, C, *in] (2 or 3 spatial dims), y [N, C, *out]. Per spatial dim
// and output index o the window is a list of input indices:
//   adaptive        [o·I/O floor, (o+1)·I/O ceil)   (integer arithmetic)
//   max (strided)   o·s − p + m·d for m in [0, k), those inside [0, I)
//   avg (strided)   [o·s − p, min(o·s − p + k, I + p)) clipped to [0, I); its
//                   unclipped length is the per-dim "pool size"
// and a window is the product of the per-dim lists, walked in row-major
// (d, h, w) order. fp32, one rounding to y's dtype:
//   max      the first element, then any later one that is greater or NaN
//            replaces it (PyTorch's CPU rule: the last NaN wins); argmax =
//            the element's flat index in the (n, c) plane; an empty window
//            gives −inf and argmax −1
//   avg      sum / divisor: divisor_override (any non-zero value), else the product of the pool
//            sizes (count_include_pad) or of the clipped lengths; a window
//            with no input element gives 0
//   adaptive avg  sum / k_d / k_h / k_w (one division per dim, as PyTorch)
// Gradients: dx = 0, then per output element in row-major order: max adds dy
// at argmax (−1 skipped, anything else outside the plane is a device fault);
// avg adds dy / divisor (adaptive: dy / k_d / k_h / k_w) to every element of
// the window. Planes are split over the vector cores; each plane is computed
// in the fixed order above, so the bits do not depend on the host thread
// count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

enum class PoolKind { kMax, kAvg, kAdaptiveMax, kAdaptiveAvg };

struct NdPool {
  PoolKind kind = PoolKind::kMax;
  bool grad = false;
  size_t rank = 2;  // spatial dims
  int64_t planes = 0;
  Shape in, out;
  std::vector<int64_t> k, s, p, d;
  bool ceil_mode = false, count_include_pad = true;
  int64_t divisor = 0;
  bool isMax() const { return kind == PoolKind::kMax || kind == PoolKind::kAdaptiveMax; }
};

// Op type -> kind, spatial rank, gradient.
void kindOf(const std::string& t, NdPool* g) {
  g->grad = t.find("Grad") != std::string::npos;
  g->rank = t.find("2d") != std::string::npos ? 2 : 3;
  if (t.rfind("AdaptiveMaxPool", 0) == 0) g->kind = PoolKind::kAdaptiveMax;
  else if (t.rfind("AdaptiveAvgPool", 0) == 0) g->kind = PoolKind::kAdaptiveAvg;
  else if (t.rfind("AvgPool3D", 0) == 0) g->kind = PoolKind::kAvg;
  else g->kind = PoolKind::kMax;
}

std::vector<int64_t> listAttr(const OpCall& call, const char* name, size_t n, int64_t min, bool required,
                              int64_t fallback) {
  if (!required && !call.attrs.has(name)) return std::vector<int64_t>(n, fallback);
  std::vector<int64_t> v = attrInts(call, name);
  if (v.size() == 1) v.assign(n, v[0]);
  if (v.size() != n || *std::min_element(v.begin(), v.end()) < min)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + name + "' " + shapeToString(v) + " must be " + std::to_string(n) +
             " values >= " + std::to_string(min));
  return v;
}

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

// PyTorch's pooling_output_shape.
int64_t pooledSize(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode) {
  int64_t o = floorDiv(in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

void checkSpatial(const OpCall& call, const TensorArg& t, const std::string& name, size_t rank) {
  if (t.shape.size() != rank + 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(t.shape) + " must be " + std::to_string(rank + 2) + "-D [N, C, " +
             std::to_string(rank) + " spatial dims]");
}

// t must be [N, C, *sp] with the N, C of the forward input.
void checkShape(const OpCall& call, const TensorArg& t, const std::string& name, const NdPool& g, const Shape& sp) {
  checkSpatial(call, t, name, g.rank);
  const TensorArg& ref = g.grad ? call.outputs[0] : call.inputs[0];
  Shape want = {ref.shape[0], ref.shape[1]};
  want.insert(want.end(), sp.begin(), sp.end());
  checkShapeEq(call, t, name, want, "the pooled shape");
}

NdPool geomOf(const OpCall& call) {
  NdPool g;
  kindOf(call.op_type, &g);
  const bool max_grad = g.grad && g.isMax();
  const size_t n_in = max_grad ? 3 : 1, n_out = !g.grad && g.isMax() ? 2 : 1;
  checkArity(call, n_in, n_in, n_out);
  // x: the forward input (its shape; dx for avg grads), the value operand.
  const TensorArg& vin = max_grad ? call.inputs[1] : call.inputs[0];
  const TensorArg& vout = call.outputs[0];
  const std::string vin_name = g.grad ? "input dy" : "input x", vout_name = g.grad ? "output dx" : "output y";
  checkDtype(call, vin, vin_name, kFloatTypes);
  checkSameDtype(call, vin, vin_name, vout, vout_name);
  const TensorArg& x = g.grad ? vout : call.inputs[0];
  checkSpatial(call, x, g.grad ? vout_name : vin_name, g.rank);
  if (max_grad) checkShapeEq(call, call.inputs[0], "input x", x.shape, "output dx shape");
  if (g.grad && !max_grad) {  // avg grads: the forward input's shape is an attribute
    const std::vector<int64_t> orig = attrInts(call, "orig_input_shape");
    if (orig != x.shape)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "output dx shape " + shapeToString(x.shape) + " does not match orig_input_shape " + shapeToString(orig));
  }
  g.planes = x.shape[0] * x.shape[1];
  g.in.assign(x.shape.begin() + 2, x.shape.end());
  for (int64_t v : g.in)
    if (v < 1) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "spatial sizes " + shapeToString(g.in) + " must be positive");
  if (g.kind == PoolKind::kAdaptiveMax || g.kind == PoolKind::kAdaptiveAvg) {
    g.out = listAttr(call, "output_size", g.rank, 1, true, 0);
  } else {
    g.k = listAttr(call, "ksize", g.rank, 1, true, 0);
    g.s = listAttr(call, "strides", g.rank, 1, true, 0);
    g.p = listAttr(call, "pads", g.rank, 0, false, 0);
    g.d = listAttr(call, "dilations", g.rank, 1, false, 1);
    g.ceil_mode = attrBool(call, "ceil_mode", false);
    if (g.kind == PoolKind::kAvg && *std::max_element(g.d.begin(), g.d.end()) != 1)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "AvgPool3D takes no dilation");
    for (size_t i = 0; i < g.rank; ++i) {
      if (g.p[i] > (g.d[i] * (g.k[i] - 1) + 1) / 2)
        fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
             "pads " + shapeToString(g.p) + " must be at most half of the effective kernel size");
      g.out.push_back(pooledSize(g.in[i], g.k[i], g.p[i], g.s[i], g.d[i], g.ceil_mode));
      if (g.out.back() < 1)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input spatial size " + shapeToString(g.in) + " is too small: output " +
                                                     shapeToString(g.out) + " for kernel " + shapeToString(g.k));
    }
    g.count_include_pad = attrBool(call, "count_include_pad", true);
    g.divisor = attrInt(call, "divisor_override", 0);  // non-zero: the divisor (negative too, as PyTorch)
  }
  const TensorArg& pooled = g.grad ? vin : vout;
  checkShape(call, pooled, g.grad ? vin_name : vout_name, g, g.out);
  if (g.isMax()) {
    const TensorArg& argmax = g.grad ? call.inputs[2] : call.outputs[1];
    const std::string name = g.grad ? "input argmax" : "output argmax";
    checkDtype(call, argmax, name, kIndexTypes);
    checkShape(call, argmax, name, g, g.out);
  }
  return g;
}

// One spatial dim: the window of every output index.
struct AxisWindows {
  std::vector<std::vector<int64_t>> idx;  // in-range input indices, ascending
  std::vector<int64_t> pool;              // avg: unclipped window length
};

AxisWindows axisWindows(const NdPool& g, size_t a) {
  AxisWindows w;
  const int64_t in = g.in[a], out = g.out[a];
  for (int64_t o = 0; o < out; ++o) {
    std::vector<int64_t> v;
    int64_t pool = 0;
    if (g.kind == PoolKind::kAdaptiveMax || g.kind == PoolKind::kAdaptiveAvg) {
      const int64_t start = (o / out) * in + ((o % out) * in) / out;
      const int64_t end = 1 + ((o + 1) * in - 1) / out;
      for (int64_t i = start; i < end; ++i) v.push_back(i);
      pool = end - start;
    } else if (g.kind == PoolKind::kMax) {
      for (int64_t m = 0; m < g.k[a]; ++m) {
        const int64_t i = o * g.s[a] - g.p[a] + m * g.d[a];
        if (i >= 0 && i < in) v.push_back(i);
      }
    } else {
      const int64_t start = o * g.s[a] - g.p[a];
      const int64_t end = std::min(start + g.k[a], in + g.p[a]);
      pool = end - start;
      for (int64_t i = std::max<int64_t>(start, 0); i < std::min(end, in); ++i) v.push_back(i);
    }
    w.idx.push_back(std::move(v));
    w.pool.push_back(pool);
  }
  return w;
}

struct Plan {
  std::vector<AxisWindows> axes;
  Shape in_st;
  int64_t in_plane = 1, out_plane = 1;
};

Plan planOf(const NdPool& g) {
  Plan p;
  for (size_t a = 0; a < g.rank; ++a) p.axes.push_back(axisWindows(g, a));
  p.in_st = contiguousStrides(g.in);
  p.in_plane = numelOf(g.in);
  p.out_plane = numelOf(g.out);
  return p;
}

// Visits the window of output coordinates `o` in row-major order: fn(offset in the plane).
template <typename Fn>
void forEachInWindow(const Plan& p, const int64_t* o, size_t a, int64_t base, Fn&& fn) {
  for (int64_t i : p.axes[a].idx[static_cast<size_t>(o[a])]) {
    const int64_t off = base + i * p.in_st[a];
    if (a + 1 == p.axes.size()) fn(off);
    else forEachInWindow(p, o, a + 1, off, fn);
  }
}

// The divisor of an avg window (the sequential divisors of an adaptive one are applied by divide()).
float divide(const NdPool& g, const Plan& p, const int64_t* o, float v) {
  if (g.kind == PoolKind::kAdaptiveAvg) {
    for (size_t a = 0; a < g.rank; ++a) v /= static_cast<float>(p.axes[a].pool[static_cast<size_t>(o[a])]);
    return v;
  }
  int64_t div = 1;
  if (g.divisor != 0) {
    div = g.divisor;
  } else {
    for (size_t a = 0; a < g.rank; ++a) {
      const size_t i = static_cast<size_t>(o[a]);
      div *= g.count_include_pad ? p.axes[a].pool[i] : static_cast<int64_t>(p.axes[a].idx[i].size());
    }
  }
  return v / static_cast<float>(div);
}

bool windowEmpty(const Plan& p, const int64_t* o) {
  for (size_t a = 0; a < p.axes.size(); ++a)
    if (p.axes[a].idx[static_cast<size_t>(o[a])].empty()) return true;
  return false;
}

void coords(int64_t flat, const Shape& s, int64_t* o) {
  for (size_t a = s.size(); a-- > 0;) o[a] = flat % s[a], flat /= s[a];
}

void validatePool(const OpCall& call) { geomOf(call); }

void computeForward(const OpCall& call, const NdPool& g, const Plan& p) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  std::vector<float> xf(static_cast<size_t>(x.numel())), yf(static_cast<size_t>(y.numel()));
  std::vector<int64_t> arg(g.isMax() ? yf.size() : 0);
  loadFloat(x.dtype, x.data, 0, 1, x.numel(), xf.data());
  splitRange(g.planes, blocksFor(call, g.planes, y.numel()), [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> o(g.rank);
    for (int64_t pl = lo; pl < hi; ++pl) {
      const float* plane = xf.data() + pl * p.in_plane;
      for (int64_t q = 0; q < p.out_plane; ++q) {
        coords(q, g.out, o.data());
        const size_t at = static_cast<size_t>(pl * p.out_plane + q);
        if (g.isMax()) {
          float best = -std::numeric_limits<float>::infinity();
          int64_t best_at = -1;
          forEachInWindow(p, o.data(), 0, 0, [&](int64_t off) {
            const float v = plane[off];
            if (best_at < 0 || v > best || std::isnan(v)) best = v, best_at = off;
          });
          yf[at] = best;
          arg[at] = best_at;
        } else if (windowEmpty(p, o.data())) {
          yf[at] = 0;
        } else {
          float sum = 0;
          forEachInWindow(p, o.data(), 0, 0, [&](int64_t off) { sum += plane[off]; });
          yf[at] = divide(g, p, o.data(), sum);
        }
      }
    }
  });
  storeFloat(y.dtype, y.data, 0, y.numel(), yf.data());
  if (g.isMax()) storeInt(call.outputs[1].dtype, call.outputs[1].data, 0, y.numel(), arg.data());
}

void computeBackward(const OpCall& call, const NdPool& g, const Plan& p) {
  const bool max = g.isMax();
  const TensorArg& dy = max ? call.inputs[1] : call.inputs[0];
  const TensorArg& dx = call.outputs[0];
  std::vector<float> gy(static_cast<size_t>(dy.numel())), gx(static_cast<size_t>(dx.numel()), 0.0f);
  loadFloat(dy.dtype, dy.data, 0, 1, dy.numel(), gy.data());
  std::vector<int64_t> arg;
  if (max) {
    arg = loadIndices(call.inputs[2]);
    for (size_t i = 0; i < arg.size(); ++i)
      if (arg[i] < -1 || arg[i] >= p.in_plane)
        fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
             "argmax " + std::to_string(arg[i]) + " at position " +
                 positionString(static_cast<int64_t>(i), call.inputs[2].shape) + " is outside the input plane of " +
                 std::to_string(p.in_plane) + " elements");
  }
  splitRange(g.planes, blocksFor(call, g.planes, dx.numel()), [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> o(g.rank);
    for (int64_t pl = lo; pl < hi; ++pl) {
      float* plane = gx.data() + pl * p.in_plane;
      for (int64_t q = 0; q < p.out_plane; ++q) {
        const size_t at = static_cast<size_t>(pl * p.out_plane + q);
        if (max) {
          if (arg[at] >= 0) plane[arg[at]] += gy[at];
          continue;
        }
        coords(q, g.out, o.data());
        const float delta = divide(g, p, o.data(), gy[at]);
        forEachInWindow(p, o.data(), 0, 0, [&](int64_t off) { plane[off] += delta; });
      }
    }
  });
  storeFloat(dx.dtype, dx.data, 0, dx.numel(), gx.data());
}

void computePool(const OpCall& call) {
  const NdPool g = geomOf(call);
  const Plan p = planOf(g);
  if (g.grad) computeBackward(call, g, p);
  else computeForward(call, g, p);
}

KernelCost costPool(const OpCall& call) {
  const NdPool g = geomOf(call);
  KernelCost c = vectorCost(call);
  c.block_dim = static_cast<uint32_t>(blocksFor(call, g.planes, g.planes * numelOf(g.in)));
  return c;
}

#define POOL_KERNEL(name) ASCEND_SIM_REGISTER_KERNEL(KernelDef{name, &validatePool, &computePool, &costPool})
POOL_KERNEL("AdaptiveMaxPool2d");
POOL_KERNEL("AdaptiveMaxPool2dGrad");
POOL_KERNEL("AdaptiveMaxPool3d");
POOL_KERNEL("AdaptiveMaxPool3dGrad");
POOL_KERNEL("AdaptiveAvgPool3d");
POOL_KERNEL("AdaptiveAvgPool3dGrad");
POOL_KERNEL("AvgPool3D");
POOL_KERNEL("AvgPool3DGrad");
POOL_KERNEL("MaxPool3DWithArgmax");
POOL_KERNEL("MaxPool3DGradWithArgmax");
#undef POOL_KERNEL

}  // namespace
}  // namespace ascend_sim
