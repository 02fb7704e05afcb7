// NPU graphs (Note [NPU graphs]) and their memory pools (Note [Graph memory pools]): a captured region
// replays on new input values, its memory is kept from other work, and a capture refuses what it
// cannot replay.
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUGraph.h"
#include "csrc/core/NPUStream.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)
using torch_npu::allocator::getDeviceStats;
using torch_npu::allocator::kAggregate;

namespace {

int64_t reservedBytes() { return getDeviceStats(0).reserved_bytes[kAggregate].current; }

// Makes a pool stream current for the scope, and the default one again after it.
class OnSideStream {
 public:
  OnSideStream() : stream_(torch_npu::getStreamFromPool(0)) { torch_npu::setCurrentNPUStream(stream_); }
  ~OnSideStream() { torch_npu::setCurrentNPUStream(torch_npu::getDefaultNPUStream(0)); }
  const torch_npu::NPUStream& stream() const { return stream_; }

 private:
  torch_npu::NPUStream stream_;
};

}  // namespace

TEST(NpuGraph, ReplayRecomputesFromTheCapturedInputs) {
  at::Tensor x = at::zeros({16, 8}, at::TensorOptions().device(npu()));
  at::Tensor w = at::randn({8, 4}).to(npu());
  at::Tensor y;
  torch_npu::NPUGraph graph;
  {
    OnSideStream side;
    graph.capture_begin();
    y = at::relu(at::matmul(x, w) * 3 - 1);
    graph.capture_end();
  }
  EXPECT_GE(graph.task_count(), 3u);
  for (int i = 0; i < 3; ++i) {
    at::Tensor data = at::randn({16, 8});
    x.copy_(data.to(npu()));
    graph.replay();
    expectClose(y.cpu(), at::relu(at::matmul(data, w.cpu()) * 3 - 1), 1e-5, 1e-5);
  }
}

TEST(NpuGraph, ThePoolKeepsCapturedMemoryUntilReset) {
  torch_npu::synchronize(0);
  torch_npu::allocator::emptyCache();
  const int64_t before = reservedBytes();
  at::Tensor x = at::randn({1000}).to(npu());
  void* temporary = nullptr;
  at::Tensor y;
  auto graph = std::make_unique<torch_npu::NPUGraph>();
  {
    OnSideStream side;
    graph->capture_begin();
    {
      at::Tensor t = x * 2;
      temporary = t.data_ptr();
      y = t + 1;
    }  // a temporary freed inside the capture...
    {
      at::Tensor u = x * 5;
      EXPECT_EQ(u.data_ptr(), temporary);  // ...serves the capture's next request of its size
      y.add_(u);
    }
    graph->capture_end();
    // Eager work on the same stream after the capture is not given the graph's freed memory.
    at::Tensor eager = at::empty({1000}, at::TensorOptions().device(npu()));
    EXPECT_NE(eager.data_ptr(), temporary);
  }
  graph->replay();
  expectClose(y.cpu(), x.cpu() * 7 + 1, 1e-5, 1e-5);
  y.reset();
  graph.reset();  // the pool is dead; empty_cache returns it
  torch_npu::allocator::emptyCache();
  x.reset();
  torch_npu::allocator::emptyCache();
  EXPECT_EQ(reservedBytes(), before);
}

TEST(NpuGraph, CaptureRefusesTheDefaultStreamAndWorkItCannotReplay) {
  torch_npu::NPUGraph graph;
  EXPECT_THROW(graph.capture_begin(), c10::Error);  // the default stream
  at::Tensor x = at::ones({4}, at::TensorOptions().device(npu()));
  OnSideStream side;
  graph.capture_begin();
  EXPECT_TRUE(torch_npu::streamIsCapturing(side.stream().handle()));
  EXPECT_TRUE(torch_npu::deviceIsCapturing(0));
  x.mul_(2);
  try {
    x.cpu();
    ADD_FAILURE() << "a copy to the host during a capture must raise";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("A copy between host and NPU memory is not permitted"), std::string::npos)
        << e.what();
  }
  try {
    graph.capture_end();
    ADD_FAILURE() << "the capture must be invalidated";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalidated by A copy between host and NPU memory"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(torch_npu::deviceIsCapturing(0));
  EXPECT_THROW(graph.replay(), c10::Error);
  expectClose(x.cpu(), at::ones({4}), 0, 0);  // the captured mul_ never ran
}
