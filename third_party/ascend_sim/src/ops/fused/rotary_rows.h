// The row walk shared by the rotary position embedding kernels (rotary_mul.cpp:
// RotaryMul / RotaryMulGrad; apply_rotary_pos_emb.cpp: ApplyRotaryPosEmb):
// x seen as rows of its last dim D, each reading one row of a cos/sin table
// that broadcasts to x, and the rotations rot(x) of a row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

// x's rows and, for each, the row of the table it reads.
struct RotaryRows {
  int64_t d = 0, rows = 0;
  std::vector<int64_t> r_row;  // per x row
  int64_t r_rows = 0;
};
// `table` must broadcast to x with x's last dim (checked by the caller).
RotaryRows rotaryRowsOf(const TensorArg& x, const TensorArg& table);

// How a row of D elements is rotated (Note [Apply rotary pos emb]):
//   kHalf:       rot = [-x[h:], x[:h]]                          (h = D/2)
//   kInterleave: rot[2i] = -x[2i+1], rot[2i+1] = x[2i]
//   kQuarter:    rot = [-x[q:2q], x[:q], -x[3q:], x[2q:3q]]     (q = D/4)
enum class RotaryMode { kHalf, kInterleave, kQuarter };
// The mode named by attr `rotary_mode` ("half", "interleave", "quarter");
// fails the call on another name or a D the mode cannot split.
RotaryMode rotaryModeOf(const OpCall& call, int64_t d);
void rotateRow(RotaryMode mode, const float* x, int64_t d, float* out);

}  // namespace ascend_sim
