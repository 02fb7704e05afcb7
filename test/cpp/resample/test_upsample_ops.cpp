// Upsampling ops (nearest / nearest-exact 1-3 D, linear, bilinear, bicubic,
// trilinear) against the CPU, forward and backward, sizes and scale factors,
// both align_corners modes, fp32 and fp16, empty batches, non-contiguous and
// NC1HWC0 inputs, out= forms and PyTorch's argument errors.
#include "op_rows.h"

using namespace torch_npu_test;

namespace {

using OptSizes = at::OptionalIntArrayRef;
using OptScales = c10::optional<at::ArrayRef<double>>;

std::vector<OpRow> rows() {
  static const std::vector<double> s17{1.7}, s17x2{1.7, 0.6}, s25x3{2.5, 1.0, 0.6};
  return {
      {"nearest1d size", {2, 3, 5}, [](const auto& in) { return at::upsample_nearest1d(in[0], at::IntArrayRef{9}); }},
      {"nearest1d scale", {2, 3, 5}, [](const auto& in) {
         return at::upsample_nearest1d(in[0], OptSizes(), OptScales(s17));
       }},
      {"nearest-exact1d", {2, 3, 5}, [](const auto& in) { return at::_upsample_nearest_exact1d(in[0], at::IntArrayRef{7}, 1.4); }},
      {"nearest2d", {2, 3, 5, 4}, [](const auto& in) { return at::upsample_nearest2d(in[0], at::IntArrayRef{9, 8}); }},
      {"nearest2d scales", {2, 3, 5, 4}, [](const auto& in) {
         return at::upsample_nearest2d(in[0], OptSizes(), OptScales(s17x2));
       }},
      {"nearest-exact2d", {2, 3, 5, 4}, [](const auto& in) { return at::_upsample_nearest_exact2d(in[0], at::IntArrayRef{3, 7}); }},
      {"nearest3d", {1, 2, 3, 4, 5}, [](const auto& in) { return at::upsample_nearest3d(in[0], at::IntArrayRef{5, 8, 2}); }},
      {"nearest3d scales", {1, 2, 3, 4, 5}, [](const auto& in) {
         return at::upsample_nearest3d(in[0], OptSizes(), OptScales(s25x3));
       }},
      {"nearest-exact3d", {1, 2, 3, 4, 5}, [](const auto& in) {
         return at::_upsample_nearest_exact3d(in[0], OptSizes(), OptScales(s25x3));
       }},
      {"linear1d", {2, 3, 6}, [](const auto& in) { return at::upsample_linear1d(in[0], at::IntArrayRef{11}, false); }},
      {"linear1d align", {2, 3, 6}, [](const auto& in) { return at::upsample_linear1d(in[0], at::IntArrayRef{4}, true); }},
      {"linear1d scale", {2, 3, 6}, [](const auto& in) {
         return at::upsample_linear1d(in[0], OptSizes(), false, OptScales(s17));
       }},
      {"bilinear2d", {2, 3, 4, 5}, [](const auto& in) { return at::upsample_bilinear2d(in[0], at::IntArrayRef{7, 3}, false); }},
      {"bilinear2d align", {2, 3, 4, 5}, [](const auto& in) { return at::upsample_bilinear2d(in[0], at::IntArrayRef{7, 3}, true); }},
      {"bilinear2d scales", {2, 3, 4, 5}, [](const auto& in) {
         return at::upsample_bilinear2d(in[0], OptSizes(), false, OptScales(s17x2));
       }},
      {"bicubic2d", {2, 2, 4, 5}, [](const auto& in) { return at::upsample_bicubic2d(in[0], at::IntArrayRef{9, 3}, false); }},
      {"bicubic2d align", {2, 2, 4, 5}, [](const auto& in) { return at::upsample_bicubic2d(in[0], at::IntArrayRef{9, 3}, true); }},
      {"bicubic2d scales", {2, 2, 4, 5}, [](const auto& in) {
         return at::upsample_bicubic2d(in[0], OptSizes(), false, OptScales(s17x2));
       }},
      {"trilinear3d", {1, 2, 3, 4, 5}, [](const auto& in) { return at::upsample_trilinear3d(in[0], at::IntArrayRef{5, 8, 2}, false); }},
      {"trilinear3d align", {1, 2, 3, 4, 5}, [](const auto& in) {
         return at::upsample_trilinear3d(in[0], at::IntArrayRef{5, 8, 2}, true);
       }},
  };
}

}  // namespace

TEST(NpuUpsample, ForwardBackwardAgainstCpu) { expectRowsMatchCpu(rows(), true); }

TEST(NpuUpsample, EmptyBatchNonContiguousAndPrivateFormat) {
  expectRowsOnEmptyBatch(rows());
  expectRowsOnTransposedInput(rows(), 1, 2);
  forBothFormatModes([](bool) {
    AutogradCheck check;
    check.npu_formats = {ACL_FORMAT_NC1HWC0};
    expectSameAutogradWith([](const auto& in) { return at::upsample_bilinear2d(in[0], at::IntArrayRef{9, 7}, false); },
                           {at::randn({2, 19, 4, 5})}, check);
  });
}

TEST(NpuUpsample, OutFormsAndErrors) {
  const at::Tensor x = at::randn({2, 3, 4, 5});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::upsample_bilinear2d_out(out, x.to(npu()), {8, 10}, true);
  expectClose(out, at::upsample_bilinear2d(x, {8, 10}, true));
  at::Tensor grad_in = at::empty({5, 4, 3, 2}, at::TensorOptions().device(npu())).permute({3, 2, 1, 0});
  const at::Tensor g = at::randn({2, 3, 8, 10});
  at::upsample_nearest2d_backward_out(grad_in, g.to(npu()), {8, 10}, {2, 3, 4, 5});
  expectClose(grad_in, at::upsample_nearest2d_backward(g, {8, 10}, {2, 3, 4, 5}));
  const at::Tensor x3 = at::randn({2, 3, 4}).to(npu());
  EXPECT_THROW_WITH(at::upsample_bilinear2d(x3, {8, 10}, false), "It is expected input_size equals to 4, but got size 3");
  EXPECT_THROW_WITH(at::upsample_nearest2d(x.to(npu()), {0, 10}), "should be greater than 0");
  EXPECT_THROW_WITH(at::upsample_nearest2d(at::empty({2, 0, 4, 5}).to(npu()), {3, 3}), "Non-empty");
}
