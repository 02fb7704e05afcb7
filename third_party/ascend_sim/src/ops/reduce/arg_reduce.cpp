// ArgMaxWithValue / ArgMinWithValue (OPS.md "Reductions"). The input is seen
// as [outer, D, inner] around `dimension`; for each outer index a chunk of
// inner positions is updated row by row, so loads stay contiguous. The first
// occurrence wins; NaN counts as both the maximum and the minimum (PyTorch).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

constexpr int64_t kInnerChunk = 1024;  // inner positions tracked at once

bool isMax(const OpCall& call) { return call.op_type == "ArgMaxWithValue"; }

void validateArg(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kNumericTypes);
  checkDtype(call, call.outputs[0], "output indice", kIndexTypes);
  checkSameDtype(call, x, "x", call.outputs[1], "output values");
  const AxisSplit a = splitAtAxis(call, x.shape, attrInt(call, "dimension"), "dimension");
  Shape want;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (static_cast<int64_t>(d) != a.axis) want.push_back(x.shape[d]);
    else if (attrBool(call, "keep_dims", false)) want.push_back(1);
  }
  checkShapeEq(call, call.outputs[0], "output indice", want, "the reduced shape");
  checkShapeEq(call, call.outputs[1], "output values", want, "the reduced shape");
  if (a.dim == 0 && x.numel() == 0 && a.outer * a.inner > 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "cannot reduce dimension " + std::to_string(a.axis) + " of size 0 (input shape " +
             shapeToString(x.shape) + ")");
}

template <typename T>
bool isNan(T v) {
  return v != v;
}

// Does candidate v replace the current best b? (strict: first occurrence wins)
template <typename T>
bool better(T v, T b, bool want_max) {
  if (isNan(b)) return false;
  if (isNan(v)) return true;
  return want_max ? v > b : v < b;
}

template <typename T, typename Load, typename Store>
void runArg(const OpCall& call, Load load, Store store) {
  const TensorArg& x = call.inputs[0];
  const AxisSplit a = splitAtAxis(call, x.shape, attrInt(call, "dimension"), "dimension");
  const bool want_max = isMax(call);
  std::vector<T> best(kInnerChunk), row(kInnerChunk);
  std::vector<int64_t> idx(kInnerChunk);
  for (int64_t o = 0; o < a.outer; ++o) {
    for (int64_t i0 = 0; i0 < a.inner; i0 += kInnerChunk) {
      const int64_t n = std::min(kInnerChunk, a.inner - i0);
      const int64_t base = o * a.dim * a.inner + i0;
      load(x.dtype, x.data, base, 1, n, best.data());
      std::fill(idx.begin(), idx.begin() + n, 0);
      for (int64_t d = 1; d < a.dim; ++d) {
        load(x.dtype, x.data, base + d * a.inner, 1, n, row.data());
        for (int64_t i = 0; i < n; ++i)
          if (better(row[i], best[i], want_max)) {
            best[i] = row[i];
            idx[i] = d;
          }
      }
      storeInt(call.outputs[0].dtype, call.outputs[0].data, o * a.inner + i0, n, idx.data());
      store(call.outputs[1].dtype, call.outputs[1].data, o * a.inner + i0, n, best.data());
    }
  }
}

void computeArg(const OpCall& call) {
  if (call.outputs[0].numel() == 0) return;
  if (isFloatDtype(call.inputs[0].dtype)) {
    runArg<float>(call, &loadFloat, &storeFloat);
  } else {
    runArg<int64_t>(call, &loadInt, &storeInt);
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ArgMaxWithValue", &validateArg, &computeArg, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ArgMinWithValue", &validateArg, &computeArg, &vectorCost});

}  // namespace
}  // namespace ascend_sim
