// ApplyMomentum and ApplyAdamW (OPS.md "Optimizers"): one optimizer step
// over a whole (combined) parameter buffer, the kernels of torch_npu's fused
// optimizers. Inputs: the buffers, the gradient, and the hyper-parameters as
// 0-d float64 inputs (host scalars), so a learning-rate schedule never
// changes the plan key. The outputs are the updated buffers and may alias the
// inputs (each element is read before it is written, by the same task).
// Numerics are torch.optim's on this device, bit for bit: the derived
// scalars (1 - beta1, lr / bias_correction1, sqrt(bias_correction2),
// 1 - lr * weight_decay) are computed in double as Python computes them,
// each rounded to fp32 as an op's scalar argument is, and the element
// arithmetic is fp32 in the order of torch.optim's ops (Mul, Add with
// alpha, Addcmul, Sqrt, Div, Addcdiv).
//   ApplyMomentum  inputs var, accum, lr, grad, momentum; attr use_nesterov:
//                  accum = accum * momentum + grad;
//                  var -= lr * (use_nesterov ? grad + momentum * accum : accum)
//                  (torch.optim.SGD with dampening 0: its first step's buffer
//                  is the gradient, as here with a zero accum).
//   ApplyAdamW     inputs var, m, v, grad, lr, beta1, beta2, epsilon,
//                  weight_decay, bias_correction1, bias_correction2; attr
//                  decoupled (true: AdamW's var *= 1 - lr * weight_decay;
//                  false: Adam's grad += weight_decay * var):
//                  m = m * beta1 + grad * (1 - beta1)
//                  v = v * beta2 + grad * grad * (1 - beta2)
//                  var -= lr / bias_correction1 * m / (sqrt(v) / sqrt(bias_correction2) + epsilon)
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/op_utils.h"

namespace ascend_sim {
namespace {

constexpr int64_t kChunk = 4096;

bool isAdam(const OpCall& call) { return call.op_type == "ApplyAdamW"; }

// Buffers (var, accum | var, m, v), the gradient, and the scalar inputs.
struct Layout {
  std::vector<size_t> buffers;
  size_t grad;
  std::vector<size_t> scalars;
  std::vector<const char*> names;  // of every input, in order
};

Layout layoutOf(const OpCall& call) {
  if (isAdam(call))
    return {{0, 1, 2}, 3, {4, 5, 6, 7, 8, 9, 10},
            {"var", "m", "v", "grad", "lr", "beta1", "beta2", "epsilon", "weight_decay", "bias_correction1",
             "bias_correction2"}};
  return {{0, 1}, 3, {2, 4}, {"var", "accum", "lr", "grad", "momentum"}};
}

double scalarInput(const OpCall& call, size_t i) { return *static_cast<const double*>(call.inputs[i].data); }

float asF(double v) { return static_cast<float>(v); }

void validateApply(const OpCall& call) {
  const Layout l = layoutOf(call);
  // Elementwise over the storage: buffers in one private format (a FRACTAL_Z
  // weight with its gradient and state) are updated as stored, pads included
  // (zero pads stay zero under both rules).
  if (checkArityAnyFormat(call, l.names.size(), l.names.size(), l.buffers.size()) == FormatMode::kLogical)
    fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT, "buffers whose storage shapes differ by C0 are not supported");
  const TensorArg& var = call.inputs[0];
  checkDtype(call, var, "input var", kFloatTypes);
  for (size_t i : l.buffers) {
    const std::string name = std::string("input ") + l.names[i];
    checkSameDtype(call, var, "var", call.inputs[i], name);
    checkShapeEq(call, call.inputs[i], name, var.shape, "var shape");
  }
  checkSameDtype(call, var, "var", call.inputs[l.grad], "input grad");
  checkShapeEq(call, call.inputs[l.grad], "input grad", var.shape, "var shape");
  for (size_t i : l.scalars) {
    checkDtype(call, call.inputs[i], std::string("input ") + l.names[i], dtBit(ACL_DOUBLE));
    if (call.inputs[i].numel() != 1)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string("input ") + l.names[i] + " must hold one value, got shape " +
               shapeToString(call.inputs[i].shape));
  }
  for (size_t k = 0; k < call.outputs.size(); ++k) {
    checkSameDtype(call, var, "var", call.outputs[k], "output");
    checkShapeEq(call, call.outputs[k], "output", var.shape, "var shape");
  }
}

void momentumChunk(const OpCall& call, float* var, float* accum, const float* grad, int64_t n) {
  const float lr = asF(scalarInput(call, 2)), momentum = asF(scalarInput(call, 4));
  const bool nesterov = attrBool(call, "use_nesterov", false);
  for (int64_t i = 0; i < n; ++i) {
    accum[i] = accum[i] * momentum + grad[i];
    var[i] -= lr * (nesterov ? grad[i] + momentum * accum[i] : accum[i]);
  }
}

void adamChunk(const OpCall& call, float* var, float* m, float* v, float* grad, int64_t n) {
  const double lr = scalarInput(call, 4), beta1 = scalarInput(call, 5), beta2 = scalarInput(call, 6);
  const double wd = scalarInput(call, 8);
  const float b1 = asF(beta1), b2 = asF(beta2), one_minus_b1 = asF(1 - beta1), one_minus_b2 = asF(1 - beta2);
  const float eps = asF(scalarInput(call, 7)), wd_f = asF(wd), decay = asF(1 - lr * wd);
  const float neg_step_size = asF(-(lr / scalarInput(call, 9)));
  const float bc2_sqrt = asF(std::sqrt(scalarInput(call, 10)));
  const bool decoupled = attrBool(call, "decoupled", true);
  for (int64_t i = 0; i < n; ++i) {
    if (decoupled) {
      var[i] = var[i] * decay;
    } else if (wd != 0) {
      grad[i] = grad[i] + wd_f * var[i];
    }
    m[i] = m[i] * b1 + one_minus_b1 * grad[i];
    v[i] = v[i] * b2 + one_minus_b2 * grad[i] * grad[i];
    const float denom = std::sqrt(v[i]) / bc2_sqrt + eps;
    var[i] = var[i] + neg_step_size * m[i] / denom;
  }
}

void computeApply(const OpCall& call) {
  const Layout l = layoutOf(call);
  const int64_t n = call.inputs[0].numel();
  std::vector<std::vector<float>> bufs(l.buffers.size(), std::vector<float>(kChunk));
  std::vector<float> grad(kChunk);
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t c = std::min(kChunk, n - i0);
    for (size_t b = 0; b < l.buffers.size(); ++b) {
      const TensorArg& t = call.inputs[l.buffers[b]];
      loadFloat(t.dtype, t.data, i0, 1, c, bufs[b].data());
    }
    const TensorArg& g = call.inputs[l.grad];
    loadFloat(g.dtype, g.data, i0, 1, c, grad.data());
    if (isAdam(call)) {
      adamChunk(call, bufs[0].data(), bufs[1].data(), bufs[2].data(), grad.data(), c);
    } else {
      momentumChunk(call, bufs[0].data(), bufs[1].data(), grad.data(), c);
    }
    for (size_t b = 0; b < call.outputs.size(); ++b)
      storeFloat(call.outputs[b].dtype, call.outputs[b].data, i0, c, bufs[b].data());
  }
}

KernelCost costApply(const OpCall& call) {
  // Streaming cost of the buffers in and out, plus the update arithmetic
  // (about 4 Vector passes for momentum, 10 for Adam) in fp32 lanes.
  KernelCost c = vectorCost(call);
  const double n = static_cast<double>(call.inputs[0].numel());
  c.vector_repeats += (isAdam(call) ? 10 : 4) * std::ceil(n * 4 / 256);
  c.flops = (isAdam(call) ? 14.0 : 4.0) * n;
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyMomentum", &validateApply, &computeApply, &costApply});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyAdamW", &validateApply, &computeApply, &costApply});

}  // namespace
}  // namespace ascend_sim
