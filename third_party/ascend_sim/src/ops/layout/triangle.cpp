// Triu and Tril (OPS.md "Attention, normalization, embeddings, recurrent
// networks"), on the Vector unit: x [..., M, N] -> y of the same shape, where
// y[..., i, j] = x[..., i, j] if the element is kept and 0 otherwise.
//   Triu keeps j - i >= diagonal,   Tril keeps j - i <= diagonal
// (attr `diagonal`, default 0). Elements are copied as bytes, so every dtype
// works (float64 included); y may be x itself (torch.triu_).
#include <cstring>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

bool isTriu(const OpCall& call) { return call.op_type == "Triu"; }

void validateTriangle(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kStorageTypes);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  if (x.shape.size() < 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input x shape " + shapeToString(x.shape) + " must have at least 2 dimensions");
  attrInt(call, "diagonal", 0);
}

void computeTriangle(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const size_t rank = x.shape.size();
  const int64_t m = x.shape[rank - 2], n = x.shape[rank - 1];
  const int64_t mats = m * n == 0 ? 0 : x.numel() / (m * n);
  const int64_t diagonal = attrInt(call, "diagonal", 0);
  const bool upper = isTriu(call);
  const size_t elem = dtypeSize(x.dtype);
  const auto* src = static_cast<const uint8_t*>(x.data);
  auto* dst = static_cast<uint8_t*>(y.data);
  for (int64_t b = 0; b < mats; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      const size_t row = static_cast<size_t>((b * m + i) * n) * elem;
      // Kept columns: [lo, hi) of the row.
      int64_t lo = upper ? std::max<int64_t>(0, std::min<int64_t>(n, i + diagonal)) : 0;
      int64_t hi = upper ? n : std::max<int64_t>(0, std::min<int64_t>(n, i + diagonal + 1));
      if (src != dst) std::memcpy(dst + row + lo * elem, src + row + lo * elem, static_cast<size_t>(hi - lo) * elem);
      std::memset(dst + row, 0, static_cast<size_t>(lo) * elem);
      std::memset(dst + row + hi * elem, 0, static_cast<size_t>(n - hi) * elem);
    }
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Triu", &validateTriangle, &computeTriangle, &vectorCost,
                                     /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Tril", &validateTriangle, &computeTriangle, &vectorCost,
                                     /*moves_data_only=*/true});

}  // namespace
}  // namespace ascend_sim
