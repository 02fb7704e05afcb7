// Cdist and CdistGrad (OPS.md "Dense prediction, padding, layout and
// indexing"): torch.cdist's _cdist_forward and _cdist_backward.
//
// Note [Cdist numerics]
// x1 [B, P, M], x2 [B, R, M] → y [B, P, R], y[b, i, j] = ‖x1[b, i] − x2[b, j]‖_p
// for attr p ≥ 0 (inf allowed), accumulated over m ascending in fp32:
//   p = 0: count of non-zero differences;  p = 1: Σ|d|;  p = 2: sqrt(Σ d²);
//   p = inf: max |d|;  otherwise (Σ |d|^p)^(1/p).
// Grad (PyTorch's per-element rules; dist = y[b, i, j], g = grad[b, i, j],
// d = x1[b, i, m] − x2[b, j, m]): dx1[b, i, m] = Σ_j (j ascending, fp32) of
//   p = 0: 0;  p = 1: g·sign(d);
//   p < 2: 0 if dist = 0 or (d = 0 and p < 1), else sign(d)·|d|^(p−1)·g / dist^(p−1)
//   p = 2: 0 if dist = 0, else g·d / dist
//   p = inf: g·sign(d)·(|d| == dist)
//   else:  0 if dist = 0, else d·|d|^(p−2)·g / dist^(p−1)
// Rows (b, i) are split over the vector cores.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

struct CdistGeom {
  int64_t b = 0, p = 0, r = 0, m = 0;
  float norm = 2;
};

void check3d(const OpCall& call, const TensorArg& t, const std::string& name) {
  if (t.shape.size() != 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, name + " shape " + shapeToString(t.shape) + " must be 3-D [B, rows, M]");
}

CdistGeom geomOf(const OpCall& call) {
  const bool grad = call.op_type == "CdistGrad";
  checkArity(call, grad ? 4 : 2, grad ? 4 : 2, 1);
  const TensorArg& x1 = call.inputs[grad ? 1 : 0];
  const TensorArg& x2 = call.inputs[grad ? 2 : 1];
  checkDtype(call, x1, "input x1", kFloatTypes);
  check3d(call, x1, "input x1");
  check3d(call, x2, "input x2");
  CdistGeom g;
  g.b = x1.shape[0], g.p = x1.shape[1], g.m = x1.shape[2], g.r = x2.shape[1];
  g.norm = attrFloat(call, "p");
  if (!(g.norm >= 0)) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'p' must be >= 0, got " + std::to_string(g.norm));
  checkSameDtype(call, x1, "x1", x2, "input x2");
  checkShapeEq(call, x2, "input x2", {g.b, g.r, g.m}, "[B, R, M] with x1's B and M =");
  if (grad) {
    for (size_t i : {0, 3}) {
      const std::string name = i == 0 ? "input grad" : "input cdist";
      checkSameDtype(call, x1, "x1", call.inputs[i], name);
      checkShapeEq(call, call.inputs[i], name, {g.b, g.p, g.r}, "[B, P, R] =");
    }
    checkSameDtype(call, x1, "x1", call.outputs[0], "output y");
    checkShapeEq(call, call.outputs[0], "output y", x1.shape, "x1 shape");
  } else {
    checkSameDtype(call, x1, "x1", call.outputs[0], "output y");
    checkShapeEq(call, call.outputs[0], "output y", {g.b, g.p, g.r}, "[B, P, R] =");
  }
  return g;
}

std::vector<float> load(const TensorArg& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

float sign(float v) { return static_cast<float>((v > 0) - (v < 0)); }

float distance(const float* a, const float* b, int64_t m, float p) {
  float acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const float d = std::fabs(a[k] - b[k]);
    if (p == 0) acc += d != 0 ? 1.0f : 0.0f;
    else if (p == 1) acc += d;
    else if (p == 2) acc += d * d;
    else if (std::isinf(p)) acc = std::max(acc, d);
    else acc += std::pow(d, p);
  }
  if (p == 2) return std::sqrt(acc);
  if (p == 0 || p == 1 || std::isinf(p)) return acc;
  return std::pow(acc, 1.0f / p);
}

float gradTerm(float d, float g, float dist, float p) {
  if (p == 0) return 0;
  if (p == 1) return g * sign(d);
  if (std::isinf(p)) return g * sign(d) * (std::fabs(d) == dist ? 1.0f : 0.0f);
  if (dist == 0) return 0;
  if (p < 2) return d == 0 && p < 1 ? 0 : sign(d) * std::pow(std::fabs(d), p - 1) * g / std::pow(dist, p - 1);
  if (p == 2) return g * d / dist;
  return d * std::pow(std::fabs(d), p - 2) * g / std::pow(dist, p - 1);
}

void validateCdist(const OpCall& call) { geomOf(call); }

void computeCdist(const OpCall& call) {
  const CdistGeom g = geomOf(call);
  const bool grad = call.op_type == "CdistGrad";
  const std::vector<float> x1 = load(call.inputs[grad ? 1 : 0]), x2 = load(call.inputs[grad ? 2 : 1]);
  const TensorArg& y = call.outputs[0];
  std::vector<float> out(static_cast<size_t>(y.numel()), 0.0f);
  std::vector<float> gr, dist;
  if (grad) gr = load(call.inputs[0]), dist = load(call.inputs[3]);
  const int64_t rows = g.b * g.p;
  splitRange(rows, blocksFor(call, rows, y.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t b = row / g.p;
      const float* a = x1.data() + row * g.m;
      for (int64_t j = 0; j < g.r; ++j) {
        const float* c = x2.data() + (b * g.r + j) * g.m;
        if (!grad) {
          out[static_cast<size_t>(row * g.r + j)] = distance(a, c, g.m, g.norm);
          continue;
        }
        const size_t at = static_cast<size_t>(row * g.r + j);
        for (int64_t k = 0; k < g.m; ++k)
          out[static_cast<size_t>(row * g.m + k)] += gradTerm(a[k] - c[k], gr[at], dist[at], g.norm);
      }
    }
  });
  storeFloat(y.dtype, y.data, 0, y.numel(), out.data());
}

KernelCost costCdist(const OpCall& call) {
  const CdistGeom g = geomOf(call);
  KernelCost c = vectorCost(call);
  c.flops = 3.0 * static_cast<double>(g.b * g.p * g.r * g.m);
  c.vector_repeats = std::max<double>(c.vector_repeats, c.flops / 64.0);
  c.block_dim = static_cast<uint32_t>(blocksFor(call, g.b * g.p, call.outputs[0].numel()));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Cdist", &validateCdist, &computeCdist, &costCdist});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"CdistGrad", &validateCdist, &computeCdist, &costCdist});

}  // namespace
}  // namespace ascend_sim
