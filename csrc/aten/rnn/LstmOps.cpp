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
// the autograd key, so autograd records it as it would the composite:
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

namespace at_npu {
namespace native {
namespace {

struct LstmShape {
  int64_t layers, directions, per_direction;  // params per layer direction: 4 with biases, else 2
};

// Whether one DynamicRNN per layer direction computes this lstm call on an
// input of `batch` rows and `features` features (Note [nn.LSTM on
// DynamicRNN]); false sends it to the decomposition.
bool runsOnDynamicRnn(const at::Tensor& input, int64_t input_rank, int64_t batch, at::TensorList hx,
                      at::TensorList params, const LstmShape& s) {
  const c10::ScalarType dt = input.scalar_type();
  if ((dt != at::kFloat && dt != at::kHalf) || input.dim() != input_rank || hx.size() != 2) return false;
  if (static_cast<int64_t>(params.size()) != s.layers * s.directions * s.per_direction) return false;
  const int64_t hidden = hx[0].size(-1);
  for (const at::Tensor& t : hx)
    if (t.scalar_type() != dt || t.device() != input.device() || t.dim() != 3 ||
        t.size(0) != s.layers * s.directions || t.size(1) != batch || t.size(2) != hidden)
      return false;
  for (size_t k = 0; k < params.size(); ++k) {
    const at::Tensor& p = params[k];
    if (p.scalar_type() != dt || p.device() != input.device() || p.size(0) != 4 * hidden) return false;
    const int64_t layer = static_cast<int64_t>(k) / (s.directions * s.per_direction);
    const int64_t in_features = layer == 0 ? input.size(-1) : s.directions * hidden;
    if (k % s.per_direction == 0 && (p.dim() != 2 || p.size(1) != in_features)) return false;  // w_ih [4H, I]
    if (k % s.per_direction == 1 && (p.dim() != 2 || p.size(1) != hidden)) return false;  // w_hh [4H, H]: no projection
  }
  return true;
}

// Every layer of an lstm call on x [T, B, I] (time major).
std::tuple<at::Tensor, at::Tensor, at::Tensor> lstmLayers(const at::Tensor& x, const at::Tensor& seq_len,
                                                          at::TensorList hx, at::TensorList params,
                                                          const LstmShape& s, double dropout, bool train) {
  at::Tensor layer_in = x;
  std::vector<at::Tensor> hs, cs;
  for (int64_t l = 0; l < s.layers; ++l) {
    std::vector<at::Tensor> outs;
    for (int64_t d = 0; d < s.directions; ++d) {
      const int64_t k = l * s.directions + d;
      const at::Tensor* p = params.data() + k * s.per_direction;
      const at::Tensor w = at::cat({p[0], p[1]}, 1).t();
      const at::Tensor b = s.per_direction == 4 ? p[2] + p[3] : at::zeros({p[0].size(0)}, p[0].options());
      auto [y, h, c] = lstmLayer(layer_in, w, b, hx[0].narrow(0, k, 1), hx[1].narrow(0, k, 1), seq_len, d == 1);
      outs.push_back(y);
      hs.push_back(h);
      cs.push_back(c);
    }
    layer_in = outs.size() == 1 ? outs[0] : at::cat(outs, 2);
    if (dropout > 0 && train && l + 1 < s.layers) layer_in = at::dropout(layer_in, dropout, train);
  }
  return {layer_in, at::cat(hs, 0), at::cat(cs, 0)};
}

// The gather indices between packed rows and a padded [T, B] batch, and each
// row's length (batch_sizes: the packed sequence's, a CPU int64 [T]).
struct PackedLayout {
  at::Tensor to_padded;  // [T * B] packed row of each padded position, N (a zero row) for the gaps
  at::Tensor to_packed;  // [N] padded position of each packed row
  at::Tensor lengths;    // int32 [B]
  int64_t steps, batch;
};

PackedLayout packedLayout(const at::Tensor& batch_sizes, int64_t rows, const at::Device& device) {
  TORCH_CHECK(batch_sizes.device().is_cpu() && batch_sizes.scalar_type() == at::kLong && batch_sizes.dim() == 1,
              "lstm: the batch_sizes of a packed sequence must be a 1-D CPU int64 tensor, got a ",
              batch_sizes.scalar_type(), " tensor of shape ", batch_sizes.sizes(), " on ", batch_sizes.device());
  const at::Tensor sizes = batch_sizes.contiguous();
  const int64_t* bs = sizes.data_ptr<int64_t>();
  PackedLayout p{at::Tensor(), at::Tensor(), at::Tensor(), sizes.size(0), sizes.size(0) ? bs[0] : 0};
  std::vector<int64_t> to_padded(static_cast<size_t>(p.steps * p.batch), rows), to_packed;
  std::vector<int32_t> lengths(static_cast<size_t>(p.batch), 0);
  int64_t row = 0;
  for (int64_t t = 0; t < p.steps; ++t) {
    TORCH_CHECK(bs[t] >= 0 && bs[t] <= p.batch && (t == 0 || bs[t] <= bs[t - 1]),
                "lstm: batch_sizes must not increase, got ", sizes);
    for (int64_t b = 0; b < bs[t]; ++b, ++row) {
      to_padded[t * p.batch + b] = row;
      to_packed.push_back(t * p.batch + b);
      lengths[b] = static_cast<int32_t>(t + 1);
    }
  }
  TORCH_CHECK(row == rows, "lstm: batch_sizes sum to ", row, " but the packed data has ", rows, " rows");
  const auto on = [&](auto& v, c10::ScalarType dt) {
    return at::tensor(at::ArrayRef<std::decay_t<decltype(v[0])>>(v), at::TensorOptions().dtype(dt)).to(device);
  };
  p.to_padded = on(to_padded, at::kLong);
  p.to_packed = on(to_packed, at::kLong);
  p.lengths = on(lengths, at::kInt);
  return p;
}

LstmShape shapeOf(bool has_biases, int64_t num_layers, bool bidirectional) {
  return {num_layers, bidirectional ? 2 : 1, has_biases ? 4 : 2};
}

// Whether lstm_cell's operands are what one DynamicRNN step takes.
bool cellRunsOnDynamicRnn(const at::Tensor& input, at::TensorList hx, const at::Tensor& w_ih, const at::Tensor& w_hh,
                          const c10::optional<at::Tensor>& b_ih, const c10::optional<at::Tensor>& b_hh) {
  const c10::ScalarType dt = input.scalar_type();
  if ((dt != at::kFloat && dt != at::kHalf) || input.dim() != 2 || hx.size() != 2) return false;
  const int64_t batch = input.size(0), hidden = w_hh.dim() == 2 ? w_hh.size(1) : -1;
  const auto fits = [&](const at::Tensor& t, at::IntArrayRef shape) {
    return t.scalar_type() == dt && t.device() == input.device() && t.sizes() == shape;
  };
  const bool biases = b_ih.has_value() && b_ih->defined();
  if (biases != (b_hh.has_value() && b_hh->defined())) return false;
  return fits(hx[0], {batch, hidden}) && fits(hx[1], {batch, hidden}) && fits(w_ih, {4 * hidden, input.size(1)}) &&
         fits(w_hh, {4 * hidden, hidden}) && (!biases || (fits(*b_ih, {4 * hidden}) && fits(*b_hh, {4 * hidden})));
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::lstm_cell(const at::Tensor& input, at::TensorList hx,
                                                                 const at::Tensor& w_ih, const at::Tensor& w_hh,
                                                                 const c10::optional<at::Tensor>& b_ih,
                                                                 const c10::optional<at::Tensor>& b_hh) {
  if (!cellRunsOnDynamicRnn(input, hx, w_ih, w_hh, b_ih, b_hh))
    return at::native::lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh);
  const at::Tensor w = at::cat({w_ih, w_hh}, 1).t();
  const at::Tensor b = b_ih.has_value() && b_ih->defined() ? *b_ih + *b_hh : at::zeros({w_ih.size(0)}, w_ih.options());
  auto [y, h, c] = lstmLayer(input.unsqueeze(0), w, b, hx[0].unsqueeze(0), hx[1].unsqueeze(0), at::Tensor(), false);
  return {h.squeeze(0), c.squeeze(0)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::lstm(const at::Tensor& input, at::TensorList hx,
                                                                        at::TensorList params, bool has_biases,
                                                                        int64_t num_layers, double dropout,
                                                                        bool train, bool bidirectional,
                                                                        bool batch_first) {
  const LstmShape s = shapeOf(has_biases, num_layers, bidirectional);
  const int64_t batch = input.dim() == 3 ? input.size(batch_first ? 0 : 1) : -1;
  if (!runsOnDynamicRnn(input, 3, batch, hx, params, s))
    return at::native::lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first);
  const at::Tensor x = batch_first ? input.transpose(0, 1) : input;
  auto [y, h, c] = lstmLayers(x, at::Tensor(), hx, params, s, dropout, train);
  return {batch_first ? y.transpose(0, 1) : y, h, c};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::lstm(const at::Tensor& data,
                                                                        const at::Tensor& batch_sizes,
                                                                        at::TensorList hx, at::TensorList params,
                                                                        bool has_biases, int64_t num_layers,
                                                                        double dropout, bool train,
                                                                        bool bidirectional) {
  const LstmShape s = shapeOf(has_biases, num_layers, bidirectional);
  const int64_t batch = batch_sizes.numel() > 0 && batch_sizes.is_cpu() ? batch_sizes[0].item<int64_t>() : -1;
  if (!runsOnDynamicRnn(data, 2, batch, hx, params, s))
    return at::native::lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional);
  const PackedLayout p = packedLayout(batch_sizes, data.size(0), data.device());
  const at::Tensor padded = at::constant_pad_nd(data, {0, 0, 0, 1})  // row N: zeros for the gaps
                                .index_select(0, p.to_padded)
                                .view({p.steps, p.batch, data.size(1)});
  auto [y, h, c] = lstmLayers(padded, p.lengths, hx, params, s, dropout, train);
  return {y.reshape({p.steps * p.batch, y.size(2)}).index_select(0, p.to_packed), h, c};
}

}  // namespace native
}  // namespace at_npu
