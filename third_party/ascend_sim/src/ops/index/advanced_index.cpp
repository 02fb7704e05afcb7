// Index and IndexPutV2 (OPS.md "Dense prediction, padding, layout and
// indexing"): NumPy / PyTorch advanced indexing x[i0, :, i2] and its
// assignment x[i0, :, i2] = v (accumulate: +=) with integer index tensors.
//
// Note [Advanced index geometry]
// Attribute `indexed_sizes` has one entry per dim of x: 1 for a dim indexed
// by the next index tensor input, 0 for a dim taken whole (":"). The K index
// tensors all have one shape B (the caller broadcasts them; boolean masks are
// turned into index tensors by the caller, as torch_npu does with nonzero).
// The result of indexing has shape
//   A + B + C   where, if the indexed dims are adjacent, A are the dims of x
//               before them and C the dims after them; otherwise A is empty
//               and C are all non-indexed dims of x in order (NumPy's rule).
// Element (a, b, c) of the result is x at the coordinates of a and c with
// indexed dim k at idx_k[b]. Indices in [-size, size) are valid (negative
// ones count from the end); anything else is a device fault naming the
// value, its position and the dim.
// IndexPutV2 writes value (broadcast to A + B + C) to those positions of
// y = x, visiting result elements in row-major order: without `accumulate`
// the last write to an element wins; with it every value is added in that
// order to an fp32 (float dtypes) or int64 accumulator per element, rounded
// or wrapped once at the end. Two result elements with different (a, c)
// never share a target, so the work is split over (a, c-chunk) tasks that
// each walk b ascending: the order per target is fixed and the result does
// not depend on the host thread count.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

constexpr int64_t kChunk = 1024;

struct AdvGeom {
  std::vector<int64_t> dims;    // indexed dims of x, ascending
  std::vector<int64_t> a_dims;  // dims of x before the indexed block (adjacent case)
  std::vector<int64_t> c_dims;  // the other non-indexed dims of x, in order
  Shape b_shape;                // the index tensors' shape
  Shape out_shape;              // A + B + C
  int64_t na = 1, nb = 1, nc = 1;
  bool c_trailing = false;      // C = x's dims after the block: contiguous rows
};

bool isIndexPut(const OpCall& call) { return call.op_type == "IndexPutV2"; }
size_t firstIndexInput(const OpCall& call) { return isIndexPut(call) ? 2 : 1; }

AdvGeom geomOf(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const std::vector<int64_t> mask = attrInts(call, "indexed_sizes");
  const size_t first = firstIndexInput(call);
  if (mask.size() != x.shape.size())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'indexed_sizes' has " + std::to_string(mask.size()) + " entries; expected one per dim of x " +
             shapeToString(x.shape));
  AdvGeom g;
  for (size_t d = 0; d < mask.size(); ++d) {
    if (mask[d] != 0 && mask[d] != 1)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'indexed_sizes' " + shapeToString(mask) + " must hold 0 or 1");
    if (mask[d]) g.dims.push_back(static_cast<int64_t>(d));
  }
  const size_t k = call.inputs.size() - first;
  if (g.dims.empty() || g.dims.size() != k)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "attribute 'indexed_sizes' " + shapeToString(mask) + " marks " + std::to_string(g.dims.size()) +
             " dims, but " + std::to_string(k) + " index tensors were given (at least one is needed)");
  g.b_shape = call.inputs[first].shape;
  for (size_t i = first; i < call.inputs.size(); ++i) {
    checkDtype(call, call.inputs[i], "input indices " + std::to_string(i - first), kIndexTypes);
    if (call.inputs[i].shape != g.b_shape)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "index tensors must share one shape (broadcast them first): indices 0 is " + shapeToString(g.b_shape) +
               ", indices " + std::to_string(i - first) + " is " + shapeToString(call.inputs[i].shape));
  }
  const bool adjacent = g.dims.back() - g.dims.front() + 1 == static_cast<int64_t>(g.dims.size());
  for (int64_t d = 0; d < static_cast<int64_t>(x.shape.size()); ++d) {
    if (mask[static_cast<size_t>(d)]) continue;
    (adjacent && d < g.dims.front() ? g.a_dims : g.c_dims).push_back(d);
  }
  g.c_trailing = adjacent;
  for (int64_t d : g.a_dims) g.out_shape.push_back(x.shape[d]), g.na *= x.shape[d];
  for (int64_t s : g.b_shape) g.out_shape.push_back(s), g.nb *= s;
  for (int64_t d : g.c_dims) g.out_shape.push_back(x.shape[d]), g.nc *= x.shape[d];
  return g;
}

void validateIndex(const OpCall& call) {
  checkArity(call, 2, 64, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kAllTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  const AdvGeom g = geomOf(call);
  checkShapeEq(call, call.outputs[0], "output y", g.out_shape, "the indexing result shape");
}

void validateIndexPut(const OpCall& call) {
  checkArity(call, 3, 64, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& value = call.inputs[1];
  checkDtype(call, x, "input x", kAllTypes);
  checkSameDtype(call, x, "x", value, "input value");
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  const AdvGeom g = geomOf(call);
  if (!broadcastsTo(value.shape, g.out_shape))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input value shape " + shapeToString(value.shape) + " does not broadcast to the indexing result shape " +
             shapeToString(g.out_shape));
  attrBool(call, "accumulate", false);
}

// Offsets in x: of each A position, of each C position, and of each b (the
// indexed dims' contribution, indices wrapped and range-checked).
struct XOffsets {
  std::vector<int64_t> a, b, c;
};

XOffsets xOffsets(const OpCall& call, const AdvGeom& g) {
  const TensorArg& x = call.inputs[0];
  const Shape st = contiguousStrides(x.shape);
  XOffsets o;
  o.a = dimsOffsets(x.shape, g.a_dims, st);
  o.c = dimsOffsets(x.shape, g.c_dims, st);
  o.b.assign(static_cast<size_t>(g.nb), 0);
  const size_t first = firstIndexInput(call);
  for (size_t k = 0; k < g.dims.size(); ++k) {
    const TensorArg& it = call.inputs[first + k];
    std::vector<int64_t> idx = loadIndices(it);
    const int64_t d = g.dims[k];
    wrapIndices(call, &idx, it.shape, "indices " + std::to_string(k), x.shape[d], d, "x");
    for (size_t b = 0; b < idx.size(); ++b) o.b[b] += idx[b] * st[d];
  }
  return o;
}

void computeIndex(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const AdvGeom g = geomOf(call);
  const XOffsets o = xOffsets(call, g);
  const size_t es = dtypeSize(x.dtype);
  const char* src = static_cast<const char*>(x.data);
  char* dst = static_cast<char*>(y.data);
  const int64_t rows = g.na * g.nb;
  if (g.nc == 0) return;
  splitRange(rows, blocksFor(call, rows, y.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t base = o.a[static_cast<size_t>(r / g.nb)] + o.b[static_cast<size_t>(r % g.nb)];
      char* out = dst + static_cast<size_t>(r * g.nc) * es;
      if (g.c_trailing) {
        std::memcpy(out, src + static_cast<size_t>(base) * es, static_cast<size_t>(g.nc) * es);
      } else {
        for (int64_t c = 0; c < g.nc; ++c)
          std::memcpy(out + static_cast<size_t>(c) * es, src + static_cast<size_t>(base + o.c[c]) * es, es);
      }
    }
  });
}

void computeIndexPut(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& value = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  const AdvGeom g = geomOf(call);
  const XOffsets o = xOffsets(call, g);
  // Offsets in value (broadcast to the result shape) of the A, B, C positions.
  const Shape vst = broadcastStrides(value.shape, g.out_shape);
  const size_t ra = g.a_dims.size(), rb = g.b_shape.size();
  const std::vector<int64_t> va = subOffsets(g.out_shape, 0, ra, vst);
  const std::vector<int64_t> vb = subOffsets(g.out_shape, ra, ra + rb, vst);
  const std::vector<int64_t> vc = subOffsets(g.out_shape, ra + rb, g.out_shape.size(), vst);
  const int64_t chunks = (g.nc + kChunk - 1) / kChunk;
  const int64_t tasks = g.na * chunks;
  const int64_t blocks = blocksFor(call, tasks, std::max<int64_t>(value.numel(), g.na * g.nb * g.nc));
  // fn(target offset in y, source offset in value), per task in (a, b, c) order with b outermost per (a, chunk).
  auto walk = [&](auto&& fn) {
    splitRange(tasks, blocks, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) {
        const size_t a = static_cast<size_t>(t / chunks);
        const int64_t c0 = (t % chunks) * kChunk, c1 = std::min(g.nc, c0 + kChunk);
        for (int64_t b = 0; b < g.nb; ++b) {
          const int64_t tb = o.a[a] + o.b[static_cast<size_t>(b)], sb = va[a] + vb[static_cast<size_t>(b)];
          for (int64_t c = c0; c < c1; ++c) fn(tb + o.c[static_cast<size_t>(c)], sb + vc[static_cast<size_t>(c)]);
        }
      }
    });
  };
  const int64_t n = y.numel();
  if (!attrBool(call, "accumulate", false)) {
    if (y.data != x.data && n > 0) std::memmove(y.data, x.data, static_cast<size_t>(n) * dtypeSize(y.dtype));
    const size_t es = dtypeSize(y.dtype);
    const char* src = static_cast<const char*>(value.data);
    char* dst = static_cast<char*>(y.data);
    walk([&](int64_t t, int64_t s) {
      std::memcpy(dst + static_cast<size_t>(t) * es, src + static_cast<size_t>(s) * es, es);
    });
    return;
  }
  if (isFloatDtype(y.dtype)) {
    std::vector<float> acc(static_cast<size_t>(n)), v(static_cast<size_t>(value.numel()));
    loadFloat(x.dtype, x.data, 0, 1, n, acc.data());
    loadFloat(value.dtype, value.data, 0, 1, value.numel(), v.data());
    walk([&](int64_t t, int64_t s) { acc[static_cast<size_t>(t)] += v[static_cast<size_t>(s)]; });
    storeFloat(y.dtype, y.data, 0, n, acc.data());
  } else {
    std::vector<int64_t> acc(static_cast<size_t>(n)), v(static_cast<size_t>(value.numel()));
    loadInt(x.dtype, x.data, 0, 1, n, acc.data());
    loadInt(value.dtype, value.data, 0, 1, value.numel(), v.data());
    walk([&](int64_t t, int64_t s) {
      int64_t& a = acc[static_cast<size_t>(t)];
      a = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(v[static_cast<size_t>(s)]));
    });
    storeInt(y.dtype, y.data, 0, n, acc.data());
  }
}

KernelCost costIndex(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const AdvGeom g = geomOf(call);
  c.block_dim = static_cast<uint32_t>(blocksFor(call, g.na * g.nb, call.outputs[0].numel()));
  return c;
}

KernelCost costIndexPut(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const AdvGeom g = geomOf(call);
  const int64_t tasks = g.na * ((g.nc + kChunk - 1) / kChunk);
  c.block_dim = static_cast<uint32_t>(
      blocksFor(call, tasks, std::max<int64_t>(call.inputs[1].numel(), g.na * g.nb * g.nc)));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Index", &validateIndex, &computeIndex, &costIndex});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"IndexPutV2", &validateIndexPut, &computeIndexPut, &costIndexPut});

}  // namespace
}  // namespace ascend_sim
