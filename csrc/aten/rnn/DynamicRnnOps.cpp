// DynamicRNN / DynamicRNNGrad launches and the autograd function of one LSTM
// layer direction (DynamicRnn.h).
#include <c10/core/DeviceGuard.h>
#include <torch/csrc/autograd/custom_function.h>

#include "DynamicRnn.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// One LSTM layer direction with autograd. kEverySteps: the outputs are
// DynamicRNN's eight (npu_lstm; the gate outputs not differentiable), the
// gradients of every step's h and c count; otherwise (y, h_n, c_n), the state
// after the last step (nn.LSTM's layers).
template <bool kEverySteps>
class LstmLayerFunction : public torch::autograd::Function<LstmLayerFunction<kEverySteps>> {
 public:
  // seq_len is an optional (not a tensor argument): autograd's input records need defined tensors.
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                               const at::Tensor& h0, const at::Tensor& c0, const c10::optional<at::Tensor>& seq_len,
                               bool reverse) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    const at::Tensor lengths = seq_len.value_or(at::Tensor());
    const DynamicRnnOutputs o = dynamicRnn(x, w, b, h0, c0, lengths, reverse);
    ctx->save_for_backward({x, w, b, h0, c0, o.y, o.h, o.c, o.i, o.j, o.f, o.o, o.tanhc});
    ctx->saved_data["reverse"] = reverse;
    ctx->saved_data["seq_len"] = lengths;
    if (!kEverySteps) return {o.y, rnnFinalState(o.h, h0, reverse), rnnFinalState(o.c, c0, reverse)};
    ctx->mark_non_differentiable({o.i, o.j, o.f, o.o, o.tanhc});
    return {o.y, o.h, o.c, o.i, o.j, o.f, o.o, o.tanhc};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    const DynamicRnnOutputs fwd{s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12]};
    const at::Tensor lengths = ctx->saved_data["seq_len"].toTensor();
    auto [dx, dw, db, dh0, dc0] = dynamicRnnGrad(
        s[0], s[1], s[2], s[3], s[4], lengths, ctx->saved_data["reverse"].toBool(), fwd, grads[0], grads[1], grads[2]);
    return {dx, dw, db, dh0, dc0, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

void addRnnAttrs(torch_npu::OpCommand& cmd, bool reverse, const char* gate_order) {
  cmd.Attr("direction", reverse ? "REDIRECTIONAL" : "UNIDIRECTIONAL").Attr("gate_order", gate_order);
}

at::Tensor rnnFinalState(const at::Tensor& states, const at::Tensor& initial, bool reverse) {
  if (states.size(0) == 0) return initial.clone();
  return states.narrow(0, reverse ? 0 : states.size(0) - 1, 1);
}

c10::optional<at::Tensor> optionalLengths(const at::Tensor& seq_len) {
  return seq_len.defined() ? c10::make_optional(seq_len) : c10::nullopt;
}

DynamicRnnOutputs dynamicRnn(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, const at::Tensor& h0,
                             const at::Tensor& c0, const at::Tensor& seq_len, bool reverse) {
  const c10::DeviceGuard guard(x.device());
  const std::vector<int64_t> shape = {x.size(0), x.size(1), w.size(1) / 4};
  DynamicRnnOutputs o;
  for (at::Tensor* t : {&o.y, &o.h, &o.c, &o.i, &o.j, &o.f, &o.o, &o.tanhc})
    *t = torch_npu::emptyNpu(shape, x.scalar_type(), x.device());
  torch_npu::OpCommand cmd("DynamicRNN");
  cmd.Input(x).Input(w).Input(b).Input(h0).Input(c0);
  if (seq_len.defined()) cmd.Input(seq_len);
  for (const at::Tensor* t : {&o.y, &o.h, &o.c, &o.i, &o.j, &o.f, &o.o, &o.tanhc}) cmd.Output(*t);
  addRnnAttrs(cmd, reverse, "ifjo");
  cmd.Run();
  return o;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> dynamicRnnGrad(
    const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, const at::Tensor& h0, const at::Tensor& c0,
    const at::Tensor& seq_len, bool reverse, const DynamicRnnOutputs& fwd, const at::Tensor& dy, const at::Tensor& dh,
    const at::Tensor& dc) {
  const c10::DeviceGuard guard(x.device());
  at::Tensor dx = torch_npu::emptyNpuLike(x), dw = torch_npu::emptyNpuLike(w), db = torch_npu::emptyNpuLike(b),
             dh0 = torch_npu::emptyNpuLike(h0), dc0 = torch_npu::emptyNpuLike(c0);
  torch_npu::OpCommand cmd("DynamicRNNGrad");
  cmd.Input(x).Input(w).Input(b).Input(fwd.y).Input(h0).Input(c0).Input(fwd.h).Input(fwd.c);
  cmd.Input(dy).Input(dh).Input(dc).Input(fwd.i).Input(fwd.j).Input(fwd.f).Input(fwd.o).Input(fwd.tanhc);
  if (seq_len.defined()) cmd.Input(seq_len);
  cmd.Output(dw).Output(db).Output(dx).Output(dh0).Output(dc0);
  addRnnAttrs(cmd, reverse, "ifjo");
  cmd.Run();
  return {dx, dw, db, dh0, dc0};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> lstmLayer(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                                                         const at::Tensor& h0, const at::Tensor& c0,
                                                         const at::Tensor& seq_len, bool reverse) {
  variable_list out = LstmLayerFunction<false>::apply(x, w, b, h0, c0, optionalLengths(seq_len), reverse);
  return {out[0], out[1], out[2]};
}

std::vector<at::Tensor> lstmLayerSteps(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                                       const at::Tensor& h0, const at::Tensor& c0, const at::Tensor& seq_len,
                                       bool reverse) {
  return LstmLayerFunction<true>::apply(x, w, b, h0, c0, optionalLengths(seq_len), reverse);
}

}  // namespace native
}  // namespace at_npu
