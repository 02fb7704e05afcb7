// GridSampler2D and GridSampler2DGrad (OPS.md "Dense prediction, padding,
// layout and indexing"): PyTorch's grid_sampler_2d and its backward.
//
// Note [Grid sampler numerics]
// x [N, C, H, W], grid [N, Ho, Wo, 2] (x then y, normalised to [−1, 1]) →
// y [N, C, Ho, Wo]. Per grid point, in fp32 with PyTorch's CPU formulas
// (GridSampler.h): the coordinate is unnormalised ((g + 1)/2·(size − 1) with
// align_corners, else ((g + 1)·size − 1)/2), then padded: "border" clamps to
// [0, size − 1], "reflection" reflects about the pixel edges (centres with
// align_corners) and clamps; "zeros" leaves it and out-of-range taps read 0.
//   bilinear  the four neighbours ⌊ix⌋, ⌊ix⌋+1 (×) ⌊iy⌋, ⌊iy⌋+1 with weights
//             (1 − dx)(1 − dy) ..., summed nw, ne, sw, se
//   nearest   the neighbour at (round-half-even ix, iy)
//   bicubic   4 × 4 taps around ⌊ix⌋, ⌊iy⌋ of the unpadded coordinate, Keys
//             a = −0.75 weights, each tap's position padded on its own; each
//             row is interpolated along x first, then the rows along y
// Backward: dx = 0; for every n, every grid point in row-major order and every
// channel, each tap adds weight·dy to dx (fp32) and the grid gradient
// accumulates the weight derivatives times the tap values and dy, then is
// scaled by the chain rule of the unnormalisation and padding (0 where a
// coordinate was clamped). Work split: forward over (n, output row), backward
// over n; every element is computed in the fixed order above.
#include <cmath>
#include <string>
#include <vector>

#include "ops/index_util.h"

namespace ascend_sim {
namespace {

enum class Interp { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridGeom {
  Interp interp = Interp::kBilinear;
  Padding padding = Padding::kZeros;
  bool align = false;
  int64_t n = 0, c = 0, h = 0, w = 0, ho = 0, wo = 0;
};

void check4d(const OpCall& call, const TensorArg& t, const std::string& name) {
  if (t.shape.size() != 4) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, name + " shape " + shapeToString(t.shape) + " must be 4-D");
}

GridGeom geomOf(const OpCall& call) {
  const bool grad = call.op_type == "GridSampler2DGrad";
  checkArity(call, grad ? 3 : 2, grad ? 3 : 2, grad ? 2 : 1);
  const TensorArg& x = call.inputs[grad ? 1 : 0];
  const TensorArg& grid = call.inputs[grad ? 2 : 1];
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", grid, "input grid");
  check4d(call, x, "input x");
  check4d(call, grid, "input grid");
  GridGeom g;
  g.n = x.shape[0], g.c = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
  g.ho = grid.shape[1], g.wo = grid.shape[2];
  checkShapeEq(call, grid, "input grid", {g.n, g.ho, g.wo, 2}, "[N, Ho, Wo, 2] =");
  const std::string interp = attrString(call, "interpolation_mode", "bilinear");
  const std::string padding = attrString(call, "padding_mode", "zeros");
  if (interp == "bilinear") g.interp = Interp::kBilinear;
  else if (interp == "nearest") g.interp = Interp::kNearest;
  else if (interp == "bicubic") g.interp = Interp::kBicubic;
  else fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'interpolation_mode' is \"" + interp + "\"; expected \"bilinear\", \"nearest\" or \"bicubic\"");
  if (padding == "zeros") g.padding = Padding::kZeros;
  else if (padding == "border") g.padding = Padding::kBorder;
  else if (padding == "reflection") g.padding = Padding::kReflection;
  else fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'padding_mode' is \"" + padding + "\"; expected \"zeros\", \"border\" or \"reflection\"");
  g.align = attrBool(call, "align_corners", false);
  const Shape ys = {g.n, g.c, g.ho, g.wo};
  if (grad) {
    checkSameDtype(call, x, "x", call.inputs[0], "input dy");
    checkShapeEq(call, call.inputs[0], "input dy", ys, "[N, C, Ho, Wo] =");
    checkSameDtype(call, x, "x", call.outputs[0], "output dx");
    checkShapeEq(call, call.outputs[0], "output dx", x.shape, "x shape");
    checkSameDtype(call, x, "x", call.outputs[1], "output dgrid");
    checkShapeEq(call, call.outputs[1], "output dgrid", grid.shape, "grid shape");
  } else {
    checkSameDtype(call, x, "x", call.outputs[0], "output y");
    checkShapeEq(call, call.outputs[0], "output y", ys, "[N, C, Ho, Wo] =");
  }
  return g;
}

// ---- coordinates (value and derivative) --------------------------------------------------------

float unnormalize(float v, int64_t size, bool align, float* grad) {
  if (align) {
    *grad = static_cast<float>(size - 1) / 2;
    return (v + 1) / 2 * static_cast<float>(size - 1);
  }
  *grad = static_cast<float>(size) / 2;
  return ((v + 1) * static_cast<float>(size) - 1) / 2;
}

float clip(float v, int64_t size, float* grad) {
  if (v <= 0) {
    *grad = 0;
    return 0;
  }
  const float max = static_cast<float>(size - 1);
  if (v >= max) {
    *grad = 0;
    return max;
  }
  *grad = 1;
  return v;
}

float reflect(float v, int64_t twice_low, int64_t twice_high, float* grad) {
  if (twice_low == twice_high) {
    *grad = 0;
    return 0;
  }
  const float min = static_cast<float>(twice_low) / 2, span = static_cast<float>(twice_high - twice_low) / 2;
  v -= min;
  float mult = 1;
  if (v < 0) mult = -1, v = -v;
  const float extra = std::fmod(v, span);
  const int64_t flips = static_cast<int64_t>(std::floor(v / span));
  if (flips % 2 == 0) {
    *grad = mult;
    return extra + min;
  }
  *grad = -mult;
  return span - extra + min;
}

// Padding of an unnormalised coordinate (and its derivative factor).
float pad(const GridGeom& g, float v, int64_t size, float* grad) {
  float gc = 1, gr = 1;
  if (g.padding == Padding::kBorder) {
    v = clip(v, size, &gc);
  } else if (g.padding == Padding::kReflection) {
    v = g.align ? reflect(v, 0, 2 * (size - 1), &gr) : reflect(v, -1, 2 * size - 1, &gr);
    v = clip(v, size, &gc);
  }
  *grad = gr * gc;
  return v;
}

// The source coordinate of a grid value along a dim of `size` (bilinear, nearest).
float sourceIndex(const GridGeom& g, float v, int64_t size, float* grad) {
  float gu = 1, gp = 1;
  v = unnormalize(v, size, g.align, &gu);
  v = pad(g, v, size, &gp);
  *grad = gu * gp;
  return v;
}

void cubicWeights(float t, float w[4]) {
  const float a = -0.75f;
  auto near = [a](float x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [a](float x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  w[0] = far(t + 1), w[1] = near(t), w[2] = near(1 - t), w[3] = far(2 - t);
}

void cubicWeightGrads(float t, float w[4]) {
  const float a = -0.75f;
  float x = -1 - t;
  w[0] = (-3 * a * x - 10 * a) * x - 8 * a;
  x = -t;
  w[1] = (-3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 1 - t;
  w[2] = (3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 2 - t;
  w[3] = (3 * a * x - 10 * a) * x + 8 * a;
}

// ---- taps of one grid point ---------------------------------------------------------------------

struct Tap {
  int64_t off = -1;        // offset in the (n, c) plane, −1 out of range
  float w = 0;             // weight
  float dwx = 0, dwy = 0;  // d weight / d ix, d iy (before the chain-rule factors)
};

// Bicubic taps are stored x-major (tap i·4 + j reads x offset i, y offset j:
// PyTorch's backward order); wx / wy are their separable weights.
struct Point {
  std::vector<Tap> taps;
  float gx = 1, gy = 1;  // chain-rule factors of the grid coordinates
  float wx[4] = {0, 0, 0, 0}, wy[4] = {0, 0, 0, 0};
};

int64_t offsetOf(const GridGeom& g, int64_t ix, int64_t iy) {
  return ix >= 0 && ix < g.w && iy >= 0 && iy < g.h ? iy * g.w + ix : -1;
}

Point pointOf(const GridGeom& g, float gxv, float gyv) {
  Point p;
  if (g.interp == Interp::kBicubic) {
    const float ix = unnormalize(gxv, g.w, g.align, &p.gx), iy = unnormalize(gyv, g.h, g.align, &p.gy);
    const float fx = std::floor(ix), fy = std::floor(iy), tx = ix - fx, ty = iy - fy;
    float* wx = p.wx;
    float* wy = p.wy;
    float dwx[4], dwy[4];
    cubicWeights(tx, wx), cubicWeights(ty, wy), cubicWeightGrads(tx, dwx), cubicWeightGrads(ty, dwy);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float unused;
        const float px = pad(g, fx - 1 + static_cast<float>(i), g.w, &unused);
        const float py = pad(g, fy - 1 + static_cast<float>(j), g.h, &unused);
        Tap t;
        t.off = offsetOf(g, static_cast<int64_t>(px), static_cast<int64_t>(py));
        t.w = wx[i] * wy[j];
        t.dwx = -dwx[i] * wy[j];
        t.dwy = -dwy[j] * wx[i];
        p.taps.push_back(t);
      }
    return p;
  }
  const float ix = sourceIndex(g, gxv, g.w, &p.gx), iy = sourceIndex(g, gyv, g.h, &p.gy);
  if (g.interp == Interp::kNearest) {
    Tap t;
    t.off = offsetOf(g, static_cast<int64_t>(std::nearbyint(ix)), static_cast<int64_t>(std::nearbyint(iy)));
    t.w = 1;
    p.taps.push_back(t);
    p.gx = p.gy = 0;
    return p;
  }
  const int64_t x0 = static_cast<int64_t>(std::floor(ix)), y0 = static_cast<int64_t>(std::floor(iy));
  const float xw = static_cast<float>(x0 + 1) - ix, xe = ix - static_cast<float>(x0);  // weights of x0, x0 + 1
  const float yn = static_cast<float>(y0 + 1) - iy, ys = iy - static_cast<float>(y0);  // weights of y0, y0 + 1
  // nw, ne, sw, se with d/dix and d/diy of each weight.
  const int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, yv[4] = {y0, y0, y0 + 1, y0 + 1};
  const float w[4] = {xw * yn, xe * yn, xw * ys, xe * ys};
  const float dx[4] = {-yn, yn, -ys, ys}, dy[4] = {-xw, -xe, xw, xe};
  for (int k = 0; k < 4; ++k) p.taps.push_back({offsetOf(g, xs[k], yv[k]), w[k], dx[k], dy[k]});
  return p;
}

// ---- kernels ------------------------------------------------------------------------------------

std::vector<float> load(const TensorArg& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

void validateGrid(const OpCall& call) { geomOf(call); }

void computeForward(const OpCall& call, const GridGeom& g) {
  const std::vector<float> x = load(call.inputs[0]), grid = load(call.inputs[1]);
  const TensorArg& y = call.outputs[0];
  std::vector<float> out(static_cast<size_t>(y.numel()));
  const int64_t rows = g.n * g.ho, plane = g.h * g.w, opl = g.ho * g.wo;
  splitRange(rows, blocksFor(call, rows, y.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t n = r / g.ho, oh = r % g.ho;
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const float* gp = &grid[static_cast<size_t>(((n * g.ho + oh) * g.wo + ow) * 2)];
        const Point p = pointOf(g, gp[0], gp[1]);
        for (int64_t c = 0; c < g.c; ++c) {
          const float* src = x.data() + (n * g.c + c) * plane;
          float acc = 0;
          if (g.interp == Interp::kBicubic) {  // each row (fixed y tap) first, then the column
            for (int j = 0; j < 4; ++j) {
              float row = 0;
              for (int i = 0; i < 4; ++i) {
                const Tap& t = p.taps[static_cast<size_t>(i * 4 + j)];
                row += (t.off >= 0 ? src[t.off] : 0.0f) * p.wx[i];
              }
              acc += row * p.wy[j];
            }
          } else {
            for (const Tap& t : p.taps)
              if (t.off >= 0) acc += src[t.off] * t.w;
          }
          out[static_cast<size_t>((n * g.c + c) * opl + oh * g.wo + ow)] = acc;
        }
      }
    }
  });
  storeFloat(y.dtype, y.data, 0, y.numel(), out.data());
}

void computeBackward(const OpCall& call, const GridGeom& g) {
  const std::vector<float> dy = load(call.inputs[0]), x = load(call.inputs[1]), grid = load(call.inputs[2]);
  std::vector<float> dx(x.size(), 0.0f), dgrid(grid.size(), 0.0f);
  const int64_t plane = g.h * g.w, opl = g.ho * g.wo;
  splitRange(g.n, blocksFor(call, g.n, static_cast<int64_t>(x.size())), [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t q = 0; q < opl; ++q) {
        const size_t gi = static_cast<size_t>((n * opl + q) * 2);
        const Point p = pointOf(g, grid[gi], grid[gi + 1]);
        float gix = 0, giy = 0;
        for (int64_t c = 0; c < g.c; ++c) {
          const float go = dy[static_cast<size_t>((n * g.c + c) * opl + q)];
          float* dplane = dx.data() + (n * g.c + c) * plane;
          const float* xplane = x.data() + (n * g.c + c) * plane;
          for (const Tap& t : p.taps) {
            if (t.off < 0) continue;
            dplane[t.off] += t.w * go;
            gix += xplane[t.off] * t.dwx * go;
            giy += xplane[t.off] * t.dwy * go;
          }
        }
        dgrid[gi] = p.gx * gix;
        dgrid[gi + 1] = p.gy * giy;
      }
  });
  storeFloat(call.outputs[0].dtype, call.outputs[0].data, 0, call.outputs[0].numel(), dx.data());
  storeFloat(call.outputs[1].dtype, call.outputs[1].data, 0, call.outputs[1].numel(), dgrid.data());
}

void computeGrid(const OpCall& call) {
  const GridGeom g = geomOf(call);
  if (call.op_type == "GridSampler2DGrad") computeBackward(call, g);
  else computeForward(call, g);
}

KernelCost costGrid(const OpCall& call) {
  const GridGeom g = geomOf(call);
  KernelCost c = vectorCost(call);
  const double taps = g.interp == Interp::kBicubic ? 16 : g.interp == Interp::kBilinear ? 4 : 1;
  c.flops = 2 * taps * static_cast<double>(g.n * g.c * g.ho * g.wo);
  c.block_dim = static_cast<uint32_t>(blocksFor(call, g.n * g.ho, g.n * g.c * g.ho * g.wo));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GridSampler2D", &validateGrid, &computeGrid, &costGrid});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GridSampler2DGrad", &validateGrid, &computeGrid, &costGrid});

}  // namespace
}  // namespace ascend_sim
