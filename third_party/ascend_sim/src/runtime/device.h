// One simulated NPU: its HBM arena, default stream, user streams, simulated
// time and task records. Created lazily by the Runtime; never destroyed
// (aclrtResetDevice empties it instead).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/hbm_arena.h"
#include "runtime/stream.h"
#include "runtime/task_recorder.h"
#include "runtime/utilization.h"

namespace ascend_sim {

class Device {
 public:
  Device(int logical_id, int physical_id, size_t hbm_capacity, bool profile);

  int id() const { return id_; }
  int physicalId() const { return physical_id_; }

  // The arena, created at first use (capacity fixed at creation).
  HbmArena& arena();
  HbmArena* arenaIfCreated();
  // Capacity used the next time the arena is created (tests).
  void setHbmCapacity(size_t bytes);

  std::shared_ptr<Stream> defaultStream();
  std::shared_ptr<Stream> createStream();
  void removeStream(const std::shared_ptr<Stream>& s);
  // Default stream first, then user streams.
  std::vector<std::shared_ptr<Stream>> streams();

  // Waits for every stream (faults stay pending).
  void waitIdle();
  // Takes the pending faults of all streams; returns the first one (if any).
  bool takeFault(StreamFault* out);
  // Streams capturing a model in ACL_MODEL_RI_CAPTURE_MODE_GLOBAL (Note [Model capture]).
  int globalCaptures() const { return global_captures_.load(); }
  void addGlobalCaptures(int delta) { global_captures_.fetch_add(delta); }
  // Max simulated clock over the streams [us].
  double simTimeUs();

  // Drains, destroys user streams, frees all memory, clears clocks/records.
  void reset();

  TaskRecorder& recorder() { return recorder_; }
  UtilizationMeter& utilization() { return utilization_; }

  // Sticky fp16 overflow flag (saturation mode; docs/simulator.md §3). Set by op
  // tasks, read/cleared by tasks of aclrtGetOverflowStatus/ResetOverflowStatus.
  void raiseOverflow() { overflow_.store(true); }
  bool overflow() const { return overflow_.load(); }
  void clearOverflow() { overflow_.store(false); }

 private:
  const int id_;
  const int physical_id_;
  std::mutex mu_;
  size_t hbm_capacity_;
  std::unique_ptr<HbmArena> arena_;
  std::shared_ptr<Stream> default_stream_;
  std::vector<std::shared_ptr<Stream>> user_streams_;
  int next_stream_id_ = 1;
  TaskRecorder recorder_;
  UtilizationMeter utilization_;
  std::atomic<bool> overflow_{false};
  std::atomic<int> global_captures_{0};
};

}  // namespace ascend_sim
