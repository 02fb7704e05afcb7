// EmbeddingBag (OPS.md "Attention, normalization, embeddings, recurrent
// networks"), on the Vector unit: torch.nn.functional.embedding_bag's
// forward. The backward runs on EmbeddingDenseGrad, GatherV2 and
// ScatterElements (the plugin composes it).
//
// Note [Embedding bags]
// Inputs: weight [V, D] (float), indices [L] and offsets [B'] (int32/int64,
// the same dtype), optionally per_sample_weights [L] (weight's dtype).
// Attrs: `mode` ("sum", "mean" or "max"), `include_last_offset` (bool: then
// B = B' − 1 bags and offsets[B] ends the last one; else B = B' and the last
// bag ends at L), `padding_idx` (−1 = none).
// Bag b holds the positions [offsets[b], offsets[b + 1]) (the last: to its
// end). A position whose index is padding_idx is skipped: it neither adds nor
// counts.
//   sum   y[b] = Σ weight[indices[k]] (· per_sample_weights[k]), in ascending k, fp32, one rounding
//   mean  the sum divided by the bag's count; an empty bag gives 0
//   max   per column the largest weight over the bag (the first of equal maxima; a
//         NaN is only taken as the first element), 0 for an empty bag
// Outputs (the plugin's backward reads them): y [B, D]; offset2bag [L] (the
// bag of every position, padding included); bag_size [B] (the counts);
// max_indices [B, D] in max mode (the weight row each maximum came from, −1
// for an empty bag), else [B] zeros — offset2bag, bag_size and max_indices in
// the indices' dtype. Offsets that decrease or exceed L, and indices outside
// [0, V), are device faults naming them.
#include <cmath>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

enum class BagMode { kSum, kMean, kMax };

BagMode modeOf(const OpCall& call) {
  const std::string m = attrString(call, "mode", "");
  if (m == "sum") return BagMode::kSum;
  if (m == "mean") return BagMode::kMean;
  if (m == "max") return BagMode::kMax;
  fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'mode' is \"" + m + "\"; expected \"sum\", \"mean\" or \"max\"");
}

int64_t bagCount(const OpCall& call) {
  const int64_t n_offsets = call.inputs[2].numel();
  return attrBool(call, "include_last_offset", false) ? n_offsets - 1 : n_offsets;
}

// inputs: weight, indices, offsets[, per_sample_weights]; outputs: y, offset2bag, bag_size, max_indices.
void validateEmbeddingBag(const OpCall& call) {
  checkArity(call, 3, 4, 4);
  const TensorArg &weight = call.inputs[0], &indices = call.inputs[1], &offsets = call.inputs[2];
  checkDtype(call, weight, "input weight", kFloatTypes);
  checkDtype(call, indices, "input indices", kIndexTypes);
  checkSameDtype(call, indices, "indices", offsets, "input offsets");
  if (weight.shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input weight shape " + shapeToString(weight.shape) + " must be [V, D]");
  if (indices.shape.size() != 1 || offsets.shape.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input indices " + shapeToString(indices.shape) + " and offsets " +
                                                 shapeToString(offsets.shape) + " must be 1-D");
  const BagMode mode = modeOf(call);
  attrInt(call, "padding_idx", -1);
  const int64_t bags = bagCount(call), d = weight.shape[1];
  if (bags < 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "include_last_offset needs at least one offset, got none");
  if (call.inputs.size() == 4) {
    if (mode != BagMode::kSum)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "per_sample_weights are only supported in mode \"sum\"");
    checkSameDtype(call, weight, "weight", call.inputs[3], "input per_sample_weights");
    checkShapeEq(call, call.inputs[3], "input per_sample_weights", indices.shape, "indices shape");
  }
  checkSameDtype(call, weight, "weight", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", {bags, d}, "[bags, D]");
  for (int i = 1; i < 4; ++i) checkSameDtype(call, indices, "indices", call.outputs[i], "output " + std::to_string(i));
  checkShapeEq(call, call.outputs[1], "output offset2bag", indices.shape, "indices shape");
  checkShapeEq(call, call.outputs[2], "output bag_size", {bags}, "[bags]");
  if (mode == BagMode::kMax)
    checkShapeEq(call, call.outputs[3], "output max_indices", {bags, d}, "[bags, D]");
  else
    checkShapeEq(call, call.outputs[3], "output max_indices", {bags}, "[bags]");
}

void computeEmbeddingBag(const OpCall& call) {
  const TensorArg& weight = call.inputs[0];
  const BagMode mode = modeOf(call);
  const int64_t v = weight.shape[0], d = weight.shape[1], bags = bagCount(call);
  const int64_t padding_idx = attrInt(call, "padding_idx", -1);
  const std::vector<int64_t> idx = loadIndices(call.inputs[1]), offsets = loadIndices(call.inputs[2]);
  const int64_t len = static_cast<int64_t>(idx.size());
  std::vector<float> psw;
  if (call.inputs.size() == 4) {
    psw.resize(idx.size());
    loadFloat(call.inputs[3].dtype, call.inputs[3].data, 0, 1, len, psw.data());
  }
  for (size_t b = 0; b < offsets.size(); ++b)
    if (offsets[b] < 0 || offsets[b] > len || (b > 0 && offsets[b] < offsets[b - 1]))
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "offsets[" + std::to_string(b) + "] = " + std::to_string(offsets[b]) +
               " must be non-decreasing and within [0, " + std::to_string(len) + "]");
  for (int64_t w : idx)
    if (w < 0 || w >= v)
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "index " + std::to_string(w) + " is out of range for " + std::to_string(v) + " embedding rows");
  std::vector<float> y(static_cast<size_t>(bags * d), 0.0f), row(static_cast<size_t>(d));
  std::vector<int64_t> offset2bag(idx.size(), 0), bag_size(static_cast<size_t>(bags), 0);
  std::vector<int64_t> max_indices(static_cast<size_t>(mode == BagMode::kMax ? bags * d : bags),
                                   mode == BagMode::kMax ? -1 : 0);
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t begin = offsets[b], end = b + 1 < static_cast<int64_t>(offsets.size()) ? offsets[b + 1] : len;
    float* out = &y[static_cast<size_t>(b * d)];
    int64_t* argmax = mode == BagMode::kMax ? &max_indices[static_cast<size_t>(b * d)] : nullptr;
    for (int64_t k = begin; k < end; ++k) {
      offset2bag[k] = b;
      const int64_t w = idx[k];
      if (w == padding_idx) continue;
      loadFloat(weight.dtype, weight.data, w * d, 1, d, row.data());
      const bool first = bag_size[b] == 0;
      ++bag_size[b];
      if (mode == BagMode::kMax) {
        for (int64_t j = 0; j < d; ++j)
          if (first || row[j] > out[j]) out[j] = row[j], argmax[j] = w;
      } else {
        const float s = psw.empty() ? 1.0f : psw[k];
        for (int64_t j = 0; j < d; ++j) out[j] += psw.empty() ? row[j] : row[j] * s;
      }
    }
    if (mode == BagMode::kMean && bag_size[b] > 0)
      for (int64_t j = 0; j < d; ++j) out[j] /= static_cast<float>(bag_size[b]);
  }
  const TensorArg& yo = call.outputs[0];
  storeFloat(yo.dtype, yo.data, 0, bags * d, y.data());
  storeInt(call.outputs[1].dtype, call.outputs[1].data, 0, len, offset2bag.data());
  storeInt(call.outputs[2].dtype, call.outputs[2].data, 0, bags, bag_size.data());
  storeInt(call.outputs[3].dtype, call.outputs[3].data, 0, static_cast<int64_t>(max_indices.size()),
           max_indices.data());
}

KernelCost costEmbeddingBag(const OpCall& call) {
  KernelCost c = vectorCost(call);
  // one gathered weight row per position
  c.mte_bytes += static_cast<double>(call.inputs[1].numel() * call.inputs[0].shape[1]) * dtypeSize(call.inputs[0].dtype);
  c.flops = static_cast<double>(call.inputs[1].numel() * call.inputs[0].shape[1]);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"EmbeddingBag", &validateEmbeddingBag, &computeEmbeddingBag, &costEmbeddingBag});

}  // namespace
}  // namespace ascend_sim
