// conv3d and conv_transpose3d (Conv3D, Conv3DBackpropInput,
// Conv3DBackpropFilter) forward and backward against the CPU: strides,
// asymmetric padding and dilation, groups, bias, output_padding (also >=
// stride), fp16 against the fp32 CPU, empty batches, BatchNorm3d, errors; the
// 3-D private formats (NDC1HWC0 activations, FRACTAL_Z_3D weights) in and out.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

struct Conv3dCase {
  std::string name;
  std::vector<int64_t> input, weight;  // weight: [Co, Ci/g, kd, kh, kw] (transposed: [Ci, Co/g, ...])
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups;
  bool bias, transposed;
};

const std::vector<Conv3dCase>& cases() {
  static const std::vector<Conv3dCase> v = {
      {"3x3x3 plain", {2, 3, 5, 6, 7}, {4, 3, 3, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, 1, true, false},
      {"stride pad dilation",
       {1, 4, 7, 9, 8},
       {6, 4, 2, 3, 3},
       {2, 1, 2},
       {1, 2, 0},
       {1, 2, 1},
       {0, 0, 0},
       1,
       false,
       false},
      {"groups", {2, 6, 4, 5, 5}, {9, 2, 3, 1, 3}, {1, 2, 1}, {1, 0, 1}, {1, 1, 1}, {0, 0, 0}, 3, true, false},
      {"transposed s2 op1",
       {2, 4, 3, 4, 3},
       {4, 3, 3, 3, 2},
       {2, 2, 2},
       {1, 1, 0},
       {1, 1, 1},
       {1, 0, 1},
       1,
       true,
       true},
      {"transposed groups dilated op>=s",
       {1, 4, 3, 3, 4},
       {4, 2, 2, 3, 2},
       {1, 2, 1},
       {0, 1, 1},
       {3, 2, 2},
       {2, 1, 1},
       2,
       false,
       true},
  };
  return v;
}

at::Tensor runConv(const Conv3dCase& c, const std::vector<at::Tensor>& in) {
  const at::Tensor bias = c.bias ? in[2] : at::Tensor();
  if (c.transposed)
    return at::conv_transpose3d(in[0], in[1], bias, c.stride, c.padding, c.output_padding, c.groups, c.dilation);
  return at::conv3d(in[0], in[1], bias, c.stride, c.padding, c.dilation, c.groups);
}

// Forward and gradients vs the CPU; the NPU copies of input and weight are first cast to
// `input_format` / `weight_format` (-1: as copied), and the output checked by `check_out`.
void expectConvMatches(const Conv3dCase& c, at::ScalarType dtype, int64_t input_format = -1, int64_t weight_format = -1,
                       std::function<void(const at::Tensor&)> check_out = {}) {
  SCOPED_TRACE(c.name + " " + c10::toString(dtype));
  const int64_t out_channels = c.transposed ? c.weight[1] * c.groups : c.weight[0];
  std::vector<at::Tensor> inputs = {at::randn(c.input).to(dtype), at::randn(c.weight).mul(0.3).to(dtype)};
  if (c.bias) inputs.push_back(at::randn({out_channels}).to(dtype));
  // fp32: sums of a few hundred products in another order; fp16: one rounding of the fp32 sum
  const double rtol = dtype == at::kHalf ? 2 * kHalfRtol : 1e-4, atol = dtype == at::kHalf ? 2 * kHalfAtol : 1e-4;
  AutogradCheck check;
  check.rtol = rtol, check.atol = atol;
  check.npu_formats = {input_format, weight_format};
  check.check_npu_out = std::move(check_out);
  expectSameAutogradWith([&](const std::vector<at::Tensor>& in) { return runConv(c, in); }, inputs, check);
}

}  // namespace

TEST(NpuConv3d, ForwardBackwardMatchCpu) {
  for (const auto& c : cases()) expectConvMatches(c, at::kFloat);
}

TEST(NpuConv3d, HalfAgainstFloatCpu) {
  for (const auto& c : cases()) expectConvMatches(c, at::kHalf);
}

// With internal formats allowed, outputs are NDC1HWC0 (every case, transposed ones included) and
// inputs already in NDC1HWC0 / FRACTAL_Z_3D are read as stored; disabled, everything stays NCDHW.
TEST(NpuConv3d, PrivateFormatsInAndOut) {
  forBothFormatModes([](bool allow) {
    for (const auto& c : cases())
      expectConvMatches(c, at::kFloat, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D,
                        expectFormatWhenAllowed(allow, ACL_FORMAT_NDC1HWC0));
    expectConvMatches(cases()[1], at::kHalf, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D,
                      expectFormatWhenAllowed(allow, ACL_FORMAT_NDC1HWC0));
    const Conv3dCase& c = cases()[0];
    at::Tensor x = at::randn(c.input).to(npu()), w = at::randn(c.weight).to(npu()).requires_grad_();
    at::Tensor y = runConv(c, {x, w, at::randn({c.weight[0]}).to(npu())});
    y.backward(at::ones_like(y));
    EXPECT_EQ(torch_npu::npuFormatOf(w.grad()), allow ? ACL_FRACTAL_Z_3D : ACL_FORMAT_NCDHW);
  });
}

TEST(NpuConv3d, EmptyBatchBatchNorm3dAndErrors) {
  const at::Tensor w = at::randn({4, 3, 3, 3, 3});
  expectClose(at::conv3d(at::randn({0, 3, 5, 5, 5}).to(npu()), w.to(npu())), at::empty({0, 4, 3, 3, 3}));
  // a Conv3d + BatchNorm3d (BN3D* ops) + ReLU block, forward and backward, NDC1HWC0 throughout when allowed
  forBothFormatModes([&](bool allow) {
    AutogradCheck check;
    check.check_npu_out = expectFormatWhenAllowed(allow, ACL_FORMAT_NDC1HWC0);
    expectSameAutogradWith(
        [](const std::vector<at::Tensor>& in) {
          const at::Tensor y = at::conv3d(in[0], in[1], {}, 1, 1);
          return at::relu(at::batch_norm(y, in[2], in[3], {}, {}, true, 0.1, 1e-5, false));
        },
        {at::randn({2, 3, 4, 5, 6}), w, at::rand({4}).add(0.5), at::randn({4})}, check);
  });
  EXPECT_THROW_WITH(at::conv3d(at::randn({1, 2, 5, 5, 5}).to(npu()), w.to(npu())), "expected input");
  EXPECT_THROW_WITH(at::conv3d(at::randn({1, 3, 2, 5, 5}).to(npu()), w.to(npu())),
                    "Kernel size can't be greater than actual input size");
  EXPECT_THROW_WITH(at::conv3d(at::randn({1, 3, 5, 5, 5}).to(at::kDouble).to(npu()), w.to(at::kDouble).to(npu())),
                    "NPU convolutions support float32 and float16");
}
