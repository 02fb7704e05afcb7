// Tiling of the example kernels: computed on the host (ascendc_ops.cpp), passed to the kernel by
// value, as Ascend C kernels receive theirs.
#pragma once

#include <cstdint>

// add_custom: z = x + y over totalLength elements, in tiles of tileLength elements (a multiple of
// 32 bytes) handed to the blocks in turn; the last tile may be shorter.
struct AddCustomTiling {
  uint32_t totalLength;
  uint32_t tileLength;
};

// softmax_custom: softmax over the last dimension of a [rows][cols] float tensor, one row per
// step, rows dealt to the blocks in turn.
struct SoftmaxTiling {
  uint32_t rows;
  uint32_t cols;
};

// matmul_leakyrelu_custom: c = leaky_relu(a @ b, alpha) with a [M][K] and b [K][N] in half and c
// in float; each block computes baseM x baseN tiles of c, in steps of baseK along K.
struct MatmulLeakyReluTiling {
  uint32_t M, N, K;
  uint32_t baseM, baseN, baseK;
  float alpha;
};
