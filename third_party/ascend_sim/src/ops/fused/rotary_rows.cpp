#include "ops/fused/rotary_rows.h"

namespace ascend_sim {

RotaryRows rotaryRowsOf(const TensorArg& x, const TensorArg& table) {
  RotaryRows rr;
  rr.d = x.shape.back();
  rr.rows = rr.d == 0 ? 0 : x.numel() / rr.d;
  rr.r_rows = rr.d == 0 ? 0 : table.numel() / rr.d;
  const Shape strides = broadcastStrides(table.shape, x.shape);  // element strides of the table read as x
  const size_t lead = x.shape.size() - 1;
  std::vector<int64_t> idx(lead, 0);
  rr.r_row.resize(static_cast<size_t>(rr.rows));
  for (int64_t i = 0; i < rr.rows; ++i) {
    int64_t off = 0;
    for (size_t k = 0; k < lead; ++k) off += idx[k] * strides[k];
    rr.r_row[i] = off / rr.d;
    for (size_t k = lead; k-- > 0;) {  // next multi-index of x's leading dims
      if (++idx[k] < x.shape[k]) break;
      idx[k] = 0;
    }
  }
  return rr;
}

RotaryMode rotaryModeOf(const OpCall& call, int64_t d) {
  const std::string name = attrString(call, "rotary_mode", "half");
  RotaryMode mode;
  int64_t parts;
  if (name == "half") {
    mode = RotaryMode::kHalf;
    parts = 2;
  } else if (name == "interleave") {
    mode = RotaryMode::kInterleave;
    parts = 2;
  } else if (name == "quarter") {
    mode = RotaryMode::kQuarter;
    parts = 4;
  } else {
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr rotary_mode \"" + name + "\" is not one of \"half\", \"interleave\", \"quarter\"");
  }
  if (d % parts != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "the last dim " + std::to_string(d) + " must split into " + std::to_string(parts) +
             " equal parts for rotary_mode \"" + name + "\"");
  return mode;
}

void rotateRow(RotaryMode mode, const float* x, int64_t d, float* out) {
  switch (mode) {
    case RotaryMode::kHalf:
      for (int64_t j = 0, h = d / 2; j < h; ++j) {
        out[j] = -x[j + h];
        out[j + h] = x[j];
      }
      return;
    case RotaryMode::kInterleave:
      for (int64_t j = 0; j + 1 < d; j += 2) {
        out[j] = -x[j + 1];
        out[j + 1] = x[j];
      }
      return;
    case RotaryMode::kQuarter:
      for (int64_t j = 0, q = d / 4; j < q; ++j) {
        out[j] = -x[j + q];
        out[j + q] = x[j];
        out[j + 2 * q] = -x[j + 3 * q];
        out[j + 3 * q] = x[j + 2 * q];
      }
      return;
  }
}

}  // namespace ascend_sim
