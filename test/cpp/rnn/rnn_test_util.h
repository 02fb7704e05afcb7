// What the fused-RNN suites share: module configurations and their inputs
// laid out as at::lstm / at::gru take them.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

namespace torch_npu_test {

struct RnnConfig {
  int64_t layers;
  bool bidirectional, batch_first, biases;
};

inline std::string describe(const RnnConfig& c) {
  return std::to_string(c.layers) + " layer(s)" + (c.bidirectional ? ", bidirectional" : "") +
         (c.batch_first ? ", batch_first" : "") + (c.biases ? "" : ", no biases");
}

// [w_ih, w_hh, (b_ih, b_hh)] per layer and direction, as nn.LSTM / nn.GRU flatten them.
inline std::vector<at::Tensor> rnnParams(const RnnConfig& c, int64_t gates, int64_t input_size, int64_t hidden) {
  std::vector<at::Tensor> params;
  const int64_t dirs = c.bidirectional ? 2 : 1;
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t in = l == 0 ? input_size : dirs * hidden;
      params.push_back(at::rand({gates * hidden, in}) - 0.5);
      params.push_back(at::rand({gates * hidden, hidden}) - 0.5);
      if (c.biases) {
        params.push_back(at::rand({gates * hidden}) - 0.5);
        params.push_back(at::rand({gates * hidden}) - 0.5);
      }
    }
  return params;
}

// {x, the `states` initial states [L * D, B, H], params...}.
inline std::vector<at::Tensor> rnnInputs(const RnnConfig& c, int64_t gates, int64_t states, int64_t steps,
                                         int64_t batch, int64_t input_size, int64_t hidden) {
  const int64_t rows = c.layers * (c.bidirectional ? 2 : 1);
  std::vector<at::Tensor> in = {c.batch_first ? at::randn({batch, steps, input_size})
                                              : at::randn({steps, batch, input_size})};
  for (int64_t k = 0; k < states; ++k) in.push_back(at::randn({rows, batch, hidden}) * 0.5);
  for (const at::Tensor& p : rnnParams(c, gates, input_size, hidden)) in.push_back(p);
  return in;
}

}  // namespace torch_npu_test
