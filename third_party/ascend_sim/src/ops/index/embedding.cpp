// EmbeddingDenseGrad and EmbeddingRenorm (OPS.md "Attention, normalization,
// embeddings, recurrent networks"), on the Vector unit.
//
// Note [Embedding gradient order]
// EmbeddingDenseGrad(grad [K, D], indices [K] int32/int64) -> y [num_weights, D]:
// y[w] = sum of grad[k] over the positions k with indices[k] == w, added in
// ascending k in fp32 (one rounding per output element), so the result does
// not depend on threads (the CPU adds in the same order). Positions whose
// index is `padding_idx` (attr, -1 = none) contribute nothing; with
// `scale_grad_by_freq` each contribution is multiplied by 1 / (the number of
// positions holding the same index). An index outside [0, num_weights) is a
// device fault naming it. (grad and indices may have any shape with K
// positions: grad is [*indices.shape, D].)
// EmbeddingRenorm(x [V, D], indices) -> y [V, D] (y may be x): every row named
// by an index whose p-norm (attr `norm_type`; 0 and ±inf as torch.norm) exceeds `max_norm` is scaled by
// max_norm / (norm + 1e-7); other rows are copied. Each row is processed once,
// however often it is named (torch.embedding_renorm_).
#include <cmath>
#include <string>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

std::vector<int64_t> loadIndices(const TensorArg& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  loadInt(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

void checkIndexRange(const OpCall& call, int64_t index, int64_t limit) {
  if (index < 0 || index >= limit)
    fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
         "index " + std::to_string(index) + " is out of range for " + std::to_string(limit) + " embedding rows");
}

// inputs: grad, indices; output: y.
void validateEmbeddingGrad(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg &grad = call.inputs[0], &indices = call.inputs[1], &y = call.outputs[0];
  checkDtype(call, grad, "input grad", kFloatTypes);
  checkDtype(call, indices, "input indices", kIndexTypes);
  checkSameDtype(call, grad, "grad", y, "output y");
  const int64_t num_weights = attrInt(call, "num_weights");
  const int64_t d = y.shape.size() == 2 ? y.shape[1] : -1;
  if (y.shape.size() != 2 || y.shape[0] != num_weights)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output y shape " + shapeToString(y.shape) + " must be [num_weights = " + std::to_string(num_weights) +
             ", D]");
  if (grad.numel() != indices.numel() * d)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input grad shape " + shapeToString(grad.shape) + " must be indices shape " +
             shapeToString(indices.shape) + " + [" + std::to_string(d) + "]");
  attrInt(call, "padding_idx", -1);
  attrBool(call, "scale_grad_by_freq", false);
}

void computeEmbeddingGrad(const OpCall& call) {
  const TensorArg &grad = call.inputs[0], &y = call.outputs[0];
  const int64_t num_weights = y.shape[0], d = y.shape[1];
  const int64_t padding_idx = attrInt(call, "padding_idx", -1);
  const bool scale = attrBool(call, "scale_grad_by_freq", false);
  const std::vector<int64_t> idx = loadIndices(call.inputs[1]);
  std::vector<int64_t> counts(static_cast<size_t>(num_weights), 0);
  for (int64_t w : idx) {
    checkIndexRange(call, w, num_weights);
    ++counts[static_cast<size_t>(w)];
  }
  std::vector<float> acc(static_cast<size_t>(num_weights * d), 0.0f), row(static_cast<size_t>(d));
  for (size_t k = 0; k < idx.size(); ++k) {
    const int64_t w = idx[k];
    if (w == padding_idx) continue;
    loadFloat(grad.dtype, grad.data, static_cast<int64_t>(k) * d, 1, d, row.data());
    float* dst = &acc[static_cast<size_t>(w * d)];
    if (scale) {
      const float factor = 1.0f / static_cast<float>(counts[static_cast<size_t>(w)]);
      for (int64_t j = 0; j < d; ++j) dst[j] += row[j] * factor;
    } else {
      for (int64_t j = 0; j < d; ++j) dst[j] += row[j];
    }
  }
  storeFloat(y.dtype, y.data, 0, num_weights * d, acc.data());
}

KernelCost costEmbeddingGrad(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = static_cast<double>(call.inputs[0].numel());
  return c;
}

// inputs: x, indices; output: y (may alias x).
void validateEmbeddingRenorm(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  checkDtype(call, call.inputs[1], "input indices", kIndexTypes);
  checkSameDtype(call, x, "x", y, "output y");
  checkShapeEq(call, y, "output y", x.shape, "x shape");
  if (x.shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x shape " + shapeToString(x.shape) + " must be 2-D [V, D]");
  if (!(attrFloat(call, "max_norm") >= 0.0f))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'max_norm' must be >= 0");
  attrFloat(call, "norm_type", 2.0f);
}

// The p-norm of one row as torch.norm defines it: p = 0 counts the nonzero
// elements, p = ±inf is the largest / smallest |x|, other p sum |x|^p
// pairwise and take the 1/p-th power.
float rowNorm(const std::vector<float>& row, float p, int64_t block, std::vector<float>* powers) {
  if (p == 0.0f) {
    float nonzero = 0.0f;
    for (float e : row) nonzero += e != 0.0f ? 1.0f : 0.0f;
    return nonzero;
  }
  if (std::isinf(p)) {
    float extreme = row.empty() ? (p > 0 ? 0.0f : INFINITY) : std::fabs(row[0]);
    for (float e : row) extreme = p > 0 ? std::fmax(extreme, std::fabs(e)) : std::fmin(extreme, std::fabs(e));
    return extreme;
  }
  for (size_t j = 0; j < row.size(); ++j) (*powers)[j] = std::pow(std::fabs(row[j]), p);
  return std::pow(pairwiseSum(powers->data(), static_cast<int64_t>(row.size()), block), 1.0f / p);
}

void computeEmbeddingRenorm(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const int64_t v = x.shape[0], d = x.shape[1];
  const float max_norm = attrFloat(call, "max_norm"), p = attrFloat(call, "norm_type", 2.0f);
  std::vector<char> named(static_cast<size_t>(v), 0);
  for (int64_t w : loadIndices(call.inputs[1])) {
    checkIndexRange(call, w, v);
    named[static_cast<size_t>(w)] = 1;
  }
  std::vector<float> row(static_cast<size_t>(d)), powers(static_cast<size_t>(d));
  const int64_t block = reduceBlockElems(x.dtype);
  for (int64_t r = 0; r < v; ++r) {
    loadFloat(x.dtype, x.data, r * d, 1, d, row.data());
    if (named[static_cast<size_t>(r)]) {
      const float norm = rowNorm(row, p, block, &powers);
      if (norm > max_norm) {
        const float factor = max_norm / (norm + 1e-7f);
        for (float& e : row) e *= factor;
      }
    }
    storeFloat(y.dtype, y.data, r * d, d, row.data());
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"EmbeddingDenseGrad", &validateEmbeddingGrad, &computeEmbeddingGrad,
                                     &costEmbeddingGrad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"EmbeddingRenorm", &validateEmbeddingRenorm, &computeEmbeddingRenorm,
                                     &vectorCost});

}  // namespace
}  // namespace ascend_sim
