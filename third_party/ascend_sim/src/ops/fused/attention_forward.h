// The forward pass the fused attention kernels share: FlashAttentionScore
// (training, with the softmax stats) and PromptFlashAttention /
// IncreFlashAttention (inference, with per-batch valid lengths).
#pragma once

#include "ops/fused/attention_util.h"

namespace ascend_sim {

// Writes attention_out (`out`, query's layout) for every (b, n, 128-row query
// tile) task (Note [Fused attention on the AI Core]); with max_out / sum_out
// also the softmax stats [B, N, Sq, 8]. q, k, v are inputs 0..2 of the call.
// Rows past queryLen(b) and rows with no key left are 0 (stats -inf, 0).
void fusedAttentionForward(const OpCall& call, const AttentionProblem& p, const TensorArg& out,
                           const TensorArg* max_out, const TensorArg* sum_out);

}  // namespace ascend_sim
