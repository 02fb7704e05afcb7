// OneHotD (OPS.md "Indexing, gathering, scattering"), on the Vector unit:
// torch_npu's npu_one_hot.
//
// Note [OneHotD]
// Inputs x (int32, int64 or uint8 indices), on_value and off_value (one value
// each, of the output's dtype); attrs depth (>= 0) and axis (-1, the default,
// is last). The output is x's shape with a dimension of size depth inserted at
// axis; the element at position d along it is on_value where x == d and
// off_value elsewhere, so an index outside [0, depth) gives a row of
// off_value.
#include <cstring>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

struct OneHotShape {
  int64_t outer = 1, depth = 0, inner = 1;
};

OneHotShape oneHotShape(const OpCall& call) {
  const Shape& xs = call.inputs[0].shape;
  const int64_t depth = attrInt(call, "depth");
  if (depth < 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr depth must be >= 0, got " + std::to_string(depth));
  int64_t axis = attrInt(call, "axis", -1);
  const int64_t rank = static_cast<int64_t>(xs.size());
  if (axis < -1 || axis > rank)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr axis must lie in [-1, " + std::to_string(rank) + "] for x of rank " + std::to_string(rank) + ", got " +
             std::to_string(axis));
  if (axis == -1) axis = rank;
  OneHotShape s;
  s.depth = depth;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? s.outer : s.inner) *= xs[d];
  return s;
}

Shape outputShape(const OpCall& call, const OneHotShape& s) {
  Shape out = call.inputs[0].shape;
  int64_t axis = attrInt(call, "axis", -1);
  if (axis == -1) axis = static_cast<int64_t>(out.size());
  out.insert(out.begin() + axis, s.depth);
  return out;
}

void validateOneHotD(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  checkDtype(call, call.inputs[0], "input x", kIndexTypes | dtBit(ACL_UINT8));
  const TensorArg& y = call.outputs[0];
  checkDtype(call, y, "output y", kNumericTypes);
  checkOneValue(call, call.inputs[1], "input on_value", kNumericTypes);
  checkOneValue(call, call.inputs[2], "input off_value", kNumericTypes);
  checkSameDtype(call, call.inputs[1], "on_value", y, "output y");
  checkSameDtype(call, call.inputs[2], "off_value", y, "output y");
  checkShapeEq(call, y, "output y", outputShape(call, oneHotShape(call)), "x's shape with depth inserted at axis");
}

void computeOneHotD(const OpCall& call) {
  const OneHotShape s = oneHotShape(call);
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  std::vector<int64_t> idx(static_cast<size_t>(x.numel()));
  if (!idx.empty()) loadInt(x.dtype, x.data, 0, 1, x.numel(), idx.data());
  const size_t es = dtypeSize(y.dtype);
  const auto* on = static_cast<const char*>(call.inputs[1].data);
  const auto* off = static_cast<const char*>(call.inputs[2].data);
  auto* out = static_cast<char*>(y.data);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t d = 0; d < s.depth; ++d)
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t at = (o * s.depth + d) * s.inner + i;
        std::memcpy(out + at * es, idx[o * s.inner + i] == d ? on : off, es);
      }
}

KernelCost costOneHotD(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = static_cast<double>(call.outputs[0].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"OneHotD", &validateOneHotD, &computeOneHotD, &costOneHotD});

}  // namespace
}  // namespace ascend_sim
