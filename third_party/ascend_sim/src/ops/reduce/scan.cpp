// Scans along one axis (OPS.md "Reductions, scans, sorting, statistics"):
// Cumsum, Cumprod, CumulativeLogsumexp (attrs `axis`, `exclusive`,
// `reverse`) and Cummax, Cummin (attr `dim`; values and indices).
//
// Note [Scan order]
// A scan is sequential by definition: y[i] = y[i-1] (op) x[i] along the axis,
// with one fp32 accumulator per line (integers: int64, wrapping), each y
// rounded once to the output dtype. The input is seen as [outer, dim, inner]
// (AxisSplit); every (outer, inner-chunk) line group keeps kInnerChunk
// accumulators and walks dim, so loads and stores are contiguous rows. Line
// groups are independent and split over simulated vector cores; each line's
// order is fixed, so results do not depend on the split. `exclusive` shifts
// the scan by one (y[0] = identity: 0, 1 or -inf); `reverse` scans from the
// last element to the first.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

constexpr int64_t kInnerChunk = 1024;  // lines scanned together

enum class ScanKind { kSum, kProd, kLogSumExp, kMax, kMin };

struct ScanSpec {
  const char* op;
  ScanKind kind;
  DtypeMask dtypes;
};

const ScanSpec kScans[] = {
    {"Cumsum", ScanKind::kSum, kNumericTypes},
    {"Cumprod", ScanKind::kProd, kNumericTypes},
    {"CumulativeLogsumexp", ScanKind::kLogSumExp, kFloatTypes},
    {"Cummax", ScanKind::kMax, kAllTypes},
    {"Cummin", ScanKind::kMin, kAllTypes},
};

const ScanSpec& scanOf(const OpCall& call) {
  for (const ScanSpec& s : kScans)
    if (call.op_type == s.op) return s;
  fail(call, ACL_ERROR_OP_NOT_FOUND, "not a scan");
}

bool withIndices(const ScanSpec& s) { return s.kind == ScanKind::kMax || s.kind == ScanKind::kMin; }
const char* axisAttr(const ScanSpec& s) { return withIndices(s) ? "dim" : "axis"; }

AxisSplit splitOf(const OpCall& call) {
  const ScanSpec& s = scanOf(call);
  return splitAtAxis(call, call.inputs[0].shape, attrInt(call, axisAttr(s)), axisAttr(s));
}

void validateScan(const OpCall& call) {
  const ScanSpec& s = scanOf(call);
  checkArity(call, 1, 1, withIndices(s) ? 2 : 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", s.dtypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x's shape");
  if (withIndices(s)) {
    checkDtype(call, call.outputs[1], "output indices", kIndexTypes);
    checkShapeEq(call, call.outputs[1], "output indices", x.shape, "x's shape");
  } else {
    attrBool(call, "exclusive", false);
    attrBool(call, "reverse", false);
  }
  splitOf(call);
}

// log(exp(a) + exp(b)) computed as max + log1p(exp(min - max)); NaN
// propagates and two equal infinities give that infinity (PyTorch's rule).
float logAddExp(float acc, float x) {
  if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  const float lo = std::min(acc, x), hi = std::max(acc, x);
  if (lo == hi && !std::isfinite(lo)) return x;
  return std::log1p(std::exp(lo - hi)) + hi;
}

// The value scans (sum, prod, logsumexp) in domain T.
template <typename T>
struct ValueScan {
  ScanKind kind;
  T identity() const {
    if (kind == ScanKind::kProd) return T(1);
    if (kind == ScanKind::kLogSumExp) return static_cast<T>(-std::numeric_limits<float>::infinity());
    return T(0);
  }
  T combine(T acc, T x) const {
    if constexpr (std::is_same_v<T, float>) {
      if (kind == ScanKind::kLogSumExp) return logAddExp(acc, x);
      return kind == ScanKind::kProd ? acc * x : acc + x;
    } else {  // integers wrap like int64 hardware arithmetic
      const uint64_t a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(x);
      return static_cast<int64_t>(kind == ScanKind::kProd ? a * b : a + b);
    }
  }
};

// Does x replace the running extreme `best` (PyTorch's cummax/cummin: a NaN
// always does, ties move the index to the later element)?
template <typename T>
bool replaces(T x, T best, bool want_max) {
  if (x != x) return true;
  if (best != best) return false;
  return want_max ? x >= best : x <= best;
}

int64_t blocksOf(const OpCall& call, int64_t groups) {
  return std::max<int64_t>(1, std::min<int64_t>(groups, std::max(call.ctx.vector_cores, 1)));
}

// Calls line_group(o, i0, n) for every (outer, inner chunk) group, split over cores.
template <typename Fn>
void forEachLineGroup(const OpCall& call, const AxisSplit& a, Fn line_group) {
  const int64_t chunks = (a.inner + kInnerChunk - 1) / kInnerChunk;
  const int64_t groups = a.outer * chunks;
  const int64_t blocks = blocksOf(call, groups);
  parallelFor(blocks, [&](int64_t b) {
    for (int64_t g = b * groups / blocks; g < (b + 1) * groups / blocks; ++g) {
      const int64_t o = g / chunks, i0 = (g % chunks) * kInnerChunk;
      line_group(o, i0, std::min(kInnerChunk, a.inner - i0));
    }
  });
}

template <typename T, typename Load, typename Store>
void runValueScan(const OpCall& call, ScanKind kind, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const AxisSplit a = splitOf(call);
  const bool exclusive = attrBool(call, "exclusive", false), reverse = attrBool(call, "reverse", false);
  const ValueScan<T> op{kind};
  forEachLineGroup(call, a, [&](int64_t o, int64_t i0, int64_t n) {
    std::vector<T> acc(static_cast<size_t>(n), op.identity()), row(static_cast<size_t>(n));
    for (int64_t step = 0; step < a.dim; ++step) {
      const int64_t d = reverse ? a.dim - 1 - step : step;
      const int64_t off = (o * a.dim + d) * a.inner + i0;
      load(x.dtype, x.data, off, 1, n, row.data());
      for (int64_t i = 0; i < n; ++i) {
        const T next = op.combine(acc[i], row[i]);
        row[i] = exclusive ? acc[i] : next;
        acc[i] = next;
      }
      store(y.dtype, y.data, off, n, row.data());
    }
  });
}

template <typename T, typename Load, typename Store>
void runExtremeScan(const OpCall& call, bool want_max, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const AxisSplit a = splitOf(call);
  forEachLineGroup(call, a, [&](int64_t o, int64_t i0, int64_t n) {
    std::vector<T> best(static_cast<size_t>(n)), row(static_cast<size_t>(n));
    std::vector<int64_t> idx(static_cast<size_t>(n), 0);
    for (int64_t d = 0; d < a.dim; ++d) {
      const int64_t off = (o * a.dim + d) * a.inner + i0;
      load(x.dtype, x.data, off, 1, n, row.data());
      for (int64_t i = 0; i < n; ++i) {
        if (d == 0 || replaces(row[i], best[i], want_max)) {
          best[i] = row[i];
          idx[i] = d;
        }
      }
      store(call.outputs[0].dtype, call.outputs[0].data, off, n, best.data());
      storeInt(call.outputs[1].dtype, call.outputs[1].data, off, n, idx.data());
    }
  });
}

void computeScan(const OpCall& call) {
  const ScanSpec& s = scanOf(call);
  if (call.inputs[0].numel() == 0) return;
  const bool is_float = isFloatDtype(call.inputs[0].dtype);
  if (withIndices(s)) {
    const bool want_max = s.kind == ScanKind::kMax;
    if (is_float) runExtremeScan<float>(call, want_max, &loadFloat, &storeFloat);
    else runExtremeScan<int64_t>(call, want_max, &loadInt, &storeInt);
  } else {
    if (is_float) runValueScan<float>(call, s.kind, &loadFloat, &storeFloat);
    else runValueScan<int64_t>(call, s.kind, &loadInt, &storeInt);
  }
}

KernelCost costScan(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const AxisSplit a = splitOf(call);
  c.block_dim = static_cast<uint32_t>(blocksOf(call, a.outer * ((a.inner + kInnerChunk - 1) / kInnerChunk)));
  if (scanOf(call).kind == ScanKind::kLogSumExp) c.flops *= 4;  // exp, log1p, max/min, add
  return c;
}

const bool kRegistered = [] {
  for (const ScanSpec& s : kScans) registerKernel(KernelDef{s.op, &validateScan, &computeScan, &costScan});
  return true;
}();

}  // namespace
}  // namespace ascend_sim
