// _pin_memory / is_pinned for the NPU: page-locked host copies that compare
// equal to their source, and fast asynchronous host-to-device copies from them.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

TEST(NpuPinnedMemory, PinnedCopyEqualsTheSourceAndReportsPinned) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kLong, at::kBool}) {
    at::Tensor cpu = at::randn({5, 7}).mul(10).to(dtype);
    EXPECT_FALSE(cpu.is_pinned(npu()));
    at::Tensor pinned = cpu.pin_memory(npu());
    EXPECT_TRUE(pinned.is_cpu());
    EXPECT_TRUE(pinned.is_pinned(npu())) << dtype;
    EXPECT_TRUE(at::equal(pinned, cpu)) << dtype;
    EXPECT_TRUE(pinned.slice(0, 2, 4).is_pinned(npu()));  // a view into the pinned block
    EXPECT_TRUE(at::equal(pinned.pin_memory(npu()), pinned));  // already pinned: the same data
  }
}

TEST(NpuPinnedMemory, StridedAndEmptySourcesKeepTheirLayout) {
  at::Tensor strided = at::arange(24, at::kFloat).reshape({4, 6}).t();
  at::Tensor pinned = strided.pin_memory(npu());
  EXPECT_EQ(pinned.strides(), strided.strides());
  EXPECT_TRUE(at::equal(pinned, strided));
  at::Tensor empty = at::empty({0, 3}).pin_memory(npu());
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(at::zeros({}).pin_memory(npu()).dim(), 0);
}

TEST(NpuPinnedMemory, NonBlockingCopyFromPinnedMemoryIsExact) {
  at::Tensor cpu = at::randn({64, 33});
  at::Tensor pinned = cpu.pin_memory(npu());
  at::Tensor dev = pinned.to(npu(), /*non_blocking=*/true);
  EXPECT_TRUE(at::equal(dev.cpu(), cpu));
}

TEST(NpuPinnedMemory, DeviceTensorsAreNotPinnedAndCannotBePinned) {
  at::Tensor dev = at::ones({3}).to(npu());
  EXPECT_FALSE(dev.is_pinned(npu()));
  EXPECT_THROW(at::_pin_memory(dev, npu()), c10::Error);
}
