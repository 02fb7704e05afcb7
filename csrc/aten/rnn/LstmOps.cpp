// nn.LSTM and nn.LSTMCell on the NPU: aten::lstm (both overloads) and aten::lstm_cell, registered on
// AutogradPrivateUse1 (yaml "autograd:"), as one DynamicRNN launch per layer
// and direction instead of PyTorch's per-step decomposition.
//
// Note [nn.LSTM on DynamicRNN]
// PyTorch 1.13's lstm is a composite: for T steps it runs a matmul, an add,
// the chunked activations and the cell update per step and layer (the
// forward of a 2-layer bidirectional LSTM over 10 steps: 972 launches). As
// torch_npu does, each layer direction here is one DynamicRNN (DynamicRnn.h)
// on w = cat([w_ih, w_hh], 1).t() and b = b_ih + b_hh (torch's gate order),
// its backward one DynamicRNNGrad; the rest is composed of ordinary ops above
// the autograd key, so autograd records it as it would the composite
// (StackedRnn.h, shared with nn.GRU on DynamicGRUV2, GruOps.cpp):
//   - bidirectional: the reverse direction is DynamicRNN's REDIRECTIONAL on
//     the same input, the directions' outputs concatenated on the last dim;
//   - dropout between layers (training only, not after the last): at::dropout;
//   - batch_first: a transposed view in and out;
//   - packed sequences (lstm.data): the packed rows are gathered into a
//     padded [T, B, I] batch (a zero row for the gaps), DynamicRNN gets the
//     rows' lengths as seq_length, and the padded output is gathered back
//     into packed rows. A row's final state is the one after its own last
//     step in both directions (Note [Sequence lengths of DynamicRNN]);
//   - lstm_cell (nn.LSTMCell): one step, a DynamicRNN with T = 1.
// The decomposition still runs (on the NPU, as before) for what DynamicRNN
// does not take: LSTMs with projections (proj_size), dtypes other than
// float32 / float16, tensors of mixed dtypes or devices, and inputs whose
// shapes PyTorch's own checks reject (so its error messages stay).
#include <ATen/ops/lstm_cell_native.h>
#include <ATen/ops/lstm_native.h>

#include "DynamicRnn.h"
#include "PrivateUse1NativeFunctions.h"
#include "StackedRnn.h"

namespace at_npu {
namespace native {
namespace {

constexpr int64_t kLstmGates = 4;

// One layer direction on DynamicRNN: params w_ih, w_hh[, b_ih, b_hh]; initial {h0, c0}.
std::vector<at::Tensor> lstmLayerOf(const at::Tensor& x, const at::Tensor* p, bool biases,
                                    const std::vector<at::Tensor>& initial, const at::Tensor& seq_len, bool reverse) {
  const at::Tensor w = at::cat({p[0], p[1]}, 1).t();
  const at::Tensor b = biases ? p[2] + p[3] : at::zeros({p[0].size(0)}, p[0].options());
  auto [y, h, c] = lstmLayer(x, w, b, initial[0], initial[1], seq_len, reverse);
  return {y, h, c};
}

// Whether lstm_cell's operands are what one DynamicRNN step takes.
bool cellRunsOnDynamicRnn(const at::Tensor& input, at::TensorList hx, const at::Tensor& w_ih, const at::Tensor& w_hh,
                          const c10::optional<at::Tensor>& b_ih, const c10::optional<at::Tensor>& b_hh) {
  const bool biases = b_ih.has_value() && b_ih->defined();
  if (hx.size() != 2 || input.dim() != 2 || biases != (b_hh.has_value() && b_hh->defined())) return false;
  std::vector<at::Tensor> params = {w_ih, w_hh};
  if (biases) params.insert(params.end(), {*b_ih, *b_hh});
  const RnnStack s = rnnStackOf(biases, 1, false, kLstmGates);
  return runsOnFusedRnn(input.unsqueeze(0), 3, input.size(0), {hx[0].unsqueeze(0), hx[1].unsqueeze(0)}, params, s);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::lstm_cell(const at::Tensor& input, at::TensorList hx,
                                                                 const at::Tensor& w_ih, const at::Tensor& w_hh,
                                                                 const c10::optional<at::Tensor>& b_ih,
                                                                 const c10::optional<at::Tensor>& b_hh) {
  if (!cellRunsOnDynamicRnn(input, hx, w_ih, w_hh, b_ih, b_hh))
    return at::native::lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh);
  const bool biases = b_ih.has_value() && b_ih->defined();
  const at::Tensor params[] = {w_ih, w_hh, biases ? *b_ih : at::Tensor(), biases ? *b_hh : at::Tensor()};
  const std::vector<at::Tensor> r =
      lstmLayerOf(input.unsqueeze(0), params, biases, {hx[0].unsqueeze(0), hx[1].unsqueeze(0)}, at::Tensor(), false);
  return {r[1].squeeze(0), r[2].squeeze(0)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::lstm(const at::Tensor& input, at::TensorList hx,
                                                                        at::TensorList params, bool has_biases,
                                                                        int64_t num_layers, double dropout, bool train,
                                                                        bool bidirectional, bool batch_first) {
  const RnnStack s = rnnStackOf(has_biases, num_layers, bidirectional, kLstmGates);
  const int64_t batch = input.dim() == 3 ? input.size(batch_first ? 0 : 1) : -1;
  if (hx.size() != 2 || !runsOnFusedRnn(input, 3, batch, hx, params, s))
    return at::native::lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first);
  const at::Tensor x = batch_first ? input.transpose(0, 1) : input;
  std::vector<at::Tensor> r = stackedRnn(x, at::Tensor(), hx, params, s, dropout, train, rnnLayers(s, lstmLayerOf));
  return {batch_first ? r[0].transpose(0, 1) : r[0], r[1], r[2]};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::lstm(
    const at::Tensor& data, const at::Tensor& batch_sizes, at::TensorList hx, at::TensorList params, bool has_biases,
    int64_t num_layers, double dropout, bool train, bool bidirectional) {
  const RnnStack s = rnnStackOf(has_biases, num_layers, bidirectional, kLstmGates);
  if (hx.size() != 2 || !runsOnFusedRnn(data, 2, packedBatch(batch_sizes), hx, params, s))
    return at::native::lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional);
  const PackedLayout p = packedLayout(batch_sizes, data.size(0), data.device());
  std::vector<at::Tensor> r =
      stackedRnn(padPacked(data, p), p.lengths, hx, params, s, dropout, train, rnnLayers(s, lstmLayerOf));
  return {packPadded(r[0], p), r[1], r[2]};
}

}  // namespace native
}  // namespace at_npu
