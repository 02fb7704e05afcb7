// max_pool2d (with indices), avg_pool2d and adaptive_avg_pool2d, forward and
// backward against the CPU, on both format paths (outputs NC1HWC0 when
// internal formats are allowed), fp32 and fp16, batched and unbatched.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

// Pools are compared on both format paths; 4-D outputs must be NC1HWC0 when
// allowed. Max pooling is exact; averages are one rounding of an fp32 sum (the
// backward too: dy / count, summed over windows in fp32, rounded once).
void expectPoolMatches(const std::string& name, const TensorFn& fn, const std::vector<int64_t>& shape,
                       bool check_format = true) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(name + " " + c10::toString(dtype) + " " + c10::str(at::IntArrayRef(shape)));
    const at::Tensor x = at::randn(shape).to(dtype);
    forBothFormatModes([&](bool allow) {
      AutogradCheck check;
      check.rtol = torch_npu_test::rtolFor(dtype);
      check.atol = torch_npu_test::atolFor(dtype);
      if (check_format && shape.size() == 4) check.check_npu_out = expectFormatWhenAllowed(allow, ACL_FORMAT_NC1HWC0);
      expectSameAutogradWith(fn, {x}, check);
    });
  }
}

struct MaxPoolCase {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode;
};

const std::vector<MaxPoolCase>& maxPoolCases() {
  static const std::vector<MaxPoolCase> cases = {
      {{3, 3}, {2, 2}, {1, 1}, {1, 1}, false}, {{3, 3}, {2, 2}, {0, 0}, {1, 1}, true},
      {{2, 3}, {1, 2}, {1, 1}, {1, 1}, true},  {{3, 2}, {2, 1}, {1, 0}, {2, 2}, false},
      {{2, 2}, {}, {0, 0}, {1, 1}, true}};
  return cases;
}

}  // namespace

TEST(NpuPooling, MaxPool2dWithIndices) {
  for (const auto& c : maxPoolCases()) {
    auto values = [&](const std::vector<at::Tensor>& in) {
      return std::get<0>(at::max_pool2d_with_indices(in[0], c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode));
    };
    for (const auto& shape : std::vector<std::vector<int64_t>>{{2, 19, 7, 9}, {3, 13, 11}}) {
      expectPoolMatches("max_pool2d", values, shape);
      // The indices (int64, positions h*W+w within each plane) match exactly.
      const at::Tensor x = at::randn(shape);
      forBothFormatModes([&](bool) {
        const auto npu_out = at::max_pool2d_with_indices(x.to(npu()), c.kernel, c.stride, c.padding, c.dilation,
                                                         c.ceil_mode);
        const auto cpu_out = at::max_pool2d_with_indices(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
        expectClose(std::get<1>(npu_out), std::get<1>(cpu_out));
      });
    }
  }
}

TEST(NpuPooling, MaxPoolTiesAndNan) {
  // Ties: the first maximum wins; NaN counts as the maximum.
  at::Tensor x = at::zeros({1, 3, 7, 9});
  x[0][1][3][4] = NAN;
  const auto npu_out = at::max_pool2d_with_indices(x.to(npu()), {3, 3}, {2, 2}, {1, 1}, {1, 1}, true);
  const auto cpu_out = at::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true);
  expectClose(std::get<0>(npu_out), std::get<0>(cpu_out));
  expectClose(std::get<1>(npu_out), std::get<1>(cpu_out));
}

TEST(NpuPooling, AvgPool2d) {
  struct AvgCase {
    std::vector<int64_t> kernel, stride, padding;
    bool ceil_mode, count_include_pad;
    c10::optional<int64_t> divisor;
  };
  const std::vector<AvgCase> cases = {{{3, 3}, {2, 2}, {1, 1}, false, true, c10::nullopt},
                                      {{3, 3}, {2, 2}, {1, 1}, false, false, c10::nullopt},
                                      {{3, 3}, {2, 2}, {1, 1}, true, true, c10::nullopt},
                                      {{3, 2}, {2, 2}, {1, 1}, true, false, c10::nullopt},
                                      {{2, 3}, {1, 2}, {0, 1}, false, true, 5},
                                      {{2, 2}, {}, {0, 0}, true, false, 3}};
  for (const auto& c : cases) {
    auto fn = [&](const std::vector<at::Tensor>& in) {
      return at::avg_pool2d(in[0], c.kernel, c.stride, c.padding, c.ceil_mode, c.count_include_pad, c.divisor);
    };
    expectPoolMatches("avg_pool2d", fn, {2, 19, 13, 11});
    expectPoolMatches("avg_pool2d", fn, {3, 7, 9});
  }
}

TEST(NpuPooling, AdaptiveAvgPool2d) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 19, 9, 9}, {4, 4}}, {{2, 3, 2, 2}, {7, 7}}, {{2, 33, 13, 11}, {1, 1}},
      {{2, 19, 13, 11}, {5, 3}}, {{19, 9, 9}, {4, 4}}, {{3, 2, 2}, {7, 7}}};
  for (const auto& [shape, size] : cases) {
    // A 1x1 output is computed by PyTorch as mean(-1, -2): a reduction, whose output is ND.
    const bool pooled = size != std::vector<int64_t>{1, 1};
    expectPoolMatches(
        "adaptive_avg_pool2d",
        [&](const std::vector<at::Tensor>& in) { return at::adaptive_avg_pool2d(in[0], size); }, shape, pooled);
  }
}

TEST(NpuPooling, Errors) {
  const at::Tensor x = at::randn({2, 3, 7, 9}).to(npu());
  EXPECT_THROW_WITH(at::max_pool2d_with_indices(x, {3, 3}, {1, 1}, {2, 2}), "pad should be at most half");
  EXPECT_THROW_WITH(at::avg_pool2d(x, {3, 3}, {1, 1}, {0, 0}, false, true, 0), "divisor must be not zero");
  EXPECT_THROW_WITH(at::max_pool2d_with_indices(at::randn({2, 3, 4, 7, 9}).to(npu()), {3, 3}), "5");
  EXPECT_THROW_WITH(at::adaptive_avg_pool2d(at::randn({7, 9}).to(npu()), {2, 2}), "3-D or 4-D");
  // A window larger than the input raises as on the CPU, not an empty result.
  const at::Tensor small = at::randn({1, 2, 3, 3});
  EXPECT_THROW(at::max_pool2d_with_indices(small, {5, 5}), c10::Error);
  EXPECT_THROW_WITH(at::max_pool2d_with_indices(small.to(npu()), {5, 5}), "Output size is too small");
  EXPECT_THROW_WITH(at::avg_pool2d(small.to(npu()), {5, 5}), "Output size is too small");
  EXPECT_EQ(std::get<0>(at::max_pool2d_with_indices(small.to(npu()), {4, 4}, {1, 1}, {2, 2})).size(2), 4);  // padded: fits
}

TEST(NpuPooling, MaxPoolBackwardKeepsNc1hwc0) {
  // The functional backward returns the op's NC1HWC0 dx directly (no base-format
  // copy); the out= form still fills any destination.
  const at::Tensor x = at::randn({2, 19, 8, 9});
  const auto cpu = at::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
  const at::Tensor gy = at::randn(std::get<0>(cpu).sizes());
  const at::Tensor expected =
      at::max_pool2d_with_indices_backward(gy, x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, std::get<1>(cpu));
  forBothFormatModes([&](bool allow) {
    const at::Tensor x_npu = allow ? npuFormatCast(x.to(npu()), ACL_FORMAT_NC1HWC0) : x.to(npu());
    const auto out = at::max_pool2d_with_indices(x_npu, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
    const at::Tensor gy_npu = allow ? npuFormatCast(gy.to(npu()), ACL_FORMAT_NC1HWC0) : gy.to(npu());
    at::Tensor dx;
    {
      OpRecorder rec;
      dx = at::max_pool2d_with_indices_backward(gy_npu, x_npu, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false,
                                                std::get<1>(out));
      EXPECT_EQ(rec.summary(), "MaxPoolGradWithArgmaxV1");
    }
    expectFormatWhenAllowed(allow, ACL_FORMAT_NC1HWC0)(dx);
    expectClose(dx, expected, 0, 0);
    at::Tensor into = at::empty({0}, x_npu.options());
    at::max_pool2d_with_indices_backward_out(into, gy_npu, x_npu, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false,
                                             std::get<1>(out));
    expectClose(into, expected, 0, 0);
    // Unbatched input: [C, H, W].
    const at::Tensor dx3 = at::max_pool2d_with_indices_backward(gy_npu[1], x_npu[1], {3, 3}, {2, 2}, {1, 1}, {1, 1},
                                                                false, std::get<1>(out)[1]);
    expectClose(dx3, expected[1], 0, 0);
  });
}
