// Copies in every direction, with strides, broadcasting and dtype changes.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

TEST(NpuCopy, HostToDeviceAndBackIsExact) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong, at::kBool}) {
    at::Tensor cpu = at::randn({7, 13}).mul(10).to(dtype);
    at::Tensor dev = cpu.to(npu());
    EXPECT_EQ(dev.device(), npu());
    EXPECT_TRUE(at::equal(dev.cpu(), cpu)) << dtype;
  }
}

TEST(NpuCopy, NonContiguousSourcesOnDevice) {
  at::Tensor cpu = at::randn({5, 6, 7});
  at::Tensor dev = cpu.to(npu());
  expectClose(dev.transpose(0, 2).contiguous(), cpu.transpose(0, 2).contiguous(), 0, 0);
  expectClose(dev.permute({1, 2, 0}).contiguous(), cpu.permute({1, 2, 0}).contiguous(), 0, 0);
  expectClose(dev.slice(1, 1, 5, 2), cpu.slice(1, 1, 5, 2), 0, 0);
  expectClose(dev.select(2, 3).t(), cpu.select(2, 3).t(), 0, 0);
}

TEST(NpuCopy, IntoNonContiguousDestination) {
  at::Tensor cpu = at::zeros({4, 6});
  at::Tensor dev = cpu.to(npu());
  at::Tensor src = at::arange(8, at::kFloat).reshape({2, 4});
  cpu.slice(1, 0, 6, 3).copy_(src.t());
  dev.slice(1, 0, 6, 3).copy_(src.t().to(npu()));
  expectClose(dev, cpu, 0, 0);
  dev.t().copy_(at::ones({6, 4}));  // host source into a transposed device view
  expectClose(dev, at::ones({4, 6}), 0, 0);
}

TEST(NpuCopy, DtypeChangingCopies) {
  at::Tensor cpu = at::randn({3, 17}).mul(100);
  at::Tensor dev = cpu.to(npu());
  expectClose(dev.to(at::kHalf), cpu.to(at::kHalf), 0, 0);
  expectClose(dev.to(at::kInt), cpu.to(at::kInt), 0, 0);
  expectClose(dev.to(at::kLong).to(at::kFloat), cpu.to(at::kLong).to(at::kFloat), 0, 0);
  expectClose(dev.to(at::kBool), cpu.to(at::kBool), 0, 0);
  expectClose(dev.t().to(at::kHalf), cpu.t().to(at::kHalf), 0, 0);
  at::Tensor host_half = at::empty({17, 3}, at::kHalf);
  host_half.copy_(dev.t());
  expectClose(host_half, cpu.t().to(at::kHalf), 0, 0);
}

TEST(NpuCopy, BroadcastingCopy) {
  at::Tensor dev = at::empty({3, 4}, at::TensorOptions().device(npu()));
  dev.copy_(at::arange(4, at::kFloat).to(npu()));
  expectClose(dev, at::arange(4, at::kFloat).expand({3, 4}).contiguous(), 0, 0);
}

TEST(NpuCopy, ZeroSizedTensors) {
  at::Tensor dev = at::empty({0, 3}, at::TensorOptions().device(npu()));
  EXPECT_EQ(dev.cpu().numel(), 0);
  dev.copy_(at::empty({0, 3}));
}

TEST(NpuCopy, CloneAndInPlaceAfterCopyDoNotAlias) {
  at::Tensor cpu = at::ones({8});
  at::Tensor dev = cpu.to(npu());
  cpu.fill_(5);  // the H2D copy must have snapshotted the host data
  expectClose(dev, at::ones({8}), 0, 0);
  at::Tensor c = dev.clone();
  dev.fill_(2);
  expectClose(c, at::ones({8}), 0, 0);
}
