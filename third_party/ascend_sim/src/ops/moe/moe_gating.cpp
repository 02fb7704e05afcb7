// MoeGatingTopKSoftmax (OPS.md "Mixture-of-experts kernels"), on the Vector
// unit: the router of a mixture-of-experts layer in one launch where an
// unfused graph runs SoftmaxV2 then TopKV2.
//
// Note [MoE gating]
// x [..., E] (fp32 / fp16 / bf16; 2-D or 3-D as CANN), per row in fp32:
//   p = softmax(x row)
//   y[k], expert_idx[k] = the k largest p and their experts, descending
//                         (equal values: the lower expert first, as torch.topk
//                         on the CPU), y rounded once to x's dtype
//   row_idx[r][k] = k * rows + r    (the source row of every expanded row,
//                                   MoeInitRouting's row_idx)
// Optional input `finished` (bool, x's shape without the last dim): a finished
// row keeps its y, but its experts are all E (no expert), so routing sorts
// them last and no expert takes them.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

struct GatingDims {
  int64_t rows = 0, experts = 0, k = 0;
};

// inputs: x [, finished]; outputs: y, expert_idx (int32), row_idx (int32), each x's shape with last dim k.
GatingDims gatingDimsOf(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  if (x.shape.size() != 2 && x.shape.size() != 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input x must be 2-D or 3-D [..., experts], got " + shapeToString(x.shape));
  GatingDims d;
  d.experts = x.shape.back();
  d.rows = d.experts == 0 ? numelOf(Shape(x.shape.begin(), x.shape.end() - 1)) : x.numel() / d.experts;
  d.k = attrInt(call, "k", 1);
  if (d.k <= 0 || d.k > d.experts || d.k > 1024)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr k = " + std::to_string(d.k) + " must be in [1, min(experts = " + std::to_string(d.experts) + ", 1024)]");
  return d;
}

void validateMoeGating(const OpCall& call) {
  checkArity(call, 1, 2, 3);
  const GatingDims d = gatingDimsOf(call);
  const TensorArg& x = call.inputs[0];
  Shape out = x.shape;
  out.back() = d.k;
  if (call.inputs.size() == 2) {
    checkDtype(call, call.inputs[1], "input finished", kBoolType);
    checkShapeEq(call, call.inputs[1], "input finished", Shape(x.shape.begin(), x.shape.end() - 1),
                 "x's shape without the experts dim");
  }
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  const char* names[3] = {"output y", "output expert_idx", "output row_idx"};
  for (int i = 0; i < 3; ++i) checkShapeEq(call, call.outputs[i], names[i], out, "x's shape with last dim k");
  for (int i = 1; i < 3; ++i) checkDtype(call, call.outputs[i], names[i], dtBit(ACL_INT32));
}

void computeMoeGating(const OpCall& call) {
  const GatingDims d = gatingDimsOf(call);
  const TensorArg& x = call.inputs[0];
  const bool* finished = call.inputs.size() == 2 ? static_cast<const bool*>(call.inputs[1].data) : nullptr;
  std::vector<float> p(static_cast<size_t>(d.experts)), y(static_cast<size_t>(d.k));
  std::vector<int64_t> order(static_cast<size_t>(d.experts)), idx(static_cast<size_t>(d.k)),
      rows(static_cast<size_t>(d.k));
  for (int64_t r = 0; r < d.rows; ++r) {
    loadFloat(x.dtype, x.data, r * d.experts, 1, d.experts, p.data());
    const float mx = *std::max_element(p.begin(), p.end());
    float sum = 0.0f;
    for (float& v : p) sum += (v = std::exp(v - mx));
    for (float& v : p) v /= sum;
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + d.k, order.end(),
                      [&](int64_t a, int64_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
    const bool done = finished != nullptr && finished[r];
    for (int64_t k = 0; k < d.k; ++k) {
      y[k] = p[order[k]];
      idx[k] = done ? d.experts : order[k];
      rows[k] = k * d.rows + r;
    }
    storeFloat(call.outputs[0].dtype, call.outputs[0].data, r * d.k, d.k, y.data());
    storeInt(ACL_INT32, call.outputs[1].data, r * d.k, d.k, idx.data());
    storeInt(ACL_INT32, call.outputs[2].data, r * d.k, d.k, rows.data());
  }
}

KernelCost costMoeGating(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const TensorArg& x = call.inputs[0];
  // exp, sum and scale, then k selection passes over each row.
  const GatingDims d = gatingDimsOf(call);
  c.vector_repeats = static_cast<double>(3 + d.k) * vectorUnit().repeats(x.numel(), ACL_FLOAT);
  c.flops = static_cast<double>(3 + d.k) * static_cast<double>(x.numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MoeGatingTopKSoftmax", &validateMoeGating, &computeMoeGating, &costMoeGating});

}  // namespace
}  // namespace ascend_sim
