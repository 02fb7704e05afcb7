// DynamicGRUV2 / DynamicGRUV2Grad launches and the autograd function of one
// GRU layer direction (DynamicRnn.h).
#include <c10/core/DeviceGuard.h>
#include <torch/csrc/autograd/custom_function.h>

#include "DynamicRnn.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// One GRU layer direction with autograd. kEverySteps: DynamicGRUV2's six
// outputs (npu_gru; the gates not differentiable), every step's h gradient
// counts; otherwise (y, h_n) (nn.GRU's layers).
template <bool kEverySteps>
class GruLayerFunction : public torch::autograd::Function<GruLayerFunction<kEverySteps>> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h,
                               const at::Tensor& b_i, const at::Tensor& b_h, const at::Tensor& h0,
                               const c10::optional<at::Tensor>& seq_len, bool reverse) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    const at::Tensor lengths = seq_len.value_or(at::Tensor());
    const DynamicGruOutputs o = dynamicGru(x, w_i, w_h, b_i, b_h, h0, lengths, reverse);
    ctx->save_for_backward({x, w_i, w_h, h0, o.y, o.h, o.update, o.reset, o.new_gate, o.hidden_new});
    ctx->saved_data["reverse"] = reverse;
    ctx->saved_data["seq_len"] = lengths;
    if (!kEverySteps) return {o.y, rnnFinalState(o.h, h0, reverse)};
    ctx->mark_non_differentiable({o.update, o.reset, o.new_gate, o.hidden_new});
    return {o.y, o.h, o.update, o.reset, o.new_gate, o.hidden_new};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    const DynamicGruOutputs fwd{s[4], s[5], s[6], s[7], s[8], s[9]};
    auto [dx, dw_i, dw_h, db_i, db_h, dh0] =
        dynamicGruGrad(s[0], s[1], s[2], s[3], ctx->saved_data["seq_len"].toTensor(),
                       ctx->saved_data["reverse"].toBool(), fwd, grads[0], grads[1]);
    return {dx, dw_i, dw_h, db_i, db_h, dh0, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

DynamicGruOutputs dynamicGru(const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h, const at::Tensor& b_i,
                             const at::Tensor& b_h, const at::Tensor& h0, const at::Tensor& seq_len, bool reverse) {
  const c10::DeviceGuard guard(x.device());
  const std::vector<int64_t> shape = {x.size(0), x.size(1), w_h.size(0)};
  DynamicGruOutputs o;
  for (at::Tensor* t : {&o.y, &o.h, &o.update, &o.reset, &o.new_gate, &o.hidden_new})
    *t = torch_npu::emptyNpu(shape, x.scalar_type(), x.device());
  torch_npu::OpCommand cmd("DynamicGRUV2");
  cmd.Input(x).Input(w_i).Input(w_h).Input(b_i).Input(b_h).Input(h0);
  if (seq_len.defined()) cmd.Input(seq_len);
  for (const at::Tensor* t : {&o.y, &o.h, &o.update, &o.reset, &o.new_gate, &o.hidden_new}) cmd.Output(*t);
  addRnnAttrs(cmd, reverse, "rzh");
  cmd.Run();
  return o;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> dynamicGruGrad(
    const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h, const at::Tensor& h0, const at::Tensor& seq_len,
    bool reverse, const DynamicGruOutputs& fwd, const at::Tensor& dy, const at::Tensor& dh) {
  const c10::DeviceGuard guard(x.device());
  const int64_t gates = w_h.size(1);
  at::Tensor dx = torch_npu::emptyNpuLike(x), dw_i = torch_npu::emptyNpuLike(w_i), dw_h = torch_npu::emptyNpuLike(w_h),
             db_i = torch_npu::emptyNpu({gates}, x.scalar_type(), x.device()),
             db_h = torch_npu::emptyNpu({gates}, x.scalar_type(), x.device()), dh0 = torch_npu::emptyNpuLike(h0);
  torch_npu::OpCommand cmd("DynamicGRUV2Grad");
  cmd.Input(x).Input(w_i).Input(w_h).Input(fwd.y).Input(h0).Input(fwd.h).Input(dy).Input(dh);
  cmd.Input(fwd.update).Input(fwd.reset).Input(fwd.new_gate).Input(fwd.hidden_new);
  if (seq_len.defined()) cmd.Input(seq_len);
  cmd.Output(dw_i).Output(dw_h).Output(db_i).Output(db_h).Output(dx).Output(dh0);
  addRnnAttrs(cmd, reverse, "rzh");
  cmd.Run();
  return {dx, dw_i, dw_h, db_i, db_h, dh0};
}

std::tuple<at::Tensor, at::Tensor> gruLayer(const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h,
                                            const at::Tensor& b_i, const at::Tensor& b_h, const at::Tensor& h0,
                                            const at::Tensor& seq_len, bool reverse) {
  variable_list out = GruLayerFunction<false>::apply(x, w_i, w_h, b_i, b_h, h0, optionalLengths(seq_len), reverse);
  return {out[0], out[1]};
}

std::vector<at::Tensor> gruLayerSteps(const at::Tensor& x, const at::Tensor& w_i, const at::Tensor& w_h,
                                      const at::Tensor& b_i, const at::Tensor& b_h, const at::Tensor& h0,
                                      const at::Tensor& seq_len, bool reverse) {
  return GruLayerFunction<true>::apply(x, w_i, w_h, b_i, b_h, h0, optionalLengths(seq_len), reverse);
}

}  // namespace native
}  // namespace at_npu
