// aten::gru on the NPU (csrc/aten/rnn/GruOps.cpp): one DynamicGRUV2 launch per
// layer and direction forward, one DynamicGRUV2Grad backward, against
// PyTorch's own CPU GRU (forward and every gradient).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "npu_test_util.h"
#include "rnn/rnn_test_util.h"

namespace torch_npu_test {
namespace {

// output and h_n of at::gru as one tensor (so one backward covers both).
at::Tensor flatGru(const std::vector<at::Tensor>& in, const RnnConfig& c) {
  const std::vector<at::Tensor> params(in.begin() + 2, in.end());
  auto [y, h] = at::gru(in[0], in[1], params, c.biases, c.layers, 0.0, false, c.bidirectional, c.batch_first);
  return at::cat({y.flatten(), h.flatten()});
}

TEST(GruOps, MatchesTheCpuForwardAndBackward) {
  at::manual_seed(10);
  for (const RnnConfig& c : {RnnConfig{1, false, false, true}, RnnConfig{2, true, false, true},
                             RnnConfig{2, false, true, false}, RnnConfig{3, true, true, true}}) {
    SCOPED_TRACE(describe(c));
    expectSameAutograd([&](const std::vector<at::Tensor>& in) { return flatGru(in, c); },
                       rnnInputs(c, 3, 1, 6, 3, 5, 7), 1e-4, 1e-5);
  }
}

TEST(GruOps, IsOneDynamicGruPerLayerAndDirectionEachWay) {
  at::manual_seed(11);
  const RnnConfig c{2, true, false, true};
  std::vector<at::Tensor> in;
  for (const at::Tensor& t : rnnInputs(c, 3, 1, 10, 4, 8, 16)) in.push_back(t.to(npu()).requires_grad_());
  OpRecorder rec;
  at::Tensor out = flatGru(in, c);
  EXPECT_EQ(rec.count("DynamicGRUV2"), 4) << rec.summary();
  EXPECT_EQ(rec.count("MatMul") + rec.count("Sigmoid"), 0) << rec.summary();
  out.sum().backward();
  EXPECT_EQ(rec.count("DynamicGRUV2Grad"), 4) << rec.summary();
}

TEST(GruOps, HalfPrecisionTracksTheFloatCpu) {
  at::manual_seed(12);
  const RnnConfig c{2, true, false, true};
  std::vector<at::Tensor> in = rnnInputs(c, 3, 1, 5, 3, 6, 8), half;
  for (const at::Tensor& t : in) half.push_back(t.to(at::kHalf).to(npu()));
  expectClose(flatGru(half, c).to(at::kFloat), flatGru(in, c), 1e-2, 1e-2);
}

TEST(GruOps, PackedSequencesMatchTheCpu) {
  at::manual_seed(13);
  for (bool bidirectional : {false, true}) {
    SCOPED_TRACE(bidirectional ? "bidirectional" : "one direction");
    const RnnConfig c{2, bidirectional, false, true};
    const at::Tensor batch_sizes = at::tensor(std::vector<int64_t>{3, 3, 2, 1, 1});  // lengths 5, 4, 2
    std::vector<at::Tensor> in = rnnInputs(c, 3, 1, 1, 3, 4, 6);
    in[0] = at::randn({10, 4});  // the packed rows
    expectSameAutograd(
        [&](const std::vector<at::Tensor>& v) {
          const std::vector<at::Tensor> params(v.begin() + 2, v.end());
          auto [y, h] = at::gru(v[0], batch_sizes, v[1], params, true, 2, 0.0, false, bidirectional);
          return at::cat({y.flatten(), h.flatten()});
        },
        in, 1e-4, 1e-5);
  }
}

TEST(GruOps, GruCellIsOneDynamicGruStep) {
  at::manual_seed(14);
  const int64_t batch = 3, input_size = 5, hidden = 4;
  for (bool biases : {true, false}) {
    SCOPED_TRACE(biases ? "with biases" : "no biases");
    std::vector<at::Tensor> in = {at::randn({batch, input_size}), at::randn({batch, hidden}),
                                  at::randn({3 * hidden, input_size}) * 0.5, at::randn({3 * hidden, hidden}) * 0.5};
    if (biases) in.insert(in.end(), {at::randn({3 * hidden}), at::randn({3 * hidden})});
    const auto cell = [&](const std::vector<at::Tensor>& v) {
      c10::optional<at::Tensor> b_ih, b_hh;
      if (biases) b_ih = v[4], b_hh = v[5];
      return at::gru_cell(v[0], v[1], v[2], v[3], b_ih, b_hh);
    };
    expectSameAutograd(cell, in, 1e-4, 1e-5);
    std::vector<at::Tensor> dev;
    for (const at::Tensor& t : in) dev.push_back(t.to(npu()));
    OpRecorder rec;
    cell(dev);
    EXPECT_EQ(rec.count("DynamicGRUV2"), 1) << rec.summary();
  }
}

TEST(GruOps, Float64RunsTheDecompositionWhichNamesWhatIsMissing) {
  // DynamicGRUV2 takes float32 / float16: a float64 GRU goes to PyTorch's decomposition, whose
  // float64 matmul the NPU does not have (as CANN's MatMul) — an error naming it, not a wrong answer.
  at::manual_seed(15);
  const RnnConfig c{1, false, false, true};
  std::vector<at::Tensor> dev;
  for (const at::Tensor& t : rnnInputs(c, 3, 1, 3, 2, 4, 3)) dev.push_back(t.to(at::kDouble).to(npu()));
  // The decomposition's ops fail on the device (asynchronously, as any device error: at the latest
  // at the next synchronisation) one after another; each failure is reported once.
  EXPECT_THROW_WITH(
      {
        flatGru(dev, c);
        torch_npu::synchronize(0);
      },
      "float64 is not supported");
  for (int k = 0; k < 8; ++k) try {
      torch_npu::synchronize(0);
      break;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("float64 is not supported"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace torch_npu_test
