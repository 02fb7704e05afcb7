// Note [Contiguous views on the AI Core]
// Making a strided NPU view contiguous is, in general, CANN's AsStrided on the
// AI CPU (an order of magnitude slower than the AI Core: OPS.md "Layout").
// Ascend's torch_npu recognises the common view patterns and runs AI Core ops
// instead. A view is planned as up to three AI Core steps:
//   1. StridedSliceD: a forward slice of a dense block of the storage
//      (x[:, 1:3], chunk()/split() pieces — LSTM gates, packed q/k/v —,
//      x[..., ::2], select()); the block's dims are the view's dims in storage
//      order, each block stride a multiple of the next;
//   2. Transpose: a permutation (x.transpose(0, 1), permute(...),
//      q.view(T, B*H, d).transpose(0, 1));
//   3. BroadcastTo: an expansion (stride-0 dims: expand(), broadcast masks).
// Size-1 dims are ignored (their stride does not matter). Anything else
// (overlapping or negative strides, strides that do not nest, private
// formats) returns false and the caller uses AsStrided.
// Each step is a profiler range named as torch_npu names it
// ("contiguous_d_StridedSlice", "contiguous_d_Transpose",
// "contiguous_d_BroadcastTo"; the fallbacks in Copy.cpp: "contiguous_d_AsStrided",
// and "contiguous_d_ViewCopy" for a copy into a strided view), so
// torch_npu.testing's check_operators_in_prof sees which path ran.
#pragma once

#include <ATen/Tensor.h>

namespace torch_npu {

// Writes the NPU view `src` into the contiguous NPU tensor `out` (same sizes
// and dtype) with StridedSliceD / Transpose / BroadcastTo when src has the
// pattern above; returns false (having done nothing) otherwise.
bool gatherWithAiCoreOps(const at::Tensor& src, const at::Tensor& out);

}  // namespace torch_npu
