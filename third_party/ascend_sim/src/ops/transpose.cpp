// Transpose and BroadcastTo (OPS.md "Layout"): the AI Core data-movement ops
// that make permuted and expanded views contiguous (the plugin picks them
// instead of the AI CPU's AsStrided when a view is a permutation and/or an
// expansion of a dense block; Note [Contiguous views on the AI Core] in
// csrc/framework/ContiguousOpt.h).
//   Transpose(x, attr perm) -> y with y.shape[i] = x.shape[perm[i]] and
//     y[j0, .., jn-1] = x[k] where k[perm[i]] = j[i];
//   BroadcastTo(x, attr shape) -> y of `shape`: NumPy broadcasting of x.
// Both copy elements as bytes (every dtype), move each output element once
// and are costed as Vector/MTE work: input bytes read plus output written.
#include <algorithm>

#include "ops/op_utils.h"

namespace ascend_sim {
namespace {

template <typename T>
void copyRun(const void* src, int64_t s_off, int64_t s_st, void* dst, int64_t d_off, int64_t n) {
  const T* s = static_cast<const T*>(src) + s_off;
  T* d = static_cast<T*>(dst) + d_off;
  for (int64_t i = 0; i < n; ++i) d[i] = s[i * s_st];
}

// y (contiguous, shape `out_shape`) = x read with `x_strides` per output dim.
void gather(const TensorArg& x, const TensorArg& y, const Shape& out_shape, const Shape& x_strides) {
  void (*copy)(const void*, int64_t, int64_t, void*, int64_t, int64_t) = nullptr;
  switch (dtypeSize(x.dtype)) {
    case 1: copy = &copyRun<uint8_t>; break;
    case 2: copy = &copyRun<uint16_t>; break;
    case 4: copy = &copyRun<uint32_t>; break;
    default: copy = &copyRun<uint64_t>; break;
  }
  const std::vector<Shape> strides = {contiguousStrides(out_shape), x_strides};
  forEachInnerRun(out_shape, strides, [&](const int64_t* off, int64_t len, const int64_t* st) {
    copy(x.data, off[1], st[1], y.data, off[0], len);
  });
}

void validateCommon(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  checkDtype(call, call.inputs[0], "input x", kStorageTypes);
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "output y");
}

void validateTranspose(const OpCall& call) {
  validateCommon(call);
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const Shape perm = attrInts(call, "perm");
  Shape sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted.size() != x.shape.size() || sorted[i] != static_cast<int64_t>(i))
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attribute 'perm' " + shapeToString(perm) + " is not a permutation of the " +
               std::to_string(x.shape.size()) + " dims of x " + shapeToString(x.shape));
  Shape want(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) want[i] = x.shape[perm[i]];
  checkShapeEq(call, y, "output y", want, "x shape permuted by perm");
}

void computeTranspose(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const Shape perm = attrInts(call, "perm");
  const Shape xs = contiguousStrides(x.shape);
  Shape strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) strides[i] = xs[perm[i]];
  gather(x, y, y.shape, strides);
}

void validateBroadcastTo(const OpCall& call) {
  validateCommon(call);
  checkBroadcast(call, call.inputs[0], "input x", call.outputs[0]);
}

void computeBroadcastTo(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const Shape xs = contiguousStrides(x.shape);
  Shape strides(y.shape.size(), 0);
  const size_t lead = y.shape.size() - x.shape.size();
  for (size_t d = 0; d < x.shape.size(); ++d) strides[lead + d] = x.shape[d] == 1 ? 0 : xs[d];
  gather(x, y, y.shape, strides);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Transpose", &validateTranspose, &computeTranspose, &vectorCost,
                                     /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BroadcastTo", &validateBroadcastTo, &computeBroadcastTo, &vectorCost,
                                     /*moves_data_only=*/true});

}  // namespace
}  // namespace ascend_sim
