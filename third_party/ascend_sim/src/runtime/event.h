// A simulated event: marks a point in a stream's task list and carries the
// stream's simulated time at that point.
//
// Note [Event records and waits]
// Like CUDA events: every aclrtRecordEvent gets a sequence number at submit
// time; its task, when the stream reaches it, completes that sequence and
// stores the stream clock. A wait (aclrtStreamWaitEvent) targets the latest
// record submitted before the wait call and raises the waiting stream's clock
// to the event's time; waiting on a never-recorded event is a no-op. Query /
// synchronize look at the latest record submitted before the call.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

namespace ascend_sim {

class Stream;

class Event {
 public:
  explicit Event(int device) : device_(device) {}

  // Reserves the next record sequence number for a record on `stream`.
  uint64_t beginRecord(const std::shared_ptr<Stream>& stream);
  // Called by the record task on the stream's worker.
  void complete(uint64_t seq, double time_us);
  uint64_t recordedSeq() const;
  void waitFor(uint64_t seq) const;
  bool completed() const;  // all records so far have executed (true if never recorded)
  // Time of the latest completed record; false if never recorded or a record is pending.
  bool timeIfComplete(double* time_us) const;
  double latestTimeUs() const;
  std::shared_ptr<Stream> lastStream() const;
  int device() const { return device_; }

 private:
  const int device_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  uint64_t recorded_ = 0;
  uint64_t completed_ = 0;
  double time_us_ = 0;
  std::weak_ptr<Stream> last_stream_;
};

}  // namespace ascend_sim
