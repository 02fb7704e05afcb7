// nn.GRU and nn.GRUCell on the NPU: aten::gru (both overloads) and
// aten::gru_cell, registered on AutogradPrivateUse1 (yaml "autograd:"), as one
// DynamicGRUV2 launch per layer and direction (one DynamicGRUV2Grad
// backward), composed as nn.LSTM's are (Note [nn.LSTM on DynamicRNN]). The
// weights go in as torch_npu passes them: weight_input = w_ih.t(),
// weight_hidden = w_hh.t(), the two biases apart (the reset gate multiplies
// the hidden side's n part, bias included: torch's GRU), gate order "rzh".
#include <ATen/ops/gru_cell_native.h>
#include <ATen/ops/gru_native.h>

#include "DynamicRnn.h"
#include "PrivateUse1NativeFunctions.h"
#include "StackedRnn.h"

namespace at_npu {
namespace native {
namespace {

constexpr int64_t kGruGates = 3;

// One layer direction on DynamicGRUV2: params w_ih, w_hh[, b_ih, b_hh]; initial {h0}.
std::vector<at::Tensor> gruLayerOf(const at::Tensor& x, const at::Tensor* p, bool biases,
                                   const std::vector<at::Tensor>& initial, const at::Tensor& seq_len, bool reverse) {
  const at::Tensor b_i = biases ? p[2] : at::zeros({p[0].size(0)}, p[0].options());
  const at::Tensor b_h = biases ? p[3] : at::zeros({p[0].size(0)}, p[0].options());
  auto [y, h] = gruLayer(x, p[0].t(), p[1].t(), b_i, b_h, initial[0], seq_len, reverse);
  return {y, h};
}

}  // namespace

at::Tensor NPUNativeFunctions::gru_cell(const at::Tensor& input, const at::Tensor& hx, const at::Tensor& w_ih,
                                        const at::Tensor& w_hh, const c10::optional<at::Tensor>& b_ih,
                                        const c10::optional<at::Tensor>& b_hh) {
  const bool biases = b_ih.has_value() && b_ih->defined();
  std::vector<at::Tensor> params = {w_ih, w_hh};
  if (biases && b_hh.has_value() && b_hh->defined()) params.insert(params.end(), {*b_ih, *b_hh});
  const RnnStack s = rnnStackOf(params.size() == 4, 1, false, kGruGates);
  if (input.dim() != 2 || biases != (params.size() == 4) || hx.dim() != 2 ||
      !runsOnFusedRnn(input.unsqueeze(0), 3, input.size(0), {hx.unsqueeze(0)}, params, s))
    return at::native::gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh);
  return gruLayerOf(input.unsqueeze(0), params.data(), biases, {hx.unsqueeze(0)}, at::Tensor(), false)[1].squeeze(0);
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::gru(const at::Tensor& input, const at::Tensor& hx,
                                                           at::TensorList params, bool has_biases, int64_t num_layers,
                                                           double dropout, bool train, bool bidirectional,
                                                           bool batch_first) {
  const RnnStack s = rnnStackOf(has_biases, num_layers, bidirectional, kGruGates);
  const int64_t batch = input.dim() == 3 ? input.size(batch_first ? 0 : 1) : -1;
  if (!runsOnFusedRnn(input, 3, batch, {hx}, params, s))
    return at::native::gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first);
  const at::Tensor x = batch_first ? input.transpose(0, 1) : input;
  std::vector<at::Tensor> r = stackedRnn(x, at::Tensor(), {hx}, params, s, dropout, train, rnnLayers(s, gruLayerOf));
  return {batch_first ? r[0].transpose(0, 1) : r[0], r[1]};
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::gru(const at::Tensor& data, const at::Tensor& batch_sizes,
                                                           const at::Tensor& hx, at::TensorList params, bool has_biases,
                                                           int64_t num_layers, double dropout, bool train,
                                                           bool bidirectional) {
  const RnnStack s = rnnStackOf(has_biases, num_layers, bidirectional, kGruGates);
  if (!runsOnFusedRnn(data, 2, packedBatch(batch_sizes), {hx}, params, s))
    return at::native::gru(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional);
  const PackedLayout p = packedLayout(batch_sizes, data.size(0), data.device());
  std::vector<at::Tensor> r =
      stackedRnn(padPacked(data, p), p.lengths, {hx}, params, s, dropout, train, rnnLayers(s, gruLayerOf));
  return {packPadded(r[0], p), r[1]};
}

}  // namespace native
}  // namespace at_npu
