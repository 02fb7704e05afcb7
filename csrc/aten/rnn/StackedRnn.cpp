// The shared part of the fused nn.LSTM / nn.GRU (StackedRnn.h).
#include "StackedRnn.h"

namespace at_npu {
namespace native {

RnnStack rnnStackOf(bool has_biases, int64_t num_layers, bool bidirectional, int64_t gates) {
  return {num_layers, bidirectional ? 2 : 1, has_biases ? 4 : 2, gates};
}

bool runsOnFusedRnn(const at::Tensor& input, int64_t input_rank, int64_t batch, at::TensorList states,
                    at::TensorList params, const RnnStack& s) {
  const c10::ScalarType dt = input.scalar_type();
  if ((dt != at::kFloat && dt != at::kHalf) || input.dim() != input_rank || states.empty()) return false;
  if (static_cast<int64_t>(params.size()) != s.layers * s.directions * s.per_direction) return false;
  const int64_t hidden = states[0].size(-1);
  for (const at::Tensor& t : states)
    if (t.scalar_type() != dt || t.device() != input.device() || t.dim() != 3 || t.size(0) != s.layers * s.directions ||
        t.size(1) != batch || t.size(2) != hidden)
      return false;
  for (size_t k = 0; k < params.size(); ++k) {
    const at::Tensor& p = params[k];
    if (p.scalar_type() != dt || p.device() != input.device() || p.size(0) != s.gates * hidden) return false;
    const int64_t layer = static_cast<int64_t>(k) / (s.directions * s.per_direction);
    const int64_t in_features = layer == 0 ? input.size(-1) : s.directions * hidden;
    if (k % s.per_direction == 0 && (p.dim() != 2 || p.size(1) != in_features)) return false;  // w_ih [G*H, I]
    if (k % s.per_direction == 1 && (p.dim() != 2 || p.size(1) != hidden))
      return false;  // w_hh [G*H, H]: no projection
  }
  return true;
}

RnnLayerFn rnnLayers(const RnnStack& s, RnnLayerOf layer_of) {
  const bool biases = s.per_direction == 4;
  return [biases, layer_of](const at::Tensor& x, const at::Tensor* p, const std::vector<at::Tensor>& initial,
                            const at::Tensor& seq_len,
                            bool reverse) { return layer_of(x, p, biases, initial, seq_len, reverse); };
}

std::vector<at::Tensor> stackedRnn(const at::Tensor& x, const at::Tensor& seq_len, at::TensorList states,
                                   at::TensorList params, const RnnStack& s, double dropout, bool train,
                                   const RnnLayerFn& layer) {
  at::Tensor layer_in = x;
  std::vector<std::vector<at::Tensor>> finals(states.size());
  for (int64_t l = 0; l < s.layers; ++l) {
    std::vector<at::Tensor> outs;
    for (int64_t d = 0; d < s.directions; ++d) {
      const int64_t k = l * s.directions + d;
      std::vector<at::Tensor> initial;
      for (const at::Tensor& st : states) initial.push_back(st.narrow(0, k, 1));
      std::vector<at::Tensor> r = layer(layer_in, params.data() + k * s.per_direction, initial, seq_len, d == 1);
      outs.push_back(r[0]);
      for (size_t j = 0; j < states.size(); ++j) finals[j].push_back(r[j + 1]);
    }
    layer_in = outs.size() == 1 ? outs[0] : at::cat(outs, 2);
    if (dropout > 0 && train && l + 1 < s.layers) layer_in = at::dropout(layer_in, dropout, train);
  }
  std::vector<at::Tensor> result = {layer_in};
  for (const std::vector<at::Tensor>& f : finals) result.push_back(at::cat(f, 0));
  return result;
}

int64_t packedBatch(const at::Tensor& batch_sizes) {
  return batch_sizes.numel() > 0 && batch_sizes.is_cpu() ? batch_sizes[0].item<int64_t>() : -1;
}

PackedLayout packedLayout(const at::Tensor& batch_sizes, int64_t rows, const at::Device& device) {
  TORCH_CHECK(batch_sizes.device().is_cpu() && batch_sizes.scalar_type() == at::kLong && batch_sizes.dim() == 1,
              "rnn: the batch_sizes of a packed sequence must be a 1-D CPU int64 tensor, got a ",
              batch_sizes.scalar_type(), " tensor of shape ", batch_sizes.sizes(), " on ", batch_sizes.device());
  const at::Tensor sizes = batch_sizes.contiguous();
  const int64_t* bs = sizes.data_ptr<int64_t>();
  PackedLayout p{at::Tensor(), at::Tensor(), at::Tensor(), sizes.size(0), sizes.size(0) ? bs[0] : 0};
  std::vector<int64_t> to_padded(static_cast<size_t>(p.steps * p.batch), rows), to_packed;
  std::vector<int32_t> lengths(static_cast<size_t>(p.batch), 0);
  int64_t row = 0;
  for (int64_t t = 0; t < p.steps; ++t) {
    TORCH_CHECK(bs[t] >= 0 && bs[t] <= p.batch && (t == 0 || bs[t] <= bs[t - 1]),
                "rnn: batch_sizes must not increase, got ", sizes);
    for (int64_t b = 0; b < bs[t]; ++b, ++row) {
      to_padded[t * p.batch + b] = row;
      to_packed.push_back(t * p.batch + b);
      lengths[b] = static_cast<int32_t>(t + 1);
    }
  }
  TORCH_CHECK(row == rows, "rnn: batch_sizes sum to ", row, " but the packed data has ", rows, " rows");
  const auto on = [&](auto& v, c10::ScalarType dt) {
    return at::tensor(at::ArrayRef<std::decay_t<decltype(v[0])>>(v), at::TensorOptions().dtype(dt)).to(device);
  };
  p.to_padded = on(to_padded, at::kLong);
  p.to_packed = on(to_packed, at::kLong);
  p.lengths = on(lengths, at::kInt);
  return p;
}

at::Tensor padPacked(const at::Tensor& data, const PackedLayout& p) {
  return at::constant_pad_nd(data, {0, 0, 0, 1})  // row N: zeros for the gaps
      .index_select(0, p.to_padded)
      .view({p.steps, p.batch, data.size(1)});
}

at::Tensor packPadded(const at::Tensor& y, const PackedLayout& p) {
  return y.reshape({p.steps * p.batch, y.size(2)}).index_select(0, p.to_packed);
}

}  // namespace native
}  // namespace at_npu
