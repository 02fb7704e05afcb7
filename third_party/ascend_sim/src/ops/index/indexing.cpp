// GatherV2, GatherElements, IndexAdd (OPS.md "Indexing, concatenation,
// sorting, losses"), with PyTorch's semantics (index_select, gather,
// index_add); ScatterElements lives in scatter_elements.cpp. All dtypes
// (copies are bit-exact byte copies, so GatherV2 and GatherElements also take
// complex64; "add" accumulates floats in fp32 and
// integers in int64, then rounds / wraps once to the output dtype). Indices are int32 or int64; an
// index outside [0, size) — negative ones included, as in PyTorch — is a
// device fault (ACL_ERROR_RT_AICORE_EXCEPTION) naming the value, its position
// in the index tensor and the bound. All indices are checked before any output
// element is written.
//
// Note [Index op orders]
// An index tensor of shape [..., D, ...] around the op's axis is seen as
// [outer, D, inner]. Work is split over simulated vector cores by contiguous
// ranges of outer (or, for IndexAdd with one outer slice, of inner chunks);
// distinct outer indices (inner positions) never touch the same output
// element, so the split cannot reorder anything:
//   * ScatterElements: Note [Scatter reductions] in scatter_elements.cpp;
//   * IndexAdd: y = x, then for j = 0, 1, ... (ascending position in
//     `indices`) y[.., indices[j], ..] += alpha * updates[.., j, ..], fp32
//     (float: alpha * u computed in fp32, then added) or int64 (alpha
//     truncated toward zero) accumulation, one rounding at the end.
// y may alias data / x (in-place ops): the copy is skipped and updates are
// read from their own buffer.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

constexpr int64_t kInnerChunk = 1024;

// ---- GatherV2: y = x indexed along axis by indices (any shape) -----------------------------

void validateGatherV2(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& idx = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", kAllTypes | kComplexTypes);  // a byte copy
  checkDtype(call, idx, "input indices", kIndexTypes);
  checkSameDtype(call, x, "x", y, "output y");
  if (x.shape.empty()) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x must have rank >= 1, got a 0-d tensor");
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  Shape want(x.shape.begin(), x.shape.begin() + s.axis);
  want.insert(want.end(), idx.shape.begin(), idx.shape.end());
  want.insert(want.end(), x.shape.begin() + s.axis + 1, x.shape.end());
  checkShapeEq(call, y, "output y", want, "x.shape[:axis] + indices.shape + x.shape[axis+1:] =");
}

void computeGatherV2(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& it = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  const std::vector<int64_t> idx = loadIndices(it);
  checkIndexRange(call, idx, it.shape, "indices", s.dim, s.axis, "x");
  const size_t es = dtypeSize(x.dtype);
  const size_t row = static_cast<size_t>(s.inner) * es;
  const int64_t nidx = static_cast<int64_t>(idx.size());
  const int64_t rows = s.outer * nidx;
  const char* src = static_cast<const char*>(x.data);
  char* dst = static_cast<char*>(y.data);
  if (row == 0) return;
  splitRange(rows, blocksFor(call, rows, y.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t o = r / nidx, j = r % nidx;
      std::memcpy(dst + static_cast<size_t>(r) * row, src + static_cast<size_t>(o * s.dim + idx[j]) * row, row);
    }
  });
}

KernelCost costGatherV2(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  return indexCost(call, blocksFor(call, s.outer * call.inputs[1].numel(), call.outputs[0].numel()));
}

// ---- GatherElements: index tensors of the data's rank -----------------------------------------

void validateGatherElements(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& idx = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", kAllTypes | kComplexTypes);  // a byte copy
  checkDtype(call, idx, "input index", kIndexTypes);
  checkSameDtype(call, x, "x", y, "output y");
  const int64_t dim = normalizeAxis(call, attrInt(call, "dim", 0), x.shape.size(), "dim");
  checkIndexShape(call, idx, "input index", x, "input x", dim, false);
  checkShapeEq(call, y, "output y", idx.shape, "index shape");
}

void computeGatherElements(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& it = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  const ElemGeom g = elemGeom(call, it.shape, x.shape, nullptr, "dim");
  const std::vector<int64_t> idx = loadIndices(it);
  checkIndexRange(call, idx, it.shape, "index", g.data_dim, g.axis, "x");
  const size_t es = dtypeSize(x.dtype);
  const char* src = static_cast<const char*>(x.data);
  char* dst = static_cast<char*>(y.data);
  splitRange(g.outer, blocksFor(call, g.outer, y.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o)
      for (int64_t j = 0; j < g.dim; ++j)
        for (int64_t i = 0; i < g.inner; ++i) {
          const int64_t p = (o * g.dim + j) * g.inner + i;
          const int64_t so = g.data_outer[o] + idx[p] * g.data_axis_stride + g.data_inner[i];
          std::memcpy(dst + static_cast<size_t>(p) * es, src + static_cast<size_t>(so) * es, es);
        }
  });
}

KernelCost costGatherElements(const OpCall& call) {
  const ElemGeom g = elemGeom(call, call.inputs[1].shape, call.inputs[0].shape, nullptr, "dim");
  return indexCost(call, blocksFor(call, g.outer, call.outputs[0].numel()));
}

// ---- IndexAdd: y = x; y[.., indices[j], ..] += alpha * updates[.., j, ..] -----------------

void validateIndexAdd(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& idx = call.inputs[1];
  const TensorArg& upd = call.inputs[2];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", kAllTypes);
  checkDtype(call, idx, "input indices", kIndexTypes);
  checkSameDtype(call, x, "x", upd, "input updates");
  checkSameDtype(call, x, "x", y, "output y");
  checkShapeEq(call, y, "output y", x.shape, "x shape");
  if (idx.shape.size() > 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input indices shape " + shapeToString(idx.shape) + " must be 1-D");
  attrFloat(call, "alpha", 1.0f);
  if (x.shape.empty()) {
    if (idx.numel() != 1 || upd.numel() != 1)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "a 0-d x needs one index and one update, got indices shape " +
                                                   shapeToString(idx.shape) + " and updates shape " +
                                                   shapeToString(upd.shape));
    normalizeAxis(call, attrInt(call, "axis", 0), 0, "axis");
    return;
  }
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  Shape want = x.shape;
  want[static_cast<size_t>(s.axis)] = idx.numel();
  checkShapeEq(call, upd, "input updates", want, "x shape with the axis size replaced by the index count,");
}

void computeIndexAdd(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& it = call.inputs[1];
  const TensorArg& upd = call.inputs[2];
  const TensorArg& y = call.outputs[0];
  const AxisSplit s = x.shape.empty() ? AxisSplit{} : splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  const std::vector<int64_t> idx = loadIndices(it);
  checkIndexRange(call, idx, it.shape, "indices", s.dim, s.axis, "x");
  const int64_t nidx = static_cast<int64_t>(idx.size());
  const int64_t n = y.numel();
  const float alpha = attrFloat(call, "alpha", 1.0f);
  const int64_t chunks = (s.inner + kInnerChunk - 1) / kInnerChunk;
  const int64_t tasks = s.outer * chunks;
  const int64_t blocks = blocksFor(call, tasks, std::max<int64_t>(n, upd.numel()));
  // Task t: outer o = t / chunks, inner chunk t % chunks; j ascending inside.
  auto run = [&](auto* acc, const auto* u, auto a) {
    splitRange(tasks, blocks, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) {
        const int64_t o = t / chunks, i0 = (t % chunks) * kInnerChunk;
        const int64_t i1 = std::min(s.inner, i0 + kInnerChunk);
        for (int64_t j = 0; j < nidx; ++j) {
          auto* dst = acc + (o * s.dim + idx[j]) * s.inner;
          const auto* src = u + (o * nidx + j) * s.inner;
          for (int64_t i = i0; i < i1; ++i) dst[i] = a(dst[i], src[i]);
        }
      }
    });
  };
  if (isFloatDtype(y.dtype)) {
    std::vector<float> acc(static_cast<size_t>(n)), u(static_cast<size_t>(upd.numel()));
    loadFloat(x.dtype, x.data, 0, 1, n, acc.data());
    loadFloat(upd.dtype, upd.data, 0, 1, upd.numel(), u.data());
    run(acc.data(), u.data(), [alpha](float d, float v) { return d + alpha * v; });
    storeFloat(y.dtype, y.data, 0, n, acc.data());
  } else {
    const int64_t ia = saturateFloatToInt(alpha, INT64_MIN, INT64_MAX);
    std::vector<int64_t> acc(static_cast<size_t>(n)), u(static_cast<size_t>(upd.numel()));
    loadInt(x.dtype, x.data, 0, 1, n, acc.data());
    loadInt(upd.dtype, upd.data, 0, 1, upd.numel(), u.data());
    run(acc.data(), u.data(), [ia](int64_t d, int64_t v) {
      return static_cast<int64_t>(static_cast<uint64_t>(d) + static_cast<uint64_t>(ia) * static_cast<uint64_t>(v));
    });
    storeInt(y.dtype, y.data, 0, n, acc.data());
  }
}

KernelCost costIndexAdd(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const AxisSplit s = x.shape.empty() ? AxisSplit{} : splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  const int64_t tasks = s.outer * ((s.inner + kInnerChunk - 1) / kInnerChunk);
  return indexCost(call, blocksFor(call, tasks, std::max(call.outputs[0].numel(), call.inputs[2].numel())));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GatherV2", &validateGatherV2, &computeGatherV2, &costGatherV2,
                                     /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GatherElements", &validateGatherElements, &computeGatherElements,
                                     &costGatherElements, /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"IndexAdd", &validateIndexAdd, &computeIndexAdd, &costIndexAdd});

}  // namespace
}  // namespace ascend_sim
