// aten::lstm on the NPU (csrc/aten/rnn/LstmOps.cpp): one DynamicRNN launch per
// layer and direction forward, one DynamicRNNGrad backward, against
// PyTorch's own CPU LSTM (forward and every gradient).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "npu_test_util.h"
#include "rnn/rnn_test_util.h"

namespace torch_npu_test {
namespace {

using LstmConfig = RnnConfig;

// output, h_n and c_n of at::lstm as one tensor (so one backward covers all three).
at::Tensor flatLstm(const std::vector<at::Tensor>& in, const LstmConfig& c, bool train = false) {
  const std::vector<at::Tensor> params(in.begin() + 3, in.end());
  auto [y, h, c_n] =
      at::lstm(in[0], {in[1], in[2]}, params, c.biases, c.layers, 0.0, train, c.bidirectional, c.batch_first);
  return at::cat({y.flatten(), h.flatten(), c_n.flatten()});
}

std::vector<at::Tensor> lstmInputs(const LstmConfig& c, int64_t steps, int64_t batch, int64_t input_size,
                                   int64_t hidden) {
  return rnnInputs(c, 4, 2, steps, batch, input_size, hidden);
}

TEST(LstmOps, MatchesTheCpuForwardAndBackward) {
  at::manual_seed(0);
  for (const LstmConfig& c : {LstmConfig{1, false, false, true}, LstmConfig{2, true, false, true},
                              LstmConfig{2, false, true, false}, LstmConfig{3, true, true, true}}) {
    SCOPED_TRACE(describe(c));
    expectSameAutograd([&](const std::vector<at::Tensor>& in) { return flatLstm(in, c); }, lstmInputs(c, 6, 3, 5, 7),
                       1e-4, 1e-5);
  }
}

TEST(LstmOps, IsOneDynamicRnnPerLayerAndDirectionEachWay) {
  at::manual_seed(1);
  const LstmConfig c{2, true, false, true};
  std::vector<at::Tensor> in;
  for (const at::Tensor& t : lstmInputs(c, 10, 4, 8, 16)) in.push_back(t.to(npu()).requires_grad_());
  OpRecorder rec;
  at::Tensor out = flatLstm(in, c);
  EXPECT_EQ(rec.count("DynamicRNN"), 4) << rec.summary();
  EXPECT_EQ(rec.count("MatMul") + rec.count("BatchMatMul") + rec.count("Sigmoid"), 0) << rec.summary();
  out.sum().backward();
  EXPECT_EQ(rec.count("DynamicRNNGrad"), 4) << rec.summary();
}

TEST(LstmOps, HalfPrecisionTracksTheFloatCpu) {
  at::manual_seed(2);
  const LstmConfig c{2, true, false, true};
  std::vector<at::Tensor> in = lstmInputs(c, 5, 3, 6, 8);
  std::vector<at::Tensor> half;
  for (const at::Tensor& t : in) half.push_back(t.to(at::kHalf).to(npu()));
  const at::Tensor got = flatLstm(half, c), want = flatLstm(in, c);
  expectClose(got.to(at::kFloat), want, 1e-2, 1e-2);
}

TEST(LstmOps, PackedSequencesMatchTheCpu) {
  at::manual_seed(3);
  const int64_t input_size = 4, hidden = 6;
  for (bool bidirectional : {false, true}) {
    SCOPED_TRACE(bidirectional ? "bidirectional" : "one direction");
    const LstmConfig c{2, bidirectional, false, true};
    const at::Tensor batch_sizes = at::tensor(std::vector<int64_t>{3, 3, 2, 1, 1});  // lengths 5, 4, 2
    std::vector<at::Tensor> in = lstmInputs(c, 1, 3, input_size, hidden);
    in[0] = at::randn({10, input_size});  // the packed rows
    expectSameAutograd(
        [&](const std::vector<at::Tensor>& v) {
          const std::vector<at::Tensor> params(v.begin() + 3, v.end());
          auto [y, h, cn] = at::lstm(v[0], batch_sizes, {v[1], v[2]}, params, true, 2, 0.0, false, bidirectional);
          return at::cat({y.flatten(), h.flatten(), cn.flatten()});
        },
        in, 1e-4, 1e-5);
  }
}

TEST(LstmOps, WhatDynamicRnnDoesNotTakeRunsTheDecomposition) {
  at::manual_seed(4);
  // An LSTM with projections (proj_size 3): w_hh is [4H, 3], h is 3 wide.
  const int64_t hidden = 5, proj = 3;
  std::vector<at::Tensor> in = {at::randn({4, 2, 6}),       at::randn({1, 2, proj}),       at::randn({1, 2, hidden}),
                                at::randn({4 * hidden, 6}), at::randn({4 * hidden, proj}), at::randn({4 * hidden}),
                                at::randn({4 * hidden}),    at::randn({proj, hidden})};
  OpRecorder rec;
  expectSameAutograd(
      [&](const std::vector<at::Tensor>& v) {
        auto [y, h, c] =
            at::lstm(v[0], {v[1], v[2]}, {v[3], v[4], v[5], v[6], v[7]}, true, 1, 0.0, false, false, false);
        return at::cat({y.flatten(), h.flatten(), c.flatten()});
      },
      in, 1e-4, 1e-5);
  EXPECT_EQ(rec.count("DynamicRNN"), 0) << rec.summary();
}

TEST(LstmOps, LstmCellIsOneDynamicRnnStep) {
  at::manual_seed(5);
  const int64_t batch = 3, input_size = 5, hidden = 4;
  for (bool biases : {true, false}) {
    SCOPED_TRACE(biases ? "with biases" : "no biases");
    std::vector<at::Tensor> in = {at::randn({batch, input_size}), at::randn({batch, hidden}),
                                  at::randn({batch, hidden}), at::randn({4 * hidden, input_size}) * 0.5,
                                  at::randn({4 * hidden, hidden}) * 0.5};
    if (biases) in.insert(in.end(), {at::randn({4 * hidden}), at::randn({4 * hidden})});
    const auto cell = [&](const std::vector<at::Tensor>& v) {
      c10::optional<at::Tensor> b_ih, b_hh;
      if (biases) b_ih = v[5], b_hh = v[6];
      auto [h, c] = at::lstm_cell(v[0], {v[1], v[2]}, v[3], v[4], b_ih, b_hh);
      return at::cat({h.flatten(), c.flatten()});
    };
    expectSameAutograd(cell, in, 1e-4, 1e-5);
    std::vector<at::Tensor> dev;
    for (const at::Tensor& t : in) dev.push_back(t.to(npu()));
    OpRecorder rec;
    cell(dev);
    EXPECT_EQ(rec.count("DynamicRNN"), 1) << rec.summary();
  }
}

TEST(LstmOps, EmptyBatchAndPyTorchsOwnShapeErrors) {
  const LstmConfig c{1, false, false, true};
  std::vector<at::Tensor> in = lstmInputs(c, 3, 0, 4, 5);
  std::vector<at::Tensor> dev;
  for (const at::Tensor& t : in) dev.push_back(t.to(npu()));
  expectClose(flatLstm(dev, c), flatLstm(in, c));
  // hx of the wrong batch: PyTorch's own error, from the decomposition.
  std::vector<at::Tensor> bad = lstmInputs(c, 3, 2, 4, 5);
  bad[1] = at::randn({1, 3, 5});
  for (at::Tensor& t : bad) t = t.to(npu());
  EXPECT_THROW(flatLstm(bad, c), c10::Error);
}

}  // namespace
}  // namespace torch_npu_test
