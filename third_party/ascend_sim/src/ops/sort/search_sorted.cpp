// SearchSorted (OPS.md "Reductions, scans, sorting, statistics"): for every
// element v of `values`, its insertion position in a sorted row of
// `sorted_sequence`, on the AI CPU (as CANN runs it).
//
// Note [Binary search with NaN]
// The search is the classic bisection over [0, M): with mid = lo + (hi - lo)
// / 2, left (attr `right` false) moves lo past mid unless seq[mid] >= v, right
// moves it unless seq[mid] > v. Written with negated comparisons like this, a
// NaN value compares false everywhere and lands at M, and NaN in the
// sequence (sorted last) behaves as PyTorch's CPU kernel, which bisects the
// same way. Floats compare in fp32 (exact for fp16/bf16), integers in int64.
// A 1-D sequence serves every value; otherwise the sequence and the values
// share their leading dims and each row of values searches its own row.
#include <string>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

void validateSearch(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& seq = call.inputs[0];
  const TensorArg& values = call.inputs[1];
  const TensorArg& out = call.outputs[0];
  checkDtype(call, seq, "input sorted_sequence", kNumericTypes);
  checkSameDtype(call, seq, "sorted_sequence", values, "values");
  checkDtype(call, out, "output out", kIndexTypes);
  checkShapeEq(call, out, "output out", values.shape, "values' shape");
  if (seq.shape.empty()) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input sorted_sequence must have at least 1 dim");
  if (seq.shape.size() > 1) {
    const Shape lead_seq(seq.shape.begin(), seq.shape.end() - 1);
    const Shape lead_val = values.shape.empty() ? Shape{} : Shape(values.shape.begin(), values.shape.end() - 1);
    if (values.shape.size() != seq.shape.size() || lead_seq != lead_val)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "values shape " + shapeToString(values.shape) + " must share the leading dims of sorted_sequence shape " +
               shapeToString(seq.shape) + " (or sorted_sequence must be 1-D)");
  }
  attrBool(call, "right", false);
}

// Note [Binary search with NaN]
template <typename T>
int64_t bisect(const T* row, int64_t m, T v, bool right) {
  int64_t lo = 0, hi = m;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const bool go_right = right ? !(row[mid] > v) : !(row[mid] >= v);
    if (go_right) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <typename T, typename Load>
void runSearch(const OpCall& call, Load load) {
  const TensorArg& seq = call.inputs[0];
  const TensorArg& values = call.inputs[1];
  const TensorArg& out = call.outputs[0];
  const bool right = attrBool(call, "right", false);
  const int64_t m = seq.shape.back();
  const int64_t n = values.numel();
  if (n == 0) return;
  std::vector<T> s(static_cast<size_t>(seq.numel())), v(static_cast<size_t>(n));
  load(seq.dtype, seq.data, 0, 1, seq.numel(), s.data());
  load(values.dtype, values.data, 0, 1, n, v.data());
  // Values per sequence row: all of them for a 1-D sequence, else the last dim.
  const int64_t per_row = seq.shape.size() == 1 ? n : values.shape.back();
  std::vector<int64_t> pos(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pos[i] = bisect(s.data() + (i / per_row) * m, m, v[i], right);
  storeInt(out.dtype, out.data, 0, n, pos.data());
}

void computeSearch(const OpCall& call) {
  if (isFloatDtype(call.inputs[0].dtype))
    runSearch<float>(call, &loadFloat);
  else
    runSearch<int64_t>(call, &loadInt);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SearchSorted", &validateSearch, &computeSearch, &aiCpuCost});

}  // namespace
}  // namespace ascend_sim
