// Host thread pool that runs the simulated AI cores' work in parallel.
//
// Note [Simulated cores on host threads]
// A kernel splits its work into `blocks` tasks, one per simulated core (the
// block dim of the launch). parallelFor runs them on a process-wide pool of
// std::thread::hardware_concurrency() workers; the calling thread (a stream
// worker) takes part too. Every task writes a disjoint set of output elements
// and computes each of them in a fixed order, so results never depend on how
// many host threads there are or which thread ran which task.
// The pool is created at first use and deliberately leaked: stream workers may
// still be running kernels while static destructors run at process exit, and
// joining threads from a static destructor can deadlock.
// Nested calls (a task calling parallelFor) and a thread limit of 1 run the
// tasks inline, in order. The first exception thrown by a task is rethrown
// on the caller after all tasks finished.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "ascend_sim/acl.h"

namespace ascend_sim {

// Runs fn(0), ..., fn(tasks - 1), possibly concurrently; returns when all are done.
ASCEND_SIM_API void parallelFor(int64_t tasks, const std::function<void(int64_t)>& fn);

// Note [Small launches stay on the caller]
// Handing tasks to a pool worker costs a futex wake and, when the worker was
// asleep, a context switch on both sides: several microseconds, more than a
// small kernel's whole work (an LSTM step's elementwise ops have 2-8 K
// elements). A kernel that knows its size passes `elements`; below
// kMinParallelElements the tasks run on the caller, in order. Results do not
// change: tasks are independent by contract.
// The small case calls fn directly: no std::function is made for it.
constexpr int64_t kMinParallelElements = 16384;
template <typename Fn>
void parallelFor(int64_t tasks, int64_t elements, Fn&& fn) {
  if (elements >= kMinParallelElements) return parallelFor(tasks, std::function<void(int64_t)>(std::ref(fn)));
  for (int64_t i = 0; i < tasks; ++i) fn(i);
}

// Host threads parallelFor may use (including the caller).
ASCEND_SIM_API int hostThreadCount();

// Test knob: use at most `n` host threads (1 = run everything inline on the
// caller; 0 = all). Results must be identical for every setting.
ASCEND_SIM_API void setHostThreadLimitForTesting(int n);

}  // namespace ascend_sim
