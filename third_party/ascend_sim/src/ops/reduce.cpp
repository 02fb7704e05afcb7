// ReduceSum/Mean/Max/Min/Prod/All/Any (OPS.md "Reductions").
//
// Note [Reduction layout]
// Conceptually the reduced axes are permuted innermost: the input becomes
// [outer..., reduced...] and each output element reduces one row-major
// sequence of the reduced axes (Note [Pairwise blocks] fixes the order). The
// reduced sequence's memory offsets are the same for every output, so they
// are precomputed once as runs (offset, len, stride). When the input's last
// axis is not reduced, kTile consecutive outputs are gathered together into a
// [rows][cols] buffer with contiguous loads and reduced column-wise, which is
// both cache friendly and vectorisable; each column keeps its own order.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/op_utils.h"
#include "ops/reduce_util.h"

namespace ascend_sim {
namespace {

constexpr int64_t kTile = 256;              // outputs gathered together (columns)
constexpr int64_t kMaxBufElems = 1 << 20;   // elements of the gather buffer

struct ReduceSpec {
  const char* op;
  DtypeMask dtypes;
  ReduceKind kind;
  bool mean;
};

const ReduceSpec kSpecs[] = {
    {"ReduceSum", kAllTypes, ReduceKind::kSum, false},
    {"ReduceMean", kFloatTypes, ReduceKind::kSum, true},
    {"ReduceMax", kAllTypes, ReduceKind::kMax, false},
    {"ReduceMin", kAllTypes, ReduceKind::kMin, false},
    {"ReduceProd", kAllTypes, ReduceKind::kProd, false},
    {"ReduceAll", kBoolType, ReduceKind::kMin, false},
    {"ReduceAny", kBoolType, ReduceKind::kMax, false},
};

const ReduceSpec& specOf(const OpCall& call) {
  for (const ReduceSpec& s : kSpecs)
    if (call.op_type == s.op) return s;
  fail(call, ACL_ERROR_OP_NOT_FOUND, "not a reduction");
}

// Which input axes are reduced (attr `axes`, empty or absent = all).
std::vector<bool> reducedMask(const OpCall& call) {
  const size_t rank = call.inputs[0].shape.size();
  std::vector<int64_t> axes = call.attrs.has("axes") ? attrInts(call, "axes") : std::vector<int64_t>{};
  std::vector<bool> mask(rank, axes.empty());
  for (int64_t a : axes) {
    if (rank == 0) {  // a 0-d tensor accepts axis 0 / -1 and reduces nothing
      normalizeAxis(call, a, rank, "axes");
      continue;
    }
    const int64_t n = normalizeAxis(call, a, rank, "axes");
    if (mask[n])
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'axes' names axis " + std::to_string(n) + " twice");
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

void validateReduce(const OpCall& call) {
  const ReduceSpec& s = specOf(call);
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", s.dtypes);
  checkSameDtype(call, x, "x", y, "output y");
  const std::vector<bool> mask = reducedMask(call);
  checkShapeEq(call, y, "output y", reducedShape(x.shape, mask, attrBool(call, "keep_dims", false)),
               "the reduced shape");
  if ((s.kind == ReduceKind::kMax || s.kind == ReduceKind::kMin) && x.dtype != ACL_BOOL &&
      y.numel() > 0) {
    int64_t rows = 1;
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) rows *= x.shape[d];
    if (rows == 0)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "cannot reduce over zero elements (input shape " + shapeToString(x.shape) + ")");
  }
}

// Note [Reduction layout]: the plan shared by all outputs.
struct Plan {
  Shape outer_shape, outer_strides;  // non-reduced axes (without the tiled last axis)
  std::vector<int64_t> run_offsets;  // reduced sequence = runs of run_len at run_stride
  int64_t run_len = 1, run_stride = 1, rows = 1;
  int64_t tile_len = 1;              // length of the tiled (last, non-reduced) axis; 1 = no tiling
  int64_t cols = 1;                  // outputs per gather
};

Plan makePlan(const Shape& shape, const std::vector<bool>& mask) {
  Plan p;
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
    const int64_t fit = p.rows == 0 ? kTile : kMaxBufElems / p.rows;
    p.cols = std::max<int64_t>(1, std::min({kTile, p.tile_len, fit}));
  }
  if (p.rows == 0) return p;
  forEachInnerRun(rshape, {rstr}, [&](const int64_t* off, int64_t len, const int64_t* st) {
    p.run_offsets.push_back(off[0]);
    p.run_len = len;
    p.run_stride = st[0];
  });
  return p;
}

// Runs the reduction in domain T (float or int64) per Note [Reduction layout].
template <typename T, typename LoadFn, typename ReduceFn, typename StoreFn>
void runReduce(const TensorArg& x, const Plan& p, LoadFn load, ReduceFn reduce, StoreFn store) {
  std::vector<T> buf(static_cast<size_t>(std::max<int64_t>(1, p.rows * p.cols)));
  std::vector<T> out(static_cast<size_t>(p.cols));
  const int64_t outer = numelOf(p.outer_shape);
  Shape idx(p.outer_shape.size(), 0);
  int64_t base = 0, out_off = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t t0 = 0; t0 < p.tile_len; t0 += p.cols) {
      const int64_t cols = std::min(p.cols, p.tile_len - t0);
      int64_t pos = 0;
      for (int64_t ro : p.run_offsets) {
        if (cols == 1) {
          load(x.dtype, x.data, base + t0 + ro, p.run_stride, p.run_len, &buf[pos]);
        } else {
          for (int64_t j = 0; j < p.run_len; ++j)
            load(x.dtype, x.data, base + t0 + ro + j * p.run_stride, 1, cols, &buf[(pos + j) * cols]);
        }
        pos += p.run_len;
      }
      reduce(buf.data(), p.rows, cols, out.data());
      store(out_off, cols, out.data());
      out_off += cols;
    }
    for (size_t q = idx.size(); q-- > 0;) {
      base += p.outer_strides[q];
      if (++idx[q] < p.outer_shape[q]) break;
      base -= p.outer_strides[q] * p.outer_shape[q];
      idx[q] = 0;
    }
  }
}

void computeReduce(const OpCall& call) {
  const ReduceSpec& s = specOf(call);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const Plan p = makePlan(x.shape, reducedMask(call));
  if (y.numel() == 0) return;
  if (isFloatDtype(x.dtype)) {
    const int64_t block = reduceBlockElems(x.dtype);
    runReduce<float>(
        x, p, &loadFloat,
        [&](float* buf, int64_t rows, int64_t cols, float* out) {
          reduceColumnsFloat(buf, rows, cols, block, s.kind, out);
          if (s.mean)
            for (int64_t c = 0; c < cols; ++c) out[c] = out[c] / static_cast<float>(rows);
        },
        [&](int64_t off, int64_t n, const float* v) { storeFloat(y.dtype, y.data, off, n, v); });
  } else {
    runReduce<int64_t>(
        x, p, &loadInt,
        [&](int64_t* buf, int64_t rows, int64_t cols, int64_t* out) {
          reduceColumnsInt(buf, rows, cols, s.kind, out);
          if (x.dtype == ACL_BOOL && rows == 0 && s.kind == ReduceKind::kMin)
            for (int64_t c = 0; c < cols; ++c) out[c] = 1;  // all() of nothing
          if (x.dtype == ACL_BOOL && rows == 0 && s.kind == ReduceKind::kMax)
            for (int64_t c = 0; c < cols; ++c) out[c] = 0;  // any() of nothing
        },
        [&](int64_t off, int64_t n, const int64_t* v) { storeInt(y.dtype, y.data, off, n, v); });
  }
}

const bool kRegistered = [] {
  for (const ReduceSpec& s : kSpecs) registerKernel(KernelDef{s.op, &validateReduce, &computeReduce, &vectorCost});
  return true;
}();

}  // namespace
}  // namespace ascend_sim
