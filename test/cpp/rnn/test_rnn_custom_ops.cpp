// torch_npu's npu_lstm / npu_gru (+ _backward), csrc/aten/rnn/RnnCustomOps.cpp:
// one DynamicRNN / DynamicGRUV2 each way, against a CPU reference unrolled
// from PyTorch's own lstm_cell / gru_cell (so every step's h and c exists),
// forward and backward through every output.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "npu_test_util.h"

namespace torch_npu_test {
namespace {

using Lstm8Outputs =
    std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>;
using Lstm8 = Lstm8Outputs(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                           const at::Tensor&, const at::Tensor&, bool, int64_t, double, bool, bool, bool, bool, bool);
using Gru6 = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, bool, int64_t, double, bool, bool, bool);

template <class Signature>
c10::TypedOperatorHandle<Signature> customOp(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

// Every step's (h, c) of one LSTM layer direction, from lstm_cell (torch's gate order).
std::pair<at::Tensor, at::Tensor> unrolledLstm(const at::Tensor& x, const at::Tensor& w_ih, const at::Tensor& w_hh,
                                               const at::Tensor& b, at::Tensor h, at::Tensor c, bool reverse) {
  std::vector<at::Tensor> hs(x.size(0)), cs(x.size(0));
  for (int64_t s = 0; s < x.size(0); ++s) {
    const int64_t t = reverse ? x.size(0) - 1 - s : s;
    std::tie(h, c) = at::lstm_cell(x[t], {h, c}, w_ih, w_hh, b, at::zeros_like(b));
    hs[t] = h, cs[t] = c;
  }
  return {at::stack(hs), at::stack(cs)};
}

TEST(RnnCustomOps, NpuLstmIsTheLstmOverEveryStepAndDifferentiableThroughEachOutput) {
  at::manual_seed(20);
  const int64_t T = 5, B = 3, I = 4, H = 6;
  const auto npu_lstm = customOp<Lstm8>("npu::npu_lstm");
  for (bool direction : {false, true}) {
    SCOPED_TRACE(direction ? "direction=True (REDIRECTIONAL)" : "direction=False");
    const at::Tensor x = at::randn({T, B, I}), w_ih = at::randn({4 * H, I}) * 0.4, w_hh = at::randn({4 * H, H}) * 0.4,
                     b = at::randn({4 * H}) * 0.3, h0 = at::randn({1, B, H}), c0 = at::randn({1, B, H});
    const at::Tensor gy = at::randn({T, B, H}), gh = at::randn({T, B, H}), gc = at::randn({T, B, H});
    // CPU: the unrolled cells, the loss through y (= h), every h and every c.
    std::vector<at::Tensor> cpu = {x, w_ih, w_hh, b, h0, c0};
    for (at::Tensor& t : cpu) t = t.clone().requires_grad_();
    auto [hs, cs] = unrolledLstm(cpu[0], cpu[1], cpu[2], cpu[3], cpu[4][0], cpu[5][0], direction);
    ((hs * gy).sum() + (hs * gh).sum() + (cs * gc).sum()).backward();
    // NPU: one npu_lstm on w = cat([w_ih, w_hh], 1).t().
    const at::Tensor w = at::cat({w_ih, w_hh}, 1).t().contiguous();
    std::vector<at::Tensor> dev = {x.to(npu()), w.to(npu()), b.to(npu()), h0.to(npu()), c0.to(npu())};
    for (at::Tensor& t : dev) t.requires_grad_();
    OpRecorder rec;
    auto [y, h, c, i, j, f, o, tanhc] = npu_lstm.call(dev[0], dev[1], dev[2], at::Tensor(), dev[3], dev[4], true, 1,
                                                      0.0, true, false, false, false, direction);
    EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"DynamicRNN"});
    expectClose(y, hs.detach());
    expectClose(h, hs.detach());
    expectClose(c, cs.detach());
    expectClose(tanhc, at::tanh(cs.detach()));
    EXPECT_FALSE(i.requires_grad());
    ((y * gy.to(npu())).sum() + (h * gh.to(npu())).sum() + (c * gc.to(npu())).sum()).backward();
    EXPECT_EQ(rec.count("DynamicRNNGrad"), 1) << rec.summary();
    expectClose(dev[0].grad(), cpu[0].grad());
    expectClose(dev[1].grad(), at::cat({cpu[1].grad(), cpu[2].grad()}, 1).t());
    expectClose(dev[2].grad(), cpu[3].grad());
    expectClose(dev[3].grad(), cpu[4].grad());
    expectClose(dev[4].grad(), cpu[5].grad());
    if (direction) continue;
    // npu_lstm_backward called directly: the same gradients (UNIDIRECTIONAL).
    const auto backward = customOp<std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>(
        const c10::optional<at::Tensor>&, const c10::optional<at::Tensor>&, const c10::optional<at::Tensor>&,
        const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
        const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
        const at::Tensor&, const at::Tensor&, const at::Tensor&)>("npu::npu_lstm_backward");
    auto [dx, dw, db, dh, dc] =
        backward.call(gy.to(npu()), gh.to(npu()), gc.to(npu()), dev[0].detach(), dev[1].detach(), dev[2].detach(),
                      dev[3].detach(), dev[4].detach(), y.detach(), h.detach(), c.detach(), i, j, f, o, tanhc);
    expectClose(dx, cpu[0].grad());
    expectClose(db, cpu[3].grad());
    expectClose(dc, cpu[5].grad());
  }
}

// npu_lstm_data: npu_lstm with the row lengths of a PackedSequence's batch_sizes, against PyTorch's own
// packed LSTM (at::lstm on data + batch_sizes) on the CPU, forward and backward.
TEST(RnnCustomOps, NpuLstmDataRunsEachRowForItsPackedLength) {
  at::manual_seed(22);
  const int64_t T = 5, B = 3, I = 4, H = 6;
  const at::Tensor lengths = at::tensor(std::vector<int64_t>{5, 3, 2});
  const auto npu_lstm_data = customOp<Lstm8Outputs(
      const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
      const at::Tensor&, bool, int64_t, double, bool, bool, bool, bool, bool)>("npu::npu_lstm_data");
  const at::Tensor x = at::randn({T, B, I}), w_ih = at::randn({4 * H, I}) * 0.4, w_hh = at::randn({4 * H, H}) * 0.4,
                   b = at::randn({4 * H}) * 0.3, h0 = at::randn({1, B, H}), c0 = at::randn({1, B, H});
  // CPU: PyTorch's packed LSTM.
  at::Tensor xc = x.clone().requires_grad_();
  auto [data, batch_sizes] = at::_pack_padded_sequence(xc, lengths, false);
  auto [out, hn, cn] =
      at::lstm(data, batch_sizes, {h0, c0}, {w_ih, w_hh, b, at::zeros_like(b)}, true, 1, 0.0, false, false);
  const at::Tensor g = at::randn(out.sizes());
  (out * g).sum().backward();
  // NPU: one DynamicRNN with the lengths batch_sizes gives.
  const at::Tensor w = at::cat({w_ih, w_hh}, 1).t().contiguous();
  const at::Tensor xn = x.to(npu()).requires_grad_();
  OpRecorder rec;
  auto [y, h, c, i, j, f, o, tanhc] =
      npu_lstm_data.call(xn, batch_sizes, w.to(npu()), b.to(npu()), at::Tensor(), h0.to(npu()), c0.to(npu()), true, 1,
                         0.0, true, false, false, true, false);
  EXPECT_EQ(rec.count("DynamicRNN"), 1) << rec.summary();
  const at::Tensor y_packed = std::get<0>(at::_pack_padded_sequence(y.cpu(), lengths, false));
  expectClose(y_packed, out.detach());
  expectClose(h.cpu()[T - 1], hn[0]);  // each row's state is carried past its end
  expectClose(c.cpu()[T - 1], cn[0]);
  const at::Tensor g_padded = std::get<0>(at::_pad_packed_sequence(g, batch_sizes, false, 0.0, T));
  (y * g_padded.to(npu())).sum().backward();
  expectClose(xn.grad(), xc.grad());
  // torch_npu's packed LSTM passes its network's num_layers and bidirectional: one layer direction runs all the same.
  auto again = npu_lstm_data.call(xn.detach(), batch_sizes, w.to(npu()), b.to(npu()), at::Tensor(), h0.to(npu()),
                                  c0.to(npu()), true, 2, 0.0, true, true, false, true, false);
  EXPECT_TRUE(at::equal(std::get<0>(again).cpu(), y.detach().cpu()));
  const at::Tensor increasing = at::tensor(std::vector<int64_t>{1, 2, 2, 3, 3});
  EXPECT_THROW_WITH(npu_lstm_data.call(xn, increasing, w.to(npu()), b.to(npu()), at::Tensor(), h0.to(npu()),
                                       c0.to(npu()), true, 1, 0.0, true, false, false, true, false),
                    "npu_lstm_data: batch_sizes must be non-increasing counts in [0, B = 3]");
}

// npu_lstm_cell: one DynamicRNN step on nn.LSTMCell's weights, against PyTorch's lstm_cell on the CPU.
TEST(RnnCustomOps, NpuLstmCellIsOneStepOfTheCellAndDifferentiable) {
  at::manual_seed(21);
  const int64_t B = 3, I = 5, H = 4;
  const auto npu_lstm_cell =
      customOp<Lstm8Outputs(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                            const at::Tensor&, const c10::optional<at::Tensor>&)>("npu::npu_lstm_cell");
  for (bool with_bias : {true, false}) {
    SCOPED_TRACE(with_bias ? "bias" : "no bias");
    const at::Tensor x = at::randn({B, I}), w_ih = at::randn({4 * H, I}) * 0.4, w_hh = at::randn({4 * H, H}) * 0.4,
                     b = with_bias ? at::randn({4 * H}) * 0.3 : at::zeros({4 * H}), h0 = at::randn({B, H}),
                     c0 = at::randn({B, H}), gh = at::randn({B, H}), gc = at::randn({B, H});
    std::vector<at::Tensor> cpu = {x, w_ih, w_hh, b, h0, c0};
    for (at::Tensor& t : cpu) t = t.clone().requires_grad_();
    auto [h1, c1] = at::lstm_cell(cpu[0], {cpu[4], cpu[5]}, cpu[1], cpu[2], cpu[3], at::zeros_like(b));
    ((h1 * gh).sum() + (c1 * gc).sum()).backward();
    std::vector<at::Tensor> dev;
    for (const at::Tensor& t : cpu) dev.push_back(t.detach().to(npu()).requires_grad_());
    OpRecorder rec;
    auto [y, h, c, i, j, f, o, tanhc] = npu_lstm_cell.call(
        dev[0], dev[1], dev[2], dev[4], dev[5], with_bias ? c10::optional<at::Tensor>(dev[3]) : c10::nullopt);
    EXPECT_EQ(rec.count("DynamicRNN"), 1) << rec.summary();
    EXPECT_EQ(h.sizes(), at::IntArrayRef({1, B, H}));
    expectClose(y[0], h1.detach());
    expectClose(h[0], h1.detach());
    expectClose(c[0], c1.detach());
    const auto gates = (x.matmul(w_ih.t()) + h0.matmul(w_hh.t()) + b).chunk(4, 1);  // torch's i, f, g, o
    expectClose(i[0], at::sigmoid(gates[0]));
    expectClose(j[0], at::tanh(gates[2]));
    expectClose(f[0], at::sigmoid(gates[1]));
    expectClose(o[0], at::sigmoid(gates[3]));
    expectClose(tanhc[0], at::tanh(c1.detach()));
    ((h[0] * gh.to(npu())).sum() + (c[0] * gc.to(npu())).sum()).backward();
    EXPECT_EQ(rec.count("DynamicRNNGrad"), 1) << rec.summary();
    for (size_t k = 0; k < cpu.size(); ++k) {
      if (k == 3 && !with_bias) continue;
      SCOPED_TRACE(k);
      expectClose(dev[k].grad(), cpu[k].grad());
    }
    // npu_lstm_cell_backward called directly: the same six gradients.
    const auto backward = customOp<std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>(
        const c10::optional<at::Tensor>&, const c10::optional<at::Tensor>&, const c10::optional<at::Tensor>&,
        const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
        const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
        const at::Tensor&, const at::Tensor&, const at::Tensor&)>("npu::npu_lstm_cell_backward");
    auto [dx, dw_ih, dw_hh, db, dh, dc] = backward.call(
        c10::nullopt, gh.to(npu()).unsqueeze(0), gc.to(npu()).unsqueeze(0), dev[0].detach(), dev[1].detach(),
        dev[2].detach(), dev[4].detach(), dev[5].detach(), y.detach(), h.detach(), c.detach(), i, j, f, o, tanhc);
    expectClose(dx, cpu[0].grad());
    expectClose(dw_ih, cpu[1].grad());
    expectClose(dw_hh, cpu[2].grad());
    expectClose(db, cpu[3].grad());
    expectClose(dh, cpu[4].grad());
    expectClose(dc, cpu[5].grad());
  }
  const at::Tensor x = at::randn({2, 5}).to(npu()), w = at::randn({12, 5}).to(npu()), s = at::randn({2, 3}).to(npu());
  EXPECT_THROW_WITH(npu_lstm_cell.call(x, w, at::randn({12, 4}).to(npu()), s, s, c10::nullopt),
                    "w_ih must be [4H, I] = [4H, 5] and w_hh [4H, H]");
  EXPECT_THROW_WITH(npu_lstm_cell.call(x, w, at::randn({12, 3}).to(npu()), s, s, at::randn({5}).to(npu())),
                    "bias must be [4H] = [12]");
}

TEST(RnnCustomOps, NpuGruIsTheGruOverEveryStepAndDifferentiable) {
  at::manual_seed(21);
  const int64_t T = 5, B = 3, I = 4, H = 6;
  const at::Tensor x = at::randn({T, B, I}), w_ih = at::randn({3 * H, I}) * 0.4, w_hh = at::randn({3 * H, H}) * 0.4,
                   b_ih = at::randn({3 * H}) * 0.3, b_hh = at::randn({3 * H}) * 0.3, h0 = at::randn({1, B, H});
  const at::Tensor gy = at::randn({T, B, H}), gh = at::randn({T, B, H});
  std::vector<at::Tensor> cpu = {x, w_ih, w_hh, b_ih, b_hh, h0};
  for (at::Tensor& t : cpu) t = t.clone().requires_grad_();
  std::vector<at::Tensor> steps;
  at::Tensor state = cpu[5][0];
  for (int64_t t = 0; t < T; ++t)
    steps.push_back(state = at::gru_cell(cpu[0][t], state, cpu[1], cpu[2], cpu[3], cpu[4]));
  const at::Tensor hs = at::stack(steps);
  ((hs * gy).sum() + (hs * gh).sum()).backward();
  std::vector<at::Tensor> dev = {
      x.to(npu()),    h0.to(npu()),  w_ih.t().contiguous().to(npu()), w_hh.t().contiguous().to(npu()),
      b_ih.to(npu()), b_hh.to(npu())};
  for (at::Tensor& t : dev) t.requires_grad_();
  OpRecorder rec;
  auto [y, h, update, reset, new_gate, hidden_new] =
      customOp<Gru6>("npu::npu_gru")
          .call(dev[0], dev[1], dev[2], dev[3], dev[4], dev[5], at::Tensor(), true, 1, 0.0, true, false, false);
  EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"DynamicGRUV2"});
  expectClose(y, hs.detach());
  expectClose(h, hs.detach());
  ((y * gy.to(npu())).sum() + (h * gh.to(npu())).sum()).backward();
  EXPECT_EQ(rec.count("DynamicGRUV2Grad"), 1) << rec.summary();
  expectClose(dev[0].grad(), cpu[0].grad());
  expectClose(dev[1].grad(), cpu[5].grad());
  expectClose(dev[2].grad(), cpu[1].grad().t());
  expectClose(dev[3].grad(), cpu[2].grad().t());
  expectClose(dev[4].grad(), cpu[3].grad());
  expectClose(dev[5].grad(), cpu[4].grad());
}

TEST(RnnCustomOps, WhatTorchNpusOpsDoNotTakeIsAClearError) {
  const auto npu_lstm = customOp<Lstm8>("npu::npu_lstm");
  const at::Tensor x = at::randn({2, 3, 4}).to(npu()), w = at::randn({4 + 5, 20}).to(npu()),
                   b = at::zeros({20}).to(npu()), h = at::zeros({1, 3, 5}).to(npu());
  EXPECT_THROW_WITH(npu_lstm.call(x, w, b, at::Tensor(), h, h, true, 2, 0.0, true, false, false, false, false),
                    "npu_lstm", "num_layers=2");
  EXPECT_THROW_WITH(npu_lstm.call(x, w, b, at::Tensor(), h, h, true, 1, 0.0, true, true, false, false, false),
                    "bidirectional=1");
  const at::Tensor bad_h = at::zeros({1, 2, 5}).to(npu());
  EXPECT_THROW_WITH(npu_lstm.call(x, w, b, at::Tensor(), bad_h, h, true, 1, 0.0, true, false, false, false, false),
                    "npu_lstm: h must be [1, B, H] or [B, H]");
  const at::Tensor lengths = at::tensor(std::vector<int64_t>{2, 1}).to(npu());  // B = 3 rows
  EXPECT_THROW_WITH(npu_lstm.call(x, w, b, lengths, h, h, true, 1, 0.0, true, false, false, true, false),
                    "sequence lengths must be [B] = [3]");
}

}  // namespace
}  // namespace torch_npu_test
