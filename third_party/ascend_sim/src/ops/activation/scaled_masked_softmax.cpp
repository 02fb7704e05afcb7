// ScaledMaskedSoftmax and ScaledMaskedSoftmaxGrad (OPS.md "Fused LLM kernels") on the Vector
// unit: the attention softmax of Megatron-style transformers, one kernel each way where an
// unfused graph runs Mul, MaskedFill, SoftmaxV2 (and Mul, Sub, ReduceSum, Mul, Mul, MaskedFill).
//
// Note [Scaled masked softmax]
// x [N, C, H, W] (float32 / float16 / bfloat16) with CANN's shape rule: H and W multiples of 32
// in [32, 4096]; mask a bool [*, *, H, W] broadcast to x (true = masked out), or with attr
// `fixed_triu_mask` the causal mask triu(ones(H, W), 1), the given mask ignored. Per row of W,
// in fp32, one rounding to x's dtype:
//   v = masked ? -10000 : x * scale;  y = exp(v - max v) / S exp(v - max v)
//   gradient: dx = masked ? 0 : (dy - S dy * y) * y * scale
// (attr `scale`, default 1), sums S by the pairwise rule of Note [Pairwise blocks]. A fully
// masked row is uniform (every v is -10000), as on the chip. Rows run in parallel.
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

constexpr float kMaskedLogit = -10000.0f;

bool isGrad(const OpCall& call) { return call.op_type == "ScaledMaskedSoftmaxGrad"; }

struct Rows {
  int64_t rows = 0, h = 0, w = 0;
  Shape mask_strides;  // element strides of the mask read as x (0 along broadcast dims)
};

// Operands: forward x, mask -> y; gradient dy, y, mask -> dx.
Rows validateCall(const OpCall& call) {
  const bool grad = isGrad(call);
  checkArity(call, grad ? 3 : 2, grad ? 3 : 2, 1);
  const TensorArg& x = call.inputs[grad ? 1 : 0];
  const std::string xname = grad ? "input y" : "input x";
  checkDtype(call, x, xname, kFloatTypes);
  const Shape& s = x.shape;
  if (s.size() != 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, xname + " shape " + shapeToString(s) + " must be 4-D [N, C, H, W]");
  for (int d = 2; d < 4; ++d)
    if (s[d] < 32 || s[d] > 4096 || s[d] % 32 != 0)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           xname + " shape " + shapeToString(s) +
               ": H and W must be multiples of 32 in [32, 4096] (the shapes this CANN kernel supports)");
  if (grad) {
    checkSameDtype(call, x, "y", call.inputs[0], "input dy");
    checkShapeEq(call, call.inputs[0], "input dy", s, "y's shape");
  }
  const TensorArg& mask = call.inputs[grad ? 2 : 1];
  checkDtype(call, mask, "input mask", dtBit(ACL_BOOL));
  if (mask.shape.size() != 4 || mask.shape[2] != s[2] || mask.shape[3] != s[3] || !broadcastsTo(mask.shape, s))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input mask shape " + shapeToString(mask.shape) + " must be 4-D with x's last two dims and broadcast to " +
             shapeToString(s));
  checkSameDtype(call, x, grad ? "y" : "x", call.outputs[0], grad ? "output dx" : "output y");
  checkShapeEq(call, call.outputs[0], grad ? "output dx" : "output y", s, "x's shape");
  attrFloat(call, "scale", 1.0f);
  attrBool(call, "fixed_triu_mask", false);
  Rows r;
  r.h = s[2], r.w = s[3], r.rows = s[0] * s[1] * s[2];
  r.mask_strides = broadcastStrides(mask.shape, s);
  return r;
}

void validateSoftmax(const OpCall& call) { (void)validateCall(call); }

void computeSoftmax(const OpCall& call) {
  const Rows r = validateCall(call);
  const bool grad = isGrad(call);
  const float scale = attrFloat(call, "scale", 1.0f);
  const bool triu = attrBool(call, "fixed_triu_mask", false);
  const TensorArg& x = call.inputs[grad ? 1 : 0];  // x, or y for the gradient
  const TensorArg& mask = call.inputs[grad ? 2 : 1];
  const TensorArg& out = call.outputs[0];
  const auto* mask_bytes = static_cast<const uint8_t*>(mask.data);
  const int64_t w = r.w, block = reduceBlockElems(x.dtype), c = x.shape[1];
  parallelFor(r.rows, r.rows * w, [&](int64_t row) {
    const int64_t h = row % r.h, nc = row / r.h;
    const int64_t mask_row = nc / c * r.mask_strides[0] + nc % c * r.mask_strides[1] + h * r.mask_strides[2];
    const auto masked = [&](int64_t j) { return triu ? j > h : mask_bytes[mask_row + j] != 0; };
    std::vector<float> v(static_cast<size_t>(w)), t(v.size()), o(v.size());
    loadFloat(x.dtype, x.data, row * w, 1, w, v.data());
    if (grad) {  // v = y, t = dy * y
      std::vector<float> g(v.size());
      loadFloat(x.dtype, call.inputs[0].data, row * w, 1, w, g.data());
      for (int64_t j = 0; j < w; ++j) t[j] = g[j] * v[j];
      const float sum = pairwiseSum(t.data(), w, block);
      for (int64_t j = 0; j < w; ++j) o[j] = masked(j) ? 0.0f : (g[j] - sum) * v[j] * scale;
    } else {
      float top = -INFINITY;
      for (int64_t j = 0; j < w; ++j) {
        v[j] = masked(j) ? kMaskedLogit : v[j] * scale;
        top = std::fmax(top, v[j]);
      }
      for (int64_t j = 0; j < w; ++j) o[j] = t[j] = std::exp(v[j] - top);
      const float sum = pairwiseSum(t.data(), w, block);
      for (int64_t j = 0; j < w; ++j) o[j] /= sum;
    }
    storeFloat(out.dtype, out.data, row * w, w, o.data());
  });
}

KernelCost costSoftmax(const OpCall& call) {
  const Rows r = validateCall(call);
  KernelCost cost = vectorCost(call);
  cost.flops = (isGrad(call) ? 5.0 : 6.0) * static_cast<double>(r.rows * r.w);
  return cost;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ScaledMaskedSoftmax", &validateSoftmax, &computeSoftmax, &costSoftmax});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ScaledMaskedSoftmaxGrad", &validateSoftmax, &computeSoftmax, &costSoftmax});

}  // namespace
}  // namespace ascend_sim
