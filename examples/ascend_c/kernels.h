// The example Ascend C kernels' entry points (the kernels are in *_custom.cpp).
#pragma once

#include "kernel_operator.h"
#include "tiling.h"

// Two buffers per queue (double buffering), as in Ascend's add_custom sample.
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddCustomTiling tiling);
// The same kernel with one buffer per queue, to show what double buffering buys.
extern "C" __global__ __aicore__ void add_custom_single_buffer(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddCustomTiling tiling);
// add_custom for half tensors.
extern "C" __global__ __aicore__ void add_custom_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddCustomTiling tiling);
extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, SoftmaxTiling tiling);
extern "C" __global__ __aicore__ void matmul_leakyrelu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                              MatmulLeakyReluTiling tiling);
