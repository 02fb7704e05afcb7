// ReverseV2 and Roll (OPS.md "Dense prediction, padding, layout and
// indexing"): torch.flip and torch.roll as per-dim index maps (dim_map.h),
// bit copies of any dtype (complex64 included: torch.fft.fftshift is a Roll).
//   ReverseV2  attr `axis` (list, may be negative, no repeats): y[.., j, ..] =
//              x[.., n − 1 − j, ..] along every listed dim
//   Roll       attrs `shifts`, `dims` (same length; a dim may repeat, its
//              shifts add up): y[.., j, ..] = x[.., (j − shift) mod n, ..]
#include <string>
#include <vector>

#include "ops/layout/dim_map.h"

namespace ascend_sim {
namespace {

DimMaps identityMaps(const Shape& s) {
  DimMaps m;
  for (int64_t n : s) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
    m.push_back(std::move(v));
  }
  return m;
}

void checkCopy(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kAllTypes | kComplexTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
}

DimMaps reverseMaps(const OpCall& call) {
  const Shape& s = call.inputs[0].shape;
  DimMaps m = identityMaps(s);
  std::vector<bool> seen(s.size(), false);
  for (int64_t a : attrInts(call, "axis")) {
    const size_t d = static_cast<size_t>(normalizeAxis(call, a, s.size(), "axis"));
    if (s.empty()) continue;  // a 0-d x: nothing to reverse
    if (seen[d]) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'axis' lists dim " + std::to_string(d) + " twice");
    seen[d] = true;
    for (int64_t j = 0; j < s[d]; ++j) m[d][static_cast<size_t>(j)] = s[d] - 1 - j;
  }
  return m;
}

DimMaps rollMaps(const OpCall& call) {
  const Shape& s = call.inputs[0].shape;
  const std::vector<int64_t> shifts = attrInts(call, "shifts"), dims = attrInts(call, "dims");
  if (shifts.size() != dims.size())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attributes 'shifts' " + shapeToString(shifts) + " and 'dims' " + shapeToString(dims) + " differ in length");
  std::vector<int64_t> total(s.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = static_cast<size_t>(normalizeAxis(call, dims[i], s.size(), "dims"));
    if (s.empty()) continue;  // a 0-d x: nothing to roll
    total[d] += s[d] ? shifts[i] % s[d] : 0;
  }
  DimMaps m = identityMaps(s);
  for (size_t d = 0; d < s.size(); ++d)
    for (int64_t j = 0; j < s[d]; ++j) m[d][static_cast<size_t>(j)] = (((j - total[d]) % s[d]) + s[d]) % s[d];
  return m;
}

DimMaps mapsOf(const OpCall& call) { return call.op_type == "ReverseV2" ? reverseMaps(call) : rollMaps(call); }

void validateReverseRoll(const OpCall& call) {
  checkCopy(call);
  mapsOf(call);
}

void computeReverseRoll(const OpCall& call) { gatherByDimMaps(call, call.inputs[0], call.outputs[0], mapsOf(call)); }

KernelCost costReverseRoll(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 0;
  c.block_dim = static_cast<uint32_t>(dimMapBlocks(call, call.outputs[0]));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ReverseV2", &validateReverseRoll, &computeReverseRoll, &costReverseRoll});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Roll", &validateReverseRoll, &computeReverseRoll, &costReverseRoll});

}  // namespace
}  // namespace ascend_sim
