// ApplyLamb (OPS.md "Optimizers"): one LAMB step over a combined parameter
// buffer whose parameters are the segments listed in attr `segments`.
// Note [LAMB over a combined buffer]: LAMB's trust ratio is per parameter
// (||w|| / ||adam step|| of each tensor), so a combined buffer needs its
// segment boundaries. CANN runs LambApplyOptimizerAssign (moments and adam
// step), the two norms and LambApplyWeightAssign per tensor; this kernel is
// the simulator's fusion of those over every segment in one launch: pass 1
// updates m and v and keeps the adam step in a device scratch buffer while
// summing both norms per segment, pass 2 applies the ratio. Its cost counts
// both passes (the scratch buffer goes out to HBM and back).
// Inputs var, m, v, grad, lr, beta1, beta2, epsilon, weight_decay (float64
// host scalars); attr `adam` (trust ratio 1). Buffers in one private format
// (a FRACTAL_Z weight stepped alone) are one segment whose pads are masked
// out of the norms and zeroed in the outputs. Numerics are the reference
// LAMB of torch_npu's NpuFusedLamb (no bias correction, ||w|| clamped to
// [0, 10], ratio 1 when a norm is 0), element arithmetic in fp32 in its op
// order, norms summed in double and rounded once.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "ops/optim/optimizer_operands.h"

namespace ascend_sim {
namespace {

const OptimizerOperands kOperands = {
    {"var", "m", "v", "grad", "lr", "beta1", "beta2", "epsilon", "weight_decay"}, {0, 1, 2}, 3};

// Elements of a buffer: logical ones for a private format (whose storage adds pads).
int64_t logicalNumel(const TensorArg& t) {
  if (!isPrivateFormat(t.format)) return t.numel();
  int64_t n = 1;
  for (int64_t d : t.origin_shape) n *= d;
  return n;
}

constexpr int64_t kChunk = 4096;
constexpr int kLanes = 8;

// Sums of squares in double over independent lanes (so the loop vectorises); pads (mask 0) excluded.
struct SquareSums {
  double lanes[kLanes] = {};
  void add(const float* x, const uint8_t* mask, int64_t n) {
    int64_t i = 0;
    if (mask == nullptr) {
      for (; i + kLanes <= n; i += kLanes)
        for (int j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(x[i + j]) * x[i + j];
    } else {
      for (; i + kLanes <= n; i += kLanes)
        for (int j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(x[i + j]) * x[i + j] * mask[i + j];
    }
    for (; i < n; ++i)
      if (mask == nullptr || mask[i]) lanes[0] += static_cast<double>(x[i]) * x[i];
  }
  double total() const {
    double t = 0;
    for (double l : lanes) t += l;
    return t;
  }
};

void validateLamb(const OpCall& call) {
  validateOptimizerOperands(call, kOperands);
  const TensorArg& var = call.inputs[0];
  const std::vector<int64_t> segments = attrInts(call, "segments");
  int64_t total = 0;
  for (int64_t s : segments) {
    if (s < 0) fail(call, ACL_ERROR_INVALID_PARAM, "attr segments holds a negative size " + std::to_string(s));
    total += s;
  }
  if (total != logicalNumel(var))
    fail(call, ACL_ERROR_INVALID_PARAM,
         "attr segments sums to " + std::to_string(total) + " elements, var has " +
             std::to_string(logicalNumel(var)));
}

// Elementwise work runs in storage order (LAMB is order-free); a private format's pads are masked out of the
// norms and zeroed in the outputs, so the result is that of the logical elements.
void computeLamb(const OpCall& call) {
  const TensorArg& var_in = call.inputs[0];
  const int64_t n = var_in.numel();
  std::vector<uint8_t> mask;
  std::vector<int64_t> segments = attrInts(call, "segments");
  StorageMap map;
  if (isPrivateFormat(var_in.format)) {
    map = storageMapOf(call, var_in, "input var");
    if (map.hasPads()) mask = logicalMask(map);
    segments = {n};  // one parameter: its whole storage
  }
  const double beta1 = scalarInput(call, 5), beta2 = scalarInput(call, 6), wd = scalarInput(call, 8);
  const float b1 = asF(beta1), b2 = asF(beta2), one_minus_b1 = asF(1 - beta1), one_minus_b2 = asF(1 - beta2);
  const float eps = asF(scalarInput(call, 7)), wd_f = asF(wd);
  const float neg_lr = asF(-scalarInput(call, 4));
  const bool adam = attrBool(call, "adam", false);
  std::vector<float> step(static_cast<size_t>(n));  // the device's scratch buffer between the passes
  std::vector<float> var(kChunk), m(kChunk), v(kChunk), g(kChunk);
  int64_t begin = 0;
  for (int64_t size : segments) {
    const int64_t end = begin + size;
    SquareSums w_sq, step_sq;
    for (int64_t i0 = begin; i0 < end; i0 += kChunk) {  // pass 1: moments, adam step, norms
      const int64_t c = std::min(kChunk, end - i0);
      loadFloat(var_in.dtype, var_in.data, i0, 1, c, var.data());
      loadFloat(call.inputs[1].dtype, call.inputs[1].data, i0, 1, c, m.data());
      loadFloat(call.inputs[2].dtype, call.inputs[2].data, i0, 1, c, v.data());
      loadFloat(call.inputs[3].dtype, call.inputs[3].data, i0, 1, c, g.data());
      float* s = step.data() + i0;
      for (int64_t i = 0; i < c; ++i) {
        m[i] = m[i] * b1 + one_minus_b1 * g[i];
        v[i] = v[i] * b2 + one_minus_b2 * g[i] * g[i];
        s[i] = m[i] / (std::sqrt(v[i]) + eps);
        if (wd != 0) s[i] = s[i] + wd_f * var[i];
      }
      const uint8_t* mk = mask.empty() ? nullptr : mask.data() + i0;
      w_sq.add(var.data(), mk, c);
      step_sq.add(s, mk, c);
      storeFloat(call.outputs[1].dtype, call.outputs[1].data, i0, c, m.data());
      storeFloat(call.outputs[2].dtype, call.outputs[2].data, i0, c, v.data());
    }
    const float w_norm = std::min(asF(std::sqrt(w_sq.total())), 10.0f);
    const float step_norm = asF(std::sqrt(step_sq.total()));
    const float trust = (adam || w_norm == 0 || step_norm == 0) ? 1.0f : w_norm / step_norm;
    const float alpha = neg_lr * trust;
    for (int64_t i0 = begin; i0 < end; i0 += kChunk) {  // pass 2: the weight update
      const int64_t c = std::min(kChunk, end - i0);
      loadFloat(var_in.dtype, var_in.data, i0, 1, c, var.data());
      const float* s = step.data() + i0;
      for (int64_t i = 0; i < c; ++i) var[i] = var[i] + alpha * s[i];
      storeFloat(call.outputs[0].dtype, call.outputs[0].data, i0, c, var.data());
    }
    begin = end;
  }
  if (!mask.empty())
    for (const TensorArg& out : call.outputs) zeroPads(out, map);
}

KernelCost costLamb(const OpCall& call) {
  // Pass 1 streams var, m, v, grad in and m, v, the adam step out; pass 2
  // streams var and the step in and var out: vectorCost covers the inputs
  // and outputs once, the scratch step (fp32) and var's second read are added.
  KernelCost c = vectorCost(call);
  const double n = static_cast<double>(call.inputs[0].numel());
  const double extra_bytes = n * 4 * 2 + n * static_cast<double>(dtypeSize(call.inputs[0].dtype));
  c.mte_bytes += extra_bytes;
  c.vector_bytes += extra_bytes;
  c.vector_repeats += 14 * std::ceil(n * 4 / 256);
  c.flops = 18.0 * n;
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyLamb", &validateLamb, &computeLamb, &costLamb});

}  // namespace
}  // namespace ascend_sim
