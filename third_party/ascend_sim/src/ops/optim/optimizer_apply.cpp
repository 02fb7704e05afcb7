// The Apply* optimizer kernels (OPS.md "Optimizers"): one optimizer step
// over a whole (combined) parameter buffer, the kernels of torch_npu's fused
// optimizers. Inputs: the buffers, the gradient, and the hyper-parameters as
// 0-d float64 inputs (host scalars), so a learning-rate schedule never
// changes the plan key. The outputs are the updated buffers and may alias the
// inputs (each element is read before it is written, by the same task).
// Note [torch.optim numerics]: the results are torch.optim's on this device.
// Derived scalars (1 - beta1, lr / bias_correction1, sqrt(bias_correction2),
// 1 - lr * weight_decay) are computed in double as Python computes them, each
// rounded to fp32 as an op's scalar argument is, and the element arithmetic
// is fp32 in the order of torch.optim's ops (Mul, Add with alpha: a + alpha*b,
// Addcmul: a + (value*b)*c, Addcdiv: a + (value*b)/c, Sqrt, Div).
//   ApplyMomentum         var, accum, lr, grad, momentum, weight_decay; attr
//                         use_nesterov (torch.optim.SGD with dampening 0)
//   ApplyAdamW            var, m, v, grad, lr, beta1, beta2, epsilon,
//                         weight_decay, bias_correction1, bias_correction2;
//                         attr decoupled (AdamW; false: Adam's L2 decay)
//   ApplyRMSProp          var, ms, mom, lr, grad, rho, momentum, epsilon,
//                         weight_decay (torch.optim.RMSprop; mom is untouched
//                         when momentum is 0)
//   ApplyCenteredRMSProp  var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
//                         weight_decay (RMSprop with centered=True)
//   ApplyAdadelta         var, accum, accum_update, lr, rho, epsilon, grad,
//                         weight_decay (torch.optim.Adadelta)
// The input orders are CANN's, with weight_decay appended where CANN's op has
// none (torch.optim folds it into the gradient).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/optim/optimizer_operands.h"

namespace ascend_sim {
namespace {

constexpr int64_t kChunk = 4096;

// A chunk-sized float buffer of the calling thread.
std::vector<float>& scratchAvg(int64_t n) {
  static thread_local std::vector<float> buf;
  if (buf.size() < static_cast<size_t>(n)) buf.resize(static_cast<size_t>(n));
  return buf;
}

// One chunk of the step: b[k] are the chunk's buffers (in Rule::buffers order), g the gradient.
using ChunkFn = void (*)(const OpCall& call, float* const* b, float* g, int64_t n);

void momentumChunk(const OpCall& call, float* const* b, float* g, int64_t n) {
  float *var = b[0], *accum = b[1];
  const float lr = asF(scalarInput(call, 2)), momentum = asF(scalarInput(call, 4));
  const double wd = scalarInput(call, 5);
  const float wd_f = asF(wd);
  const bool nesterov = attrBool(call, "use_nesterov", false);
  if (wd != 0)
    for (int64_t i = 0; i < n; ++i) g[i] = g[i] + wd_f * var[i];
  for (int64_t i = 0; i < n; ++i) {
    accum[i] = accum[i] * momentum + g[i];
    var[i] -= lr * (nesterov ? g[i] + momentum * accum[i] : accum[i]);
  }
}

void adamChunk(const OpCall& call, float* const* b, float* g, int64_t n) {
  float *var = b[0], *m = b[1], *v = b[2];
  const double lr = scalarInput(call, 4), beta1 = scalarInput(call, 5), beta2 = scalarInput(call, 6);
  const double wd = scalarInput(call, 8);
  const float b1 = asF(beta1), b2 = asF(beta2), one_minus_b1 = asF(1 - beta1), one_minus_b2 = asF(1 - beta2);
  const float eps = asF(scalarInput(call, 7)), wd_f = asF(wd), decay = asF(1 - lr * wd);
  const float neg_step_size = asF(-(lr / scalarInput(call, 9)));
  const float bc2_sqrt = asF(std::sqrt(scalarInput(call, 10)));
  const bool decoupled = attrBool(call, "decoupled", true);
  if (decoupled) {  // the decay passes first, so that the update loop has no branch
    for (int64_t i = 0; i < n; ++i) var[i] = var[i] * decay;
  } else if (wd != 0) {
    for (int64_t i = 0; i < n; ++i) g[i] = g[i] + wd_f * var[i];
  }
  for (int64_t i = 0; i < n; ++i) {
    m[i] = m[i] * b1 + one_minus_b1 * g[i];
    v[i] = v[i] * b2 + one_minus_b2 * g[i] * g[i];
    const float denom = std::sqrt(v[i]) / bc2_sqrt + eps;
    var[i] = var[i] + neg_step_size * m[i] / denom;
  }
}

// Shared by both RMSProp kernels; mg is null when not centered. One loop per
// case, so that no loop has a branch (they vectorise).
void rmsPropStep(float* var, float* mg, float* ms, float* mom, float* g, int64_t n, double lr, double rho,
                 double momentum, double eps, double wd) {
  const float rho_f = asF(rho), one_minus_rho = asF(1 - rho), mom_f = asF(momentum), eps_f = asF(eps);
  const float wd_f = asF(wd), neg_lr = asF(-lr);
  if (wd != 0)
    for (int64_t i = 0; i < n; ++i) g[i] = g[i] + wd_f * var[i];
  for (int64_t i = 0; i < n; ++i) ms[i] = ms[i] * rho_f + one_minus_rho * g[i] * g[i];
  std::vector<float>& avg = scratchAvg(n);
  if (mg) {
    for (int64_t i = 0; i < n; ++i) {
      mg[i] = mg[i] * rho_f + one_minus_rho * g[i];
      avg[i] = std::sqrt(ms[i] + -1.0f * mg[i] * mg[i]) + eps_f;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) avg[i] = std::sqrt(ms[i]) + eps_f;
  }
  if (momentum > 0) {
    for (int64_t i = 0; i < n; ++i) {
      mom[i] = mom[i] * mom_f + g[i] / avg[i];
      var[i] = var[i] + neg_lr * mom[i];
    }
  } else {
    for (int64_t i = 0; i < n; ++i) var[i] = var[i] + neg_lr * g[i] / avg[i];
  }
}

void rmsPropChunk(const OpCall& call, float* const* b, float* g, int64_t n) {
  rmsPropStep(b[0], nullptr, b[1], b[2], g, n, scalarInput(call, 3), scalarInput(call, 5), scalarInput(call, 6),
              scalarInput(call, 7), scalarInput(call, 8));
}

void centeredRmsPropChunk(const OpCall& call, float* const* b, float* g, int64_t n) {
  rmsPropStep(b[0], b[1], b[2], b[3], g, n, scalarInput(call, 4), scalarInput(call, 5), scalarInput(call, 6),
              scalarInput(call, 7), scalarInput(call, 9));
}

void adadeltaChunk(const OpCall& call, float* const* b, float* g, int64_t n) {
  float *var = b[0], *accum = b[1], *accum_update = b[2];
  const double rho = scalarInput(call, 4), wd = scalarInput(call, 7);
  const float neg_lr = asF(-scalarInput(call, 3)), rho_f = asF(rho), one_minus_rho = asF(1 - rho);
  const float eps = asF(scalarInput(call, 5)), wd_f = asF(wd);
  if (wd != 0)
    for (int64_t i = 0; i < n; ++i) g[i] = g[i] + wd_f * var[i];
  for (int64_t i = 0; i < n; ++i) {
    accum[i] = accum[i] * rho_f + one_minus_rho * g[i] * g[i];
    const float std_dev = std::sqrt(accum[i] + eps);
    const float delta = std::sqrt(accum_update[i] + eps) / std_dev * g[i];
    accum_update[i] = accum_update[i] * rho_f + one_minus_rho * delta * delta;
    var[i] = var[i] + neg_lr * delta;
  }
}

// The operands (which inputs are updated buffers, which is the gradient,
// which are host scalars), the element rule and its Vector passes.
struct Rule {
  const char* op_type;
  OptimizerOperands operands;
  ChunkFn chunk;
  double vector_passes;  // fp32 Vector passes of the update arithmetic, for the cost
  double flops_per_element;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"ApplyMomentum", {{"var", "accum", "lr", "grad", "momentum", "weight_decay"}, {0, 1}, 3}, &momentumChunk, 5,
       6},
      {"ApplyAdamW",
       {{"var", "m", "v", "grad", "lr", "beta1", "beta2", "epsilon", "weight_decay", "bias_correction1",
         "bias_correction2"},
        {0, 1, 2},
        3},
       &adamChunk, 10, 14},
      {"ApplyRMSProp", {{"var", "ms", "mom", "lr", "grad", "rho", "momentum", "epsilon", "weight_decay"}, {0, 1, 2}, 4},
       &rmsPropChunk, 8, 10},
      {"ApplyCenteredRMSProp",
       {{"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "weight_decay"}, {0, 1, 2, 3}, 8},
       &centeredRmsPropChunk, 11, 14},
      {"ApplyAdadelta",
       {{"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad", "weight_decay"}, {0, 1, 2}, 6},
       &adadeltaChunk, 11, 14},
  };
  return table;
}

const Rule& ruleOf(const OpCall& call) {
  for (const Rule& r : rules())
    if (call.op_type == r.op_type) return r;
  fail(call, ACL_ERROR_OP_TYPE_NOT_MATCH, "not an optimizer kernel");
}

void validateApply(const OpCall& call) { validateOptimizerOperands(call, ruleOf(call).operands); }

void computeApply(const OpCall& call) {
  const Rule& r = ruleOf(call);
  const OptimizerOperands& ops = r.operands;
  const int64_t n = call.inputs[0].numel();
  std::vector<std::vector<float>> bufs(ops.buffers.size(), std::vector<float>(kChunk));
  std::vector<float*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b.data());
  std::vector<float> grad(kChunk);
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t c = std::min(kChunk, n - i0);
    for (size_t b = 0; b < ops.buffers.size(); ++b) {
      const TensorArg& t = call.inputs[ops.buffers[b]];
      loadFloat(t.dtype, t.data, i0, 1, c, bufs[b].data());
    }
    const TensorArg& g = call.inputs[ops.grad];
    loadFloat(g.dtype, g.data, i0, 1, c, grad.data());
    r.chunk(call, ptrs.data(), grad.data(), c);
    for (size_t b = 0; b < call.outputs.size(); ++b)
      storeFloat(call.outputs[b].dtype, call.outputs[b].data, i0, c, bufs[b].data());
  }
}

KernelCost costApply(const OpCall& call) {
  // Streaming cost of the buffers in and out, plus the update arithmetic in fp32 lanes.
  const Rule& r = ruleOf(call);
  KernelCost c = vectorCost(call);
  const double n = static_cast<double>(call.inputs[0].numel());
  c.vector_repeats += r.vector_passes * std::ceil(n * 4 / 256);
  c.flops = r.flops_per_element * n;
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyMomentum", &validateApply, &computeApply, &costApply});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyAdamW", &validateApply, &computeApply, &costApply});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyRMSProp", &validateApply, &computeApply, &costApply});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyCenteredRMSProp", &validateApply, &computeApply, &costApply});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyAdadelta", &validateApply, &computeApply, &costApply});

}  // namespace
}  // namespace ascend_sim
