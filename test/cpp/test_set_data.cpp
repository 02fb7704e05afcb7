// _has_compatible_shallow_copy_type and set_data between CPU and NPU tensors (Note [Parameters keep
// their identity across devices] in csrc/aten/ShallowCopyType.cpp): the NPU counts as a dense
// backend, PyTorch's answers for every other pair are unchanged, and set_data moves the data of
// the same TensorImpl, values and autograd meta included.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;

TEST(SetData, DenseCpuAndNpuTensorsAreCompatibleBothWays) {
  const at::Tensor cpu = at::ones({2, 3});
  const at::Tensor on_npu = at::ones({2, 3}).to(npu());
  EXPECT_TRUE(at::_has_compatible_shallow_copy_type(cpu, on_npu));
  EXPECT_TRUE(at::_has_compatible_shallow_copy_type(on_npu, cpu));
  EXPECT_TRUE(at::_has_compatible_shallow_copy_type(on_npu, on_npu.to(at::kHalf)));
  EXPECT_TRUE(at::_has_compatible_shallow_copy_type(on_npu, at::ones({1}).to(npu(1))));
}

TEST(SetData, OtherPairsKeepPyTorchsAnswer) {
  const at::Tensor on_npu = at::ones({2, 2}).to(npu());
  const at::Tensor sparse = at::ones({2, 2}).to_sparse();
  EXPECT_FALSE(at::_has_compatible_shallow_copy_type(on_npu, sparse));
  EXPECT_FALSE(at::_has_compatible_shallow_copy_type(sparse, on_npu));
  EXPECT_TRUE(at::_has_compatible_shallow_copy_type(sparse, at::zeros({3, 3}).to_sparse()));
  EXPECT_FALSE(at::_has_compatible_shallow_copy_type(at::ones({1}), at::ones({1}).to_sparse()));
}

TEST(SetData, MovesTheDataOfTheSameTensorBetweenDevices) {
  at::Tensor param = torch::randn({3, 4}).requires_grad_();
  const c10::TensorImpl* impl = param.unsafeGetTensorImpl();
  const at::Tensor values = at::arange(12, at::kFloat).view({3, 4});
  param.set_data(values.to(npu()));
  ASSERT_EQ(param.unsafeGetTensorImpl(), impl);
  EXPECT_EQ(param.device(), npu());
  EXPECT_TRUE(param.requires_grad());
  expectClose(param.detach(), values, 0, 0);

  (param * param).sum().backward();  // the gradient accumulates on the NPU
  ASSERT_TRUE(param.grad().defined());
  EXPECT_EQ(param.grad().device(), npu());
  expectClose(param.grad(), values * 2, 0, 0);

  param.set_data(param.detach().cpu());
  EXPECT_EQ(param.unsafeGetTensorImpl(), impl);
  EXPECT_EQ(param.device().type(), at::kCPU);
  expectClose(param.detach(), values, 0, 0);
}
