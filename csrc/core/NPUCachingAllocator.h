// The NPU caching allocator (PrivateUse1's c10::Allocator).
// See Note [Caching allocator policy] in NPUCachingAllocator.cpp.
#pragma once

#include <c10/core/Storage.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/Allocator.h>

#include "csrc/core/AllocatorHistory.h"
#include "csrc/core/NPUStream.h"

namespace torch_npu {
namespace allocator {

// Counters in the layout of torch.cuda.memory_stats().
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
  void increase(int64_t n);
  void decrease(int64_t n);
  void reset_peak() { peak = current; }
};

enum StatType : size_t { kAggregate = 0, kSmallPool = 1, kLargePool = 2, kNumStatTypes = 3 };
using StatArray = std::array<Stat, kNumStatTypes>;

struct DeviceStats {
  StatArray allocation;        // number of live allocations
  StatArray segment;           // number of device (aclrtMalloc) segments
  StatArray active;            // active blocks (allocated or awaiting stream uses)
  StatArray inactive_split;    // free blocks that are part of a split segment
  StatArray allocated_bytes;
  StatArray reserved_bytes;
  StatArray active_bytes;
  StatArray inactive_split_bytes;
  StatArray requested_bytes;
  int64_t num_alloc_retries = 0;  // times cached memory was freed to satisfy a request
  int64_t num_ooms = 0;
  // max_split_size_mb (Note [Allocator options]): live allocations and segments of at least that size.
  Stat oversize_allocations;
  Stat oversize_segments;
  int64_t max_split_size = -1;  // bytes; -1 when unset (torch's SIZE_MAX read as int64_t)
};

// torch's block states: "active_allocated", "active_pending_free" (freed, waiting for the streams that
// used it), "inactive" (cached).
enum class BlockState { kActiveAllocated, kActivePendingFree, kInactive };

struct BlockInfo {
  int64_t size = 0;
  int64_t requested_size = 0;
  BlockState state = BlockState::kInactive;
  std::vector<HistoryEntry> history;  // Note [Memory history]
};

struct SegmentInfo {
  int64_t device = 0;
  uintptr_t address = 0;
  int64_t total_size = 0;
  int64_t allocated_size = 0;
  int64_t active_size = 0;
  c10::StreamId stream = 0;
  bool is_large = false;
  bool is_expandable = false;  // part of an expandable segment (Note [Expandable segments])
  std::vector<BlockInfo> blocks;
};

c10::Allocator* get();
// Marks a block as used by `stream` (torch's Tensor.record_stream): its memory
// is not reused until the work queued so far on `stream` has finished.
void recordStream(const c10::DataPtr& ptr, const NPUStream& stream);
// A DataPtr to `owner`'s memory at `byte_offset` that keeps `owner` alive
// (a storage that aliases part of another one: Note [Combined private
// formats] in torch_npu/optim/combined.py). recordStream on it records the
// stream on the owner's block.
c10::DataPtr aliasDataPtr(const c10::Storage& owner, size_t byte_offset);
// Whether allocations and frees are reported to torch's profiler (profile_memory=True); set by
// torch_npu's profiler for the duration of a trace.
void setMemoryReporting(bool enabled);
// Returns all unused cached segments to the device (after waiting for it).
void emptyCache();
// Caps what `device`'s segments may reserve at fraction x capacity (0..1).
void setMemoryFraction(double fraction, c10::DeviceIndex device);
// A block of the cache outside any tensor (torch.npu.caching_allocator_alloc /
// _delete); rawDelete frees it to the cache.
void* rawAlloc(size_t size, c10::DeviceIndex device, c10::StreamId stream);
void rawDelete(void* ptr);
// Graph memory pools (Note [Graph memory pools]). A pool id is CUDA's MempoolId_t: (graph id, 0) for
// a graph's own pool, (0, handle id) for one from torch.npu.graph_pool_handle().
using MempoolId = std::pair<uint64_t, uint64_t>;
// From now until endAllocateToPool, `stream`'s allocations on `device` come from pool `id` (created
// at its first use; a pool already in use gains a user).
void beginAllocateToPool(c10::DeviceIndex device, MempoolId id, c10::StreamId stream);
void endAllocateToPool(c10::DeviceIndex device, MempoolId id, c10::StreamId stream);
// A user of pool `id` is gone (its graph was reset); the last one lets the pool's memory go back
// to the device once no tensor holds any of it.
void releasePool(c10::DeviceIndex device, MempoolId id);
DeviceStats getDeviceStats(c10::DeviceIndex device);
void resetPeakStats(c10::DeviceIndex device);
void resetAccumulatedStats(c10::DeviceIndex device);
std::vector<SegmentInfo> snapshot();
// Note [Memory history]: turns recording on or off for `device` (max_entries: the trace's length; 0
// keeps block histories only), and returns the device's trace so far.
void recordHistory(c10::DeviceIndex device, bool enabled, size_t max_entries);
std::vector<TraceEntry> allocationTrace(c10::DeviceIndex device);
bool anyDeviceRecordsHistory();
// Device capacity and free bytes as the simulator reports them.
std::pair<size_t, size_t> memGetInfo(c10::DeviceIndex device);

}  // namespace allocator
}  // namespace torch_npu
