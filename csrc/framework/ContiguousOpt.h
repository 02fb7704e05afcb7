// Note [Contiguous views on the AI Core]
// Making a strided NPU view contiguous is, in general, CANN's AsStrided on the
// AI CPU (an order of magnitude slower than the AI Core: OPS.md "Layout").
// Ascend's torch_npu recognises the common view patterns and runs AI Core ops
// instead; the two that dominate transformers are handled here:
//   * a permutation of a dense block of the storage (x.transpose(0, 1),
//     q.view(T, B*H, d).transpose(0, 1), permute(...)): Transpose;
//   * an expansion (stride-0 dims, x.expand(...), broadcast masks and biases),
//     possibly of a permuted block: [Transpose then] BroadcastTo.
// Size-1 dims are ignored (their stride does not matter). Anything else
// (slices with gaps, overlapping strides, private formats) returns false and
// the caller uses AsStrided.
#pragma once

#include <ATen/Tensor.h>

namespace torch_npu {

// Writes the NPU view `src` into the contiguous NPU tensor `out` (same sizes
// and dtype) with Transpose / BroadcastTo when src has one of the patterns
// above; returns false (having done nothing) otherwise.
bool gatherWithAiCoreOps(const at::Tensor& src, const at::Tensor& out);

}  // namespace torch_npu
