// How an axis reduction walks its input: shared by ReduceSum & co.
// (reduce.cpp) and ReduceStdV2 (reduce_std.cpp).
//
// Note [Reduction layout]
// Conceptually the reduced axes are permuted innermost: the input becomes
// [outer..., reduced...] and each output element reduces one row-major
// sequence of the reduced axes (Note [Pairwise blocks] fixes the order). The
// reduced sequence's memory offsets are the same for every output, so they
// are precomputed once as runs (offset, len, stride). When the input's last
// axis is not reduced, up to kReduceTile consecutive outputs are gathered
// together into a [rows][cols] buffer with contiguous loads and reduced
// column-wise, which is both cache friendly and vectorisable; each column
// keeps its own order.
#pragma once

#include <algorithm>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

// Which input axes attribute `attr` (a list of ints) reduces: empty or absent
// means all; a 0-d input accepts axis 0 / -1 and reduces nothing. Repeated or
// out-of-range axes are KernelErrors naming the attribute.
std::vector<bool> reducedAxesMask(const OpCall& call, const char* attr);

// The input shape with the masked axes removed (or kept as 1).
Shape reducedShape(const Shape& in, const std::vector<bool>& mask, bool keep);

// Note [Reduction layout]: the plan shared by all outputs.
struct ReducePlan {
  Shape outer_shape, outer_strides;  // non-reduced axes (without the tiled last axis)
  std::vector<int64_t> run_offsets;  // reduced sequence = runs of run_len at run_stride
  int64_t run_len = 1, run_stride = 1, rows = 1;
  int64_t tile_len = 1;              // length of the tiled (last, non-reduced) axis; 1 = no tiling
  int64_t cols = 1;                  // outputs per gather
};

ReducePlan makeReducePlan(const Shape& shape, const std::vector<bool>& mask);

// Runs a reduction in domain T (float or int64) over the plan: for every
// group of `cols` consecutive outputs, load(dtype, data, offset, stride, n,
// dst) gathers the buffer [rows][cols], reduce(buf, rows, cols, out) reduces
// each column into out[0..cols) (it may destroy buf), and store(first_output,
// cols, out) writes them. Outputs are visited in row-major order.
template <typename T, typename LoadFn, typename ReduceFn, typename StoreFn>
void runReducePlan(const TensorArg& x, const ReducePlan& p, LoadFn load, ReduceFn reduce, StoreFn store) {
  std::vector<T> buf(static_cast<size_t>(std::max<int64_t>(1, p.rows * p.cols)));
  std::vector<T> out(static_cast<size_t>(p.cols));
  const int64_t outer = numelOf(p.outer_shape);
  Shape idx(p.outer_shape.size(), 0);
  int64_t base = 0, out_off = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t t0 = 0; t0 < p.tile_len; t0 += p.cols) {
      const int64_t cols = std::min(p.cols, p.tile_len - t0);
      int64_t pos = 0;
      for (int64_t ro : p.run_offsets) {
        if (cols == 1) {
          load(x.dtype, x.data, base + t0 + ro, p.run_stride, p.run_len, &buf[pos]);
        } else {
          for (int64_t j = 0; j < p.run_len; ++j)
            load(x.dtype, x.data, base + t0 + ro + j * p.run_stride, 1, cols, &buf[(pos + j) * cols]);
        }
        pos += p.run_len;
      }
      reduce(buf.data(), p.rows, cols, out.data());
      store(out_off, cols, out.data());
      out_off += cols;
    }
    for (size_t q = idx.size(); q-- > 0;) {
      base += p.outer_strides[q];
      if (++idx[q] < p.outer_shape[q]) break;
      base -= p.outer_strides[q] * p.outer_shape[q];
      idx[q] = 0;
    }
  }
}

}  // namespace ascend_sim
