// The check the fused attention ops with an additive mask share
// (npu_fused_attention_score, npu_multi_head_attention): the mask must
// broadcast to the scores' [B, N, Sq, Skv], checked on the host so that a
// bad mask raises at the call, not at the next synchronisation.
#pragma once

#include <ATen/ATen.h>

namespace at_npu {
namespace native {

inline void checkMaskBroadcasts(const char* op, const char* name, const at::Tensor& mask, at::IntArrayRef scores) {
  bool ok = mask.dim() == static_cast<int64_t>(scores.size());
  for (int64_t i = 0; ok && i < mask.dim(); ++i) ok = mask.size(i) == scores[i] || mask.size(i) == 1;
  TORCH_CHECK(ok, op, ": ", name, " of shape ", mask.sizes(),
              " does not broadcast to the scores' [B, N, Sq, Skv] = ", scores);
}

}  // namespace native
}  // namespace at_npu
