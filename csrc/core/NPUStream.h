// NPU streams as c10::Stream values.
//
// Note [NPU stream ids]
// A c10::Stream on PrivateUse1 carries a StreamId. Id 0 is the device's
// default stream; ids 1..kStreamsPerPool name the streams of a lazily created
// per-device pool, handed out round robin by getStreamFromPool() (as
// c10/cuda does). Every id maps to one simulator stream (aclrtStream),
// created on first use and never destroyed (deliberately leaked: work may be
// queued until process exit). The current stream is per host thread and per
// device, and defaults to the default stream.
#pragma once

#include <c10/core/Stream.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

constexpr int kStreamsPerPool = 8;  // streams per device besides the default one

class NPUStream {
 public:
  explicit NPUStream(c10::Stream stream);

  c10::Stream unwrap() const { return stream_; }
  c10::DeviceIndex device_index() const { return stream_.device_index(); }
  c10::Device device() const { return stream_.device(); }
  c10::StreamId id() const { return stream_.id(); }
  // The simulator's handle of this stream.
  aclrtStream handle() const;
  // torch_npu's name for the handle, for ACL runtime calls of one's own (an Ascend C launch, a copy).
  // With need_empty (the default, as in torch_npu) it first hands every launch queued on the device
  // to the simulator (Note [Task queue]), so that such a call runs after them; stream(false) skips
  // that, for a call made from a task of the queue itself (OpCommand::SetCustomHandler).
  aclrtStream stream(bool need_empty = true) const;
  // True if all work submitted to the stream (queued ops included) finished.
  bool query() const;
  // Waits for the stream (and the task queue feeding it).
  void synchronize() const;

  bool operator==(const NPUStream& other) const { return stream_ == other.stream_; }
  bool operator!=(const NPUStream& other) const { return !(*this == other); }

 private:
  c10::Stream stream_;
};

NPUStream getDefaultNPUStream(c10::DeviceIndex device = -1);
NPUStream getCurrentNPUStream(c10::DeviceIndex device = -1);
// getCurrentNPUStream(device).handle() for a valid `device`, without building an NPUStream: every
// op launch asks for it.
aclrtStream currentStreamHandle(c10::DeviceIndex device);
NPUStream getStreamFromPool(c10::DeviceIndex device = -1);
// Makes `stream` current for its device on the calling thread.
void setCurrentNPUStream(NPUStream stream);

// Note [Streams of the autograd engine's NPU threads]
// torch 1.13's autograd engine puts a backward node on the stream its forward ran on for CUDA only;
// the NPU's nodes run on the engine's NPU worker thread, whose current stream would be the default
// one. A forward run under `with torch.npu.stream(s)` would then have its backward on the default
// stream, unordered with the forward that produced its inputs, and a graph capture of a backward
// pass (make_graphed_callables) would capture nothing. So torch_npu's torch.autograd.backward and
// .grad (torch_npu/_patches/autograd_streams.py) publish the calling thread's current NPU streams
// in its thread-local debug info for the call. The engine carries that state to its worker for
// every node of this backward (and of no other), so concurrent and nested backward calls each see
// their own caller's streams, and no other thread sees them. A thread uses the published stream of
// a device for which it has not chosen one itself. Eager single-stream code is unaffected: both
// are the default stream. The two calls nest like a stack, on the calling thread.
void publishBackwardStreams();
void unpublishBackwardStreams();

}  // namespace torch_npu
