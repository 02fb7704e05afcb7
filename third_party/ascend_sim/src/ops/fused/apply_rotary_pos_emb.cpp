// ApplyRotaryPosEmb (OPS.md "Fused LLM kernels"), on the Vector unit: the
// rotary position embedding of query and key in one kernel, in place, as
// torch_npu's npu_apply_rotary_pos_emb launches it (an inference kernel: CANN
// has no gradient for it; training uses RotaryMul / RotaryMulGrad).
//
// Note [Apply rotary pos emb]
// inputs: query, key, cos, sin; outputs: query, key (the same memory as the
// inputs when called in place: each row is read before it is written).
// attr layout: 1 = BSND (torch_npu's "BSH" and "BSND"), 2 = SBND, 3 = BNSD
// (query and key 4-D), 4 = TND (3-D). query and key have one dtype and equal
// dims but the head dim N (dim 2 for BSND and SBND, 1 for BNSD and TND), so
// that grouped-query attention's fewer key heads fit; cos and sin have one
// shape, of query's dtype, with 1 in the head dim, that broadcasts to both.
// attr rotary_mode ("half" by default, "interleave", "quarter") picks rot(x)
// (rotary_rows.h); per row of D elements, in fp32, rounded once:
//   y = x * cos + rot(x) * sin.
#include <string>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/fused/rotary_rows.h"

namespace ascend_sim {
namespace {

struct RopeLayout {
  const char* name;
  size_t rank;
  size_t head_dim;
};

RopeLayout ropeLayoutOf(const OpCall& call) {
  switch (attrInt(call, "layout", 1)) {
    case 1: return {"BSND", 4, 2};
    case 2: return {"SBND", 4, 2};
    case 3: return {"BNSD", 4, 1};
    case 4: return {"TND", 3, 1};
    default:
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attr layout " + std::to_string(attrInt(call, "layout", 1)) +
               " is not 1 (BSND), 2 (SBND), 3 (BNSD) or 4 (TND)");
  }
}

// inputs: query, key, cos, sin; outputs: query, key.
void validateApplyRotaryPosEmb(const OpCall& call) {
  checkArity(call, 4, 4, 2);
  const TensorArg &q = call.inputs[0], &k = call.inputs[1], &cos = call.inputs[2], &sin = call.inputs[3];
  const RopeLayout layout = ropeLayoutOf(call);
  checkDtype(call, q, "input query", kFloatTypes);
  checkSameDtype(call, q, "query", k, "input key");
  checkSameDtype(call, q, "query", cos, "input cos");
  checkSameDtype(call, q, "query", sin, "input sin");
  for (const TensorArg* t : {&q, &k}) {
    const std::string name = t == &q ? "input query" : "input key";
    if (t->shape.size() != layout.rank)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           name + " shape " + shapeToString(t->shape) + " must have " + std::to_string(layout.rank) +
               " dims for layout " + layout.name);
  }
  Shape k_as_q = k.shape;
  k_as_q[layout.head_dim] = q.shape[layout.head_dim];
  if (k_as_q != q.shape)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input key shape " + shapeToString(k.shape) + " must match query shape " + shapeToString(q.shape) +
             " except in the head dim of layout " + layout.name);
  if (cos.shape != sin.shape)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "inputs cos " + shapeToString(cos.shape) + " and sin " + shapeToString(sin.shape) + " must have one shape");
  Shape table_as_q = q.shape;
  table_as_q[layout.head_dim] = 1;
  if (cos.shape.size() != layout.rank || cos.shape[layout.head_dim] != 1 || !broadcastsTo(cos.shape, table_as_q) ||
      cos.shape.back() != q.shape.back())
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input cos shape " + shapeToString(cos.shape) + " must broadcast to " + shapeToString(table_as_q) +
             " (query's with 1 in the head dim of layout " + layout.name + ")");
  rotaryModeOf(call, q.shape.back());
  checkSameDtype(call, q, "query", call.outputs[0], "output query");
  checkShapeEq(call, call.outputs[0], "output query", q.shape, "query shape");
  checkSameDtype(call, q, "query", call.outputs[1], "output key");
  checkShapeEq(call, call.outputs[1], "output key", k.shape, "key shape");
}

void embed(const TensorArg& x, const TensorArg& cos, const TensorArg& sin, RotaryMode mode, const TensorArg& y) {
  const RotaryRows rr = rotaryRowsOf(x, cos);
  const int64_t d = rr.d;
  std::vector<float> row(d), rot(d), c(d), s(d);
  for (int64_t i = 0; i < rr.rows; ++i) {
    loadFloat(x.dtype, x.data, i * d, 1, d, row.data());
    loadFloat(cos.dtype, cos.data, rr.r_row[i] * d, 1, d, c.data());
    loadFloat(sin.dtype, sin.data, rr.r_row[i] * d, 1, d, s.data());
    rotateRow(mode, row.data(), d, rot.data());
    for (int64_t j = 0; j < d; ++j) row[j] = row[j] * c[j] + rot[j] * s[j];
    storeFloat(y.dtype, y.data, i * d, d, row.data());
  }
}

void computeApplyRotaryPosEmb(const OpCall& call) {
  const TensorArg &q = call.inputs[0], &cos = call.inputs[2], &sin = call.inputs[3];
  const RotaryMode mode = rotaryModeOf(call, q.shape.back());
  embed(q, cos, sin, mode, call.outputs[0]);
  embed(call.inputs[1], cos, sin, mode, call.outputs[1]);
}

KernelCost costApplyRotaryPosEmb(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 3.0 * static_cast<double>(call.inputs[0].numel() + call.inputs[1].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ApplyRotaryPosEmb", &validateApplyRotaryPosEmb, &computeApplyRotaryPosEmb,
                                     &costApplyRotaryPosEmb});

}  // namespace
}  // namespace ascend_sim
