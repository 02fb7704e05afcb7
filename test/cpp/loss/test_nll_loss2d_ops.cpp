// nll_loss2d (the segmentation form of nll_loss / cross_entropy) against the
// CPU: every reduction, class weights, ignore_index, forward and backward,
// fp32 and fp16, empty batches, non-contiguous inputs and errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

TEST(NpuNllLoss2d, ForwardBackwardAgainstCpu) {
  at::Tensor target = at::randint(0, 5, {3, 4, 6}, at::kLong);
  target.index_put_({0, 1}, -100);
  const at::Tensor weight = at::rand({5}).add(0.1);
  for (auto dtype : floatAndHalf()) {
    for (int64_t reduction : {at::Reduction::None, at::Reduction::Mean, at::Reduction::Sum}) {
      for (bool weighted : {false, true}) {
        SCOPED_TRACE(c10::str(dtype, " reduction ", reduction, weighted ? " weighted" : ""));
        expectSameAutograd(
            [&](const auto& in) {
              const at::Tensor w = weighted ? weight.to(in[0].device()).to(in[0].scalar_type()) : at::Tensor();
              return at::nll_loss2d(at::log_softmax(in[0], 1), target.to(in[0].device()), w, reduction);
            },
            {at::randn({3, 5, 4, 6}).to(dtype)}, rtolTwoRoundings(dtype) * 5, atolTwoRoundings(dtype) * 5);
      }
    }
  }
}

TEST(NpuNllLoss2d, CrossEntropyEmptyAndNonContiguous) {
  const at::Tensor target = at::randint(0, 4, {2, 3, 5}, at::kLong);
  expectSameAutograd([&](const auto& in) { return at::cross_entropy_loss(in[0], target.to(in[0].device())); },
                     {at::randn({2, 4, 3, 5})});
  // A permuted (non-contiguous) input; forward only: the CPU's backward
  // refuses a non-contiguous grad_input.
  const at::Tensor logp = at::randn({2, 3, 5, 4}).log_softmax(3);
  expectClose(at::nll_loss2d(logp.to(npu()).permute({0, 3, 1, 2}), target.to(npu())),
              at::nll_loss2d(logp.permute({0, 3, 1, 2}), target));
  const at::Tensor empty_target = at::zeros({0, 3, 5}, at::kLong);
  for (int64_t reduction : {at::Reduction::None, at::Reduction::Mean, at::Reduction::Sum}) {
    SCOPED_TRACE(reduction);
    expectClose(at::nll_loss2d(at::randn({0, 4, 3, 5}).to(npu()), empty_target.to(npu()), {}, reduction),
                at::nll_loss2d(at::randn({0, 4, 3, 5}), empty_target, {}, reduction));
  }
}

TEST(NpuNllLoss2d, Errors) {
  const at::Tensor x = at::randn({2, 4, 3, 5}).to(npu());
  EXPECT_THROW_WITH(at::nll_loss2d(x, at::zeros({2, 3, 4}, at::kLong).to(npu())), "size mismatch");
  EXPECT_THROW_WITH(at::nll_loss2d(x, at::zeros({2, 15}, at::kLong).to(npu())), "only batches of spatial targets");
  EXPECT_THROW_WITH(at::nll_loss2d(x, at::zeros({2, 3, 5}, at::kLong).to(npu()), at::ones({3}).to(npu())),
                    "weight tensor should be defined either for all or no classes");
  EXPECT_THROW_WITH(
      {
        at::nll_loss2d(x, at::full({2, 3, 5}, 7, at::kLong).to(npu())).cpu();
      },
      "7");
}
