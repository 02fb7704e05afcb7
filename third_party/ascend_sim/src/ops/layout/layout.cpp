// AsStrided and ViewCopy (OPS.md "Layout"): gathers a strided view of a whole
// storage into a contiguous tensor, and scatters a contiguous tensor into a
// strided view of a storage (other storage elements untouched). Both are
// dtype-agnostic element copies; view bounds are checked at launch.
#include <cstring>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

struct StridedView {
  Shape size, stride;
  int64_t offset = 0;
};

bool isViewCopy(const OpCall& call) { return call.op_type == "ViewCopy"; }

StridedView viewOf(const OpCall& call) {
  const bool vc = isViewCopy(call);
  StridedView v;
  v.size = attrInts(call, "size");
  v.stride = attrInts(call, vc ? "dst_stride" : "stride");
  v.offset = attrInt(call, vc ? "dst_storage_offset" : "storage_offset", 0);
  return v;
}

void validateLayout(const OpCall& call) {
  const bool vc = isViewCopy(call);
  checkArity(call, 1, 1, 1);
  const TensorArg& in = call.inputs[0];
  const TensorArg& out = call.outputs[0];
  const char* in_name = vc ? "src" : "x";
  const char* out_name = vc ? "output dst" : "output y";
  checkDtype(call, in, std::string("input ") + in_name, kStorageTypes);
  checkSameDtype(call, in, in_name, out, out_name);
  const StridedView v = viewOf(call);
  if (v.size.size() != v.stride.size())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "size " + shapeToString(v.size) + " and stride " + shapeToString(v.stride) +
             " have different lengths");
  for (int64_t d : v.size)
    if (d < 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "size " + shapeToString(v.size) + " has a negative dim");
  const TensorArg& dense = vc ? in : out;
  if (dense.numel() != numelOf(v.size))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(vc ? "input src" : "output y") + " shape " + shapeToString(dense.shape) +
             " does not match size " + shapeToString(v.size));
  if (numelOf(v.size) == 0) return;
  int64_t lo = v.offset, hi = v.offset;
  for (size_t d = 0; d < v.size.size(); ++d) {
    const int64_t span = (v.size[d] - 1) * v.stride[d];
    (span < 0 ? lo : hi) += span;
  }
  const TensorArg& storage = vc ? out : in;
  if (lo < 0 || hi >= storage.numel())
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "view size " + shapeToString(v.size) + " stride " + shapeToString(v.stride) +
             " storage_offset " + std::to_string(v.offset) + " reaches elements [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "], outside " +
             (vc ? "dst" : "x") + " of " + std::to_string(storage.numel()) + " elements");
}

// Copies runs element by element: dst[d_off + i*d_st] = src[s_off + i*s_st].
template <typename T>
void copyRun(const void* src, int64_t s_off, int64_t s_st, void* dst, int64_t d_off, int64_t d_st,
             int64_t n) {
  const T* s = static_cast<const T*>(src) + s_off;
  T* d = static_cast<T*>(dst) + d_off;
  for (int64_t i = 0; i < n; ++i) d[i * d_st] = s[i * s_st];
}

void computeLayout(const OpCall& call) {
  const bool vc = isViewCopy(call);
  const StridedView v = viewOf(call);
  const TensorArg& in = call.inputs[0];
  const TensorArg& out = call.outputs[0];
  // Operand 0 = destination, 1 = source; the strided side uses the view.
  std::vector<Shape> strides = {vc ? v.stride : contiguousStrides(v.size),
                                vc ? contiguousStrides(v.size) : v.stride};
  const int64_t dst_base = vc ? v.offset : 0, src_base = vc ? 0 : v.offset;
  void (*copy)(const void*, int64_t, int64_t, void*, int64_t, int64_t, int64_t) = nullptr;
  switch (dtypeSize(in.dtype)) {
    case 1: copy = &copyRun<uint8_t>; break;
    case 2: copy = &copyRun<uint16_t>; break;
    case 4: copy = &copyRun<uint32_t>; break;
    default: copy = &copyRun<uint64_t>; break;
  }
  forEachInnerRun(v.size, strides, [&](const int64_t* off, int64_t len, const int64_t* st) {
    copy(in.data, src_base + off[1], st[1], out.data, dst_base + off[0], st[0], len);
  });
}

KernelCost costLayout(const OpCall& call) {
  // Only the viewed elements move: read once, written once — by the AI CPU,
  // as in CANN (see CostModel::kAiCpuBytesPerS).
  KernelCost c;
  c.core = CoreType::kAiCpu;
  const TensorArg& dense = isViewCopy(call) ? call.inputs[0] : call.outputs[0];
  c.mte_bytes = 2 * tensorBytes(dense);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AsStrided", &validateLayout, &computeLayout, &costLayout,
                                     /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ViewCopy", &validateLayout, &computeLayout, &costLayout,
                                     /*moves_data_only=*/true});

}  // namespace
}  // namespace ascend_sim
