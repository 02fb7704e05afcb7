// GridSampler2D / GridSampler3D and their gradients (OPS.md "Dense
// prediction, padding, layout and indexing"): PyTorch's grid_sampler_2d /
// grid_sampler_3d and their backward.
//
// Note [Grid sampler numerics]
// x [N, C, (D,) H, W], grid [N, (Do,) Ho, Wo, r] (x, y(, z), normalised to
// [−1, 1]) → y [N, C, (Do,) Ho, Wo]. Per grid point, in fp32 with PyTorch's CPU formulas
// (GridSampler.h): the coordinate is unnormalised ((g + 1)/2·(size − 1) with
// align_corners, else ((g + 1)·size − 1)/2), then padded: "border" clamps to
// [0, size − 1], "reflection" reflects about the pixel edges (centres with
// align_corners) and clamps; "zeros" leaves it and out-of-range taps read 0.
//   bilinear  the 2^r neighbours ⌊c⌋, ⌊c⌋ + 1 per dim with weights
//             ((⌊c⌋ + 1 − c) or (c − ⌊c⌋)) multiplied x·y·z, summed with x
//             fastest (nw, ne, sw, se; trilinear: top then bottom)
//   nearest   the neighbour at the rounded coordinates: half to even in 2-D
//             (PyTorch's nearbyint), half away from zero in 3-D (its std::round)
//   bicubic   (2-D only) 4 × 4 taps around ⌊ix⌋, ⌊iy⌋ of the unpadded coordinate, Keys
//             a = −0.75 weights, each tap's position padded on its own; each
//             row is interpolated along x first, then the rows along y
// Backward: dx = 0; for every n, every grid point in row-major order and every
// channel, each tap adds weight·dy to dx (fp32) and the grid gradient
// accumulates the weight derivatives times the tap values and dy, then is
// scaled by the chain rule of the unnormalisation and padding (0 where a
// coordinate was clamped). Work split: forward over (n, output point),
// backward over n; every element is computed in the fixed order above.
#include <cmath>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

enum class Interp { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridGeom {
  Interp interp = Interp::kBilinear;
  Padding padding = Padding::kZeros;
  bool align = false;
  int rank = 2;                    // spatial dims
  int64_t n = 0, c = 0;
  int64_t size[3] = {1, 1, 1};     // input spatial sizes, x (W), y (H), z (D) order
  int64_t stride[3] = {1, 1, 1};   // their strides in an (n, c) plane
  int64_t plane = 1, points = 1;   // input plane size, output points per sample
};

bool isGrad(const OpCall& call) { return call.op_type.size() > 4 && call.op_type.compare(call.op_type.size() - 4, 4, "Grad") == 0; }

GridGeom geomOf(const OpCall& call) {
  const bool grad = isGrad(call);
  checkArity(call, grad ? 3 : 2, grad ? 3 : 2, grad ? 2 : 1);
  GridGeom g;
  g.rank = call.op_type.rfind("GridSampler3D", 0) == 0 ? 3 : 2;
  const TensorArg& x = call.inputs[grad ? 1 : 0];
  const TensorArg& grid = call.inputs[grad ? 2 : 1];
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", grid, "input grid");
  const size_t rank = static_cast<size_t>(g.rank) + 2;
  for (const TensorArg* t : {&x, &grid})
    if (t->shape.size() != rank)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string(t == &x ? "input x" : "input grid") + " shape " + shapeToString(t->shape) + " must be " +
               std::to_string(rank) + "-D");
  g.n = x.shape[0], g.c = x.shape[1];
  for (int k = 0; k < g.rank; ++k) {
    g.size[k] = x.shape[rank - 1 - static_cast<size_t>(k)];
    g.stride[k] = k == 0 ? 1 : g.stride[k - 1] * g.size[k - 1];
  }
  g.plane = g.stride[g.rank - 1] * g.size[g.rank - 1];
  Shape grid_want = {g.n}, y_want = {g.n, g.c};
  for (size_t d = 1; d + 1 < rank; ++d) grid_want.push_back(grid.shape[d]), y_want.push_back(grid.shape[d]);
  g.points = numelOf(y_want) / std::max<int64_t>(1, g.n * g.c);
  grid_want.push_back(g.rank);
  checkShapeEq(call, grid, "input grid", grid_want, "[N, *out, spatial rank] =");
  const std::string interp = attrString(call, "interpolation_mode", "bilinear");
  const std::string padding = attrString(call, "padding_mode", "zeros");
  if (interp == "bilinear") g.interp = Interp::kBilinear;
  else if (interp == "nearest") g.interp = Interp::kNearest;
  else if (interp == "bicubic" && g.rank == 2) g.interp = Interp::kBicubic;
  else fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'interpolation_mode' is \"" + interp + "\"; expected \"bilinear\", \"nearest\"" + (g.rank == 2 ? " or \"bicubic\"" : " (bicubic is 2-D only)"));
  if (padding == "zeros") g.padding = Padding::kZeros;
  else if (padding == "border") g.padding = Padding::kBorder;
  else if (padding == "reflection") g.padding = Padding::kReflection;
  else fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'padding_mode' is \"" + padding + "\"; expected \"zeros\", \"border\" or \"reflection\"");
  g.align = attrBool(call, "align_corners", false);
  if (grad) {
    checkSameDtype(call, x, "x", call.inputs[0], "input dy");
    checkShapeEq(call, call.inputs[0], "input dy", y_want, "[N, C, *out] =");
    checkSameDtype(call, x, "x", call.outputs[0], "output dx");
    checkShapeEq(call, call.outputs[0], "output dx", x.shape, "x shape");
    checkSameDtype(call, x, "x", call.outputs[1], "output dgrid");
    checkShapeEq(call, call.outputs[1], "output dgrid", grid.shape, "grid shape");
  } else {
    checkSameDtype(call, x, "x", call.outputs[0], "output y");
    checkShapeEq(call, call.outputs[0], "output y", y_want, "[N, C, *out] =");
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
  int64_t off = -1;            // offset in the (n, c) plane, −1 out of range
  float w = 0;                 // weight
  float dw[3] = {0, 0, 0};     // d weight / d coordinate (x, y, z), before the chain-rule factors
};

// Bicubic taps are stored x-major (tap i·4 + j reads x offset i, y offset j:
// PyTorch's backward order); wx / wy are their separable weights.
struct Point {
  std::vector<Tap> taps;
  float gmul[3] = {1, 1, 1};  // chain-rule factors of the grid coordinates
  float wx[4] = {0, 0, 0, 0}, wy[4] = {0, 0, 0, 0};
};

// Plane offset of integer coordinates (x, y, z order), −1 outside.
int64_t offsetOf(const GridGeom& g, const int64_t* c) {
  int64_t off = 0;
  for (int k = 0; k < g.rank; ++k) {
    if (c[k] < 0 || c[k] >= g.size[k]) return -1;
    off += c[k] * g.stride[k];
  }
  return off;
}

Point bicubicPoint(const GridGeom& g, const float* gv) {
  Point p;
  const float ix = unnormalize(gv[0], g.size[0], g.align, &p.gmul[0]);
  const float iy = unnormalize(gv[1], g.size[1], g.align, &p.gmul[1]);
  const float fx = std::floor(ix), fy = std::floor(iy), tx = ix - fx, ty = iy - fy;
  float dwx[4], dwy[4];
  cubicWeights(tx, p.wx), cubicWeights(ty, p.wy), cubicWeightGrads(tx, dwx), cubicWeightGrads(ty, dwy);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float unused;
      const int64_t c[2] = {static_cast<int64_t>(pad(g, fx - 1 + static_cast<float>(i), g.size[0], &unused)),
                            static_cast<int64_t>(pad(g, fy - 1 + static_cast<float>(j), g.size[1], &unused))};
      Tap t;
      t.off = offsetOf(g, c);
      t.w = p.wx[i] * p.wy[j];
      t.dw[0] = -dwx[i] * p.wy[j];
      t.dw[1] = -dwy[j] * p.wx[i];
      p.taps.push_back(t);
    }
  return p;
}

Point pointOf(const GridGeom& g, const float* gv) {
  if (g.interp == Interp::kBicubic) return bicubicPoint(g, gv);
  Point p;
  float ic[3];
  for (int k = 0; k < g.rank; ++k) ic[k] = sourceIndex(g, gv[k], g.size[k], &p.gmul[k]);
  if (g.interp == Interp::kNearest) {
    int64_t c[3];
    for (int k = 0; k < g.rank; ++k) c[k] = static_cast<int64_t>(g.rank == 3 ? std::round(ic[k]) : std::nearbyint(ic[k]));
    Tap t;
    t.off = offsetOf(g, c);
    t.w = 1;
    p.taps.push_back(t);
    p.gmul[0] = p.gmul[1] = p.gmul[2] = 0;
    return p;
  }
  // Per dim: the lower corner and the weights of lower / upper ((lo + 1) − c, c − lo).
  int64_t lo[3];
  float wt[3][2];
  for (int k = 0; k < g.rank; ++k) {
    lo[k] = static_cast<int64_t>(std::floor(ic[k]));
    wt[k][0] = static_cast<float>(lo[k] + 1) - ic[k];
    wt[k][1] = ic[k] - static_cast<float>(lo[k]);
  }
  for (int corner = 0; corner < (1 << g.rank); ++corner) {  // x fastest
    Tap t;
    int64_t c[3];
    t.w = 1;
    for (int k = 0; k < g.rank; ++k) {
      const int bit = (corner >> k) & 1;
      c[k] = lo[k] + bit;
      t.w *= wt[k][bit];
    }
    for (int k = 0; k < g.rank; ++k) {
      float d = ((corner >> k) & 1) ? 1.0f : -1.0f;
      for (int j = 0; j < g.rank; ++j)
        if (j != k) d *= wt[j][(corner >> j) & 1];
      t.dw[k] = d;
    }
    t.off = offsetOf(g, c);
    p.taps.push_back(t);
  }
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
  const int64_t total = g.n * g.points;
  splitRange(total, blocksFor(call, total, y.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t at = lo; at < hi; ++at) {
      const int64_t n = at / g.points, q = at % g.points;
      const Point p = pointOf(g, &grid[static_cast<size_t>(at * g.rank)]);
      for (int64_t c = 0; c < g.c; ++c) {
        const float* src = x.data() + (n * g.c + c) * g.plane;
        float acc = 0;
        if (g.interp == Interp::kBicubic) {  // each row (fixed y tap) along x first, then the rows along y
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
        out[static_cast<size_t>((n * g.c + c) * g.points + q)] = acc;
      }
    }
  });
  storeFloat(y.dtype, y.data, 0, y.numel(), out.data());
}

void computeBackward(const OpCall& call, const GridGeom& g) {
  const std::vector<float> dy = load(call.inputs[0]), x = load(call.inputs[1]), grid = load(call.inputs[2]);
  std::vector<float> dx(x.size(), 0.0f), dgrid(grid.size(), 0.0f);
  splitRange(g.n, blocksFor(call, g.n, static_cast<int64_t>(x.size())), [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t q = 0; q < g.points; ++q) {
        const size_t gi = static_cast<size_t>((n * g.points + q) * g.rank);
        const Point p = pointOf(g, &grid[gi]);
        float gc[3] = {0, 0, 0};
        for (int64_t c = 0; c < g.c; ++c) {
          const float go = dy[static_cast<size_t>((n * g.c + c) * g.points + q)];
          float* dplane = dx.data() + (n * g.c + c) * g.plane;
          const float* xplane = x.data() + (n * g.c + c) * g.plane;
          for (const Tap& t : p.taps) {
            if (t.off < 0) continue;
            dplane[t.off] += t.w * go;
            for (int k = 0; k < g.rank; ++k) gc[k] += xplane[t.off] * t.dw[k] * go;
          }
        }
        for (int k = 0; k < g.rank; ++k) dgrid[gi + static_cast<size_t>(k)] = p.gmul[k] * gc[k];
      }
  });
  storeFloat(call.outputs[0].dtype, call.outputs[0].data, 0, call.outputs[0].numel(), dx.data());
  storeFloat(call.outputs[1].dtype, call.outputs[1].data, 0, call.outputs[1].numel(), dgrid.data());
}

void computeGrid(const OpCall& call) {
  const GridGeom g = geomOf(call);
  if (isGrad(call)) computeBackward(call, g);
  else computeForward(call, g);
}

KernelCost costGrid(const OpCall& call) {
  const GridGeom g = geomOf(call);
  KernelCost c = vectorCost(call);
  const double taps = g.interp == Interp::kBicubic ? 16 : g.interp == Interp::kBilinear ? (1 << g.rank) : 1;
  c.flops = 2 * taps * static_cast<double>(g.n * g.c * g.points);
  c.block_dim = static_cast<uint32_t>(isGrad(call) ? blocksFor(call, g.n, g.n * g.c * g.plane)
                                                   : blocksFor(call, g.n * g.points, g.n * g.c * g.points));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GridSampler2D", &validateGrid, &computeGrid, &costGrid});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GridSampler2DGrad", &validateGrid, &computeGrid, &costGrid});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GridSampler3D", &validateGrid, &computeGrid, &costGrid});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GridSampler3DGrad", &validateGrid, &computeGrid, &costGrid});

}  // namespace
}  // namespace ascend_sim
