// _has_compatible_shallow_copy_type and set_data between CPU and NPU tensors (Note [Parameters keep
// their identity across devices] in csrc/aten/common/ShallowCopyType.cpp): the NPU counts as a dense
// backend, PyTorch's answers for every other pair are unchanged, and set_data moves the data of
// the same TensorImpl, values and autograd meta included.
#include <torch/torch.h>

#include "csrc/framework/StorageResize.h"
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

// set_.source_Tensor: the tensor becomes a view of the source's storage, as on the CPU.
TEST(SetSourceTensor, ViewsTheSourcesStorageLikeTheCpu) {
  const at::Tensor values = at::arange(24, at::kFloat).view({4, 6});
  for (const auto& make_source : std::vector<std::function<at::Tensor(const at::Tensor&)>>{
           [](const at::Tensor& t) { return t; },
           [](const at::Tensor& t) { return t.t(); },
           [](const at::Tensor& t) { return t.narrow(1, 2, 3); },
           [](const at::Tensor& t) { return t.reshape({-1}).narrow(0, 0, 0); }}) {
    const at::Tensor cpu_source = make_source(values);
    const at::Tensor npu_source = make_source(values.to(npu()));
    at::Tensor on_cpu = at::empty({0});
    at::Tensor on_npu = at::empty({0}, at::TensorOptions().device(npu()));
    on_cpu.set_(cpu_source);
    on_npu.set_(npu_source);
    EXPECT_EQ(on_npu.sizes(), on_cpu.sizes());
    EXPECT_EQ(on_npu.strides(), on_cpu.strides());
    EXPECT_EQ(on_npu.storage_offset(), on_cpu.storage_offset());
    EXPECT_TRUE(on_npu.is_set_to(npu_source));
    EXPECT_FALSE(on_npu.is_set_to(npu_source.clone()));
    expectClose(on_npu, on_cpu, 0, 0);
  }
  at::Tensor target = at::zeros({2}, at::TensorOptions().device(npu()));
  const at::Tensor source = at::ones({3}, at::TensorOptions().device(npu()));
  target.set_(source);
  source.add_(1);  // one storage: the change shows through
  expectClose(target, at::full({3}, 2.0f), 0, 0);
  EXPECT_THROW(target.set_(at::ones({3}, at::TensorOptions().device(npu()).dtype(at::kInt))), c10::Error);
}

// UntypedStorage.resize_ on the NPU (resizeStorageBytes): keeps the leading bytes, frees with 0.
TEST(StorageResize, GrowsShrinksAndFreesKeepingTheLeadingBytes) {
  at::Tensor t = at::arange(8, at::kFloat).to(npu());
  c10::StorageImpl* storage = t.storage().unsafeGetStorageImpl();
  torch_npu::resizeStorageBytes(storage, 16 * sizeof(float));
  EXPECT_EQ(storage->nbytes(), 16 * sizeof(float));
  expectClose(t, at::arange(8, at::kFloat), 0, 0);  // same view, same first 8 values
  torch_npu::resizeStorageBytes(storage, 0);
  EXPECT_EQ(storage->nbytes(), 0u);
  EXPECT_EQ(storage->data(), nullptr);
  EXPECT_EQ(t.storage().device(), npu());
  torch_npu::resizeStorageBytes(storage, 4 * sizeof(float));
  at::Tensor again = at::empty({0}, at::TensorOptions().device(npu())).set_(t.storage(), 0, {4}, {1});
  again.fill_(3);
  expectClose(again, at::full({4}, 3.0f), 0, 0);
}
