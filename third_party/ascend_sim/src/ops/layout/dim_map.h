// Gathers whose source index along every dim is a function of the output
// index along that dim alone: y[o_0, .., o_{r-1}] = x[m_0(o_0), .., m_{r-1}(o_{r-1})]
// (PadV3, ReverseV2, Roll). Bit copies of any element size; rows of the
// output (all dims but the last) are split over the simulated vector cores,
// and runs of consecutive source indices along the last dim move as one
// memcpy.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

// Per dim of y: the source index in x of every output index.
using DimMaps = std::vector<std::vector<int64_t>>;

// Offset in x (contiguous, shape x_shape) of the first element of output row
// r of y (shape: maps[d].size() per dim); the last dim adds maps.back()[j].
int64_t dimMapRowSource(const DimMaps& maps, const Shape& x_strides, int64_t r);

// y = x gathered through `maps` (x, y contiguous; same element size).
void gatherByDimMaps(const OpCall& call, const TensorArg& x, const TensorArg& y, const DimMaps& maps);

// Simulated cores gatherByDimMaps splits y over.
int64_t dimMapBlocks(const OpCall& call, const TensorArg& y);

}  // namespace ascend_sim
