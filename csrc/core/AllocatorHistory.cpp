#include "csrc/core/AllocatorHistory.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>

namespace torch_npu {
namespace allocator {

namespace {
std::atomic<ContextRecorder>& recorderSlot() {
  static std::atomic<ContextRecorder> slot{nullptr};
  return slot;
}
}  // namespace

void setContextRecorder(ContextRecorder recorder) { recorderSlot().store(recorder); }

ContextPtr recordContext() {
  const ContextRecorder recorder = recorderSlot().load();
  return recorder ? recorder() : nullptr;
}

void addAllocation(std::vector<HistoryEntry>& history, HistoryEntry entry) {
  const uintptr_t begin = entry.addr;
  const uintptr_t end = entry.addr + entry.real_size;
  history.erase(std::remove_if(history.begin(), history.end(),
                               [&](const HistoryEntry& h) { return h.addr < end && begin < h.addr + h.real_size; }),
                history.end());
  history.insert(history.begin(), std::move(entry));
}

void splitHistory(std::vector<HistoryEntry>& from, std::vector<HistoryEntry>& to, uintptr_t cut) {
  std::vector<HistoryEntry> kept;
  for (HistoryEntry& h : from) {
    if (h.addr >= cut) {
      to.push_back(std::move(h));
    } else if (h.addr + h.real_size <= cut) {
      kept.push_back(std::move(h));
    }  // across the cut: neither part holds it whole
  }
  from = std::move(kept);
}

void mergeHistory(std::vector<HistoryEntry>& into, std::vector<HistoryEntry>& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

const char* traceActionName(TraceAction action) {
  switch (action) {
    case TraceAction::kAlloc: return "alloc";
    case TraceAction::kFreeRequested: return "free_requested";
    case TraceAction::kFreeCompleted: return "free_completed";
    case TraceAction::kSegmentAlloc: return "segment_alloc";
    case TraceAction::kSegmentFree: return "segment_free";
    case TraceAction::kSegmentMap: return "segment_map";
    case TraceAction::kSegmentUnmap: return "segment_unmap";
    case TraceAction::kOom: return "oom";
  }
  return "unknown";
}

void AllocationTrace::setMaxEntries(size_t n) {
  max_entries_ = n;
  while (entries_.size() > max_entries_) entries_.pop_front();
}

void AllocationTrace::record(TraceEntry entry) {
  if (max_entries_ == 0) return;
  if (entries_.size() == max_entries_) entries_.pop_front();
  entries_.push_back(std::move(entry));
}

int64_t traceClockUs() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();  // the profiler's clock
  return std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count();
}

}  // namespace allocator
}  // namespace torch_npu
