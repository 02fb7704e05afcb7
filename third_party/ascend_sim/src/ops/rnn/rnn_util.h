// What DynamicRNN and DynamicRNNGrad share (OPS.md "Recurrent kernels"):
// the problem's sizes, its attributes, which steps each batch row runs, and
// the Cube products of a step.
//
// Note [DynamicRNN steps]
// CANN's fused LSTM layer: one launch runs every time step of one direction.
//   x [T, B, I], w [I + H, 4H] (the input weights over the hidden weights,
//   already transposed: torch's cat([w_ih, w_hh], 1).t()), b [4H],
//   init_h, init_c [1, B, H]; outputs y, output_h, output_c, i, j, f, o,
//   tanhc, all [T, B, H].
// The 4H gate columns are in `gate_order`: "ijfo" (CANN's default: input,
// cell candidate j, forget, output) or "ifjo" (torch's i, f, g, o, which
// torch_npu passes). One step, in fp32:
//   g = x_t · W_x + h · W_h + b (+ forget_bias on f's columns)
//   i, f, o = sigmoid(g_i, g_f, g_o);  j = tanh(g_j)
//   c_t = f * c + i * j;  tanhc = tanh(c_t);  h_t = o * tanhc
// Both products run on the Cube with fp32 accumulation (operands rounded per
// the precision mode); x · W_x is one product over all T·B rows before the
// steps, h · W_h one per step. Every output is rounded once to x's dtype, and
// the recurrence carries h and c as stored, so the gradient kernel recomputes
// nothing and a fp16 chain is the chain its outputs show.
// "REDIRECTIONAL" runs the steps from T-1 down to 0 (the reverse half of a
// bidirectional layer); the outputs stay in time order.
//
// Note [Sequence lengths of DynamicRNN]
// The optional seq_length input ([B] int32, the last input here; CANN lists
// it fourth, but an optional input in the middle cannot be left out of a
// call) gives each batch row its length L_b <= T: the row runs the steps
// t < L_b (in the direction's order) and at t >= L_b its state is carried
// unchanged — output_h / output_c hold the carried state, y and the gates 0.
// So the forward direction's final state is output_h[T-1], the reverse
// direction's output_h[0], for every row (what a packed sequence needs).
// DynamicRNNGrad follows the same rule: padded steps pass the state's
// gradient through and take nothing from dy.
//
// Note [State gradients of the recurrent kernels]
// CANN's gradient kernels take dh (and dc) as the gradient of the final
// state, [1, B, H]. They also take it here as [T, B, H], the gradient of
// every step's output_h (output_c) — what torch_npu's npu_lstm / npu_gru
// return, and what a caller who uses the intermediate states differentiates.
// The backward pass then starts from 0 and adds step t's gradient to the
// carried one when it reaches step t (padded rows included: their output_h[t]
// is the carried state).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

struct RnnDims {
  int64_t t = 0, b = 0, i = 0, h = 0;
};

struct RnnAttrs {
  bool reverse = false;               // direction == "REDIRECTIONAL"
  int64_t gate_of[4] = {0, 1, 2, 3};  // column block of gate i, j, f, o
  float forget_bias = 0.0f;
};

enum RnnGate : int { kGateI = 0, kGateJ = 1, kGateF = 2, kGateO = 3 };

// Checks a recurrent kernel's input x: [T, B, I], fp32 or fp16.
void checkRnnInput(const OpCall& call, const TensorArg& x);
// Sizes from x [T, B, I] and w [I + H, 4H]; checks b, init_h, init_c and
// the float dtypes (fp32 / fp16, one dtype for all).
RnnDims rnnDimsOf(const OpCall& call, const TensorArg& x, const TensorArg& w, const TensorArg& b,
                  const TensorArg& init_h, const TensorArg& init_c);
// Reads and checks DynamicRNN's attributes; the ones CANN has but this kernel
// does not model (peephole, clipping, projection, batch-major, dropout, other
// cells or activations) are rejected when set.
RnnAttrs rnnAttrsOf(const OpCall& call);
// The attributes both recurrent kernels read: `direction` (true:
// REDIRECTIONAL), after rejecting the unmodelled ones they share.
bool rnnReverseOf(const OpCall& call);
// gate_of[g] = the column block of gates[g] under attr `gate_order` (one of
// `fallback`, CANN's default, and `alternative`, torch's), e.g. gates "ijfo".
void rnnGateOrder(const OpCall& call, const std::string& fallback, const std::string& alternative,
                  const std::string& gates, int64_t* gate_of);
// ACL_ERROR_OP_ATTR_NOT_MATCH: "attr <name> = <value> is not supported (only <supported>)".
[[noreturn]] void rejectAttr(const OpCall& call, const char* name, const std::string& value,
                             const std::string& supported);
// The optional seq_length input at `index`: its dtype and shape (validate),
// its values (compute; absent: every row runs T steps; a length outside
// [0, T] is a device fault).
void checkRnnLengths(const OpCall& call, size_t index, const RnnDims& d);
std::vector<int64_t> rnnLengthsOf(const OpCall& call, size_t index, const RnnDims& d);
// `t` must be a [rows..., H]-shaped tensor of x's dtype named `name`.
void checkRnnTensor(const OpCall& call, const TensorArg& t, const std::string& name, const TensorArg& x,
                    const Shape& want);

// The step index of the s-th step run (s = 0 first).
inline int64_t rnnStepAt(const RnnDims& d, bool reverse, int64_t s) { return reverse ? d.t - 1 - s : s; }
// Whether row `bi` runs step t (Note [Sequence lengths of DynamicRNN]).
inline bool rnnRowRuns(const std::vector<int64_t>& len, int64_t bi, int64_t t) { return t < len[bi]; }

// A state gradient input of the gradient kernels (Note [State gradients of the
// recurrent kernels]): [1, B, H] (the final state's) or [T, B, H] (every
// step's output_h / output_c).
void checkStateGradient(const OpCall& call, const TensorArg& t, const std::string& name, const TensorArg& x,
                        const RnnDims& d);
// The carried gradient a state gradient input starts from: the final state's,
// or 0 when it holds every step's (those are added by addStepGradient).
std::vector<float> initialStateGradient(const TensorArg& t, const RnnDims& d);
// carry += t's step `step` when t holds every step's gradient.
void addStepGradient(const TensorArg& t, const RnnDims& d, int64_t step, std::vector<float>& carry);

inline float rnnSigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
// All of t's values as floats.
std::vector<float> rnnLoad(const TensorArg& t);
// Rounds v[0, n) to dtype dt as a store to GM would (fp32: unchanged).
void rnnRoundTo(aclDataType dt, float* v, int64_t n);

// The cost both kernels share: `products` Cube products {m, n, k, count}, `passes`
// Vector passes over each step's B x H values, every tensor moved once.
KernelCost rnnCost(const OpCall& call, const RnnDims& d, const std::vector<std::vector<int64_t>>& products, int passes);

}  // namespace ascend_sim
