// Batch norm kernels on the C0 lanes of NC1HWC0 activations (batch_norm.cpp).
//
// Note [Batch norm on C0 lanes]
// In NC1HWC0 with C0 = 16 the storage of one (sample, C1 block) is [H*W][16]:
// every row holds the 16 channels of one position. Batch norm works per
// channel, so the rows are already what a SIMD unit wants: lane l is channel
// c1 * 16 + l. When every activation operand of a kernel is fp32 or fp16
// NC1HWC0 with C0 = 16, the kernels below work on those rows directly, with no
// transpose into channel planes and back (isNc1hwc0Of16 in format_access.h says which tensors):
//  * elementwise formulas (bnmath::) are applied per lane with the lane's
//    channel parameters, the same operations per element as the plane walk;
//  * a channel's sums are the columns of the block's [N*H*W][16] rows
//    (reduceColumnsFloat with 16 columns), which reduces each column with the
//    pairwise rule of Note [Pairwise blocks] in (n, h, w) order, exactly as
//    pairwiseSum does for the channel's values taken alone.
// So the results are bit-identical to the plane walk. Lanes past C (the pad
// channels of the last block) are computed and dropped; outputs get zeros
// there, so no pass over the output's pads follows. Host tasks take one C1
// block (reductions) or one (sample, C1 block) (elementwise kernels).
#pragma once

#include <cstdint>

#include "kernel/kernel.h"

namespace ascend_sim {
namespace bnlanes {

// An activation seen as N samples x C channels x H*W positions.
struct Geometry {
  int64_t n, c, hw;
  int64_t blocks() const { return (c + 15) / 16; }
  int64_t m() const { return n * hw; }
};

// BNTrainingReduce: sum[c] and square_sum[c] (block: rows per pairwise block).
void reduce(const TensorArg& x, const Geometry& g, int64_t block, float* sum, float* square_sum);
// BNTrainingUpdate's y = bnmath::normalized(x, ...) per channel (y may alias x).
void update(const TensorArg& x, const TensorArg& y, const Geometry& g, const float* mean, const float* invstd,
            const float* scale, const float* offset);
// BNInfer's y = bnmath::inferred(x, ...) with den[c] = sqrt(variance + eps) (y may alias x).
void infer(const TensorArg& x, const TensorArg& y, const Geometry& g, const float* mean, const float* den,
           const float* scale, const float* offset);
// BNTrainingUpdateGrad: diff_offset[c] = sum dy, diff_scale[c] = (sum centredGrad) * invstd[c].
void updateGrad(const TensorArg& dy, const TensorArg& x, const Geometry& g, int64_t block, const float* mean,
                const float* invstd, float* diff_scale, float* diff_offset);
// BNTrainingReduceGrad's dx = bnmath::inputGrad(dy, x, k[c], a[c], mean[c], b[c]).
void reduceGrad(const TensorArg& dy, const TensorArg& x, const TensorArg& dx, const Geometry& g, const float* k,
                const float* a, const float* mean, const float* b);

}  // namespace bnlanes
}  // namespace ascend_sim
