// Cross (OPS.md "Linear algebra (AI CPU)", an AI Core Vector op): x1, x2 ->
// y = x1 x x2, the 3-vector cross product along attr `dim` (int, default -1;
// that dim has size 3 in y). x1 and x2 broadcast to y's shape (NumPy rules)
// and have y's dtype. Floats: each component `a1 b2 - a2 b1` in fp32, rounded
// once to y's dtype; integers: in int64, wrapped to y's dtype.
#include <cstdint>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

void validateCross(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& y = call.outputs[0];
  checkDtype(call, y, "output y", kNumericTypes);
  checkSameDtype(call, y, "y", call.inputs[0], "input x1");
  checkSameDtype(call, y, "y", call.inputs[1], "input x2");
  checkBroadcast(call, call.inputs[0], "x1", y);
  checkBroadcast(call, call.inputs[1], "x2", y);
  const AxisSplit s = splitAtAxis(call, y.shape, attrInt(call, "dim", -1), "dim");
  if (y.shape.empty() || s.dim != 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "dim " + std::to_string(s.axis) + " of output y shape " + shapeToString(y.shape) + " must have size 3");
}

// Runs fn(y_offset, x1_offset, x2_offset, stride_y, stride_x1, stride_x2) for
// every 3-vector of y: offsets of its first component and the strides to the
// next ones (0 along broadcast dims).
template <typename Fn>
void forEachVector(const OpCall& call, Fn fn) {
  const TensorArg& y = call.outputs[0];
  const int64_t axis = normalizeAxis(call, attrInt(call, "dim", -1), y.shape.size(), "dim");
  const Shape sy = contiguousStrides(y.shape), s1 = broadcastStrides(call.inputs[0].shape, y.shape),
              s2 = broadcastStrides(call.inputs[1].shape, y.shape);
  const size_t a = static_cast<size_t>(axis);
  const int64_t vectors = y.numel() / 3;
  Shape pos(y.shape.size(), 0);
  for (int64_t v = 0; v < vectors; ++v) {
    int64_t oy = 0, o1 = 0, o2 = 0;
    for (size_t d = 0; d < pos.size(); ++d) {
      oy += pos[d] * sy[d];
      o1 += pos[d] * s1[d];
      o2 += pos[d] * s2[d];
    }
    fn(oy, o1, o2, sy[a], s1[a], s2[a]);
    for (size_t d = pos.size(); d-- > 0;) {  // next position, skipping the cross dim
      if (d == a) continue;
      if (++pos[d] < y.shape[d]) break;
      pos[d] = 0;
    }
  }
}

// a b - c d: fp32 for floats, wrapping int64 arithmetic for integers.
float crossTerm(float a, float b, float c, float d) { return a * b - c * d; }
int64_t crossTerm(int64_t a, int64_t b, int64_t c, int64_t d) {
  const uint64_t ab = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
  return static_cast<int64_t>(ab - static_cast<uint64_t>(c) * static_cast<uint64_t>(d));
}

template <typename T, typename Load, typename Store>
void runCross(const OpCall& call, Load load, Store store) {
  const TensorArg &x1 = call.inputs[0], &x2 = call.inputs[1], &y = call.outputs[0];
  forEachVector(call, [&](int64_t oy, int64_t o1, int64_t o2, int64_t ty, int64_t t1, int64_t t2) {
    T a[3], b[3], r[3];
    load(x1.dtype, x1.data, o1, t1, 3, a);
    load(x2.dtype, x2.data, o2, t2, 3, b);
    r[0] = crossTerm(a[1], b[2], a[2], b[1]);
    r[1] = crossTerm(a[2], b[0], a[0], b[2]);
    r[2] = crossTerm(a[0], b[1], a[1], b[0]);
    for (int64_t k = 0; k < 3; ++k) store(y.dtype, y.data, oy + k * ty, 1, &r[k]);
  });
}

void computeCross(const OpCall& call) {
  if (call.outputs[0].numel() == 0) return;
  if (isFloatDtype(call.outputs[0].dtype))
    runCross<float>(call, &loadFloat, &storeFloat);
  else
    runCross<int64_t>(call, &loadInt, &storeInt);
}

KernelCost costCross(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 3.0 * static_cast<double>(call.outputs[0].numel());  // 2 products and a difference per component
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Cross", &validateCross, &computeCross, &costCross});

}  // namespace
}  // namespace ascend_sim
