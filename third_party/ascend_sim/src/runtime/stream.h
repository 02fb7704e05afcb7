// A simulated stream: an ordered task queue executed by one worker thread,
// with a simulated clock.
//
// Note [Stream execution and faults]
// submit() appends a typed Task under the mutex; the worker (started lazily
// at the first submit) pops tasks in order and runs them. Task::run does the
// work and returns its simulated duration; the worker then sets
// start = clock, clock += duration (an event-wait task first raises the clock
// to the event's time). A task that throws does not stop the stream: the
// first fault is kept (code ACL_ERROR_RT_AICORE_EXCEPTION, message naming the
// task) until a synchronize takes it; later tasks still run.
// waitIdle() waits for the tasks submitted before the call. The destructor
// drains the queue and joins the worker.
// The stream also remembers the message of the first task that failed since
// its last event-record task; the next record task takes it into the event
// record, see Note [Failures travel through events] in event.h.
//
// Note [Ops run on the submitting thread of an idle stream]
// Handing every op to the worker costs a futex wake and a context switch on
// each side, several microseconds per op on a two-core host: more than a small
// op's whole kernel. So a task marked `may_run_on_submitter` (aclopExecuteV2's
// ops) that is submitted while the stream is idle (nothing queued, nothing
// running) runs right away on the submitting thread, through the same
// runTask() as on the worker. Nothing observable changes: the stream's order
// holds (nothing of it was pending, and later submits queue behind the running
// task until it ends), a failing op is still recorded as the stream's fault
// and reported by the next synchronize rather than by the launch, the clock
// and the task record are the same, and the thread counts as the stream's
// worker while the op runs (a synchronize from inside it is refused). What
// changes is host overlap: the submitter returns when the op is done. With
// torch_npu's task queue on (the default) the submitter is the queue's own
// thread, so Python still runs ahead; with it off a big op blocks the
// launching thread for its host time, which is small against the op itself.
// Only ops opt in: copies, callbacks, event waits and collectives, which can
// block on other streams or ranks, always go to the worker.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ascend_sim/acl.h"
#include "runtime/task_recorder.h"
#include "runtime/utilization.h"

namespace ascend_sim {

class Stream;
struct CapturedModel;

struct Task {
  TaskKind kind = TaskKind::kOp;
  std::string name;                    // op type or "MemcpyH2D", "EventRecord", ...
  std::function<double(Stream&)> run;  // does the work; returns simulated duration [us]
  // Optional: runs once the task counts as completed (so whoever it wakes,
  // e.g. an event synchronize, sees the stream's completion count include it).
  // Receives the stream's simulated clock at the end of the task.
  std::function<void(double end_us)> on_complete = nullptr;
  // Optional profiling fields copied into the task's record.
  std::shared_ptr<const TaskDetail> detail = nullptr;
  double bytes = 0;  // copies / memsets: HBM bytes moved
  HostTag host = {};  // set by submit (Note [Host tags])
  // Runs on the submitting thread when the stream is idle (Note [Ops run on
  // the submitting thread of an idle stream]). Only for tasks that never wait.
  bool may_run_on_submitter = false;
  // The task records the tasks it runs itself (a model replay, Note [Model capture]): its own record
  // is a zero-length marker at its start, so that summing records counts its time once.
  bool records_nested = false;
};

struct StreamFault {
  aclError code = ACL_SUCCESS;
  std::string message;
};

class Stream {
 public:
  Stream(int device, int id, TaskRecorder* recorder, UtilizationMeter* utilization = nullptr);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void submit(Task task);
  // Blocks until every task submitted before the call has finished. Throws
  // AclError if called from this stream's own worker (it would deadlock).
  void waitIdle();
  bool idle() const;
  // Moves the pending fault (if any) into *out and clears it.
  bool takeFault(StreamFault* out);
  // The message of the first task that failed since the previous call ("" if
  // none), and forgets it. Called by event-record tasks on the worker.
  std::string takeFailureSinceRecord();

  double clockUs() const;
  // Raises the clock to at least t_us (event waits).
  void raiseClockTo(double t_us);
  // Accounts work done on the host thread while the stream is idle (sync
  // copies): start = max(clock, not_before_us); clock = start + duration.
  void accountHostTask(TaskKind kind, const std::string& name, double not_before_us, double duration_us,
                       double bytes = 0);
  void resetClock();

  // Model capture (Note [Model capture] in runtime/model_capture.h). While a model is set, submit()
  // keeps capturable tasks in it and refuses the others.
  void beginCapture(std::shared_ptr<CapturedModel> model);
  std::shared_ptr<CapturedModel> endCapture();
  std::shared_ptr<CapturedModel> capture() const;
  // Marks the capture invalid (its end then fails), naming the refused call.
  void invalidateCapture(const std::string& reason);
  // Records (and meters) a task that a model replay ran inside its own task, at its own start.
  void recordNested(const Task& task, const HostTag& launch, double start_us, double duration_us, double wall_s);

  int device() const { return device_; }
  int id() const { return id_; }
  // True on any stream worker thread.
  static bool onWorkerThread();

 private:
  void workerLoop();
  // Runs a task popped from (or bypassing) the queue, on the worker or the
  // submitter, and completes it: clock, record, fault, on_complete, waiters.
  void runTask(Task& task);

  const int device_;
  const int id_;
  TaskRecorder* recorder_;
  UtilizationMeter* utilization_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // queue non-empty or stopping
  std::condition_variable done_cv_;  // a task finished
  std::deque<Task> queue_;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  bool running_ = false;  // a task is executing (on the worker or its submitter)
  double clock_us_ = 0;
  bool stopping_ = false;
  StreamFault fault_;
  bool has_fault_ = false;
  std::string failure_since_record_;
  std::shared_ptr<CapturedModel> capture_;  // set while capturing
  std::thread worker_;
};

}  // namespace ascend_sim
