#include "ops/reduce/reduce_util.h"

#include <string>

#include "kernel/op_utils.h"

#include <limits>

namespace ascend_sim {
namespace {

struct FSum { float operator()(float a, float b) const { return a + b; } };
struct FProd { float operator()(float a, float b) const { return a * b; } };
struct FMax {
  float operator()(float a, float b) const { return a != a ? a : (b != b ? b : (a < b ? b : a)); }
};
struct FMin {
  float operator()(float a, float b) const { return a != a ? a : (b != b ? b : (b < a ? b : a)); }
};

template <class Op>
void treeColumns(float* buf, int64_t rows, int64_t cols, int64_t block, float* out) {
  const Op op{};
  for (int64_t b0 = 0; b0 < rows; b0 += block) {
    float* base = buf + b0 * cols;
    int64_t len = rows - b0 < block ? rows - b0 : block;
    while (len > 1) {
      const int64_t half = len / 2;
      for (int64_t i = 0; i < half; ++i) {
        float* dst = base + i * cols;
        const float* x = base + 2 * i * cols;
        const float* y = x + cols;
        for (int64_t c = 0; c < cols; ++c) dst[c] = op(x[c], y[c]);
      }
      if (len & 1) {
        const float* src = base + (len - 1) * cols;
        float* dst = base + half * cols;
        for (int64_t c = 0; c < cols; ++c) dst[c] = src[c];
      }
      len = half + (len & 1);
    }
    if (b0 == 0) {
      for (int64_t c = 0; c < cols; ++c) out[c] = base[c];
    } else {
      for (int64_t c = 0; c < cols; ++c) out[c] = op(out[c], base[c]);
    }
  }
}

}  // namespace

void reduceColumnsFloat(float* buf, int64_t rows, int64_t cols, int64_t block, ReduceKind kind,
                        float* out) {
  if (rows == 0) {
    const float id = kind == ReduceKind::kSum ? 0.0f
                     : kind == ReduceKind::kProd ? 1.0f
                                                 : std::numeric_limits<float>::quiet_NaN();
    for (int64_t c = 0; c < cols; ++c) out[c] = id;
    return;
  }
  switch (kind) {
    case ReduceKind::kSum: return treeColumns<FSum>(buf, rows, cols, block, out);
    case ReduceKind::kProd: return treeColumns<FProd>(buf, rows, cols, block, out);
    case ReduceKind::kMax: return treeColumns<FMax>(buf, rows, cols, block, out);
    case ReduceKind::kMin: return treeColumns<FMin>(buf, rows, cols, block, out);
  }
}

void reduceColumnsInt(int64_t* buf, int64_t rows, int64_t cols, ReduceKind kind, int64_t* out) {
  const int64_t id = kind == ReduceKind::kSum ? 0
                     : kind == ReduceKind::kProd ? 1
                     : kind == ReduceKind::kMax ? std::numeric_limits<int64_t>::min()
                                                : std::numeric_limits<int64_t>::max();
  for (int64_t c = 0; c < cols; ++c) out[c] = id;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* x = buf + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      const uint64_t a = static_cast<uint64_t>(out[c]), b = static_cast<uint64_t>(x[c]);
      switch (kind) {
        case ReduceKind::kSum: out[c] = static_cast<int64_t>(a + b); break;
        case ReduceKind::kProd: out[c] = static_cast<int64_t>(a * b); break;
        case ReduceKind::kMax: out[c] = x[c] > out[c] ? x[c] : out[c]; break;
        case ReduceKind::kMin: out[c] = x[c] < out[c] ? x[c] : out[c]; break;
      }
    }
  }
}

LossReduction lossReductionOf(const OpCall& call) {
  const std::string r = attrString(call, "reduction", "mean");
  if (r == "none") return LossReduction::kNone;
  if (r == "sum") return LossReduction::kSum;
  if (r != "mean")
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'reduction' is \"" + r + "\"; expected none, sum or mean");
  return LossReduction::kMean;
}

}  // namespace ascend_sim
