// PadV3 and PadV3Grad (OPS.md "Dense prediction, padding, layout and
// indexing"): reflection and replication padding of any dims and the
// gradient of each, with PyTorch's index rules (reflection_pad* /
// replication_pad*, negative pads crop).
//
// Note [Pad index maps]
// attr `paddings` holds [begin_0, end_0, begin_1, end_1, ...], one pair per
// dim of x (dims order; PyTorch's F.pad lists the last dim first, the caller
// reorders). Output size o_d = x_d + begin_d + end_d. Per dim, output index j
// reads input index
//   reflect  j < b: 2b − j;  b ≤ j < x + b: j;  else 2(x + b − 1) − j
//   edge     j < b: b;       b ≤ j < x + b: j;  else x + b − 1
// then minus max(0, b) plus max(0, −b) (PyTorch's o_start / i_start), which
// must land in [0, x) — else the call is rejected at launch (reflect needs
// each pad < x, edge needs x ≥ 1). Forward: bit copies, any dtype (complex64 too).
// Backward: dx = 0, then every dy element in row-major order is added to
// dx at its source (fp32 accumulator, one rounding). Elements with different
// coordinates in the leading unpadded dims never share a target: the work is
// split over those ("planes"), each walked in order, so the bits do not
// depend on the host thread count.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/layout/dim_map.h"
#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

struct PadGeom {
  bool grad = false;
  bool reflect = true;
  Shape in, out;                           // x and y of the forward
  DimMaps maps;                            // per dim: output index -> input index
  int64_t planes = 1;                      // product of the leading unpadded dims (last dim excluded)
};

PadGeom geomOf(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  PadGeom g;
  g.grad = call.op_type == "PadV3Grad";
  const TensorArg& a = call.inputs[0];
  const TensorArg& b = call.outputs[0];
  const char* an = g.grad ? "input dy" : "input x";
  const char* bn = g.grad ? "output dx" : "output y";
  checkDtype(call, a, an, g.grad ? kFloatTypes : kAllTypes | kComplexTypes);
  checkSameDtype(call, a, an, b, bn);
  const std::string mode = attrString(call, "mode", "reflect");
  if (mode != "reflect" && mode != "edge")
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'mode' is \"" + mode + "\"; expected \"reflect\" or \"edge\"");
  g.reflect = mode == "reflect";
  g.in = g.grad ? b.shape : a.shape;
  if (g.in.empty()) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(g.grad ? bn : an) + " must have rank >= 1");
  const std::vector<int64_t> pads = attrInts(call, "paddings");
  if (pads.size() != 2 * g.in.size())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'paddings' has " + std::to_string(pads.size()) + " entries; expected 2 per dim of " +
             shapeToString(g.in));
  bool leading = true;
  for (size_t d = 0; d < g.in.size(); ++d) {
    const int64_t pb = pads[2 * d], pe = pads[2 * d + 1], x = g.in[d];
    g.out.push_back(x + pb + pe);
    if (pb != 0 || pe != 0) leading = false;
    if (leading && d + 1 < g.in.size()) g.planes *= x;
  }
  checkShapeEq(call, g.grad ? a : b, g.grad ? "input dy" : "output y", g.out, "x shape plus the paddings");
  for (size_t d = 0; d < g.in.size(); ++d) {
    const int64_t pb = pads[2 * d], x = g.in[d];
    std::vector<int64_t> m(static_cast<size_t>(g.out[d]));
    for (int64_t j = 0; j < g.out[d]; ++j) {
      int64_t i;
      if (j < pb) i = g.reflect ? 2 * pb - j : pb;
      else if (j < x + pb) i = j;
      else i = g.reflect ? 2 * (x + pb - 1) - j : x + pb - 1;
      i = i - std::max<int64_t>(0, pb) + std::max<int64_t>(0, -pb);
      if (i < 0 || i >= x)
        fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
             "paddings " + shapeToString(pads) + " do not fit dim " + std::to_string(d) + " of size " +
                 std::to_string(x) + " in " + mode + " mode (" +
                 (g.reflect ? "each pad must be smaller than the dim" : "the dim must be non-empty") + ")");
      m[static_cast<size_t>(j)] = i;
    }
    g.maps.push_back(std::move(m));
  }
  return g;
}

void validatePad(const OpCall& call) { geomOf(call); }

void computePad(const OpCall& call) {
  const PadGeom g = geomOf(call);
  if (!g.grad) return gatherByDimMaps(call, call.inputs[0], call.outputs[0], g.maps);
  const int64_t n = numelOf(g.out);
  if (n == 0) return;
  const Shape st = contiguousStrides(g.in);
  const int64_t row = g.out.back(), rows = n / row;
  const std::vector<int64_t>& last = g.maps.back();
  const TensorArg& dy = call.inputs[0];
  const TensorArg& dx = call.outputs[0];
  std::vector<float> gy(static_cast<size_t>(n)), gx(static_cast<size_t>(dx.numel()), 0.0f);
  loadFloat(dy.dtype, dy.data, 0, 1, n, gy.data());
  const int64_t rows_per_plane = rows / g.planes;
  splitRange(g.planes, blocksFor(call, g.planes, n), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo * rows_per_plane; r < hi * rows_per_plane; ++r) {
      const int64_t base = dimMapRowSource(g.maps, st, r);
      const float* src = gy.data() + r * row;
      for (int64_t j = 0; j < row; ++j) gx[static_cast<size_t>(base + last[j])] += src[j];
    }
  });
  storeFloat(dx.dtype, dx.data, 0, dx.numel(), gx.data());
}

KernelCost costPad(const OpCall& call) {
  const PadGeom g = geomOf(call);
  KernelCost c = vectorCost(call);
  c.block_dim = static_cast<uint32_t>(g.grad ? blocksFor(call, g.planes, numelOf(g.out))
                                             : dimMapBlocks(call, call.outputs[0]));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PadV3", &validatePad, &computePad, &costPad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PadV3Grad", &validatePad, &computePad, &costPad});

}  // namespace
}  // namespace ascend_sim
