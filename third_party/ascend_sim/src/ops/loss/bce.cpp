// Binary cross entropy losses (OPS.md "Indexing, concatenation, sorting,
// losses"): BinaryCrossEntropy(+Grad) on probabilities and
// SigmoidCrossEntropyWithLogitsV2(+GradV2) on logits, with PyTorch's CPU
// formulas evaluated in fp32 (one rounding to the output dtype):
//   BCE        l = (y - 1) * max(log1p(-x), -100) - y * max(log(x), -100);  l *= w
//   BCEGrad    d = g * (x - y) / max((1 - x) * x, 1e-12);  d *= w;  mean: d /= numel
//   SCE        ls = min(x, 0) - log1p(exp(-|x|))            (log-sigmoid, stable)
//              pos_weight: ls *= (pw - 1) * y + 1
//              l = (1 - y) * x - ls;  l *= w
//   SCEGrad    s = 1 / (1 + exp(-x));  pos_weight: t = pw * y, d = (t + 1 - y) * s - t
//              else d = s - y;  d *= g;  d *= w;  mean: d /= numel
// `weight` and `pos_weight` broadcast to x's shape (NumPy rules). Attr
// `reduction` ("none", "sum", "mean"; default "mean"): "none" keeps x's
// shape; "sum"/"mean" give a 0-d (or [1]) loss, the sum of all elementwise
// losses in row-major order per Note [Pairwise blocks] (block = 256 bytes of
// x's dtype), mean = sum / numel (0/0 = NaN for an empty x, as PyTorch). The
// grads take grad_output of the loss's shape. Input x values outside [0, 1]
// are not checked (the logs give NaN), unlike PyTorch's host-side check.
// Optional inputs (OPS.md): BinaryCrossEntropy(Grad) has a weight iff it has
// 3 (4) inputs; the logits ops have 0, 1 or 2 trailing optional inputs; with
// one, it is pos_weight iff attr has_pos_weight is true and has_weight is not.
// Attrs has_weight / has_pos_weight, when given, must agree with the count.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

enum class Reduction { kNone, kSum, kMean };

Reduction reductionOf(const OpCall& call) {
  const std::string r = attrString(call, "reduction", "mean");
  if (r == "none") return Reduction::kNone;
  if (r == "sum") return Reduction::kSum;
  if (r == "mean") return Reduction::kMean;
  fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'reduction' is \"" + r + "\"; expected none, sum or mean");
}

bool isLogits(const OpCall& call) { return call.op_type.rfind("SigmoidCrossEntropyWithLogits", 0) == 0; }
bool isGrad(const OpCall& call) { return call.op_type.find("Grad") != std::string::npos; }

// Input positions of one call (-1 = absent).
struct Layout {
  int x = 0, y = 1, grad = -1, weight = -1, pos_weight = -1;
};

Layout layoutOf(const OpCall& call) {
  Layout l;
  const bool grad = isGrad(call), logits = isLogits(call);
  const int base = grad ? 3 : 2;
  if (grad) l.grad = 2;
  const int n = static_cast<int>(call.inputs.size());
  const int max_extra = logits ? 2 : 1;
  if (n < base || n > base + max_extra)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(base) + ".." + std::to_string(base + max_extra) + " inputs, got " +
             std::to_string(n));
  const int extra = n - base;
  const bool hw_given = call.attrs.has("has_weight"), hp_given = call.attrs.has("has_pos_weight");
  const bool hw = attrBool(call, "has_weight", false), hp = attrBool(call, "has_pos_weight", false);
  if (!logits && hp)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'has_pos_weight' is not supported by this op");
  if (extra == 2) {
    l.weight = base;
    l.pos_weight = base + 1;
  } else if (extra == 1) {
    if (hp && !hw) l.pos_weight = base;
    else l.weight = base;
  }
  const int want = (l.weight >= 0) + (l.pos_weight >= 0);
  if ((hw_given || hp_given) && (hw ? 1 : 0) + (hp ? 1 : 0) != want)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "attributes has_weight=" + std::string(hw ? "true" : "false") + " / has_pos_weight=" +
             (hp ? "true" : "false") + " do not match the " + std::to_string(extra) + " optional input(s) given");
  return l;
}

void checkLossShape(const OpCall& call, const TensorArg& t, const std::string& name, const TensorArg& x,
                    Reduction r) {
  if (r == Reduction::kNone) {
    checkShapeEq(call, t, name, x.shape, "x shape");
  } else if (t.numel() != 1 || t.shape.size() > 1) {
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(t.shape) + " must be 0-d (or [1]) for reduction sum/mean");
  }
}

void validateBce(const OpCall& call) {
  const Layout l = layoutOf(call);  // input count first: its message names the optional inputs
  checkArity(call, call.inputs.size(), call.inputs.size(), 1);
  const Reduction r = reductionOf(call);
  const TensorArg& x = call.inputs[l.x];
  const bool logits = isLogits(call);
  const std::string xname = logits ? "predict" : "x";
  checkDtype(call, x, "input " + xname, kFloatTypes);
  checkSameDtype(call, x, xname, call.inputs[l.y], logits ? "input target" : "input y");
  checkShapeEq(call, call.inputs[l.y], logits ? "input target" : "input y", x.shape, xname + " shape");
  auto opt = [&](int i, const char* name) {
    if (i < 0) return;
    checkSameDtype(call, x, xname, call.inputs[i], std::string("input ") + name);
    if (!broadcastsTo(call.inputs[i].shape, x.shape))
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string("input ") + name + " shape " + shapeToString(call.inputs[i].shape) +
               " does not broadcast to " + xname + " shape " + shapeToString(x.shape));
  };
  opt(l.weight, "weight");
  opt(l.pos_weight, "pos_weight");
  const TensorArg& out = call.outputs[0];
  checkSameDtype(call, x, xname, out, "output");
  if (isGrad(call)) {
    const std::string gname = logits ? "input dout" : "input grad_output";
    checkSameDtype(call, x, xname, call.inputs[l.grad], gname);
    checkLossShape(call, call.inputs[l.grad], gname, x, r);
    checkShapeEq(call, out, logits ? "output gradient" : "output dx", x.shape, xname + " shape");
  } else {
    checkLossShape(call, out, "output loss", x, r);
  }
}

// t broadcast to `shape`, as fp32 row-major values.
std::vector<float> loadBroadcast(const TensorArg& t, const Shape& shape) {
  std::vector<float> v(static_cast<size_t>(numelOf(shape)));
  if (t.shape == shape) {
    loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
    return v;
  }
  const std::vector<Shape> strides = {contiguousStrides(shape), broadcastStrides(t.shape, shape)};
  forEachInnerRun(shape, strides, [&](const int64_t* off, int64_t len, const int64_t* st) {
    loadFloat(t.dtype, t.data, off[1], st[1], len, v.data() + off[0]);
  });
  return v;
}

int64_t blocksOf(const OpCall& call, int64_t n) {
  const int64_t chunks = (n + 1023) / 1024;
  return std::max<int64_t>(1, std::min<int64_t>(chunks, std::max(call.ctx.vector_cores, 1)));
}

// Runs fn(i) for i in [0, n), split into contiguous per-core ranges.
template <typename Fn>
void forElements(const OpCall& call, int64_t n, Fn fn) {
  const int64_t blocks = blocksOf(call, n);
  parallelFor(blocks, [&](int64_t b) {
    const int64_t lo = b * n / blocks, hi = (b + 1) * n / blocks;
    for (int64_t i = lo; i < hi; ++i) fn(i);
  });
}

void computeBce(const OpCall& call) {
  const Layout l = layoutOf(call);
  const Reduction r = reductionOf(call);
  const TensorArg& xt = call.inputs[l.x];
  const TensorArg& out = call.outputs[0];
  const Shape& shape = xt.shape;
  const int64_t n = xt.numel();
  const std::vector<float> x = loadBroadcast(xt, shape);
  const std::vector<float> y = loadBroadcast(call.inputs[l.y], shape);
  const std::vector<float> w = l.weight >= 0 ? loadBroadcast(call.inputs[l.weight], shape) : std::vector<float>{};
  const std::vector<float> pw =
      l.pos_weight >= 0 ? loadBroadcast(call.inputs[l.pos_weight], shape) : std::vector<float>{};
  const bool logits = isLogits(call);
  std::vector<float> res(static_cast<size_t>(n));
  if (isGrad(call)) {
    const TensorArg& gt = call.inputs[l.grad];
    std::vector<float> g;
    if (r == Reduction::kNone) {
      g = loadBroadcast(gt, shape);
    } else {
      g.resize(1);
      loadFloat(gt.dtype, gt.data, 0, 1, 1, g.data());
    }
    const float numel = static_cast<float>(n);
    forElements(call, n, [&](int64_t i) {
      const float xi = x[i], yi = y[i], gi = g[r == Reduction::kNone ? i : 0];
      float d;
      if (logits) {
        const float s = 1.0f / (1.0f + std::exp(-xi));
        if (!pw.empty()) {
          const float t = pw[i] * yi;
          d = (t + 1.0f - yi) * s - t;
        } else {
          d = s - yi;
        }
        d = d * gi;
      } else {
        d = gi * (xi - yi) / std::max((1.0f - xi) * xi, 1e-12f);
      }
      if (!w.empty()) d = d * w[i];
      if (r == Reduction::kMean) d = d / numel;
      res[i] = d;
    });
    storeFloat(out.dtype, out.data, 0, n, res.data());
    return;
  }
  forElements(call, n, [&](int64_t i) {
    const float xi = x[i], yi = y[i];
    float v;
    if (logits) {
      float ls = std::min(xi, 0.0f) - std::log1p(std::exp(-std::fabs(xi)));
      if (!pw.empty()) ls = ls * ((pw[i] - 1.0f) * yi + 1.0f);
      v = (1.0f - yi) * xi - ls;
    } else {
      v = (yi - 1.0f) * std::max(std::log1p(-xi), -100.0f) - yi * std::max(std::log(xi), -100.0f);
    }
    if (!w.empty()) v = v * w[i];
    res[i] = v;
  });
  if (r == Reduction::kNone) {
    storeFloat(out.dtype, out.data, 0, n, res.data());
    return;
  }
  float total = pairwiseSum(res.data(), n, reduceBlockElems(xt.dtype));
  if (r == Reduction::kMean) total = total / static_cast<float>(n);
  storeFloat(out.dtype, out.data, 0, 1, &total);
}

KernelCost costBce(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const TensorArg& x = call.inputs[0];
  c.flops = 8.0 * static_cast<double>(x.numel());
  c.block_dim = static_cast<uint32_t>(blocksOf(call, x.numel()));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BinaryCrossEntropy", &validateBce, &computeBce, &costBce});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BinaryCrossEntropyGrad", &validateBce, &computeBce, &costBce});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SigmoidCrossEntropyWithLogitsV2", &validateBce, &computeBce, &costBce});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SigmoidCrossEntropyWithLogitsGradV2", &validateBce, &computeBce, &costBce});

}  // namespace
}  // namespace ascend_sim
