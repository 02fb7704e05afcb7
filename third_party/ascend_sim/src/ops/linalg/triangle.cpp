// Triu, Tril (OPS.md "Linear algebra (AI CPU)", the two AI Core ops of that
// section): x [..., m, n] -> y, the upper (Triu: j - i >= diagonal) or lower
// (Tril: j - i <= diagonal) triangle of every matrix, zeros elsewhere; attr
// `diagonal` (int, default 0) shifts the boundary. Any dtype; the kept
// elements are copied bit for bit. Runs on the AI Core's Vector unit (as CANN
// runs Triu/Tril) and may run in place (y = x).
#include <algorithm>
#include <cstring>

#include "ops/op_utils.h"

namespace ascend_sim {
namespace {

void validateTriangle(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kAllTypes);
  if (x.shape.size() < 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input x must have at least 2 dims (a batch of matrices), got shape " + shapeToString(x.shape));
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  attrInt(call, "diagonal", 0);
}

// Keeps columns [lo, hi) of row i of every matrix (clamped to [0, n)).
template <typename Range>
void keepRange(const OpCall& call, Range range) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const int64_t m = x.shape[x.shape.size() - 2], n = x.shape.back();
  if (m == 0 || n == 0) return;
  const int64_t count = x.numel() / (m * n), diagonal = attrInt(call, "diagonal", 0);
  const size_t es = dtypeSize(x.dtype);
  const auto* src = static_cast<const unsigned char*>(x.data);
  auto* dst = static_cast<unsigned char*>(y.data);
  for (int64_t row = 0; row < count * m; ++row) {
    const int64_t i = row % m;
    const std::pair<int64_t, int64_t> keep = range(i, diagonal, n);
    const int64_t lo = std::clamp<int64_t>(keep.first, 0, n), hi = std::clamp<int64_t>(keep.second, lo, n);
    unsigned char* out = dst + static_cast<size_t>(row * n) * es;
    if (src != dst)
      std::memcpy(out + lo * es, src + static_cast<size_t>(row * n + lo) * es, static_cast<size_t>(hi - lo) * es);
    std::memset(out, 0, static_cast<size_t>(lo) * es);
    std::memset(out + hi * es, 0, static_cast<size_t>(n - hi) * es);
  }
}

void computeTriu(const OpCall& call) {
  keepRange(call, [](int64_t i, int64_t d, int64_t n) { return std::make_pair(i + d, n); });
}

void computeTril(const OpCall& call) {
  keepRange(call, [](int64_t i, int64_t d, int64_t) { return std::make_pair(int64_t{0}, i + d + 1); });
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Triu", &validateTriangle, &computeTriu, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Tril", &validateTriangle, &computeTril, &vectorCost});

}  // namespace
}  // namespace ascend_sim
