// The host checks torch_npu's fp16-only fused attention ops share
// (npu_fused_attention_score, npu_multi_head_attention): operands on the
// query's device in float16, and an additive mask that broadcasts to the
// scores' [B, N, Sq, Skv] — checked here so that a bad call raises at the
// call, not at the next synchronisation (kernel errors are asynchronous).
#pragma once

#include <ATen/ATen.h>

namespace at_npu {
namespace native {

inline void checkFp16Operand(const char* op, const char* name, const at::Tensor& t, const at::Tensor& query) {
  TORCH_CHECK(t.device() == query.device(), op, ": ", name, " is on ", t.device(), " but the query is on ",
              query.device());
  TORCH_CHECK(t.scalar_type() == at::kHalf, op, ": ", name, " must be float16 (as torch_npu's), got ", t.scalar_type());
}

inline void checkMaskBroadcasts(const char* op, const char* name, const at::Tensor& mask, at::IntArrayRef scores) {
  bool ok = mask.dim() == static_cast<int64_t>(scores.size());
  for (int64_t i = 0; ok && i < mask.dim(); ++i) ok = mask.size(i) == scores[i] || mask.size(i) == 1;
  TORCH_CHECK(ok, op, ": ", name, " of shape ", mask.sizes(),
              " does not broadcast to the scores' [B, N, Sq, Skv] = ", scores);
}

}  // namespace native
}  // namespace at_npu
