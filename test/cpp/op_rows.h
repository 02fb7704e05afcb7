// Table-driven op tests: one row per op (a name, the shape of its single
// input, the op), checked against the CPU in the common ways. Shared by the
// dense-prediction, padding, pooling and layout suites.
#pragma once

#include <string>
#include <vector>

#include "npu_test_util.h"

namespace torch_npu_test {

struct OpRow {
  const char* name;
  std::vector<int64_t> shape;
  TensorFn fn;
};

inline bool nameHasAny(const char* name, std::initializer_list<const char*> parts) {
  for (const char* p : parts)
    if (std::string(name).find(p) != std::string::npos) return true;
  return false;
}

// Every row against the CPU, forward and backward, on a random input in fp32
// and fp16 (with the two-roundings fp16 tolerances when the backward
// consumes an fp16-rounded forward result).
inline void expectRowsMatchCpu(const std::vector<OpRow>& rows, bool two_roundings = false) {
  for (const OpRow& row : rows) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(std::string(row.name) + " " + c10::toString(dtype));
      const double rtol = two_roundings ? rtolTwoRoundings(dtype) : rtolFor(dtype);
      const double atol = two_roundings ? atolTwoRoundings(dtype) : atolFor(dtype);
      expectSameAutograd(row.fn, {at::randn(row.shape).to(dtype)}, rtol, atol);
    }
  }
}

// Every row (of rank >= 2, name containing none of `skip`) on an input whose
// first dim is 0.
inline void expectRowsOnEmptyBatch(const std::vector<OpRow>& rows, std::initializer_list<const char*> skip = {}) {
  for (const OpRow& row : rows) {
    if (row.shape.size() < 2 || nameHasAny(row.name, skip)) continue;
    SCOPED_TRACE(std::string(row.name) + " with an empty batch");
    std::vector<int64_t> empty = row.shape;
    empty[0] = 0;
    expectSameAutograd(row.fn, {at::randn(empty)});
  }
}

// Every row (of rank >= 2) on a non-contiguous input: dims d0 and d1
// (negative: from the end) swapped in memory, then transposed back.
inline void expectRowsOnTransposedInput(const std::vector<OpRow>& rows, int64_t d0, int64_t d1) {
  for (const OpRow& row : rows) {
    const int64_t rank = static_cast<int64_t>(row.shape.size());
    if (rank < 2) continue;
    SCOPED_TRACE(std::string(row.name) + " on a transposed input");
    const int64_t a = d0 < 0 ? d0 + rank : d0, b = d1 < 0 ? d1 + rank : d1;
    std::vector<int64_t> swapped = row.shape;
    std::swap(swapped[static_cast<size_t>(a)], swapped[static_cast<size_t>(b)]);
    expectSameAutograd([&](const auto& in) { return row.fn({in[0].transpose(a, b)}); }, {at::randn(swapped)});
  }
}

}  // namespace torch_npu_test
