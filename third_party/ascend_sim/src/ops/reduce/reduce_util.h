// Reduction building blocks shared by ReduceX, softmax and losses.
//
// Note [Pairwise blocks]
// OPS.md ("Numerics"): a float reduction over a sequence x[0..n) accumulates in
// fp32, "pairwise within each 256-byte block, then the block partials in
// order". Precisely (this is the simulator's definition):
//   * blocks are x[0..B), x[B..2B), ... with B = 256 / sizeof(input dtype)
//     (64 fp32, 128 fp16/bf16); the last block may be shorter;
//   * inside a block of length L the tree is built level by level from
//     adjacent pairs: y[i] = x[2i] (op) x[2i+1]; an odd last element is carried
//     to the next level unchanged; repeat until one value is left;
//   * the result is ((p0 (op) p1) (op) p2) ... over the block partials.
// The same tree is used for Sum, Prod, Max and Min (for Max/Min order only
// matters for NaN, which propagates). Integer reductions are exact in int64
// (wrapping), so their order is irrelevant. Buffers are [rows][cols]: each
// column is one independent sequence, which lets the loops vectorise across
// outputs without changing any column's order.
#pragma once

#include <cstdint>

#include "kernel/kernel.h"

namespace ascend_sim {

enum class ReduceKind { kSum, kProd, kMax, kMin };

// out[c] = reduction of buf[0..rows)[c] per Note [Pairwise blocks]; destroys buf.
// rows == 0 gives the identity (0 for sum, 1 for prod, NaN for max/min).
void reduceColumnsFloat(float* buf, int64_t rows, int64_t cols, int64_t block, ReduceKind kind,
                        float* out);
void reduceColumnsInt(int64_t* buf, int64_t rows, int64_t cols, ReduceKind kind, int64_t* out);

// Sum of x[0..n) per Note [Pairwise blocks]; destroys x.
inline float pairwiseSum(float* x, int64_t n, int64_t block) {
  float r;
  reduceColumnsFloat(x, n, 1, block, ReduceKind::kSum, &r);
  return r;
}

// A loss's `reduction` attribute ("none", "sum" or "mean", default "mean");
// any other value fails validation with ACL_ERROR_OP_ATTR_NOT_MATCH.
enum class LossReduction { kNone, kSum, kMean };
LossReduction lossReductionOf(const OpCall& call);

}  // namespace ascend_sim
