// RotaryMul and RotaryMulGrad (OPS.md "Fused LLM kernels"), on the Vector
// unit: the rotary position embedding of LLaMA-style attention, one kernel
// each way where an unfused graph runs Split, Neg, Concat, Mul, Mul, Add.
//
// Note [Rotary rows]
// x has last dim D (even, h = D/2); r1 and r2 (cos and sin tables) share one
// shape that broadcasts to x with the same last dim. Per row of x (all dims
// but the last) and its broadcast row of r1/r2, in fp32, one rounding:
//   rot(x)[j] = j < h ? -x[j + h] : x[j - h]
//   y[j]  = x[j] * r1[j] + rot(x)[j] * r2[j]
// The gradient for dy:
//   dx[j]  = dy[j] * r1[j] + (j < h ? dy[j + h] * r2[j + h] : -(dy[j - h] * r2[j - h]))
//   dr1[j] = S(dy[j] * x[j]),  dr2[j] = S(dy[j] * rot(x)[j])
// where S sums the x rows that read one r row, in ascending row order by the
// pairwise rule of Note [Pairwise blocks]. With attr need_backward = false
// RotaryMulGrad computes dx only (dr1/dr2 are left as they are).
#include <vector>

#include "kernel/op_utils.h"
#include "ops/fused/rotary_rows.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

void checkTables(const OpCall& call, const TensorArg& x, const TensorArg& r1, const TensorArg& r2) {
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", r1, "input r1");
  checkSameDtype(call, x, "x", r2, "input r2");
  if (x.shape.empty() || x.shape.back() % 2 != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input x shape " + shapeToString(x.shape) + " must have an even last dim (the two rotated halves)");
  if (r1.shape != r2.shape)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "inputs r1 " + shapeToString(r1.shape) + " and r2 " + shapeToString(r2.shape) + " must have one shape");
  if (r1.shape.empty() || r1.shape.back() != x.shape.back() || !broadcastsTo(r1.shape, x.shape))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input r1 shape " + shapeToString(r1.shape) + " must broadcast to x shape " + shapeToString(x.shape) +
             " with the same last dim");
}

void loadRow(const TensorArg& t, int64_t row, int64_t d, float* dst) { loadFloat(t.dtype, t.data, row * d, 1, d, dst); }

// inputs: x, r1, r2; output: y.
void validateRotaryMul(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  const TensorArg& x = call.inputs[0];
  checkTables(call, x, call.inputs[1], call.inputs[2]);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
}

void computeRotaryMul(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &r1 = call.inputs[1], &r2 = call.inputs[2], &y = call.outputs[0];
  const RotaryRows rr = rotaryRowsOf(x, r1);
  const int64_t d = rr.d;
  std::vector<float> xr(d), rot(d), c(d), s(d), out(d);
  for (int64_t i = 0; i < rr.rows; ++i) {
    loadRow(x, i, d, xr.data());
    loadRow(r1, rr.r_row[i], d, c.data());
    loadRow(r2, rr.r_row[i], d, s.data());
    rotateRow(RotaryMode::kHalf, xr.data(), d, rot.data());
    for (int64_t j = 0; j < d; ++j) out[j] = xr[j] * c[j] + rot[j] * s[j];
    storeFloat(y.dtype, y.data, i * d, d, out.data());
  }
}

KernelCost costRotaryMul(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 3.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

// inputs: dy, x, r1, r2; outputs: dx, dr1, dr2.
void validateRotaryMulGrad(const OpCall& call) {
  checkArity(call, 4, 4, 3);
  const TensorArg &dy = call.inputs[0], &x = call.inputs[1], &r1 = call.inputs[2];
  checkTables(call, x, r1, call.inputs[3]);
  checkSameDtype(call, x, "x", dy, "input dy");
  checkShapeEq(call, dy, "input dy", x.shape, "x shape");
  checkSameDtype(call, x, "x", call.outputs[0], "output dx");
  checkShapeEq(call, call.outputs[0], "output dx", x.shape, "x shape");
  for (int k = 1; k <= 2; ++k) {
    const std::string name = k == 1 ? "output dr1" : "output dr2";
    checkSameDtype(call, r1, "r1", call.outputs[k], name);
    checkShapeEq(call, call.outputs[k], name, r1.shape, "r1 shape");
  }
  attrBool(call, "need_backward", true);
}

void computeRotaryMulGrad(const OpCall& call) {
  const TensorArg &dy = call.inputs[0], &x = call.inputs[1], &r1 = call.inputs[2], &r2 = call.inputs[3];
  const TensorArg &dx = call.outputs[0], &dr1 = call.outputs[1], &dr2 = call.outputs[2];
  const bool need_tables = attrBool(call, "need_backward", true);
  const RotaryRows rr = rotaryRowsOf(x, r1);
  const int64_t d = rr.d, h = d / 2;
  const int64_t per_r_row = rr.r_rows == 0 ? 0 : rr.rows / rr.r_rows;  // x rows reading each r row
  // [per_r_row][r_rows * d]: the k-th x row reading r row q puts its terms at [k][q * d ...].
  std::vector<float> t1, t2;
  std::vector<int64_t> seen;
  if (need_tables) {
    t1.assign(static_cast<size_t>(rr.rows * d), 0.0f);
    t2.assign(t1.size(), 0.0f);
    seen.assign(static_cast<size_t>(rr.r_rows), 0);
  }
  std::vector<float> dyr(d), xr(d), rot(d), c(d), s(d), out(d);
  for (int64_t i = 0; i < rr.rows; ++i) {
    const int64_t q = rr.r_row[i];
    loadRow(dy, i, d, dyr.data());
    loadRow(x, i, d, xr.data());
    loadRow(r1, q, d, c.data());
    loadRow(r2, q, d, s.data());
    for (int64_t j = 0; j < h; ++j) {
      out[j] = dyr[j] * c[j] + dyr[j + h] * s[j + h];
      out[j + h] = dyr[j + h] * c[j + h] + -(dyr[j] * s[j]);
    }
    storeFloat(dx.dtype, dx.data, i * d, d, out.data());
    if (!need_tables) continue;
    rotateRow(RotaryMode::kHalf, xr.data(), d, rot.data());
    float* a = &t1[static_cast<size_t>((seen[q] * rr.r_rows + q) * d)];
    float* b = &t2[static_cast<size_t>((seen[q] * rr.r_rows + q) * d)];
    ++seen[q];
    for (int64_t j = 0; j < d; ++j) {
      a[j] = dyr[j] * xr[j];
      b[j] = dyr[j] * rot[j];
    }
  }
  if (!need_tables) return;
  const int64_t cols = rr.r_rows * d, block = reduceBlockElems(x.dtype);
  std::vector<float> sums(static_cast<size_t>(cols));
  reduceColumnsFloat(t1.data(), per_r_row, cols, block, ReduceKind::kSum, sums.data());
  storeFloat(dr1.dtype, dr1.data, 0, cols, sums.data());
  reduceColumnsFloat(t2.data(), per_r_row, cols, block, ReduceKind::kSum, sums.data());
  storeFloat(dr2.dtype, dr2.data, 0, cols, sums.data());
}

KernelCost costRotaryMulGrad(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 7.0 * static_cast<double>(call.inputs[1].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RotaryMul", &validateRotaryMul, &computeRotaryMul, &costRotaryMul});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RotaryMulGrad", &validateRotaryMulGrad, &computeRotaryMulGrad,
                                     &costRotaryMulGrad});

}  // namespace
}  // namespace ascend_sim
