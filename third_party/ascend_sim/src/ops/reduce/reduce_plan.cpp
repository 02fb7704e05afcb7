#include "ops/reduce/reduce_plan.h"

#include <string>

namespace ascend_sim {

constexpr int64_t kReduceTile = 256;         // outputs gathered together (columns)
constexpr int64_t kMaxBufElems = 1 << 20;    // elements of the gather buffer

std::vector<bool> reducedAxesMask(const OpCall& call, const char* attr) {
  const size_t rank = call.inputs[0].shape.size();
  std::vector<int64_t> axes = call.attrs.has(attr) ? attrInts(call, attr) : std::vector<int64_t>{};
  std::vector<bool> mask(rank, axes.empty());
  for (int64_t a : axes) {
    if (rank == 0) {  // a 0-d tensor accepts axis 0 / -1 and reduces nothing
      normalizeAxis(call, a, rank, attr);
      continue;
    }
    const int64_t n = normalizeAxis(call, a, rank, attr);
    if (mask[n])
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           std::string("attribute '") + attr + "' names axis " + std::to_string(n) + " twice");
    mask[n] = true;
  }
  return mask;
}

Shape reducedShape(const Shape& in, const std::vector<bool>& mask, bool keep) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!mask[d]) out.push_back(in[d]);
    else if (keep) out.push_back(1);
  }
  return out;
}

ReducePlan makeReducePlan(const Shape& shape, const std::vector<bool>& mask) {
  ReducePlan p;
  const Shape strides = contiguousStrides(shape);
  Shape rshape, rstr;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (mask[d]) {
      rshape.push_back(shape[d]);
      rstr.push_back(strides[d]);
      p.rows *= shape[d];
    } else {
      p.outer_shape.push_back(shape[d]);
      p.outer_strides.push_back(strides[d]);
    }
  }
  if (!shape.empty() && !mask.back()) {
    p.tile_len = shape.back();
    p.outer_shape.pop_back();
    p.outer_strides.pop_back();
    const int64_t fit = p.rows == 0 ? kReduceTile : kMaxBufElems / p.rows;
    p.cols = std::max<int64_t>(1, std::min({kReduceTile, p.tile_len, fit}));
  }
  if (p.rows == 0) return p;
  forEachInnerRun(rshape, {rstr}, [&](const int64_t* off, int64_t len, const int64_t* st) {
    p.run_offsets.push_back(off[0]);
    p.run_len = len;
    p.run_stride = st[0];
  });
  return p;
}

}  // namespace ascend_sim
