// One LSTM or GRU layer direction as CANN runs it: DynamicRNN / DynamicGRUV2
// forward, DynamicRNNGrad / DynamicGRUV2Grad backward (the simulator's OPS.md
// "Recurrent kernels"), and the autograd functions nn.LSTM's and nn.GRU's
// layers are made of (LstmOps.cpp, GruOps.cpp).
#pragma once

#include <ATen/ATen.h>

#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {

// The eight outputs of DynamicRNN, each [T, B, H].
struct DynamicRnnOutputs {
  at::Tensor y, h, c, i, j, f, o, tanhc;
};

// x [T, B, I], w [I + H, 4H] (torch's cat([w_ih, w_hh], 1).t()), b [4H],
// h0 / c0 [1, B, H], all of one float dtype on one NPU; seq_len: int32 [B]
// on that NPU, or undefined (every row runs T steps). torch's gate order
// (i, f, g, o); `reverse` runs the steps from T-1 down to 0.
DynamicRnnOutputs dynamicRnn(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, const at::Tensor& h0,
                             const at::Tensor& c0, const at::Tensor& seq_len, bool reverse);

// The gradients (dx, dw, db, dh0, dc0) of one dynamicRnn call from its
// inputs, its outputs `fwd` and the gradients of y ([T, B, H]) and of the
// state (dh, dc: [1, B, H], the final state's, or [T, B, H], every step's).
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> dynamicRnnGrad(
    const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, const at::Tensor& h0, const at::Tensor& c0,
    const at::Tensor& seq_len, bool reverse, const DynamicRnnOutputs& fwd, const at::Tensor& dy, const at::Tensor& dh,
    const at::Tensor& dc);

// One layer direction with autograd: (y [T, B, H], h_n [1, B, H], c_n [1, B, H]),
// differentiable in x, w, b, h0 and c0 — one DynamicRNN forward, one
// DynamicRNNGrad backward. h_n / c_n are the state after the last step run
// (Note [Sequence lengths of DynamicRNN] in the simulator: output_h[T-1], or
// output_h[0] when `reverse`).
std::tuple<at::Tensor, at::Tensor, at::Tensor> lstmLayer(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                                                         const at::Tensor& h0, const at::Tensor& c0,
                                                         const at::Tensor& seq_len, bool reverse);
// The same with DynamicRNN's eight outputs (torch_npu's npu_lstm): y, h, c
// differentiable — every step's h and c gradient counts — the gates not.
std::vector<at::Tensor> lstmLayerSteps(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                                       const at::Tensor& h0, const at::Tensor& c0, const at::Tensor& seq_len,
                                       bool reverse);

// The six outputs of DynamicGRUV2, each [T, B, H] (new_gate: CANN's "new").
struct DynamicGruOutputs {
  at::Tensor y, h, update, reset, new_gate, hidden_new;
};

// x [T, B, I], w_i [I, 3H] (w_ih.t()), w_h [H, 3H] (w_hh.t()), b_i, b_h [3H],
// h0 [1, B, H]; seq_len and reverse as dynamicRnn's. torch's gate order (r, z, n).
DynamicGruOutputs dynamicGru(const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h, const at::Tensor& b_i,
                             const at::Tensor& b_h, const at::Tensor& h0, const at::Tensor& seq_len, bool reverse);

// The gradients (dx, dw_i, dw_h, db_i, db_h, dh0) of one dynamicGru call.
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> dynamicGruGrad(
    const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h, const at::Tensor& h0, const at::Tensor& seq_len,
    bool reverse, const DynamicGruOutputs& fwd, const at::Tensor& dy, const at::Tensor& dh);

// One GRU layer direction with autograd: (y [T, B, H], h_n [1, B, H]),
// differentiable in x, w_i, w_h, b_i, b_h and h0.
std::tuple<at::Tensor, at::Tensor> gruLayer(const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h,
                                            const at::Tensor& b_i, const at::Tensor& b_h, const at::Tensor& h0,
                                            const at::Tensor& seq_len, bool reverse);
// The same with DynamicGRUV2's six outputs (torch_npu's npu_gru): y and h
// differentiable — every step's h gradient counts — the gates not.
std::vector<at::Tensor> gruLayerSteps(const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h,
                                      const at::Tensor& b_i, const at::Tensor& b_h, const at::Tensor& h0,
                                      const at::Tensor& seq_len, bool reverse);

// The attributes both kernels take from the plugin: `direction` and torch's `gate_order`
// ("ifjo" for DynamicRNN, "rzh" for DynamicGRUV2).
void addRnnAttrs(torch_npu::OpCommand& cmd, bool reverse, const char* gate_order);
// The state after the last step run: a [1, B, H] slice of a kernel's
// output_h / output_c (T == 0: a copy of the initial state).
at::Tensor rnnFinalState(const at::Tensor& states, const at::Tensor& initial, bool reverse);
// seq_len as the optional the autograd functions take (their tensor
// arguments must be defined).
c10::optional<at::Tensor> optionalLengths(const at::Tensor& seq_len);

}  // namespace native
}  // namespace at_npu
