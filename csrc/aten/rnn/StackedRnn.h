// What nn.LSTM and nn.GRU on the fused kernels share (LstmOps.cpp, GruOps.cpp):
// when a call can take them, the loop over layers and directions, and packed
// sequences (Note [nn.LSTM on DynamicRNN]).
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <vector>

namespace at_npu {
namespace native {

struct RnnStack {
  int64_t layers, directions, per_direction;  // params per layer direction: 4 with biases, else 2
  int64_t gates;                              // 4 (LSTM), 3 (GRU)
};

RnnStack rnnStackOf(bool has_biases, int64_t num_layers, bool bidirectional, int64_t gates);

// Whether one fused kernel per layer direction computes an rnn call on
// `input` (rank `input_rank`, `batch` rows) with initial `states` (each
// [L * D, B, H]) and `params` (torch's flat list: w_ih [G*H, I], w_hh [G*H, H]
// [, b_ih, b_hh]); false sends it to PyTorch's decomposition.
bool runsOnFusedRnn(const at::Tensor& input, int64_t input_rank, int64_t batch, at::TensorList states,
                    at::TensorList params, const RnnStack& s);

// One layer direction: {y [T, B, H], each final state [1, B, H]} from its
// input x [T, B, I], its params (s.per_direction of them), its initial states
// ([1, B, H] each) and the rows' lengths (undefined: all T).
using RnnLayerFn = std::function<std::vector<at::Tensor>(const at::Tensor& x, const at::Tensor* params,
                                                         const std::vector<at::Tensor>& initial,
                                                         const at::Tensor& seq_len, bool reverse)>;

// A cell's layer direction with its biases flag (true: s.per_direction == 4).
using RnnLayerOf = std::vector<at::Tensor> (*)(const at::Tensor& x, const at::Tensor* params, bool biases,
                                               const std::vector<at::Tensor>& initial, const at::Tensor& seq_len,
                                               bool reverse);
// `layer_of` bound to whether the stack `s` has biases.
RnnLayerFn rnnLayers(const RnnStack& s, RnnLayerOf layer_of);

// Every layer of an rnn call on x [T, B, I]: {output [T, B, D*H], each state
// stacked [L * D, B, H]}; dropout between layers in training, directions
// concatenated on the last dim.
std::vector<at::Tensor> stackedRnn(const at::Tensor& x, const at::Tensor& seq_len, at::TensorList states,
                                   at::TensorList params, const RnnStack& s, double dropout, bool train,
                                   const RnnLayerFn& layer);

// A packed sequence as a padded batch: the gather indices both ways and each
// row's length (batch_sizes: the packed sequence's, a CPU int64 [T]).
struct PackedLayout {
  at::Tensor to_padded;  // [T * B] packed row of each padded position, N (a zero row) for the gaps
  at::Tensor to_packed;  // [N] padded position of each packed row
  at::Tensor lengths;    // int32 [B], on the device
  int64_t steps, batch;
};

// B of a packed sequence (batch_sizes[0]), or -1 when batch_sizes is not a
// non-empty CPU tensor (the decomposition then reports it).
int64_t packedBatch(const at::Tensor& batch_sizes);
PackedLayout packedLayout(const at::Tensor& batch_sizes, int64_t rows, const at::Device& device);
// data [N, I] -> [T, B, I] with zeros in the gaps; y [T, B, F] -> [N, F].
at::Tensor padPacked(const at::Tensor& data, const PackedLayout& p);
at::Tensor packPadded(const at::Tensor& y, const PackedLayout& p);

}  // namespace native
}  // namespace at_npu
