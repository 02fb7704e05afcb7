// GroupNorm and GroupNormGrad (OPS.md "Dense prediction, padding, layout
// and indexing"): PyTorch's native_group_norm and its backward.
//
// Note [Group norm numerics]
// x is [N, C, *] (row-major; HxW = the product of the trailing dims), G =
// attr num_groups divides C, D = C / G, and group (n, g) is the M = D·HxW
// contiguous elements of channels g·D .. g·D + D − 1 of sample n. fp32
// throughout; sums follow Note [Pairwise blocks] (block = 256 bytes of x's
// dtype) over the group's elements in memory order. Two passes:
//   mean = Σ x / M;  var = Σ (x − mean)² / M;  rstd = 1 / sqrt(var + eps)
//   (M = 0: mean = 0, var = 0 / 0 = NaN, as PyTorch's CPU kernel)
//   y = (x − mean) · rstd · gamma[c] + beta[c]   (gamma 1 / beta 0 when absent)
// mean and rstd are written [N, G] in x's dtype (as PyTorch's outputs).
// Grad (PyTorch's formulas; mean / rstd are read back from the forward):
//   ds[n, c] = Σ_hw dy·x,  db[n, c] = Σ_hw dy
//   dgamma[c] = Σ_n (ds − db·mean)·rstd  (n ascending);  dbeta[c] = Σ_n db
//   per group: sg = Σ_c ds·gamma, bg = Σ_c db·gamma (c ascending), s = 1 / M,
//   c2 = (bg·mean − sg)·rstd³·s,  c3 = −c2·mean − bg·rstd·s,
//   dx = gamma[c]·rstd·dy + c2·x + c3.
// Work split over groups (forward, dx), (n, c) planes (ds, db) and channels
// (dgamma, dbeta): each value is computed by one task in a fixed order.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernel/index_util.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

struct GnGeom {
  int64_t n = 0, c = 0, hw = 1, g = 1, d = 1;
  int64_t m() const { return d * hw; }
};

GnGeom geomOf(const OpCall& call, const TensorArg& x) {
  if (x.shape.size() < 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x shape " + shapeToString(x.shape) + " must be [N, C, *] (rank >= 2)");
  GnGeom g;
  g.n = x.shape[0];
  g.c = x.shape[1];
  for (size_t i = 2; i < x.shape.size(); ++i) g.hw *= x.shape[i];
  g.g = attrInt(call, "num_groups");
  if (g.g < 1 || g.c % g.g != 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "num_groups " + std::to_string(g.g) + " must be positive and divide C = " + std::to_string(g.c));
  g.d = g.c / g.g;
  return g;
}

// The optional [C] parameters after the fixed inputs: (has_gamma, has_beta).
void checkParams(const OpCall& call, size_t first, const GnGeom& g, const TensorArg& x, bool beta_allowed) {
  const bool has_gamma = attrBool(call, "has_gamma", false);
  const bool has_beta = beta_allowed && attrBool(call, "has_beta", false);
  const size_t want = first + (has_gamma ? 1 : 0) + (has_beta ? 1 : 0);
  if (call.inputs.size() != want)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(want) + " inputs (has_gamma / has_beta), got " + std::to_string(call.inputs.size()));
  for (size_t i = first; i < want; ++i) {
    const std::string name = i == first && has_gamma ? "input gamma" : "input beta";
    checkSameDtype(call, x, "x", call.inputs[i], name);
    checkShapeEq(call, call.inputs[i], name, {g.c}, "[C] =");
  }
}

std::vector<float> loadAll(const TensorArg& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

// gamma / beta as fp32 (fill when absent).
std::vector<float> param(const OpCall& call, const char* attr, size_t index, int64_t c, float fill) {
  if (!attrBool(call, attr, false)) return std::vector<float>(static_cast<size_t>(c), fill);
  return loadAll(call.inputs[index]);
}

// ---- GroupNorm: x[, gamma][, beta] -> y, mean, rstd -------------------------------------------

void validateGroupNorm(const OpCall& call) {
  checkArity(call, 1, 3, 3);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  const GnGeom g = geomOf(call, x);
  checkParams(call, 1, g, x, true);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  for (size_t i = 1; i < 3; ++i) {
    const std::string name = i == 1 ? "output mean" : "output rstd";
    checkSameDtype(call, x, "x", call.outputs[i], name);
    checkShapeEq(call, call.outputs[i], name, {g.n, g.g}, "[N, num_groups] =");
  }
  attrFloat(call, "epsilon");
}

void computeGroupNorm(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const GnGeom g = geomOf(call, x);
  const float eps = attrFloat(call, "epsilon");
  const std::vector<float> xs = loadAll(x);
  const std::vector<float> gamma = param(call, "has_gamma", 1, g.c, 1.0f);
  const std::vector<float> beta = param(call, "has_beta", attrBool(call, "has_gamma", false) ? 2 : 1, g.c, 0.0f);
  const int64_t groups = g.n * g.g, m = g.m(), block = reduceBlockElems(x.dtype);
  std::vector<float> y(xs.size()), mean(static_cast<size_t>(groups)), rstd(static_cast<size_t>(groups));
  splitRange(groups, blocksFor(call, groups, x.numel()), [&](int64_t lo, int64_t hi) {
    std::vector<float> buf(static_cast<size_t>(m));
    for (int64_t q = lo; q < hi; ++q) {
      const float* src = xs.data() + q * m;
      std::copy(src, src + m, buf.begin());
      const float mu = m ? pairwiseSum(buf.data(), m, block) / static_cast<float>(m) : 0.0f;
      for (int64_t i = 0; i < m; ++i) buf[static_cast<size_t>(i)] = (src[i] - mu) * (src[i] - mu);
      const float var = pairwiseSum(buf.data(), m, block) / static_cast<float>(m);
      const float r = 1.0f / std::sqrt(var + eps);
      mean[static_cast<size_t>(q)] = mu;
      rstd[static_cast<size_t>(q)] = r;
      const int64_t c0 = (q % g.g) * g.d;
      for (int64_t i = 0; i < m; ++i) {
        const size_t c = static_cast<size_t>(c0 + i / g.hw);
        y[static_cast<size_t>(q * m + i)] = (src[i] - mu) * r * gamma[c] + beta[c];
      }
    }
  });
  storeFloat(x.dtype, call.outputs[0].data, 0, x.numel(), y.data());
  storeFloat(call.outputs[1].dtype, call.outputs[1].data, 0, groups, mean.data());
  storeFloat(call.outputs[2].dtype, call.outputs[2].data, 0, groups, rstd.data());
}

// ---- GroupNormGrad: dy, x, mean, rstd[, gamma] -> dx, dgamma, dbeta ---------------------------

void validateGroupNormGrad(const OpCall& call) {
  checkArity(call, 4, 5, 3);
  const TensorArg& dy = call.inputs[0];
  const TensorArg& x = call.inputs[1];
  checkDtype(call, x, "input x", kFloatTypes);
  const GnGeom g = geomOf(call, x);
  checkSameDtype(call, x, "x", dy, "input dy");
  checkShapeEq(call, dy, "input dy", x.shape, "x shape");
  for (size_t i = 2; i < 4; ++i) {
    const std::string name = i == 2 ? "input mean" : "input rstd";
    checkSameDtype(call, x, "x", call.inputs[i], name);
    checkShapeEq(call, call.inputs[i], name, {g.n, g.g}, "[N, num_groups] =");
  }
  checkParams(call, 4, g, x, false);
  checkSameDtype(call, x, "x", call.outputs[0], "output dx");
  checkShapeEq(call, call.outputs[0], "output dx", x.shape, "x shape");
  for (size_t i = 1; i < 3; ++i) {
    const std::string name = i == 1 ? "output dgamma" : "output dbeta";
    checkSameDtype(call, x, "x", call.outputs[i], name);
    checkShapeEq(call, call.outputs[i], name, {g.c}, "[C] =");
  }
}

void computeGroupNormGrad(const OpCall& call) {
  const TensorArg& x = call.inputs[1];
  const GnGeom g = geomOf(call, x);
  const std::vector<float> dy = loadAll(call.inputs[0]), xs = loadAll(x);
  const std::vector<float> mean = loadAll(call.inputs[2]), rstd = loadAll(call.inputs[3]);
  const std::vector<float> gamma = param(call, "has_gamma", 4, g.c, 1.0f);
  const int64_t planes = g.n * g.c, groups = g.n * g.g, block = reduceBlockElems(x.dtype);
  // ds / db per (n, c) plane.
  std::vector<float> ds(static_cast<size_t>(planes)), db(static_cast<size_t>(planes));
  splitRange(planes, blocksFor(call, planes, x.numel()), [&](int64_t lo, int64_t hi) {
    std::vector<float> a(static_cast<size_t>(g.hw)), b(static_cast<size_t>(g.hw));
    for (int64_t p = lo; p < hi; ++p) {
      for (int64_t i = 0; i < g.hw; ++i) {
        const size_t e = static_cast<size_t>(p * g.hw + i);
        a[static_cast<size_t>(i)] = dy[e] * xs[e];
        b[static_cast<size_t>(i)] = dy[e];
      }
      ds[static_cast<size_t>(p)] = pairwiseSum(a.data(), g.hw, block);
      db[static_cast<size_t>(p)] = pairwiseSum(b.data(), g.hw, block);
    }
  });
  // dgamma / dbeta per channel (n ascending).
  std::vector<float> dgamma(static_cast<size_t>(g.c), 0.0f), dbeta(static_cast<size_t>(g.c), 0.0f);
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t n = 0; n < g.n; ++n) {
      const size_t p = static_cast<size_t>(n * g.c + c), q = static_cast<size_t>(n * g.g + c / g.d);
      dgamma[static_cast<size_t>(c)] += (ds[p] - db[p] * mean[q]) * rstd[q];
      dbeta[static_cast<size_t>(c)] += db[p];
    }
  // dx per group.
  std::vector<float> dx(xs.size());
  const float s = g.m() ? 1.0f / static_cast<float>(g.m()) : 0.0f;
  splitRange(groups, blocksFor(call, groups, x.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t q = lo; q < hi; ++q) {
      const int64_t n = q / g.g, c0 = (q % g.g) * g.d;
      float sg = 0, bg = 0;
      for (int64_t c = c0; c < c0 + g.d; ++c) {
        sg += ds[static_cast<size_t>(n * g.c + c)] * gamma[static_cast<size_t>(c)];
        bg += db[static_cast<size_t>(n * g.c + c)] * gamma[static_cast<size_t>(c)];
      }
      const float mu = mean[static_cast<size_t>(q)], r = rstd[static_cast<size_t>(q)];
      const float c2 = (bg * mu - sg) * r * r * r * s;
      const float c3 = -c2 * mu - bg * r * s;
      for (int64_t c = c0; c < c0 + g.d; ++c) {
        const float k = gamma[static_cast<size_t>(c)] * r;
        for (int64_t i = 0; i < g.hw; ++i) {
          const size_t e = static_cast<size_t>((n * g.c + c) * g.hw + i);
          dx[e] = k * dy[e] + c2 * xs[e] + c3;
        }
      }
    }
  });
  storeFloat(x.dtype, call.outputs[0].data, 0, x.numel(), dx.data());
  storeFloat(x.dtype, call.outputs[1].data, 0, g.c, dgamma.data());
  storeFloat(x.dtype, call.outputs[2].data, 0, g.c, dbeta.data());
}

KernelCost costGroupNorm(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const TensorArg& x = call.op_type == "GroupNorm" ? call.inputs[0] : call.inputs[1];
  const GnGeom g = geomOf(call, x);
  c.flops = 8.0 * static_cast<double>(x.numel());
  c.block_dim = static_cast<uint32_t>(blocksFor(call, g.n * g.g, x.numel()));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GroupNorm", &validateGroupNorm, &computeGroupNorm, &costGroupNorm});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GroupNormGrad", &validateGroupNormGrad, &computeGroupNormGrad, &costGroupNorm});

}  // namespace
}  // namespace ascend_sim
