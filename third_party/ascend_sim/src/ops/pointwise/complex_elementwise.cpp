#include "ops/pointwise/complex_elementwise.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "aicore/thread_pool.h"

namespace ascend_sim {

void forEachElementRun(const OpCall& call,
                       const std::function<void(const int64_t* off, int64_t len, const int64_t* st)>& fn) {
  const Shape& out = call.outputs[0].shape;
  std::vector<Shape> strides = {contiguousStrides(out)};
  for (const TensorArg& t : call.inputs) strides.push_back(broadcastStrides(t.shape, out));
  const int64_t numel = numelOf(out);
  const int64_t blocks = elementwiseBlocks(numel, call.ctx.vector_cores);
  const int64_t chunks = (numel + kChunk - 1) / kChunk;
  parallelFor(blocks, numel, [&](int64_t b) {  // the table engine's split (Note [Elementwise engine])
    const int64_t lo = std::min(numel, b * chunks / blocks * kChunk);
    const int64_t hi = std::min(numel, (b + 1) * chunks / blocks * kChunk);
    forEachInnerRunInRange(out, strides, lo, hi, fn);
  });
}

Complex64 complexScalarOf(const TensorArg& t) {
  if (isComplexDtype(t.dtype)) {
    Complex64 v;
    std::memcpy(static_cast<void*>(&v), t.data, sizeof v);
    return v;
  }
  float re = 0;
  loadFloat(t.dtype, t.data, 0, 1, 1, &re);
  return {re, 0.0f};
}

}  // namespace ascend_sim
