// NPU graphs: torch.npu.NPUGraph, the torch.cuda.CUDAGraph interface over the simulator's model
// capture (aclmdlRI*).
//
// Note [NPU graphs]
// capture_begin makes the current (non-default) stream capture a model: the task queue is drained
// so that nothing launched before the capture joins it, the caching allocator serves the stream
// from the graph's memory pool (Note [Graph memory pools]), and the simulator keeps what the
// stream is given instead of running it (Note [Model capture]). The ops of the captured region are
// dispatched as usual (every host step runs once, at capture time) and reach the model through the
// task queue. capture_end drains the queue again and ends the capture; a call during the capture
// that the capture forbids (a synchronize, a host copy, .item(), an event) has already failed with
// the simulator's reason, and capture_end then fails too, naming it. replay() is one task-queue
// entry: aclmdlRIExecuteAsync on the current stream, so a replay costs one hand-off however many
// ops the graph holds, and it orders with the eager work around it as any op does.
// Random ops are refused during a capture: their Philox (seed, offset) is an attribute fixed at
// launch, so a replay would draw the same numbers every time (CUDA graphs advance the offset per
// replay through a device tensor; the simulated kernels have no such input).
#pragma once

#include <cstdint>

#include <c10/core/Device.h>

#include "ascend_sim/acl.h"
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUStream.h"

namespace torch_npu {

class NPUGraph {
 public:
  NPUGraph();
  ~NPUGraph();
  NPUGraph(const NPUGraph&) = delete;
  NPUGraph& operator=(const NPUGraph&) = delete;

  // pool: share the memory pool of another graph or of graph_pool_handle(); {0, 0}: a pool of its own.
  void capture_begin(allocator::MempoolId pool = {0, 0});
  void capture_end();
  void replay();
  void reset();
  // Ends a capture under way and drops the graph, whatever fails on the way (an error leaving a
  // `with torch.npu.graph(...)` block: that error is the one to report).
  void abort_capture();
  allocator::MempoolId pool() const;
  // The number of device tasks the captured model holds.
  size_t task_count() const;

 private:
  void finishCapture();

  const uint64_t id_;
  c10::DeviceIndex device_ = -1;
  c10::StreamId capture_stream_ = 0;
  aclrtStream capture_handle_ = nullptr;
  allocator::MempoolId mempool_id_{0, 0};
  aclmdlRI model_ = nullptr;
  bool capturing_ = false;
  bool has_graph_ = false;
};

// A new pool id for graphs to share (torch.npu.graph_pool_handle()).
allocator::MempoolId graphPoolHandle();
// Whether `stream` is capturing, and whether any stream of `device` is (cheap when none is).
bool streamIsCapturing(aclrtStream stream);
bool deviceIsCapturing(c10::DeviceIndex device);
// Raises "<what> is not permitted while ... captures an NPU graph" if a stream of `device` captures
// (or, with `stream`, if that stream does), after invalidating those captures as the simulator
// does for the calls it refuses itself: what the host refused must not silently miss from a graph.
void refuseDuringCapture(c10::DeviceIndex device, const char* what, aclrtStream stream = nullptr);

}  // namespace torch_npu
