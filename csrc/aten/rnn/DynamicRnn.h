// One LSTM layer direction as CANN runs it: DynamicRNN forward, DynamicRNNGrad
// backward (the simulator's OPS.md "Recurrent kernels"), and the autograd
// function nn.LSTM's layers are made of (LstmOps.cpp).
#pragma once

#include <ATen/ATen.h>

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
// final state (dh, dc: [1, B, H]).
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

}  // namespace native
}  // namespace at_npu
