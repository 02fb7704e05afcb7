// Memory history of the NPU caching allocator: who allocated each block, and a trace of every
// allocation, free and segment. See Note [Memory history].
#pragma once

#include <c10/core/Stream.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace torch_npu {
namespace allocator {

// A Python function's code: its file and name (kept for the life of the process).
struct CodeInfo {
  std::string filename;
  std::string name;
};

struct StackFrame {
  const CodeInfo* code;
  int line;
};

// The Python stack of an allocation, innermost frame first.
struct AllocationContext {
  std::vector<StackFrame> frames;
};
using ContextPtr = std::shared_ptr<const AllocationContext>;

// Gathers the calling thread's Python stack; installed by the Python bindings (the core layer knows
// no Python). Called before the allocator takes its lock (it takes the GIL).
using ContextRecorder = ContextPtr (*)();
void setContextRecorder(ContextRecorder recorder);
ContextPtr recordContext();  // nullptr without a recorder

// One allocation that lived (or lives) in a block's address range.
struct HistoryEntry {
  uintptr_t addr = 0;
  size_t real_size = 0;  // bytes requested
  ContextPtr context;
};

// Note [Memory history]
// With history recording on (torch.npu.memory._record_memory_history), every allocation carries
// the Python stack that made it. A block keeps the allocations that used its address range, newest
// first and pairwise disjoint: a new allocation drops the older ones it overlaps; splitting a block
// hands each part the entries inside it (one that straddles the cut is dropped); merging
// concatenates. So a snapshot shows, for a live block, who holds it and, for a free one, who last
// used its memory, and the entries' sizes never add up to more than the block (torch's
// _memory_viz counts the rest as <gaps>). The device's trace records every allocation, free
// request, completed free (after the streams that used the block) and segment map/unmap with the
// allocated and reserved totals after it, in a ring of max_entries: the memory timeline of the
// HTML report. Recording off costs one relaxed atomic load per malloc and free.
void addAllocation(std::vector<HistoryEntry>& history, HistoryEntry entry);
// Moves the entries at or above `cut` from `from` to `to` (an entry across `cut` is dropped).
void splitHistory(std::vector<HistoryEntry>& from, std::vector<HistoryEntry>& to, uintptr_t cut);
void mergeHistory(std::vector<HistoryEntry>& into, std::vector<HistoryEntry>& from);

enum class TraceAction {
  kAlloc,
  kFreeRequested,
  kFreeCompleted,
  kSegmentAlloc,
  kSegmentFree,
  kSegmentMap,
  kSegmentUnmap,
  kOom,  // addr 0, size: the request that failed
};
const char* traceActionName(TraceAction action);  // torch's names: "alloc", "free_requested", ...

struct TraceEntry {
  TraceAction action;
  uintptr_t addr;
  size_t size;
  c10::StreamId stream;
  int64_t time_us;          // host clock (the profiler's), microseconds
  int64_t allocated_bytes;  // the device's totals after the event
  int64_t reserved_bytes;
  ContextPtr context;
};

class AllocationTrace {
 public:
  void setMaxEntries(size_t n);
  void record(TraceEntry entry);
  void clear() { entries_.clear(); }
  const std::deque<TraceEntry>& entries() const { return entries_; }

 private:
  size_t max_entries_ = 0;
  std::deque<TraceEntry> entries_;
};

int64_t traceClockUs();

}  // namespace allocator
}  // namespace torch_npu
