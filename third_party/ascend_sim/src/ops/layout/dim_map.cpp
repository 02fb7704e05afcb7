#include "ops/layout/dim_map.h"

#include <cstring>

#include "kernel/index_util.h"

namespace ascend_sim {

int64_t dimMapRowSource(const DimMaps& maps, const Shape& x_strides, int64_t r) {
  int64_t off = 0;
  for (size_t d = maps.size() - 1; d-- > 0;) {
    const int64_t n = static_cast<int64_t>(maps[d].size());
    off += maps[d][static_cast<size_t>(r % n)] * x_strides[d];
    r /= n;
  }
  return off;
}

namespace {
int64_t rowsOf(const TensorArg& y) {
  return y.shape.empty() || y.shape.back() == 0 ? 0 : y.numel() / y.shape.back();
}
}  // namespace

int64_t dimMapBlocks(const OpCall& call, const TensorArg& y) { return blocksFor(call, rowsOf(y), y.numel()); }

void gatherByDimMaps(const OpCall& call, const TensorArg& x, const TensorArg& y, const DimMaps& maps) {
  const size_t es = dtypeSize(x.dtype);
  if (y.shape.empty()) {  // 0-d: one element
    if (y.numel() == 1) std::memcpy(y.data, x.data, es);
    return;
  }
  const Shape st = contiguousStrides(x.shape);
  const std::vector<int64_t>& last = maps.back();
  const int64_t row = static_cast<int64_t>(last.size()), rows = rowsOf(y);
  const char* src = static_cast<const char*>(x.data);
  char* dst = static_cast<char*>(y.data);
  splitRange(rows, dimMapBlocks(call, y), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t base = dimMapRowSource(maps, st, r);
      char* out = dst + static_cast<size_t>(r * row) * es;
      for (int64_t j = 0; j < row;) {
        int64_t k = j + 1;
        while (k < row && last[static_cast<size_t>(k)] == last[static_cast<size_t>(k - 1)] + 1) ++k;
        std::memcpy(out + static_cast<size_t>(j) * es, src + static_cast<size_t>(base + last[static_cast<size_t>(j)]) * es,
                    static_cast<size_t>(k - j) * es);
        j = k;
      }
    }
  });
}

}  // namespace ascend_sim
