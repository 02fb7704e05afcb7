// conv2d and conv_transpose2d (forward and backward) against the CPU, on both
// format paths: with internal formats allowed the outputs are NC1HWC0 (and
// weight gradients FRACTAL_Z); with them off everything stays NCHW.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

constexpr int64_t kNC1HWC0 = ACL_FORMAT_NC1HWC0, kFractalZ = ACL_FORMAT_FRACTAL_Z, kAsIs = -1;

struct ConvCase {
  std::string name;
  std::vector<int64_t> input, weight;  // weight: [Co, Ci/g, kh, kw] (transposed: [Ci, Co/g, kh, kw])
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups;
  bool bias;
  bool transposed;
};

// Each output element sums Ci/g*kh*kw products in a different order than the
// CPU (fp32), or is one fp16 rounding of the fp32 accumulation.
double convRtol(at::ScalarType t) { return t == at::kHalf ? torch_npu_test::kHalfRtol : 1e-4; }
double convAtol(at::ScalarType t) { return t == at::kHalf ? torch_npu_test::kHalfAtol : 1e-4; }

at::Tensor runConv(const ConvCase& c, const std::vector<at::Tensor>& in) {
  const at::Tensor bias = c.bias ? in[2] : at::Tensor();
  if (c.transposed) {
    return at::conv_transpose2d(in[0], in[1], bias, c.stride, c.padding, c.output_padding, c.groups, c.dilation);
  }
  return at::conv2d(in[0], in[1], bias, c.stride, c.padding, c.dilation, c.groups);
}

// Forward, input/weight/bias gradients vs the CPU in both format modes; the
// NPU copies of input and weight are first cast to `input_format`/`weight_format`.
void expectConvMatches(const ConvCase& c, at::ScalarType dtype, int64_t input_format = kAsIs,
                       int64_t weight_format = kAsIs) {
  SCOPED_TRACE(c.name + " " + c10::toString(dtype));
  const int64_t out_channels = c.transposed ? c.weight[1] * c.groups : c.weight[0];
  std::vector<at::Tensor> inputs = {at::randn(c.input).to(dtype), at::randn(c.weight).mul(0.3).to(dtype)};
  if (c.bias) inputs.push_back(at::randn({out_channels}).to(dtype));
  forBothFormatModes([&](bool allow) {
    AutogradCheck check;
    check.rtol = convRtol(dtype);
    check.atol = convAtol(dtype);
    check.npu_formats = {input_format, weight_format};
    check.check_npu_out = expectFormatWhenAllowed(allow, ACL_FORMAT_NC1HWC0);
    expectSameAutogradWith([&](const std::vector<at::Tensor>& in) { return runConv(c, in); }, inputs, check);
  });
}

const std::vector<ConvCase>& convCases() {
  static const std::vector<ConvCase> cases = {
      {"3x3 plain", {2, 3, 7, 9}, {19, 3, 3, 3}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, true, false},
      {"3x3 s2 p1 no bias", {2, 19, 13, 11}, {33, 19, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, 1, false, false},
      {"asymmetric stride/pad/dilation", {1, 3, 13, 11}, {5, 3, 3, 2}, {2, 1}, {2, 1}, {2, 3}, {0, 0}, 1, true, false},
      {"groups 3", {2, 33, 7, 9}, {9, 11, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 3, true, false},
      {"depthwise", {2, 19, 13, 11}, {19, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 19, true, false},
      {"1x1", {2, 33, 7, 9}, {19, 33, 1, 1}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, true, false},
      {"7x7 s2 p3", {1, 3, 13, 11}, {19, 3, 7, 7}, {2, 2}, {3, 3}, {1, 1}, {0, 0}, 1, false, false},
      {"transposed s2 op1", {2, 19, 7, 9}, {19, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1, true, true},
      {"transposed groups", {1, 33, 7, 9}, {33, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 3, true, true},
      {"transposed s1 p0", {2, 3, 13, 11}, {3, 19, 2, 3}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, false, true},
      // output_padding >= stride (allowed below max(stride, dilation)): trailing rows no window reaches
      {"transposed op >= stride", {2, 4, 5, 4}, {4, 3, 4, 5}, {3, 2}, {1, 2}, {4, 4}, {2, 3}, 2, true, true},
      {"transposed dilated s1 op2", {1, 3, 6, 5}, {3, 5, 3, 2}, {1, 1}, {0, 1}, {3, 3}, {2, 1}, 1, false, true},
  };
  return cases;
}

}  // namespace

TEST(NpuConvOps, ForwardBackwardNchw) {
  for (const auto& c : convCases()) {
    for (auto dtype : floatAndHalf()) expectConvMatches(c, dtype);
  }
}

TEST(NpuConvOps, WeightInFractalZ) {
  for (const auto& c : convCases()) expectConvMatches(c, at::kFloat, kAsIs, kFractalZ);
  expectConvMatches(convCases()[3], at::kHalf, kAsIs, kFractalZ);
}

TEST(NpuConvOps, InputInNc1hwc0) {
  for (const auto& c : convCases()) expectConvMatches(c, at::kFloat, kNC1HWC0, kAsIs);
  expectConvMatches(convCases()[4], at::kHalf, kNC1HWC0, kFractalZ);
}

TEST(NpuConvOps, WeightGradientIsFractalZWhenAllowed) {
  const ConvCase& c = convCases()[3];
  forBothFormatModes([&](bool allow) {
    at::Tensor x = at::randn(c.input).to(npu()), w = at::randn(c.weight).to(npu()).requires_grad_();
    at::Tensor y = runConv(c, {x, w, at::randn({c.weight[0]}).to(npu())});
    y.backward(at::ones_like(y));
    EXPECT_EQ(torch_npu::npuFormatOf(w.grad()), allow ? ACL_FORMAT_FRACTAL_Z : ACL_FORMAT_NCHW);
  });
}

TEST(NpuConvOps, Errors) {
  const at::Tensor x = at::randn({2, 6, 7, 9}).to(npu()), w = at::randn({4, 3, 3, 3}).to(npu());
  const std::vector<int64_t> ones{1, 1}, zeros{0, 0};
  const at::Tensor w6 = at::randn({4, 6, 3, 3}).to(npu());
  EXPECT_THROW_WITH(at::conv2d(x, w6.to(at::kHalf)), "Input type", "Float", "Half", "should be the same");
  EXPECT_THROW_WITH(at::conv2d(x.to(at::kHalf), w6), "should be the same");
  EXPECT_THROW_WITH(at::conv_transpose2d(x, at::randn({6, 2, 3, 3}).to(at::kHalf).to(npu())), "should be the same");
  // 6 input channels, weight of 3 channels per group: groups 1 and 4 are inconsistent
  EXPECT_THROW_WITH(at::conv2d(x, w), "expected input", "to have 3 channels, but got 6 channels");
  EXPECT_THROW_WITH(at::conv2d(x, w, at::Tensor(), ones, zeros, ones, 4), "groups");
  EXPECT_THROW_WITH(at::conv2d(x, at::randn({5, 3, 3, 3}).to(npu()), at::Tensor(), ones, zeros, ones, 2), "divisible by 2");
  EXPECT_THROW_WITH(at::conv2d(x, at::randn({4, 6, 11, 3}).to(npu())), "Kernel size can't be greater than actual input size");
  EXPECT_THROW_WITH(at::conv2d(x.to(at::kInt), w6.to(at::kInt)), "float32 and float16");
}

// slow_conv_transpose2d (structured: the meta function sizes the output) runs the transposed Conv2D.
TEST(NpuConvOps, SlowConvTranspose2dMatchesTheCpu) {
  const at::Tensor x = at::randn({2, 3, 5, 6}), w = at::randn({3, 4, 3, 2}), b = at::randn({4});
  expectSameAutograd([](const auto& in) {
    return at::slow_conv_transpose2d(in[0], in[1], {3, 2}, in[2], {2, 1}, {1, 0}, {1, 0}, {1, 2});
  }, {x, w, b});
  expectSameAutograd([](const auto& in) {
    return at::slow_conv_transpose2d(in[0], in[1], {3, 2}, {}, {1, 1}, {0, 0}, {0, 0}, {1, 1});
  }, {x, w});
  EXPECT_THROW(at::slow_conv_transpose2d(x.to(npu()), w.to(npu()), {2, 2}, {}, {1, 1}, {0, 0}, {0, 0}, {1, 1}),
               c10::Error);
}
