// group_norm (native_group_norm and its backward) and instance_norm against
// the CPU: affine and not, fp32 and fp16, 2-D to 5-D inputs, empty batches
// and empty spatial dims, non-contiguous and NC1HWC0 inputs, and errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

void expectGroupNorm(const std::vector<int64_t>& shape, int64_t groups, bool affine, at::ScalarType dtype) {
  SCOPED_TRACE(c10::str(at::IntArrayRef(shape), " groups ", groups, affine ? " affine " : " ", dtype));
  const int64_t c = shape[1];
  std::vector<at::Tensor> inputs = {at::randn(shape).to(dtype)};
  if (affine) inputs.push_back(at::rand({c}).add(0.5).to(dtype)), inputs.push_back(at::randn({c}).to(dtype));
  expectSameAutograd(
      [groups, affine](const auto& in) {
        return affine ? at::group_norm(in[0], groups, in[1], in[2]) : at::group_norm(in[0], groups);
      },
      inputs, rtolTwoRoundings(dtype) * 5, atolTwoRoundings(dtype) * 5);
}

}  // namespace

TEST(NpuGroupNorm, ForwardBackwardAgainstCpu) {
  for (auto dtype : floatAndHalf()) {
    expectGroupNorm({2, 6, 3, 4}, 3, true, dtype);
    expectGroupNorm({3, 4, 5}, 2, false, dtype);
    expectGroupNorm({4, 8}, 2, true, dtype);
    expectGroupNorm({1, 4, 2, 3, 5}, 1, true, dtype);
    expectGroupNorm({2, 32, 7, 7}, 32, true, dtype);
  }
}

TEST(NpuGroupNorm, EmptyInputs) {
  // A batch of 0 (once a SIGFPE) and no spatial elements work as on the CPU.
  expectGroupNorm({0, 4, 3}, 2, true, at::kFloat);
  expectGroupNorm({0, 4}, 2, false, at::kFloat);
  const at::Tensor x = at::randn({2, 4, 0});
  const auto cpu = at::native_group_norm(x, {}, {}, 2, 4, 0, 2, 1e-5);
  const auto dev = at::native_group_norm(x.to(npu()), {}, {}, 2, 4, 0, 2, 1e-5);
  expectClose(std::get<1>(dev), std::get<1>(cpu));
  expectClose(std::get<2>(dev), std::get<2>(cpu));
}

TEST(NpuGroupNorm, NonContiguousPrivateFormatAndInstanceNorm) {
  expectSameAutograd([](const auto& in) { return at::group_norm(in[0].transpose(2, 3), 2, in[1], in[2]); },
                     {at::randn({2, 4, 5, 3}), at::rand({4}), at::randn({4})});
  forBothFormatModes([](bool) {
    AutogradCheck check;
    check.npu_formats = {ACL_FORMAT_NC1HWC0};
    check.rtol = 1e-4, check.atol = 1e-4;
    expectSameAutogradWith([](const auto& in) { return at::group_norm(in[0], 5, in[1], in[2]); },
                           {at::randn({2, 20, 3, 3}), at::rand({20}), at::randn({20})}, check);
  });
  expectSameAutograd(
      [](const auto& in) { return at::instance_norm(in[0], in[1], in[2], {}, {}, true, 0.1, 1e-5, false); },
      {at::randn({3, 5, 4, 4}), at::rand({5}), at::randn({5})}, 1e-4, 1e-4);
}

TEST(NpuGroupNorm, Errors) {
  const at::Tensor x = at::randn({2, 5, 3}).to(npu());
  EXPECT_THROW_WITH(at::group_norm(x, 2), "Expected number of channels in input to be divisible by num_groups");
  EXPECT_THROW_WITH(at::native_group_norm(x, {}, {}, 2, 5, 3, 0, 1e-5), "Expected num groups to be greater than 0");
  EXPECT_THROW_WITH(at::native_group_norm(x, at::ones({4}).to(npu()), {}, 2, 5, 3, 5, 1e-5),
                    "Expected weight to be a vector of size equal to the number of channels");
  EXPECT_THROW_WITH(at::native_group_norm(x, {}, {}, 2, 5, 4, 5, 1e-5), "does not match N=2, C=5, HxW=4");
}
