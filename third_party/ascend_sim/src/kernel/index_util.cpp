#include "kernel/index_util.h"

#include "common/dtype.h"

namespace ascend_sim {

std::string positionString(int64_t flat, const Shape& shape) {
  if (shape.empty()) return "[]";
  Shape idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return shapeToString(idx);
}

std::vector<int64_t> loadIndices(const TensorArg& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  loadInt(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

namespace {
[[noreturn]] void indexFault(const OpCall& call, int64_t value, size_t p, const Shape& idx_shape,
                             const std::string& idx_name, const std::string& range, int64_t bound, int64_t axis,
                             const std::string& tensor) {
  fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
       "index " + std::to_string(value) + " at position " + positionString(static_cast<int64_t>(p), idx_shape) +
           " of " + idx_name + " is out of range " + range + " for axis " + std::to_string(axis) + " of " + tensor +
           " (size " + std::to_string(bound) + ")");
}
}  // namespace

void checkIndexRange(const OpCall& call, const std::vector<int64_t>& idx, const Shape& idx_shape,
                     const std::string& idx_name, int64_t bound, int64_t axis, const std::string& tensor) {
  for (size_t p = 0; p < idx.size(); ++p)
    if (idx[p] < 0 || idx[p] >= bound)
      indexFault(call, idx[p], p, idx_shape, idx_name, "[0, " + std::to_string(bound) + ")", bound, axis, tensor);
}

void wrapIndices(const OpCall& call, std::vector<int64_t>* idx, const Shape& idx_shape, const std::string& idx_name,
                 int64_t bound, int64_t axis, const std::string& tensor) {
  for (size_t p = 0; p < idx->size(); ++p) {
    int64_t& i = (*idx)[p];
    if (i < -bound || i >= bound)
      indexFault(call, i, p, idx_shape, idx_name,
                 "[" + std::to_string(-bound) + ", " + std::to_string(bound) + ")", bound, axis, tensor);
    if (i < 0) i += bound;
  }
}

int64_t blocksFor(const OpCall& call, int64_t units, int64_t numel) {
  const int64_t chunks = (numel + 1023) / 1024;
  return std::max<int64_t>(
      1, std::min<int64_t>({units, chunks, static_cast<int64_t>(std::max(call.ctx.vector_cores, 1))}));
}

std::vector<int64_t> subOffsets(const Shape& shape, size_t d0, size_t d1, const Shape& st) {
  std::vector<int64_t> dims;
  for (size_t d = d0; d < d1; ++d) dims.push_back(static_cast<int64_t>(d));
  return dimsOffsets(shape, dims, st);
}

std::vector<int64_t> dimsOffsets(const Shape& shape, const std::vector<int64_t>& dims, const Shape& st) {
  std::vector<int64_t> off(1, 0);
  for (int64_t d : dims) {
    std::vector<int64_t> next;
    next.reserve(off.size() * static_cast<size_t>(shape[d]));
    for (int64_t base : off)
      for (int64_t i = 0; i < shape[d]; ++i) next.push_back(base + i * st[d]);
    off.swap(next);
  }
  return off;
}

KernelCost indexCost(const OpCall& call, int64_t blocks) {
  KernelCost c = vectorCost(call);
  c.block_dim = static_cast<uint32_t>(blocks);
  return c;
}

void checkIndexShape(const OpCall& call, const TensorArg& idx, const std::string& iname, const TensorArg& t,
                     const std::string& tname, int64_t axis, bool all_dims) {
  if (idx.shape.size() != t.shape.size())
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         iname + " shape " + shapeToString(idx.shape) + " must have the rank of " + tname + " shape " +
             shapeToString(t.shape));
  for (size_t d = 0; d < idx.shape.size(); ++d)
    if ((all_dims || static_cast<int64_t>(d) != axis) && idx.shape[d] > t.shape[d])
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           iname + " shape " + shapeToString(idx.shape) + " exceeds " + tname + " shape " + shapeToString(t.shape) +
               " in dim " + std::to_string(d));
}

ElemGeom elemGeom(const OpCall& call, const Shape& ishape, const Shape& dshape, const Shape* ushape,
                  const char* attr) {
  ElemGeom g;
  g.axis = normalizeAxis(call, attrInt(call, attr, 0), ishape.size(), attr);
  const size_t a = static_cast<size_t>(g.axis), r = ishape.size();
  if (r == 0) {  // 0-d: one element, axis size 1
    g.data_outer = g.data_inner = g.upd_outer = g.upd_inner = {0};
    return g;
  }
  for (size_t d = 0; d < r; ++d) {
    if (d < a) g.outer *= ishape[d];
    else if (d > a) g.inner *= ishape[d];
  }
  g.dim = ishape[a];
  const Shape dst = contiguousStrides(dshape);
  g.data_outer = subOffsets(ishape, 0, a, dst);
  g.data_inner = subOffsets(ishape, a + 1, r, dst);
  g.data_axis_stride = dst[a];
  g.data_dim = dshape[a];
  if (ushape) {
    const Shape ust = contiguousStrides(*ushape);
    g.upd_outer = subOffsets(ishape, 0, a, ust);
    g.upd_inner = subOffsets(ishape, a + 1, r, ust);
    g.upd_axis_stride = ust[a];
  }
  return g;
}

}  // namespace ascend_sim
