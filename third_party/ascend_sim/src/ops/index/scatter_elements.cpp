// ScatterElements (OPS.md "Indexing, concatenation, sorting, losses"):
// torch.scatter / scatter_add / scatter(reduce=) / scatter_reduce, and
// through an expanded index index_copy / index_fill / index_reduce.
//
// Note [Scatter reductions]
// y starts as data. Updates are visited in row-major order of `indices`
// (outer, axis, inner; Note [Index op orders] in indexing.cpp): the target of
// (o, j, i) is y[.., indices[o, j, i], ..] with o, i's coordinates. attr
// `reduction`:
//   "none"  the update is copied (bit copies, any dtype): the last duplicate wins
//   "add", "mul", "max", "min", "mean"
//           combined into an fp32 (float dtypes) or int64 (integers,
//           wrapping) accumulator per element, one rounding at the end.
//           max / min propagate NaN (a NaN update wins, a NaN accumulator
//           stays). "mean" adds, then divides by the element's count (see
//           include_self): fp32 division, or floor division for integers;
//           untouched elements keep their value.
// attr `include_self` (default true): false first resets every targeted
// element to the reduction's identity (0, 1, −inf / +inf, int64 extremes) and
// does not count it in the mean — PyTorch's scatter_reduce(include_self=False).
// Distinct outer positions never share a target, so the work is split over
// ranges of outer and the bits do not depend on the host thread count.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin, kMean };

Reduction reductionOf(const OpCall& call) {
  const std::string r = attrString(call, "reduction", "none");
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  if (r == "mean") return Reduction::kMean;
  fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
       "attribute 'reduction' is \"" + r + "\"; expected \"none\", \"add\", \"mul\", \"max\", \"min\" or \"mean\"");
}

template <typename T>
T identityOf(Reduction r) {
  constexpr bool kFloat = std::is_floating_point<T>::value;
  switch (r) {
    case Reduction::kMul: return T(1);
    case Reduction::kMax: return kFloat ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    case Reduction::kMin: return kFloat ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    default: return T(0);
  }
}

float combine(Reduction r, float a, float b) {
  switch (r) {
    case Reduction::kMul: return a * b;
    case Reduction::kMax: return std::isnan(b) ? b : (a < b ? b : a);
    case Reduction::kMin: return std::isnan(b) ? b : (b < a ? b : a);
    default: return a + b;
  }
}

int64_t combine(Reduction r, int64_t a, int64_t b) {
  switch (r) {
    case Reduction::kMul: return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    case Reduction::kMax: return a < b ? b : a;
    case Reduction::kMin: return b < a ? b : a;
    default: return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  }
}

float meanOf(float sum, int64_t count) { return sum / static_cast<float>(count); }
int64_t meanOf(int64_t sum, int64_t count) {
  const int64_t q = sum / count;
  return (sum % count != 0 && sum < 0) ? q - 1 : q;  // floor (count > 0)
}

void validateScatterElements(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  const TensorArg& data = call.inputs[0];
  const TensorArg& idx = call.inputs[1];
  const TensorArg& upd = call.inputs[2];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, data, "input data", kAllTypes);
  reductionOf(call);
  checkDtype(call, idx, "input indices", kIndexTypes);
  checkSameDtype(call, data, "data", upd, "input updates");
  checkSameDtype(call, data, "data", y, "output y");
  checkShapeEq(call, y, "output y", data.shape, "data shape");
  const int64_t axis = normalizeAxis(call, attrInt(call, "axis", 0), data.shape.size(), "axis");
  checkIndexShape(call, idx, "input indices", data, "input data", axis, false);
  checkIndexShape(call, idx, "input indices", upd, "input updates", axis, true);
  attrBool(call, "include_self", true);
}

// Walks the index positions of outer range [lo, hi) in row-major order:
// fn(target offset in y, source offset in updates).
template <typename Fn>
void walk(const ElemGeom& g, const std::vector<int64_t>& idx, int64_t lo, int64_t hi, Fn&& fn) {
  for (int64_t o = lo; o < hi; ++o)
    for (int64_t j = 0; j < g.dim; ++j)
      for (int64_t i = 0; i < g.inner; ++i) {
        const int64_t p = (o * g.dim + j) * g.inner + i;
        fn(g.data_outer[o] + idx[p] * g.data_axis_stride + g.data_inner[i],
           g.upd_outer[o] + j * g.upd_axis_stride + g.upd_inner[i]);
      }
}

// The reductions in the accumulator type T (float or int64_t).
template <typename T>
void reduceInto(const OpCall& call, const ElemGeom& g, const std::vector<int64_t>& idx, int64_t blocks,
                std::vector<T>& acc, const std::vector<T>& u) {
  const Reduction r = reductionOf(call);
  const bool include_self = attrBool(call, "include_self", true);
  std::vector<int64_t> count;
  if (r == Reduction::kMean) count.assign(acc.size(), include_self ? 1 : 0);
  splitRange(g.outer, blocks, [&](int64_t lo, int64_t hi) {
    if (!include_self) walk(g, idx, lo, hi, [&](int64_t t, int64_t) { acc[t] = identityOf<T>(r); });
    walk(g, idx, lo, hi, [&](int64_t t, int64_t s) {
      acc[t] = combine(r, acc[t], u[s]);
      if (!count.empty()) ++count[t];
    });
  });
  for (size_t t = 0; t < count.size(); ++t)
    if (count[t] > 1) acc[t] = meanOf(acc[t], count[t]);
}

void computeScatterElements(const OpCall& call) {
  const TensorArg& data = call.inputs[0];
  const TensorArg& it = call.inputs[1];
  const TensorArg& upd = call.inputs[2];
  const TensorArg& y = call.outputs[0];
  const ElemGeom g = elemGeom(call, it.shape, data.shape, &upd.shape, "axis");
  const std::vector<int64_t> idx = loadIndices(it);
  checkIndexRange(call, idx, it.shape, "indices", g.data_dim, g.axis, "data");
  const int64_t blocks = blocksFor(call, g.outer, std::max<int64_t>(y.numel(), it.numel()));
  const int64_t n = y.numel();
  if (reductionOf(call) == Reduction::kNone) {
    if (y.data != data.data && n > 0) std::memmove(y.data, data.data, static_cast<size_t>(n) * dtypeSize(y.dtype));
    const size_t es = dtypeSize(y.dtype);
    const char* src = static_cast<const char*>(upd.data);
    char* dst = static_cast<char*>(y.data);
    splitRange(g.outer, blocks, [&](int64_t lo, int64_t hi) {
      walk(g, idx, lo, hi, [&](int64_t t, int64_t s) {
        std::memcpy(dst + static_cast<size_t>(t) * es, src + static_cast<size_t>(s) * es, es);
      });
    });
    return;
  }
  if (isFloatDtype(y.dtype)) {
    std::vector<float> acc(static_cast<size_t>(n)), u(static_cast<size_t>(upd.numel()));
    loadFloat(data.dtype, data.data, 0, 1, n, acc.data());
    loadFloat(upd.dtype, upd.data, 0, 1, upd.numel(), u.data());
    reduceInto(call, g, idx, blocks, acc, u);
    storeFloat(y.dtype, y.data, 0, n, acc.data());
  } else {
    std::vector<int64_t> acc(static_cast<size_t>(n)), u(static_cast<size_t>(upd.numel()));
    loadInt(data.dtype, data.data, 0, 1, n, acc.data());
    loadInt(upd.dtype, upd.data, 0, 1, upd.numel(), u.data());
    reduceInto(call, g, idx, blocks, acc, u);
    storeInt(y.dtype, y.data, 0, n, acc.data());
  }
}

KernelCost costScatterElements(const OpCall& call) {
  const ElemGeom g = elemGeom(call, call.inputs[1].shape, call.inputs[0].shape, &call.inputs[2].shape, "axis");
  return indexCost(call, blocksFor(call, g.outer, std::max(call.outputs[0].numel(), call.inputs[1].numel())));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ScatterElements", &validateScatterElements, &computeScatterElements,
                                     &costScatterElements});

}  // namespace
}  // namespace ascend_sim
