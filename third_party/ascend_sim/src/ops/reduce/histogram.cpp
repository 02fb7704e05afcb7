// Bincount and Histogram (OPS.md "Reductions, scans, sorting, statistics"),
// on the AI CPU: every element increments a data-dependent bin, which the
// AI CPU does with plain scattered adds. Elements are visited in order and
// counts kept in int64 (weights in double), so results are exact or rounded
// once, and deterministic.
//
// Bincount: x (1-D integers), [weights (1-D, x's length)] → y [size], attr
// `size`: y[v] counts (or sums the weights of) the elements equal to v. The
// caller sizes y from the data (max(x) + 1, at least its minlength; Note [Ops
// whose output size depends on the data]); an element outside [0, size) is
// a device fault.
// Histogram: x (float) → y [bins] in x's dtype, attrs `bins`, `min`, `max`:
// PyTorch's histc. An element v in [min, max] falls in bin
// int((v - min) * bins / (max - min)) computed in fp32 (v == max in the last
// bin); NaN and elements outside the range are not counted.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

void validateBincount(const OpCall& call) {
  checkArity(call, 1, 2, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", kIntTypes);
  if (x.shape.size() != 1) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x must be 1-D, got " + shapeToString(x.shape));
  if (call.inputs.size() == 2) {
    checkDtype(call, call.inputs[1], "input weights", kFloatTypes | dtBit(ACL_DOUBLE));
    checkShapeEq(call, call.inputs[1], "input weights", x.shape, "x's shape");
    checkDtype(call, y, "output y", dtBit(ACL_FLOAT) | dtBit(ACL_DOUBLE));
  } else {
    checkDtype(call, y, "output y", dtBit(ACL_INT64));
  }
  const int64_t size = attrInt(call, "size");
  if (size < 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'size' must be >= 0, got " + std::to_string(size));
  checkShapeEq(call, y, "output y", {size}, "[size]");
}

// Stores double sums into y (float32 rounded once, or float64 as they are).
void storeSums(const TensorArg& y, const std::vector<double>& sums) {
  if (y.dtype == ACL_DOUBLE) {
    std::memcpy(y.data, sums.data(), sums.size() * sizeof(double));
    return;
  }
  std::vector<float> f(sums.begin(), sums.end());
  storeFloat(y.dtype, y.data, 0, static_cast<int64_t>(f.size()), f.data());
}

void computeBincount(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const int64_t n = x.numel(), size = y.numel();
  std::vector<int64_t> v(static_cast<size_t>(n));
  loadInt(x.dtype, x.data, 0, 1, n, v.data());
  for (int64_t i = 0; i < n; ++i)
    if (v[i] < 0 || v[i] >= size)
      aiCpuFault(call, "element " + std::to_string(i) + " is " + std::to_string(v[i]) + ", outside [0, " +
                           std::to_string(size) + ")");
  if (call.inputs.size() == 1) {
    std::vector<int64_t> counts(static_cast<size_t>(size), 0);
    for (int64_t i = 0; i < n; ++i) ++counts[v[i]];
    storeInt(y.dtype, y.data, 0, size, counts.data());
    return;
  }
  const TensorArg& w = call.inputs[1];
  std::vector<double> sums(static_cast<size_t>(size), 0.0);
  if (w.dtype == ACL_DOUBLE) {
    const auto* wd = static_cast<const double*>(w.data);
    for (int64_t i = 0; i < n; ++i) sums[v[i]] += wd[i];
  } else {
    std::vector<float> wf(static_cast<size_t>(n));
    loadFloat(w.dtype, w.data, 0, 1, n, wf.data());
    for (int64_t i = 0; i < n; ++i) sums[v[i]] += wf[i];
  }
  storeSums(y, sums);
}

void validateHistogram(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  const int64_t bins = attrInt(call, "bins");
  if (bins <= 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'bins' must be > 0, got " + std::to_string(bins));
  const float lo = attrFloat(call, "min"), hi = attrFloat(call, "max");
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attributes 'min' " + std::to_string(lo) + " and 'max' " + std::to_string(hi) +
             " must be finite with min < max");
  checkShapeEq(call, call.outputs[0], "output y", {bins}, "[bins]");
}

void computeHistogram(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const int64_t bins = attrInt(call, "bins");
  const float lo = attrFloat(call, "min"), hi = attrFloat(call, "max");
  std::vector<float> v(static_cast<size_t>(x.numel()));
  loadFloat(x.dtype, x.data, 0, 1, x.numel(), v.data());
  std::vector<int64_t> counts(static_cast<size_t>(bins), 0);
  const float scale = static_cast<float>(bins);
  for (float e : v) {
    if (!(e >= lo && e <= hi)) continue;  // also skips NaN
    int64_t pos = static_cast<int64_t>((e - lo) * scale / (hi - lo));
    if (pos >= bins) pos = bins - 1;  // e == max belongs to the last bin
    ++counts[pos];
  }
  std::vector<float> f(counts.begin(), counts.end());
  storeFloat(y.dtype, y.data, 0, bins, f.data());
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Bincount", &validateBincount, &computeBincount, &aiCpuCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Histogram", &validateHistogram, &computeHistogram, &aiCpuCost});

}  // namespace
}  // namespace ascend_sim
