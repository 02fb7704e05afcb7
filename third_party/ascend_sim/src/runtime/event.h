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
//
// Note [Failures travel through events]
// A stream remembers the first task that failed since its previous record
// (Stream::takeFailureSinceRecord); the record task moves that message into
// its event record. A wait task (aclrtStreamWaitEvent) whose record carries
// a failure throws "waited on an event recorded after a failed task: <msg>",
// so the waiting stream gets a fault of its own (and passes it on to its own
// next record): consumers of a failed collective's or kernel's output never
// read garbage silently. aclrtSynchronizeEvent reports such a record too.
// Failures are kept per record sequence number (only failed records take
// memory), so a later clean record of the same event is clean. A fault the
// host has taken (synchronize) no longer taints the stream's later records:
// after the exception the device is usable again.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ascend_sim {

class Stream;

class Event {
 public:
  explicit Event(int device) : device_(device) {}

  // Reserves the next record sequence number for a record on `stream`.
  uint64_t beginRecord(const std::shared_ptr<Stream>& stream);
  // Called by the record task on the stream's worker; `failure` is the
  // message of a task that failed before the record ("" if none).
  void complete(uint64_t seq, double time_us, std::string failure = {});
  // The failure carried by record `seq` ("" if none).
  std::string failureOf(uint64_t seq) const;
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
  std::map<uint64_t, std::string> failures_;  // record seq -> failure (failed records only)
};

}  // namespace ascend_sim
