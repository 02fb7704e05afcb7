// Transpose, BroadcastTo, StridedSliceD and SliceD (OPS.md "Layout"): the AI Core
// data-movement ops that make sliced, permuted and expanded views contiguous
// (the plugin picks them instead of the AI CPU's AsStrided; Note [Contiguous
// views on the AI Core] in csrc/framework/ContiguousOpt.h).
//   Transpose(x, attr perm) -> y with y.shape[i] = x.shape[perm[i]] and
//     y[j0, .., jn-1] = x[k] where k[perm[i]] = j[i];
//   BroadcastTo(x, attr shape) -> y of `shape`: NumPy broadcasting of x;
//   StridedSliceD(x, attrs begin, end, strides) -> y with
//     y[j] = x[begin + j * strides] per dim (positive strides; end exclusive);
//   SliceD(x, attrs offsets, size) -> y: the block of `size` (-1: to the end
//     of the dim) at `offsets`, i.e. StridedSliceD with unit strides
//     (torch_npu's npu_slice).
// Both copy elements as bytes (every dtype), move each output element once
// and are costed as Vector/MTE work: input bytes read plus output written.
#include <algorithm>

#include "kernel/op_utils.h"

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

struct SliceSpec {
  Shape begin, end, step, out;
};

// SliceD's (offsets, size) as a unit-stride slice; the checks of sliceOf apply.
SliceSpec sliceDAttrs(const OpCall& call, const TensorArg& x) {
  SliceSpec s{attrInts(call, "offsets"), attrInts(call, "size"), {}, {}};
  if (s.begin.size() != x.shape.size() || s.end.size() != x.shape.size())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attributes 'offsets' and 'size' must each hold one value per dim of x " + shapeToString(x.shape));
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (s.end[d] < -1)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "dim " + std::to_string(d) + ": size " + std::to_string(s.end[d]) + " is negative (only -1, 'to the end')");
    s.end[d] = s.end[d] == -1 ? x.shape[d] : s.begin[d] + s.end[d];
  }
  s.step.assign(x.shape.size(), 1);
  return s;
}

SliceSpec sliceOf(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  SliceSpec s = call.op_type == "SliceD"
                    ? sliceDAttrs(call, x)
                    : SliceSpec{attrInts(call, "begin"), attrInts(call, "end"), attrInts(call, "strides"), {}};
  if (s.begin.size() != x.shape.size() || s.end.size() != x.shape.size() || s.step.size() != x.shape.size())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attributes 'begin', 'end' and 'strides' must each hold one value per dim of x " + shapeToString(x.shape));
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (s.step[d] <= 0 || s.begin[d] < 0 || s.end[d] > x.shape[d] || s.begin[d] > s.end[d])
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "dim " + std::to_string(d) + ": begin " + std::to_string(s.begin[d]) + ", end " + std::to_string(s.end[d]) +
               ", stride " + std::to_string(s.step[d]) + " is not a forward slice of size " +
               std::to_string(x.shape[d]));
    s.out.push_back((s.end[d] - s.begin[d] + s.step[d] - 1) / s.step[d]);
  }
  return s;
}

void validateStridedSlice(const OpCall& call) {
  validateCommon(call);
  checkShapeEq(call, call.outputs[0], "output y", sliceOf(call).out, "the slice of x");
}

void computeStridedSlice(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const SliceSpec s = sliceOf(call);
  if (numelOf(s.out) == 0) return;
  const Shape xs = contiguousStrides(x.shape);
  Shape strides(xs.size());
  int64_t offset = 0;
  for (size_t d = 0; d < xs.size(); ++d) {
    strides[d] = xs[d] * s.step[d];
    offset += s.begin[d] * xs[d];
  }
  TensorArg shifted = x;  // the slice's first element as the base of the gather
  shifted.data = static_cast<uint8_t*>(x.data) + static_cast<size_t>(offset) * dtypeSize(x.dtype);
  gather(shifted, y, y.shape, strides);
}

KernelCost costStridedSlice(const OpCall& call) {
  KernelCost c;  // only the selected elements move: read once, written once
  c.vector_bytes = c.mte_bytes = 2 * tensorBytes(call.outputs[0]);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"StridedSliceD", &validateStridedSlice, &computeStridedSlice,
                                     &costStridedSlice, /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SliceD", &validateStridedSlice, &computeStridedSlice, &costStridedSlice,
                                     /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Transpose", &validateTranspose, &computeTranspose, &vectorCost,
                                     /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BroadcastTo", &validateBroadcastTo, &computeBroadcastTo, &vectorCost,
                                     /*moves_data_only=*/true});

}  // namespace
}  // namespace ascend_sim
