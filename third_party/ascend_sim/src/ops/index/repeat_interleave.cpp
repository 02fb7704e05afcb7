// RepeatInterleave (OPS.md "Dense prediction, padding, layout and
// indexing"): torch.repeat_interleave along attr `axis`: slice i of x is
// written repeats[i] times in a row (one count for all slices when repeats
// has one element). The caller sizes y with Σ repeats (Note [Ops whose
// output size depends on the data]); a negative count or a different total
// is a device fault. Bit copies, any dtype.
#include <cstring>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

void validateRepeatInterleave(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& rep = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", kAllTypes);
  checkDtype(call, rep, "input repeats", kIndexTypes);
  checkSameDtype(call, x, "x", y, "output y");
  if (x.shape.empty()) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x must have rank >= 1, got a 0-d tensor");
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  if (rep.shape.size() > 1 || (rep.numel() != 1 && rep.numel() != s.dim))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input repeats shape " + shapeToString(rep.shape) + " must be 1-D with 1 or " + std::to_string(s.dim) +
             " elements (the size of axis " + std::to_string(s.axis) + ")");
  Shape want = x.shape;
  want[static_cast<size_t>(s.axis)] = y.shape.size() == x.shape.size() ? y.shape[static_cast<size_t>(s.axis)] : -1;
  checkShapeEq(call, y, "output y", want, "x shape with the axis resized to the repeat total,");
}

void computeRepeatInterleave(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const AxisSplit s = splitAtAxis(call, x.shape, attrInt(call, "axis", 0), "axis");
  std::vector<int64_t> rep = loadIndices(call.inputs[1]);
  if (rep.size() == 1) rep.assign(static_cast<size_t>(s.dim), rep[0]);
  int64_t total = 0;
  for (size_t i = 0; i < rep.size(); ++i) {
    if (rep[i] < 0)
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "repeats[" + std::to_string(i) + "] = " + std::to_string(rep[i]) + " is negative");
    total += rep[i];
  }
  const int64_t out_dim = y.shape[static_cast<size_t>(s.axis)];
  if (total != out_dim)
    fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
         "the repeats add up to " + std::to_string(total) + ", but output y has " + std::to_string(out_dim) +
             " slices along axis " + std::to_string(s.axis));
  const size_t row = static_cast<size_t>(s.inner) * dtypeSize(x.dtype);
  if (row == 0) return;
  const char* src = static_cast<const char*>(x.data);
  char* dst = static_cast<char*>(y.data);
  splitRange(s.outer, blocksFor(call, s.outer, y.numel()), [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      char* out = dst + static_cast<size_t>(o * out_dim) * row;
      for (int64_t i = 0; i < s.dim; ++i)
        for (int64_t r = 0; r < rep[static_cast<size_t>(i)]; ++r, out += row)
          std::memcpy(out, src + static_cast<size_t>(o * s.dim + i) * row, row);
    }
  });
}

KernelCost costRepeatInterleave(const OpCall& call) {
  const AxisSplit s = splitAtAxis(call, call.inputs[0].shape, attrInt(call, "axis", 0), "axis");
  return indexCost(call, blocksFor(call, s.outer, call.outputs[0].numel()));
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RepeatInterleave", &validateRepeatInterleave, &computeRepeatInterleave,
                                     &costRepeatInterleave});

}  // namespace
}  // namespace ascend_sim
