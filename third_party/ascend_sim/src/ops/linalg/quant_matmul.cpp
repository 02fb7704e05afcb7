// The int8 products of quantised inference (OPS.md "Quantised matrix
// products"), on the Cube: QuantBatchMatmulV3 (int8 x int8 -> int32, then
// dequantised or requantised) and WeightQuantBatchMatmulV2 (fp16 / bf16
// activations times int8 weights dequantised on the way into the Cube).
//
// Note [Quantised products]
// QuantBatchMatmulV3: x1 int8 [..., M, K], x2 int8 [..., K, N] (x2's batch dims
// those of x1, or none), scale [1] or [N] (fp32, or int64 quant params from
// TransQuantParamV2, Note [Quant params]), optional offset fp32 [1] / [N],
// bias int32 [N] and pertoken_scale fp32 [M] (attrs has_offset, has_bias,
// has_pertoken_scale; in that order after scale). attr `dtype` (int8, fp16 or
// bf16) is y's:
//   acc = x1 · x2 + bias                        (int32, exact)
//   fp16 / bf16: y = acc · scale[n] · pertoken_scale[m], rounded once
//   int8:        y = clamp(rint(acc · scale[n] + offset[n]), −128, 127)
// An int64 scale carries its own offset. int8 operands use the Cube at twice
// its fp16 rate (ChipConfig::cube_int8_speedup).
// WeightQuantBatchMatmulV2: x fp16 / bf16 [M, K], weight int8 [K, N],
// antiquant_scale (x's dtype) [N], [1], or [K / G, N] with attr
// antiquant_group_size G; optional antiquant_offset (its shape) and bias [N]
// (attrs has_offset, has_bias):
//   W = (weight + offset) · scale rounded to x's dtype (the Vector unit's
//   dequantisation), y = x · W + bias on the Cube, fp32 accumulation, rounded once.
// It reads the weight as int8: half the HBM traffic of an fp16 weight.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/linalg/cube_gemm.h"
#include "ops/linalg/quant_util.h"

namespace ascend_sim {
namespace {

// --- QuantBatchMatmulV3 -------------------------------------------------------------

struct QuantMatmul {
  int64_t batch = 1, m = 0, k = 0, n = 0;
  bool x2_batched = false;
  int offset = -1, bias = -1, pertoken = -1;  // input indices, -1 absent
};

QuantMatmul quantMatmulOf(const OpCall& call) {
  const TensorArg &x1 = call.inputs[0], &x2 = call.inputs[1], &scale = call.inputs[2];
  checkDtype(call, x1, "input x1", kInt8Type);
  checkDtype(call, x2, "input x2", kInt8Type);
  if (x1.shape.size() < 2 || x2.shape.size() < 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "x1 and x2 must be at least 2-D, got " + shapeToString(x1.shape) + " and " + shapeToString(x2.shape));
  QuantMatmul q;
  q.m = x1.shape[x1.shape.size() - 2];
  q.k = x1.shape.back();
  q.n = x2.shape.back();
  q.batch = x1.numel() / std::max<int64_t>(q.m * q.k, 1);
  if (q.m * q.k == 0) q.batch = numelOf(Shape(x1.shape.begin(), x1.shape.end() - 2));
  const Shape x1_batch(x1.shape.begin(), x1.shape.end() - 2), x2_batch(x2.shape.begin(), x2.shape.end() - 2);
  q.x2_batched = !x2_batch.empty();
  if (x2.shape[x2.shape.size() - 2] != q.k || (q.x2_batched && x2_batch != x1_batch))
    fail(
        call, ACL_ERROR_OP_INPUT_NOT_MATCH,
        "x2 " + shapeToString(x2.shape) + " must be [K, N] or x1's batch dims with [K, N], K = " + std::to_string(q.k));
  checkDtype(call, scale, "input scale", dtBit(ACL_FLOAT) | dtBit(ACL_INT64));
  checkPerChannel(call, scale, "input scale", q.n);
  int next = 3;
  const auto take = [&](const char* flag) { return attrBool(call, flag, false) ? next++ : -1; };
  q.offset = take("has_offset");
  q.bias = take("has_bias");
  q.pertoken = take("has_pertoken_scale");
  if (static_cast<int>(call.inputs.size()) != next)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(next) + " inputs for the has_* attributes, got " +
             std::to_string(call.inputs.size()));
  if (q.offset >= 0) {
    checkDtype(call, call.inputs[q.offset], "input offset", dtBit(ACL_FLOAT));
    checkPerChannel(call, call.inputs[q.offset], "input offset", q.n);
  }
  if (q.bias >= 0) {
    checkDtype(call, call.inputs[q.bias], "input bias", dtBit(ACL_INT32));
    checkShapeEq(call, call.inputs[q.bias], "input bias", {q.n}, "[N]");
  }
  if (q.pertoken >= 0) {
    checkDtype(call, call.inputs[q.pertoken], "input pertoken_scale", dtBit(ACL_FLOAT));
    checkShapeEq(call, call.inputs[q.pertoken], "input pertoken_scale", {q.m}, "[M]");
  }
  return q;
}

void validateQuantBatchMatmul(const OpCall& call) {
  checkArity(call, 3, 6, 1);
  const QuantMatmul q = quantMatmulOf(call);
  const aclDataType dt = quantOutputDtypeOf(call);
  const TensorArg& y = call.outputs[0];
  checkDtype(call, y, "output y", dtBit(dt));
  Shape want(call.inputs[0].shape.begin(), call.inputs[0].shape.end());
  want.back() = q.n;
  checkShapeEq(call, y, "output y", want, "x1's shape with N columns");
  if (dt == ACL_INT8 && q.pertoken >= 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "pertoken_scale needs a float16 / bfloat16 output");
  if (dt != ACL_INT8 && q.offset >= 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "offset is for an int8 output (requantisation)");
}

void computeQuantBatchMatmul(const OpCall& call) {
  const QuantMatmul q = quantMatmulOf(call);
  const QuantChannels ch = quantChannelsOf(call.inputs[2], q.offset >= 0 ? &call.inputs[q.offset] : nullptr, q.n);
  std::vector<int64_t> bias(static_cast<size_t>(q.n), 0);
  if (q.bias >= 0) loadInt(ACL_INT32, call.inputs[q.bias].data, 0, 1, q.n, bias.data());
  std::vector<float> pertoken;
  if (q.pertoken >= 0) {
    pertoken.resize(static_cast<size_t>(q.m));
    loadFloat(ACL_FLOAT, call.inputs[q.pertoken].data, 0, 1, q.m, pertoken.data());
  }
  const auto* a = static_cast<const int8_t*>(call.inputs[0].data);
  const auto* b = static_cast<const int8_t*>(call.inputs[1].data);
  std::vector<int64_t> acc(static_cast<size_t>(q.n));
  for (int64_t bi = 0; bi < q.batch; ++bi) {
    const int8_t* bb = b + (q.x2_batched ? bi * q.k * q.n : 0);
    for (int64_t i = 0; i < q.m; ++i) {
      int8RowProduct(a + (bi * q.m + i) * q.k, bb, q.k, q.n, bias, acc);
      storeQuantRow(call.outputs[0], (bi * q.m + i) * q.n, acc, ch, pertoken.empty() ? 1.0f : pertoken[i]);
    }
  }
}

KernelCost costQuantBatchMatmul(const OpCall& call) {
  const QuantMatmul q = quantMatmulOf(call);
  KernelCost c;
  c.core = CoreType::kAiCore;
  c.cube_int8_macs = paddedInt8Macs(q.m, q.n, q.k) * static_cast<double>(q.batch);
  c.flops = 2.0 * static_cast<double>(q.batch * q.m) * static_cast<double>(q.n * q.k);
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  c.mte_bytes += tensorBytes(call.outputs[0]);
  return c;
}

// --- WeightQuantBatchMatmulV2 ------------------------------------------------------------

struct WeightQuant {
  int64_t m = 0, k = 0, n = 0, group = 0, scale_rows = 1;
  int offset = -1, bias = -1;
};

WeightQuant weightQuantOf(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &w = call.inputs[1], &scale = call.inputs[2];
  checkDtype(call, x, "input x", dtBit(ACL_FLOAT16) | dtBit(ACL_BF16));
  checkDtype(call, w, "input weight", kInt8Type);
  if (x.shape.size() != 2 || w.shape.size() != 2 || w.shape[0] != x.shape[1])
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "x must be [M, K] and weight [K, N], got " + shapeToString(x.shape) + " and " + shapeToString(w.shape));
  WeightQuant q{x.shape[0], x.shape[1], w.shape[1], attrInt(call, "antiquant_group_size", 0)};
  checkSameDtype(call, x, "x", scale, "input antiquant_scale");
  if (q.group > 0) {
    if (q.group % 32 != 0 || q.group > q.k)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attr antiquant_group_size = " + std::to_string(q.group) +
               " must be a multiple of 32 in [32, K = " + std::to_string(q.k) + "]");
    q.scale_rows = (q.k + q.group - 1) / q.group;
    checkShapeEq(call, scale, "input antiquant_scale", {q.scale_rows, q.n}, "[ceil(K / group), N]");
  } else {
    checkPerChannel(call, scale, "input antiquant_scale", q.n);
  }
  int next = 3;
  q.offset = attrBool(call, "has_offset", false) ? next++ : -1;
  q.bias = attrBool(call, "has_bias", false) ? next++ : -1;
  if (static_cast<int>(call.inputs.size()) != next)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(next) + " inputs for the has_* attributes, got " +
             std::to_string(call.inputs.size()));
  if (q.offset >= 0) {
    checkSameDtype(call, x, "x", call.inputs[q.offset], "input antiquant_offset");
    checkShapeEq(call, call.inputs[q.offset], "input antiquant_offset", scale.shape, "antiquant_scale's shape");
  }
  if (q.bias >= 0) {
    checkDtype(call, call.inputs[q.bias], "input bias", dtBit(x.dtype) | dtBit(ACL_FLOAT));
    checkShapeEq(call, call.inputs[q.bias], "input bias", {q.n}, "[N]");
  }
  return q;
}

void validateWeightQuantBatchMatmul(const OpCall& call) {
  checkArity(call, 3, 5, 1);
  const WeightQuant q = weightQuantOf(call);
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", {q.m, q.n}, "[M, N]");
}

void computeWeightQuantBatchMatmul(const OpCall& call) {
  const WeightQuant q = weightQuantOf(call);
  const TensorArg &x = call.inputs[0], &scale = call.inputs[2], &y = call.outputs[0];
  const std::vector<uint8_t> rounded = dequantizedWeight(
      call.inputs[1], q.k, q.n, scale, q.offset >= 0 ? &call.inputs[q.offset] : nullptr, q.group, x.dtype);
  std::vector<float> out(static_cast<size_t>(q.m * q.n), 0.0f);
  UnitCounters cnt;
  if (q.m > 0 && q.n > 0 && q.k > 0)
    cubeGemm(GmMatrix{x.dtype, x.data, 0, q.k, 1}, GmMatrix{x.dtype, rounded.data(), 0, q.n, 1}, q.m, q.n, q.k,
             CubeRounding::kNone, out.data(), &cnt);
  if (q.bias >= 0) {
    std::vector<float> b(static_cast<size_t>(q.n));
    loadFloat(call.inputs[q.bias].dtype, call.inputs[q.bias].data, 0, 1, q.n, b.data());
    for (int64_t i = 0; i < q.m; ++i)
      for (int64_t j = 0; j < q.n; ++j) out[i * q.n + j] += b[j];
  }
  storeFloat(y.dtype, y.data, 0, q.m * q.n, out.data());
  if (cnt.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costWeightQuantBatchMatmul(const OpCall& call) {
  const WeightQuant q = weightQuantOf(call);
  KernelCost c;
  c.core = CoreType::kAiCore;
  c.cube_macs = cubeUnit().padded_macs(q.m, q.n, q.k);
  c.vector_repeats = 2.0 * vectorUnit().repeats(q.k * q.n, ACL_FLOAT16);  // dequantise: add, multiply
  c.flops = 2.0 * static_cast<double>(q.m * q.n) * static_cast<double>(q.k);
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);  // the weight as int8
  c.mte_bytes += tensorBytes(call.outputs[0]);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"QuantBatchMatmulV3", &validateQuantBatchMatmul, &computeQuantBatchMatmul,
                                     &costQuantBatchMatmul});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"WeightQuantBatchMatmulV2", &validateWeightQuantBatchMatmul,
                                     &computeWeightQuantBatchMatmul, &costWeightQuantBatchMatmul});

}  // namespace
}  // namespace ascend_sim
