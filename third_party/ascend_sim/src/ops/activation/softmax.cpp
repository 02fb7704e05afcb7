// SoftmaxV2, LogSoftmaxV2, SoftmaxGrad, LogSoftmaxGrad (OPS.md "Softmax and
// losses"). The tensor is seen as [outer, D, inner] around the axis; for each
// outer index a tile of `cols` inner positions is loaded as [D][cols] fp32
// buffers, so every column is one softmax row. Maxima are exact; sums follow
// Note [Pairwise blocks] with the input dtype's block size. fp32 throughout,
// one rounding to the output dtype — except SoftmaxV2 / LogSoftmaxV2 on
// fp16/bf16 in high_performance mode (Note [Implementation modes] in
// runtime/compile_options.h), which round the shifted logits, the
// exponentials, their sum (and its log) to the input dtype, as a kernel
// computing in that dtype does, and run the Vector unit at its lane width.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

constexpr int64_t kTile = 64;               // inner positions per tile
constexpr int64_t kMaxBufElems = 1 << 20;   // elements per [D][cols] buffer

struct Tile {
  const float* in[2];  // [D][cols] each
  float* out;          // [D][cols]
  float* scratch;      // [D][cols], destroyed
  float* sums;         // [cols]
  int64_t d, cols, block;
  aclDataType compute;  // intermediates are rounded to this dtype (ACL_FLOAT: not rounded)
};

// Rounds v[0..n) to the tile's compute dtype.
void roundIntermediate(const Tile& t, float* v, int64_t n) {
  if (t.compute == ACL_FLOAT16) {
    for (int64_t i = 0; i < n; ++i) v[i] = halfToFloat(floatToHalf(v[i]));
  } else if (t.compute == ACL_BF16) {
    for (int64_t i = 0; i < n; ++i) v[i] = bf16ToFloat(floatToBf16(v[i]));
  }
}

void columnSums(const Tile& t, const float* src) {
  std::memcpy(t.scratch, src, sizeof(float) * static_cast<size_t>(t.d * t.cols));
  reduceColumnsFloat(t.scratch, t.d, t.cols, t.block, ReduceKind::kSum, t.sums);
}

// out = x - max(x) per column (the shifted logits).
void shiftByMax(const Tile& t) {
  std::vector<float> m(t.in[0], t.in[0] + t.cols);
  for (int64_t r = 1; r < t.d; ++r)
    for (int64_t c = 0; c < t.cols; ++c) {
      const float v = t.in[0][r * t.cols + c];
      if (v > m[c] || v != v) m[c] = v;
    }
  for (int64_t r = 0; r < t.d; ++r)
    for (int64_t c = 0; c < t.cols; ++c) t.out[r * t.cols + c] = t.in[0][r * t.cols + c] - m[c];
}

void softmaxTile(const Tile& t) {
  shiftByMax(t);
  const int64_t n = t.d * t.cols;
  roundIntermediate(t, t.out, n);
  for (int64_t i = 0; i < n; ++i) t.out[i] = std::exp(t.out[i]);
  roundIntermediate(t, t.out, n);
  columnSums(t, t.out);
  roundIntermediate(t, t.sums, t.cols);
  for (int64_t i = 0; i < n; ++i) t.out[i] = t.out[i] / t.sums[i % t.cols];
}

void logSoftmaxTile(const Tile& t) {
  shiftByMax(t);
  const int64_t n = t.d * t.cols;
  roundIntermediate(t, t.out, n);
  for (int64_t i = 0; i < n; ++i) t.scratch[i] = std::exp(t.out[i]);
  roundIntermediate(t, t.scratch, n);
  reduceColumnsFloat(t.scratch, t.d, t.cols, t.block, ReduceKind::kSum, t.sums);
  roundIntermediate(t, t.sums, t.cols);
  for (int64_t c = 0; c < t.cols; ++c) t.sums[c] = std::log(t.sums[c]);
  roundIntermediate(t, t.sums, t.cols);
  for (int64_t i = 0; i < n; ++i) t.out[i] = t.out[i] - t.sums[i % t.cols];
}

void softmaxGradTile(const Tile& t) {  // in = (y, dy): dx = (dy - sum(dy * y)) * y
  const int64_t n = t.d * t.cols;
  const float* y = t.in[0];
  const float* dy = t.in[1];
  for (int64_t i = 0; i < n; ++i) t.out[i] = dy[i] * y[i];
  columnSums(t, t.out);
  for (int64_t i = 0; i < n; ++i) t.out[i] = (dy[i] - t.sums[i % t.cols]) * y[i];
}

void logSoftmaxGradTile(const Tile& t) {  // in = (dy, y): dx = dy - exp(y) * sum(dy)
  const int64_t n = t.d * t.cols;
  const float* dy = t.in[0];
  const float* y = t.in[1];
  columnSums(t, dy);
  for (int64_t i = 0; i < n; ++i) t.out[i] = dy[i] - std::exp(y[i]) * t.sums[i % t.cols];
}

struct SoftmaxSpec {
  const char* op;
  int num_inputs;
  const char* names[3];
  void (*tile)(const Tile&);
  bool has_high_performance;  // Note [Implementation modes]
};

const SoftmaxSpec kSpecs[] = {
    {"SoftmaxV2", 1, {"x", "y"}, &softmaxTile, true},
    {"LogSoftmaxV2", 1, {"x", "y"}, &logSoftmaxTile, true},
    {"SoftmaxGrad", 2, {"y", "dy", "dx"}, &softmaxGradTile, false},
    {"LogSoftmaxGrad", 2, {"dy", "y", "dx"}, &logSoftmaxGradTile, false},
};

const SoftmaxSpec& specOf(const OpCall& call) {
  for (const SoftmaxSpec& s : kSpecs)
    if (call.op_type == s.op) return s;
  fail(call, ACL_ERROR_OP_NOT_FOUND, "not a softmax op");
}

bool isHalf(aclDataType dt) { return dt == ACL_FLOAT16 || dt == ACL_BF16; }

// The dtype a launch computes in: the input's half dtype for the
// high_performance form, fp32 otherwise.
aclDataType computeDtypeOf(const OpCall& call) {
  const aclDataType dt = call.inputs[0].dtype;
  return specOf(call).has_high_performance && call.ctx.high_performance && isHalf(dt) ? dt : ACL_FLOAT;
}

AxisSplit splitOf(const OpCall& call) {
  std::vector<int64_t> axes = call.attrs.has("axes") ? attrInts(call, "axes") : std::vector<int64_t>{-1};
  if (axes.size() != 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'axes' must hold exactly one axis, got " + std::to_string(axes.size()));
  return splitAtAxis(call, call.inputs[0].shape, axes[0], "axes");
}

void validateSoftmax(const OpCall& call) {
  const SoftmaxSpec& s = specOf(call);
  checkArity(call, s.num_inputs, s.num_inputs, 1);
  const TensorArg& x0 = call.inputs[0];
  checkDtype(call, x0, std::string("input ") + s.names[0], kFloatTypes);
  for (int k = 1; k <= s.num_inputs; ++k) {
    const TensorArg& t = k < s.num_inputs ? call.inputs[k] : call.outputs[0];
    const std::string name = std::string(k < s.num_inputs ? "input " : "output ") + s.names[k];
    checkSameDtype(call, x0, s.names[0], t, name);
    checkShapeEq(call, t, name, x0.shape, std::string(s.names[0]) + " shape");
  }
  splitOf(call);
}

void computeSoftmax(const OpCall& call) {
  const SoftmaxSpec& s = specOf(call);
  const AxisSplit a = splitOf(call);
  const TensorArg& y = call.outputs[0];
  if (y.numel() == 0) return;
  const int64_t max_cols = std::max<int64_t>(1, std::min(kTile, kMaxBufElems / a.dim));
  const size_t cap = static_cast<size_t>(a.dim * std::min(max_cols, a.inner));
  std::vector<float> in0(cap), in1(s.num_inputs > 1 ? cap : 0), out(cap), scratch(cap), sums(kTile);
  float* ins[2] = {in0.data(), in1.data()};
  for (int64_t o = 0; o < a.outer; ++o) {
    for (int64_t t0 = 0; t0 < a.inner; t0 += max_cols) {
      const int64_t cols = std::min(max_cols, a.inner - t0);
      const int64_t base = o * a.dim * a.inner + t0;
      for (int k = 0; k < s.num_inputs; ++k) {
        const TensorArg& x = call.inputs[k];
        if (cols == 1) {
          loadFloat(x.dtype, x.data, base, a.inner, a.dim, ins[k]);
        } else {
          for (int64_t r = 0; r < a.dim; ++r)
            loadFloat(x.dtype, x.data, base + r * a.inner, 1, cols, ins[k] + r * cols);
        }
      }
      s.tile(Tile{{ins[0], ins[1]}, out.data(), scratch.data(), sums.data(), a.dim, cols,
                  reduceBlockElems(call.inputs[0].dtype), computeDtypeOf(call)});
      if (cols == 1 && a.inner == 1) {
        storeFloat(y.dtype, y.data, base, a.dim, out.data());
      } else {
        for (int64_t r = 0; r < a.dim; ++r)
          storeFloat(y.dtype, y.data, base + r * a.inner, cols, out.data() + r * cols);
      }
    }
  }
}

// Streaming cost (vectorCost) plus the arithmetic passes over the tile
// (shift, exp, sum, scale: 4) at the width of the compute dtype: fp32 lanes
// for fp32 and high_precision halves, half lanes for high_performance.
KernelCost costSoftmax(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const aclDataType compute = isHalf(call.inputs[0].dtype) ? computeDtypeOf(call) : call.inputs[0].dtype;
  c.vector_repeats += 4 * std::ceil(static_cast<double>(call.inputs[0].numel()) * dtypeSize(compute) / 256);
  return c;
}

const bool kRegistered = [] {
  for (const SoftmaxSpec& s : kSpecs) registerKernel(KernelDef{s.op, &validateSoftmax, &computeSoftmax, &costSoftmax});
  return true;
}();

}  // namespace
}  // namespace ascend_sim
