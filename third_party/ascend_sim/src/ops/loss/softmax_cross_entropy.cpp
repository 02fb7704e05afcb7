// SoftmaxCrossEntropyWithLogits (OPS.md "Fused LLM kernels"), on the Vector
// unit: the loss and its gradient of soft-label cross entropy in one kernel.
//
// Note [Softmax cross entropy rows]
// features and labels are [N, C] of one float dtype; per row, in fp32:
//   m = max(x),  z = x - m,  lse = log(S(exp(z))),  logp = z - lse,
//   loss = -S(labels * logp),  backprop = exp(logp) - labels
// (backprop is the gradient of loss with respect to features), S the sum of
// Note [Pairwise blocks] with the input dtype's block size; each output is
// rounded once to the input dtype. loss is [N], backprop [N, C].
#include <cmath>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

// inputs: features, labels; outputs: loss, backprop.
void validateSoftmaxCrossEntropy(const OpCall& call) {
  checkArity(call, 2, 2, 2);
  const TensorArg &x = call.inputs[0], &labels = call.inputs[1];
  checkDtype(call, x, "input features", kFloatTypes);
  if (x.shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input features shape " + shapeToString(x.shape) + " must be [N, C]");
  checkSameDtype(call, x, "features", labels, "input labels");
  checkShapeEq(call, labels, "input labels", x.shape, "features shape");
  checkSameDtype(call, x, "features", call.outputs[0], "output loss");
  checkShapeEq(call, call.outputs[0], "output loss", {x.shape[0]}, "[N] of features");
  checkSameDtype(call, x, "features", call.outputs[1], "output backprop");
  checkShapeEq(call, call.outputs[1], "output backprop", x.shape, "features shape");
}

void computeSoftmaxCrossEntropy(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &labels = call.inputs[1];
  const TensorArg &loss = call.outputs[0], &backprop = call.outputs[1];
  const int64_t n = x.shape[0], c = x.shape[1], block = reduceBlockElems(x.dtype);
  std::vector<float> row(c), lab(c), tmp(c), out(c);
  for (int64_t i = 0; i < n; ++i) {
    loadFloat(x.dtype, x.data, i * c, 1, c, row.data());
    loadFloat(labels.dtype, labels.data, i * c, 1, c, lab.data());
    float m = c == 0 ? 0.0f : row[0];
    for (int64_t j = 1; j < c; ++j)
      if (row[j] > m || row[j] != row[j]) m = row[j];
    for (int64_t j = 0; j < c; ++j) tmp[j] = std::exp(row[j] - m);
    const float lse = std::log(pairwiseSum(tmp.data(), c, block));
    for (int64_t j = 0; j < c; ++j) {
      const float logp = (row[j] - m) - lse;
      tmp[j] = lab[j] * logp;
      out[j] = std::exp(logp) - lab[j];
    }
    const float l = -pairwiseSum(tmp.data(), c, block);
    storeFloat(loss.dtype, loss.data, i, 1, &l);
    storeFloat(backprop.dtype, backprop.data, i * c, c, out.data());
  }
}

KernelCost costSoftmaxCrossEntropy(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.vector_bytes += 2 * tensorBytes(call.inputs[0]);  // the max pass and the exp-sum pass
  c.flops = 8.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"SoftmaxCrossEntropyWithLogits", &validateSoftmaxCrossEntropy,
                                     &computeSoftmaxCrossEntropy, &costSoftmaxCrossEntropy});

}  // namespace
}  // namespace ascend_sim
