// Cross (OPS.md "Dense prediction, padding, layout and indexing"):
// torch.linalg.cross. x1, x2 broadcast to y; along attr `dim` (size 3):
//   y0 = a1·b2 − a2·b1,  y1 = a2·b0 − a0·b2,  y2 = a0·b1 − a1·b0
// in fp32 (float dtypes, one rounding) or int64 (integers, wrapping).
#include <string>
#include <vector>

#include "ops/index_util.h"

namespace ascend_sim {
namespace {

int64_t crossDim(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const int64_t dim = normalizeAxis(call, attrInt(call, "dim"), y.shape.size(), "dim");
  if (y.shape.empty() || y.shape[static_cast<size_t>(dim)] != 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output y shape " + shapeToString(y.shape) + " must have size 3 in dim " + std::to_string(dim));
  return dim;
}

void validateCross(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& a = call.inputs[0];
  checkDtype(call, a, "input x1", kNumericTypes);
  checkSameDtype(call, a, "x1", call.inputs[1], "input x2");
  checkSameDtype(call, a, "x1", call.outputs[0], "output y");
  checkBroadcast(call, a, "x1", call.outputs[0]);
  checkBroadcast(call, call.inputs[1], "x2", call.outputs[0]);
  const int64_t dim = crossDim(call);
  const Shape& y = call.outputs[0].shape;
  for (size_t i = 0; i < 2; ++i) {
    const Shape& s = call.inputs[i].shape;
    const size_t d = static_cast<size_t>(dim) - (y.size() - s.size());
    if (y.size() - s.size() > static_cast<size_t>(dim) || s[d] != 3)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string("input x") + (i ? "2" : "1") + " shape " + shapeToString(s) + " must have size 3 in dim " +
               std::to_string(dim) + " of the output (no broadcasting there)");
  }
}

template <typename T>
void crossAll(const OpCall& call, int64_t dim, const std::vector<T>& a, const std::vector<T>& b, std::vector<T>& y,
              T (*mul)(T, T), T (*sub)(T, T)) {
  const Shape& ys = call.outputs[0].shape;
  Shape space = ys;
  space[static_cast<size_t>(dim)] = 1;
  const Shape sa = broadcastStrides(call.inputs[0].shape, ys), sb = broadcastStrides(call.inputs[1].shape, ys);
  const Shape sy = contiguousStrides(ys);
  const size_t d = static_cast<size_t>(dim);
  forEachInnerRun(space, {sy, sa, sb}, [&](const int64_t* off, int64_t len, const int64_t* st) {
    for (int64_t e = 0; e < len; ++e) {
      const T* pa = &a[static_cast<size_t>(off[1] + e * st[1])];
      const T* pb = &b[static_cast<size_t>(off[2] + e * st[2])];
      T* py = &y[static_cast<size_t>(off[0] + e * st[0])];
      const T a0 = pa[0], a1 = pa[sa[d]], a2 = pa[2 * sa[d]], b0 = pb[0], b1 = pb[sb[d]], b2 = pb[2 * sb[d]];
      py[0] = sub(mul(a1, b2), mul(a2, b1));
      py[sy[d]] = sub(mul(a2, b0), mul(a0, b2));
      py[2 * sy[d]] = sub(mul(a0, b1), mul(a1, b0));
    }
  });
}

void computeCross(const OpCall& call) {
  const int64_t dim = crossDim(call);
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  if (y.numel() == 0) return;
  if (isFloatDtype(y.dtype)) {
    std::vector<float> a(static_cast<size_t>(x1.numel())), b(static_cast<size_t>(x2.numel())),
        out(static_cast<size_t>(y.numel()));
    loadFloat(x1.dtype, x1.data, 0, 1, x1.numel(), a.data());
    loadFloat(x2.dtype, x2.data, 0, 1, x2.numel(), b.data());
    crossAll<float>(call, dim, a, b, out, [](float p, float q) { return p * q; }, [](float p, float q) { return p - q; });
    storeFloat(y.dtype, y.data, 0, y.numel(), out.data());
  } else {
    std::vector<int64_t> a(static_cast<size_t>(x1.numel())), b(static_cast<size_t>(x2.numel())),
        out(static_cast<size_t>(y.numel()));
    loadInt(x1.dtype, x1.data, 0, 1, x1.numel(), a.data());
    loadInt(x2.dtype, x2.data, 0, 1, x2.numel(), b.data());
    crossAll<int64_t>(
        call, dim, a, b, out,
        [](int64_t p, int64_t q) { return static_cast<int64_t>(static_cast<uint64_t>(p) * static_cast<uint64_t>(q)); },
        [](int64_t p, int64_t q) { return static_cast<int64_t>(static_cast<uint64_t>(p) - static_cast<uint64_t>(q)); });
    storeInt(y.dtype, y.data, 0, y.numel(), out.data());
  }
}

KernelCost costCross(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 3.0 * static_cast<double>(call.outputs[0].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Cross", &validateCross, &computeCross, &costCross});

}  // namespace
}  // namespace ascend_sim
