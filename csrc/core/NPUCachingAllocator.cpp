// Note [Caching allocator policy]
//
// Device memory comes from the simulator in segments (aclrtMalloc) and is
// never handed back on free: freed blocks go to a cache and serve later
// requests, as in PyTorch's CUDA caching allocator.
//  - Request sizes are rounded up to kMinBlockSize.
//  - Requests <= kSmallSize are served from the small pool, whose segments are
//    kSmallBuffer bytes; larger ones from the large pool, whose segments are
//    kLargeBuffer bytes for requests < kMinLargeAlloc and otherwise the request
//    rounded up to kRoundLarge.
//  - A cached block is found best-fit among blocks of the *same stream*; a
//    larger block is split when the remainder is worth keeping, and a freed
//    block merges with free neighbours of its segment.
//  - Stream order makes reuse safe: a block freed after ops were queued on its
//    stream can only be handed to later work of that stream. Tensor
//    .record_stream(s) adds streams; such a block returns to the cache only
//    after an event recorded on every extra stream has completed.
//  - When the device is out of memory, the allocator waits for the device,
//    frees every unused cached segment and tries once more; if that fails it
//    raises an error with the requested, allocated, reserved and capacity
//    numbers.
//  - set_per_process_memory_fraction(f) caps the bytes the segments may
//    reserve at f x capacity: a segment beyond it fails like a device that is
//    out of memory (retry after releasing the cache, then the error, which
//    names the cap).
//  - PYTORCH_NPU_ALLOC_CONF's max_split_size_mb and garbage_collection_threshold
//    change the two rules above as in PyTorch (Note [Allocator options]).
//  - While an NPU graph captures, its stream allocates from the graph's own pool
//    (Note [Graph memory pools]).
#include "csrc/core/NPUCachingAllocator.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <c10/util/irange.h>

#include "csrc/core/AllocatorBlocks.h"
#include "csrc/core/AllocatorConfig.h"
#include "csrc/core/ExpandableSegment.h"
#include "csrc/core/Logging.h"
#include "csrc/core/NPUEvent.h"
#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/RecycledNodes.h"
#include "csrc/core/TaskQueue.h"
#include "csrc/core/TestMutations.h"

namespace torch_npu {
namespace allocator {

void Stat::increase(int64_t n) {
  current += n;
  peak = std::max(peak, current);
  allocated += n;
}
void Stat::decrease(int64_t n) {
  current -= n;
  freed += n;
}

namespace {

using detail::ActiveBlocks;
using detail::Block;
using detail::BlockPool;
using detail::PrivatePool;

constexpr size_t kMinBlockSize = 512;        // bytes; every size is rounded up to this
constexpr size_t kSmallSize = 1048576;       // bytes; largest "small" request
constexpr size_t kSmallBuffer = 2097152;     // bytes; segment size of the small pool
constexpr size_t kLargeBuffer = 20971520;    // bytes; segment size for medium requests
constexpr size_t kMinLargeAlloc = 10485760;  // bytes; from here a request gets its own segment
constexpr size_t kRoundLarge = 2097152;      // bytes; own segments are rounded to this

std::string formatBytes(size_t bytes) {
  char buf[64];
  if (bytes >= (1ull << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / double(1ull << 30));
  } else if (bytes >= (1ull << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2f MiB", bytes / double(1ull << 20));
  } else if (bytes >= 1024) {
    std::snprintf(buf, sizeof(buf), "%.2f KiB", bytes / 1024.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%zu bytes", bytes);
  }
  return buf;
}

size_t roundSize(size_t size) {
  return size < kMinBlockSize ? kMinBlockSize : kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

size_t segmentSize(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

std::atomic<bool>& memoryReportingFlag() {
  static std::atomic<bool> flag{false};
  return flag;
}

class DeviceCachingAllocator {
 public:
  explicit DeviceCachingAllocator(c10::DeviceIndex device)
      : device_(device), small_(true, &nodes_), large_(false, &nodes_) {}

  Block* malloc(size_t request, c10::StreamId stream) {
    // Note [Memory history]: the stack is gathered before the lock (it takes the GIL).
    const bool recording = recording_.load(std::memory_order_relaxed);
    ContextPtr context = recording ? recordContext() : nullptr;
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    request_context_ = context;  // for an "oom" trace entry
    processEvents();
    const size_t size = roundSize(request);
    BlockPool& pool = poolFor(size, stream);
    Block* block = nullptr;
    if (recent_ != nullptr && recent_->size == size && recent_->stream == stream && recent_->pool == &pool) {
      block = std::exchange(recent_, nullptr);  // Note [The last freed block]
    } else {
      flushRecent();
      block = findFree(pool, size, stream);
      if (block == nullptr) block = allocateSegment(pool, size, stream, request);
      if (shouldSplit(block, size)) split(block, size);
    }
    block->allocated = true;
    block->requested = request;
    active_.insert(block);
    if (block->size >= config_.max_split_size) stats_.oversize_allocations.increase(1);
    const auto types = statTypes(pool);
    for (auto t : types) {
      stats_.allocation[t].increase(1);
      stats_.allocated_bytes[t].increase(block->size);
      stats_.active[t].increase(1);
      stats_.active_bytes[t].increase(block->size);
      stats_.requested_bytes[t].increase(request);
    }
    reportToProfiler(block->ptr, static_cast<int64_t>(block->size));
    if (recording || !block->history.empty()) {
      // Not recording: an entry without a stack, so that no older entry names the wrong owner.
      addAllocation(block->history, HistoryEntry{reinterpret_cast<uintptr_t>(block->ptr), request, context});
    }
    if (recording) traceEvent(TraceAction::kAlloc, block, block->size, std::move(context));
    return block;
  }

  void free(Block* block) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    flushRecent();  // before `block` counts as free: the two must not merge while one waits
    block->allocated = false;
    if (block->size >= config_.max_split_size) stats_.oversize_allocations.decrease(1);
    const auto types = statTypes(*block->pool);
    for (auto t : types) {
      stats_.allocation[t].decrease(1);
      stats_.allocated_bytes[t].decrease(block->size);
      stats_.requested_bytes[t].decrease(block->requested);
    }
    reportToProfiler(block->ptr, -static_cast<int64_t>(block->size));
    traceEvent(TraceAction::kFreeRequested, block, block->size);
    if (!block->stream_uses.empty()) {
      if (capture_targets_.empty()) {
        deferUntilStreamsDone(block);
      } else {
        // Note [Graph memory pools]: a capture refuses event records; the events wait for its end.
        needs_events_after_capture_.push_back(block);
      }
    } else {
      deactivate(block);
      recent_ = block;  // Note [The last freed block]
    }
  }

  // torch's profiler (profile_memory=True) records NPU allocations and frees with the device's
  // allocated and reserved totals, as the CUDA caching allocator reports them.
  // Only while a profiler asked for memory (setMemoryReporting): c10's check reads a thread_local,
  // which a tensor freed during static destruction at exit must not touch.
  void reportToProfiler(void* ptr, int64_t delta) {
    if (!memoryReportingFlag().load(std::memory_order_relaxed) || !c10::memoryProfilingEnabled()) return;
    c10::reportMemoryUsageToProfiler(ptr, delta, stats_.allocated_bytes[kAggregate].current,
                                     stats_.reserved_bytes[kAggregate].current,
                                     c10::Device(c10::DeviceType::PrivateUse1, device_));
  }

  void recordStream(Block* block, c10::StreamId stream) {
    if (TORCH_NPU_MUTATED("record_stream_noop")) return;  // Note [Test mutations]
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (stream != block->stream) block->stream_uses.insert(stream);
  }

  // torch.npu.set_per_process_memory_fraction: segments may reserve at most
  // fraction x capacity bytes (Note [Caching allocator policy]).
  void setMemoryFraction(double fraction) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    const size_t total = memGetInfo(device_).second;
    allowed_bytes_ = static_cast<size_t>(fraction * static_cast<double>(total));
  }

  void emptyCache() {
    synchronize(device_);
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    processEvents();
    releaseCachedSegments();
  }

  // Note [Graph memory pools]
  void beginAllocateToPool(MempoolId id, c10::StreamId stream) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    for (const auto& [s, p] : capture_targets_)
      TORCH_CHECK(s != stream, "NPU stream ", stream, " of device ", static_cast<int>(device_),
                  " already allocates to a graph's memory pool (a capture on it is underway)");
    std::unique_ptr<PrivatePool>& pool = graph_pools_[id];
    if (!pool) pool = std::make_unique<PrivatePool>(&nodes_);
    pool->users += 1;
    capture_targets_.emplace_back(stream, pool.get());
  }

  void endAllocateToPool(MempoolId id, c10::StreamId stream) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    auto it = graph_pools_.find(id);
    if (it == graph_pools_.end()) return;
    // Only this stream's capture: another one may share the pool and still be under way.
    capture_targets_.erase(
        std::remove_if(capture_targets_.begin(), capture_targets_.end(),
                       [&](const auto& t) { return t.first == stream && t.second == it->second.get(); }),
        capture_targets_.end());
  }

  void releasePool(MempoolId id) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    auto it = graph_pools_.find(id);
    if (it == graph_pools_.end()) return;
    it->second->users -= 1;  // at 0 the pool is dead: empty_cache returns its memory (after a synchronize)
  }

  void recordHistory(bool enabled, size_t max_entries) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (enabled != recording_.load()) trace_.clear();  // a new recording starts a new trace, as torch's
    trace_.setMaxEntries(enabled ? max_entries : 0);
    recording_.store(enabled);
  }

  bool recordsHistory() const { return recording_.load(); }

  std::vector<TraceEntry> allocationTrace() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    return {trace_.entries().begin(), trace_.entries().end()};
  }

  DeviceStats stats() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    flushRecent();  // the statistics read as if the waiting block had merged when it was freed
    DeviceStats out = stats_;
    out.max_split_size = static_cast<int64_t>(config_.max_split_size);  // SIZE_MAX reads -1, as in torch
    return out;
  }

  void resetPeak() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    for (StatArray* a : allStats()) {
      for (auto& s : *a) s.reset_peak();
    }
    stats_.oversize_allocations.reset_peak();
    stats_.oversize_segments.reset_peak();
  }

  void resetAccumulated() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    for (StatArray* a : allStats()) {
      for (auto& s : *a) s.allocated = s.freed = 0;
    }
    for (Stat* s : {&stats_.oversize_allocations, &stats_.oversize_segments}) s->allocated = s->freed = 0;
    stats_.num_alloc_retries = stats_.num_ooms = 0;
  }

  void snapshot(std::vector<SegmentInfo>& out) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    flushRecent();
    std::vector<Block*> heads;
    active_.forEach([&](Block* b) { heads.push_back(b); });
    for (BlockPool* p : allPools()) {
      for (Block* b : p->blocks) heads.push_back(b);
    }
    std::set<Block*> seen;
    for (Block* b : heads) {
      while (b->prev) b = b->prev;
      if (!seen.insert(b).second) continue;
      // A segment; for an expandable one (Note [Expandable segments]), each run of mapped blocks.
      SegmentInfo seg;
      for (Block* it = b; it; it = it->next) {
        if (!it->mapped) {
          if (!seg.blocks.empty()) out.push_back(std::exchange(seg, SegmentInfo{}));
          continue;
        }
        if (seg.blocks.empty()) {
          seg.device = device_;
          seg.address = reinterpret_cast<uintptr_t>(it->ptr);
          seg.stream = it->stream;
          seg.is_large = !it->pool->is_small;
          seg.is_expandable = it->expandable != nullptr;
        }
        seg.total_size += it->size;
        if (it->allocated) seg.allocated_size += it->size;
        if (it->active) seg.active_size += it->size;
        BlockInfo info;
        info.size = it->size;
        info.requested_size = it->allocated ? it->requested : 0;
        info.state = it->allocated ? BlockState::kActiveAllocated
                                   : (it->active ? BlockState::kActivePendingFree : BlockState::kInactive);
        info.history = it->history;
        seg.blocks.push_back(std::move(info));
      }
      if (!seg.blocks.empty()) out.push_back(std::move(seg));
    }
  }

 private:
  std::array<StatArray*, 9> allStats() {
    return {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split,
            &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
            &stats_.inactive_split_bytes, &stats_.requested_bytes};
  }

  // The pool a request of `size` (rounded) on `stream` is served from (Note [Graph memory pools]).
  BlockPool& poolFor(size_t size, c10::StreamId stream) {
    for (const auto& [s, p] : capture_targets_)
      if (s == stream && !TORCH_NPU_MUTATED("graph_pool_shared")) return size <= kSmallSize ? p->small : p->large;
    return size <= kSmallSize ? small_ : large_;
  }

  // Every block pool: the two shared ones and those of the graph pools.
  std::vector<BlockPool*> allPools() {
    std::vector<BlockPool*> all{&small_, &large_};
    for (auto& [id, p] : graph_pools_) {
      all.push_back(&p->small);
      all.push_back(&p->large);
    }
    return all;
  }

  // The pools whose cached segments may go back to the device: the shared ones and dead graph pools'.
  std::vector<BlockPool*> trimmablePools() {
    std::vector<BlockPool*> all{&small_, &large_};
    for (auto& [id, p] : graph_pools_) {
      if (p->users > 0) continue;
      all.push_back(&p->small);
      all.push_back(&p->large);
    }
    return all;
  }

  void dropEmptyDeadPools() {
    for (auto it = graph_pools_.begin(); it != graph_pools_.end();) {
      const PrivatePool& p = *it->second;
      if (p.users == 0 && p.small.segments == 0 && p.large.segments == 0)
        it = graph_pools_.erase(it);
      else
        ++it;
    }
  }

  // Note [Memory history]: the device's totals after the event; called under the lock, after the statistics changed
  // (a segment's unmap: before).
  void traceEvent(TraceAction action, const Block* block, size_t size, ContextPtr context = nullptr) {
    if (!recording_.load(std::memory_order_relaxed)) return;
    int64_t reserved = stats_.reserved_bytes[kAggregate].current;
    if (action == TraceAction::kSegmentFree) reserved -= static_cast<int64_t>(size);
    trace_.record(TraceEntry{action, reinterpret_cast<uintptr_t>(block->ptr), size, block->stream, traceClockUs(),
                             stats_.allocated_bytes[kAggregate].current, reserved, std::move(context)});
  }

  // torch's "oom" trace entry: the request that failed, with the totals at that moment.
  void traceOom(size_t request, c10::StreamId stream) {
    if (!recording_.load(std::memory_order_relaxed)) return;
    trace_.record(TraceEntry{TraceAction::kOom, 0, request, stream, traceClockUs(),
                             stats_.allocated_bytes[kAggregate].current, stats_.reserved_bytes[kAggregate].current,
                             request_context_});
  }

  static std::array<StatType, 2> statTypes(const BlockPool& pool) {
    return {kAggregate, pool.is_small ? kSmallPool : kLargePool};
  }

  Block* findFree(BlockPool& pool, size_t size, c10::StreamId stream) {
    Block key(device_, stream, size, &pool, nullptr);
    auto it = pool.blocks.lower_bound(&key);
    if (it == pool.blocks.end() || (*it)->stream != stream) return nullptr;
    // Any cached block of the stream that is large enough is used (and split
    // by split()), as PyTorch's allocator does with its default
    // max_split_size; refusing big remainders made every medium request
    // (1-10 MiB) map a fresh 20 MiB segment.
    Block* block = *it;
    // max_split_size_mb (Note [Allocator options]): an oversize block serves only an oversize request that
    // wastes less than kLargeBuffer of it.
    if (!pool.is_small && block->size >= config_.max_split_size &&
        (size < config_.max_split_size || block->size >= size + kLargeBuffer))
      return nullptr;
    pool.blocks.erase(it);
    if (block->is_split()) {
      for (auto t : statTypes(pool)) {
        stats_.inactive_split[t].decrease(1);
        stats_.inactive_split_bytes[t].decrease(block->size);
      }
    }
    return block;
  }

  // More device memory for a request no cached block serves: a new segment, or more of the pool's
  // expandable segment (Note [Expandable segments]); returns a free block of at least `size`.
  Block* allocateSegment(BlockPool& pool, size_t size, c10::StreamId stream, size_t request) {
    const bool expandable = usesExpandableSegments(pool);
    const size_t seg = segmentSize(size);
    collectGarbage(expandable ? size : seg);
    void* ptr = nullptr;
    Block* grown = nullptr;
    auto attempt = [&] { return expandable ? growExpandable(pool, size, stream, &grown) : deviceMalloc(&ptr, seg); };
    aclError status = attempt();
    if (status == ACL_ERROR_RT_MEMORY_ALLOCATION && capture_targets_.empty()) {  // Note [Graph memory pools]
      // Retry once after returning every unused cached segment (and free expandable pages) to the device.
      stats_.num_alloc_retries += 1;
      synchronize(device_);
      processEvents();
      releaseCachedSegments();
      status = attempt();
    }
    if (status == ACL_ERROR_RT_MEMORY_ALLOCATION) {
      stats_.num_ooms += 1;
      traceOom(request, stream);
      const auto [free_bytes, total] = memGetInfo(device_);
      const int64_t allocated = stats_.allocated_bytes[kAggregate].current;
      const int64_t reserved = stats_.reserved_bytes[kAggregate].current;
      TORCH_CHECK(false, "NPU out of memory. Tried to allocate ", formatBytes(request), " (NPU ",
                  static_cast<int>(device_), "; ", formatBytes(total), " total capacity; ", formatBytes(allocated),
                  " already allocated; ", formatBytes(free_bytes), " free; ", formatBytes(reserved),
                  " reserved in total by PyTorch",
                  allowed_bytes_ == SIZE_MAX
                      ? std::string()
                      : "; " + formatBytes(allowed_bytes_) + " allowed by set_per_process_memory_fraction",
                  "). If reserved memory is >> allocated memory, "
                  "call torch.npu.empty_cache() or set PYTORCH_NPU_ALLOC_CONF=expandable_segments:True to avoid "
                  "fragmentation; otherwise reduce the batch size or set "
                  "ASCEND_SIM_HBM_SIZE to give the simulated device more memory.",
                  last_device_error_.empty() ? std::string() : " The device said: " + last_device_error_);
    }
    NPU_CHECK_ACL(status);
    if (expandable) return grown;
    pool.segments += 1;
    if (seg >= config_.max_split_size) stats_.oversize_segments.increase(1);
    for (auto t : statTypes(pool)) {
      stats_.segment[t].increase(1);
      stats_.reserved_bytes[t].increase(seg);
    }
    NPU_LOGD("allocator: new segment of {} bytes on device {}", seg, device_);
    Block* block = newBlock(device_, stream, seg, &pool, ptr);
    traceEvent(TraceAction::kSegmentAlloc, block, seg);
    return block;
  }

  // On failure, last_device_error_ holds the device's own reason ("" when the
  // process's fraction refused the segment before asking the device).
  aclError deviceMalloc(void** ptr, size_t size) {
    last_device_error_.clear();
    const auto reserved = static_cast<size_t>(stats_.reserved_bytes[kAggregate].current);
    if (reserved + size > allowed_bytes_) return ACL_ERROR_RT_MEMORY_ALLOCATION;  // over the process's fraction
    DeviceSwitch guard(device_);
    const aclError status = aclrtMalloc(ptr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (status != ACL_SUCCESS) last_device_error_ = aclGetRecentErrMsg();
    return status;
  }

  template <typename... Args>
  Block* newBlock(Args&&... args) {
    return new (nodes_.allocate(sizeof(Block), alignof(Block))) Block(std::forward<Args>(args)...);
  }
  void deleteBlock(Block* b) {
    b->~Block();
    nodes_.deallocate(b, sizeof(Block), alignof(Block));
  }

  // Whether the rest of `block` after `size` bytes is worth keeping as a block of its own; a request of
  // max_split_size_mb or more takes its block whole (Note [Allocator options]).
  bool shouldSplit(const Block* block, size_t size) const {
    const size_t remaining = block->size - size;
    if (block->pool->is_small) return remaining >= kMinBlockSize;
    return size < config_.max_split_size && remaining > kSmallSize;
  }

  void split(Block* block, size_t size) { insertFree(carve(block, size)); }

  // Cuts `block` after `size` bytes; returns the rest, a block of its own in no pool (mapped or not as `block`).
  Block* carve(Block* block, size_t size) {
    const size_t remaining = block->size - size;
    auto* rest = newBlock(device_, block->stream, remaining, block->pool, static_cast<char*>(block->ptr) + size);
    rest->expandable = block->expandable;
    rest->mapped = block->mapped;
    rest->prev = block;
    rest->next = block->next;
    if (rest->next) rest->next->prev = rest;
    block->next = rest;
    block->size = size;
    if (!block->history.empty()) splitHistory(block->history, rest->history, reinterpret_cast<uintptr_t>(rest->ptr));
    return rest;
  }

  void insertFree(Block* block) {
    if (block->is_split()) {
      for (auto t : statTypes(*block->pool)) {
        stats_.inactive_split[t].increase(1);
        stats_.inactive_split_bytes[t].increase(block->size);
      }
    }
    block->pool->blocks.insert(block);
  }

  void removeFree(Block* block) {
    block->pool->blocks.erase(block);
    if (block->is_split()) {
      for (auto t : statTypes(*block->pool)) {
        stats_.inactive_split[t].decrease(1);
        stats_.inactive_split_bytes[t].decrease(block->size);
      }
    }
  }

  void releaseToPool(Block* block) {
    deactivate(block);
    returnToPool(block);
  }

  // A freed block stops counting as active.
  void deactivate(Block* block) {
    traceEvent(TraceAction::kFreeCompleted, block, block->size);
    active_.erase(block);
    for (auto t : statTypes(*block->pool)) {
      stats_.active[t].decrease(1);
      stats_.active_bytes[t].decrease(block->size);
    }
  }

  // Note [The last freed block]
  // Most op outputs are freed soon after they were allocated, and the next op asks for the same
  // size: `c = a + b` in a loop allocates and frees one block again and again. Returning a freed
  // block to its pool merges it with its free neighbours (tree erases, a node freed), and the next
  // malloc splits it off again (a tree search, inserts, a node made): most of the allocator's cost
  // per op. So free() keeps the block it frees aside, unmerged and inactive, and malloc() takes it
  // back when the size (rounded) and stream match. Any other request, the next free, and everything
  // that reads or trims the pools (stats, snapshot, empty_cache) first return it to its pool, so at
  // most one block waits, and nothing outside the allocator can tell it from a merged one: the
  // same requests get blocks of the same sizes, no segment is mapped that would not have been, and
  // the statistics read are the same.
  void flushRecent() {
    if (recent_ != nullptr) returnToPool(std::exchange(recent_, nullptr));
  }

  // Whether `b` is a mapped block sitting free in its pool: not handed out, not waiting for other streams'
  // events, not the last freed block kept aside.
  bool isPooledFree(const Block* b) const {
    return b != nullptr && b->mapped && !b->allocated && !b->active && b->event_count == 0 && b != recent_;
  }

  // Merges a free, inactive block with its free neighbours of the same segment and pools it.
  void returnToPool(Block* block) {
    for (Block* neighbour : {block->prev, block->next}) {
      if (!isPooledFree(neighbour)) continue;
      removeFree(neighbour);
      if (neighbour == block->prev) {
        block->ptr = neighbour->ptr;
        block->prev = neighbour->prev;
        if (block->prev) block->prev->next = block;
        noteNewHead(block);
      } else {
        block->next = neighbour->next;
        if (block->next) block->next->prev = block;
      }
      block->size += neighbour->size;
      if (!neighbour->history.empty()) mergeHistory(block->history, neighbour->history);
      deleteBlock(neighbour);
    }
    insertFree(block);
  }

  void deferUntilStreamsDone(Block* block) {
    for (c10::StreamId s : block->stream_uses) {
      auto event = std::make_unique<NPUEvent>();
      event->record(NPUStream(c10::Stream(c10::Stream::UNSAFE,
                                          c10::Device(c10::DeviceType::PrivateUse1, device_), s)));
      block->event_count += 1;
      pending_events_.emplace_back(std::move(event), block);
    }
    block->stream_uses.clear();
  }

  void processEvents() {
    if (capture_targets_.empty() && !needs_events_after_capture_.empty()) {
      for (Block* b : needs_events_after_capture_) deferUntilStreamsDone(b);
      needs_events_after_capture_.clear();
    }
    while (!pending_events_.empty()) {
      auto& [event, block] = pending_events_.front();
      if (!event->query()) break;
      Block* b = block;
      pending_events_.pop_front();
      if (--b->event_count == 0) releaseToPool(b);
    }
  }

  // The cached blocks that are whole segments (unsplit and free).
  // Dead graph pools' too only after a device synchronize (empty_cache, the out-of-memory retry): a
  // replay queued before the graph's reset may still run on them.
  std::vector<Block*> cachedSegments(bool with_dead_graph_pools) {
    flushRecent();
    std::vector<Block*> whole;
    for (BlockPool* pool : with_dead_graph_pools ? trimmablePools() : std::vector<BlockPool*>{&small_, &large_}) {
      for (Block* b : pool->blocks) {
        if (!b->is_split() && b->expandable == nullptr) whole.push_back(b);
      }
    }
    return whole;
  }

  void releaseSegment(Block* b) {
    traceEvent(TraceAction::kSegmentFree, b, b->size);
    b->pool->blocks.erase(b);
    b->pool->segments -= 1;
    if (b->size >= config_.max_split_size) stats_.oversize_segments.decrease(1);
    {
      DeviceSwitch guard(device_);
      NPU_CHECK_ACL(aclrtFree(b->ptr));
    }
    for (auto t : statTypes(*b->pool)) {
      stats_.segment[t].decrease(1);
      stats_.reserved_bytes[t].decrease(b->size);
    }
    deleteBlock(b);
  }

  void releaseCachedSegments() {
    for (Block* b : cachedSegments(true)) releaseSegment(b);
    dropEmptyDeadPools();
    releaseExpandablePages();
  }

  // Note [Expandable segments]
  // With PYTORCH_NPU_ALLOC_CONF=expandable_segments:True, each stream's small and large pool (not a
  // graph's private pool) has one segment: a reserved range of device addresses as large as the
  // device's HBM (CANN's virtual memory API, aclrtReserveMemAddress), whose 2 MiB granules are mapped
  // to physical HBM only as needed. Its blocks tile the whole range; those not backed are "unmapped"
  // blocks — holes in no pool, never handed out, never merged with a mapped neighbour. A request that
  // no free block serves maps the fewest granules that, with the free mapped block before a hole,
  // make room for it (the smallest such growth over all holes), so memory freed anywhere in the
  // segment extends into new memory instead of being stranded in a segment of its own: the
  // fragmentation that segments of fixed sizes cause (a large request cannot use the free tails of
  // several 20 MiB segments; a growing request size maps a new segment each time) does not arise.
  // empty_cache, the out-of-memory retry and garbage_collection_threshold (after the fixed segments) unmap
  // every whole free granule, once the device is idle. Reserved bytes count
  // mapped granules; the segment counts as one segment while anything in it is mapped; a snapshot
  // shows each run of mapped blocks as a segment with is_expandable.
  bool usesExpandableSegments(const BlockPool& pool) const {
    return config_.expandable_segments && (&pool == &small_ || &pool == &large_);
  }

  // An expandable segment with the pool it serves and its first block (the chain's head changes as
  // blocks merge into their predecessors).
  struct ExpandableEntry {
    std::unique_ptr<ExpandableSegment> segment;
    BlockPool* pool;
    Block* head;
  };

  ExpandableEntry& expandableFor(BlockPool& pool, c10::StreamId stream) {
    for (auto& e : expandable_) {
      if (e.segment->stream() == stream && e.pool == &pool) return e;
    }
    const size_t capacity = memGetInfo(device_).second;
    auto segment = std::make_unique<ExpandableSegment>(device_, stream, capacity);
    Block* whole = newBlock(device_, stream, segment->size(), &pool, segment->base());
    whole->expandable = segment.get();
    whole->mapped = false;
    expandable_.push_back(ExpandableEntry{std::move(segment), &pool, whole});
    return expandable_.back();
  }

  // Keeps an expandable segment's head right after `block` took over its predecessor's place.
  void noteNewHead(Block* block) {
    if (block->expandable == nullptr || block->prev != nullptr) return;
    for (auto& e : expandable_) {
      if (e.segment.get() == block->expandable) e.head = block;
    }
  }

  // Maps the granules a request of `size` needs (Note [Expandable segments]); *out: a free block of at least
  // `size`, taken from the pool. ACL_ERROR_RT_MEMORY_ALLOCATION when the device or the process's fraction refuses.
  aclError growExpandable(BlockPool& pool, size_t size, c10::StreamId stream, Block** out) {
    ExpandableEntry& entry = expandableFor(pool, stream);
    ExpandableSegment& seg = *entry.segment;
    const size_t granule = seg.granularity();
    Block* hole = nullptr;
    size_t grow = SIZE_MAX;
    for (Block* b = entry.head; b; b = b->next) {
      if (b->mapped) continue;
      const size_t have = isPooledFree(b->prev) ? b->prev->size : 0;
      const size_t need = (size - std::min(have, size) + granule - 1) / granule * granule;
      if (need <= b->size && need < grow) {
        hole = b;
        grow = need;
      }
    }
    last_device_error_.clear();
    if (hole != nullptr &&
        grow == 0) {  // the free block before a hole is large enough (findFree refused an oversize one)
      *out = hole->prev;
      removeFree(*out);
      return ACL_SUCCESS;
    }
    const auto reserved = static_cast<size_t>(stats_.reserved_bytes[kAggregate].current);
    if (hole == nullptr || reserved + grow > allowed_bytes_) return ACL_ERROR_RT_MEMORY_ALLOCATION;
    const size_t offset = static_cast<size_t>(static_cast<char*>(hole->ptr) - seg.base());
    const aclError status = seg.map(offset, grow, &last_device_error_);
    if (status != ACL_SUCCESS) return status;
    if (hole->size > grow) carve(hole, grow);  // the rest stays a hole
    hole->mapped = true;
    if (seg.mappedBytes() == grow) {
      for (auto t : statTypes(pool)) stats_.segment[t].increase(1);
    }
    for (auto t : statTypes(pool)) stats_.reserved_bytes[t].increase(grow);
    traceEvent(TraceAction::kSegmentMap, hole, grow);
    returnToPool(hole);  // merges the free block before it into `hole`
    removeFree(hole);    // and hands it out whole (findFree's max_split_size rule would refuse it)
    *out = hole;
    return ACL_SUCCESS;
  }

  // Unmaps every whole granule of the expandable segments' free blocks (Note [Expandable segments]), after
  // waiting for the device: a kernel queued before its block was freed must not find its pages gone.
  void releaseExpandablePages() {
    flushRecent();
    bool synchronized = false;
    for (auto& entry : expandable_) {
      std::vector<Block*> free_blocks;
      for (Block* b = entry.head; b; b = b->next) {
        if (isPooledFree(b)) free_blocks.push_back(b);
      }
      for (Block* b : free_blocks) {
        if (!synchronized) {
          synchronize(device_);
          synchronized = true;
        }
        unmapFreeGranules(*entry.segment, b);
      }
    }
  }

  void unmapFreeGranules(ExpandableSegment& seg, Block* block) {
    const size_t granule = seg.granularity();
    const size_t begin = static_cast<size_t>(static_cast<char*>(block->ptr) - seg.base());
    const size_t first = (begin + granule - 1) / granule * granule;
    const size_t last = (begin + block->size) / granule * granule;
    if (last <= first) return;
    removeFree(block);
    Block* hole = block;
    if (first > begin) {  // the partly free granule before stays mapped
      hole = carve(block, first - begin);
      insertFree(block);
    }
    if (hole->size > last - first) insertFree(carve(hole, last - first));  // so does the one after
    BlockPool& pool = *hole->pool;
    seg.unmap(first, last - first);
    hole->mapped = false;
    hole->history.clear();
    for (auto t : statTypes(pool)) stats_.reserved_bytes[t].decrease(last - first);
    if (seg.mappedBytes() == 0) {
      for (auto t : statTypes(pool)) stats_.segment[t].decrease(1);
    }
    traceEvent(TraceAction::kSegmentUnmap, hole, last - first);
    // Holes next to each other become one.
    for (Block* neighbour : {hole->next, hole->prev}) {
      if (neighbour == nullptr || neighbour->mapped) continue;
      Block* keep = neighbour == hole->prev ? neighbour : hole;
      Block* gone = keep == hole ? neighbour : hole;
      keep->size += gone->size;
      keep->next = gone->next;
      if (keep->next) keep->next->prev = keep;
      deleteBlock(gone);
      hole = keep;
    }
  }

  // garbage_collection_threshold (Note [Allocator options]): before mapping `incoming` bytes that would take
  // the reserved bytes above the threshold's share of the allowed ones, cached segments go back to the
  // device, largest first, until they would not.
  void collectGarbage(size_t incoming) {
    if (config_.garbage_collection_threshold <= 0 || allowed_bytes_ == SIZE_MAX) return;
    const auto limit = static_cast<size_t>(config_.garbage_collection_threshold * static_cast<double>(allowed_bytes_));
    const auto over = [&] { return static_cast<size_t>(stats_.reserved_bytes[kAggregate].current) + incoming > limit; };
    if (!over()) return;
    std::vector<Block*> whole = cachedSegments(false);
    std::sort(whole.begin(), whole.end(), [](const Block* a, const Block* b) { return a->size > b->size; });
    for (Block* b : whole) {
      if (!over()) break;
      releaseSegment(b);
    }
    if (over() && !expandable_.empty() && capture_targets_.empty()) releaseExpandablePages();
  }

  c10::DeviceIndex device_;
  const AllocatorConfig config_ = allocatorConfig();  // PYTORCH_NPU_ALLOC_CONF
  std::recursive_mutex mutex_;
  RecycledNodes nodes_;  // Note [Allocator bookkeeping without allocation]
  BlockPool small_;
  BlockPool large_;
  ActiveBlocks active_;
  Block* recent_ = nullptr;  // Note [The last freed block]
  // Note [Graph memory pools]: by id, and the streams that allocate to one while they capture.
  std::map<MempoolId, std::unique_ptr<PrivatePool>> graph_pools_;
  std::vector<std::pair<c10::StreamId, PrivatePool*>> capture_targets_;
  std::vector<Block*> needs_events_after_capture_;  // freed during a capture, used by other streams
  std::deque<std::pair<std::unique_ptr<NPUEvent>, Block*>> pending_events_;
  DeviceStats stats_;
  size_t allowed_bytes_ = SIZE_MAX;
  std::string last_device_error_;  // see deviceMalloc
  std::atomic<bool> recording_{false};       // Note [Memory history]
  ContextPtr request_context_;               // the stack of the request being served
  std::vector<ExpandableEntry> expandable_;  // Note [Expandable segments]
  AllocationTrace trace_;
};

// Deliberately leaked: tensors may be freed during static destruction.
std::vector<std::unique_ptr<DeviceCachingAllocator>>& deviceAllocators() {
  static auto* all = [] {
    auto* v = new std::vector<std::unique_ptr<DeviceCachingAllocator>>();
    for (int i = 0; i < device_count(); ++i) v->push_back(std::make_unique<DeviceCachingAllocator>(i));
    return v;
  }();
  return *all;
}

DeviceCachingAllocator& deviceAllocator(c10::DeviceIndex device) {
  check_device_index(device);
  return *deviceAllocators()[device];
}

// Blocks handed out by rawAlloc (torch.npu.caching_allocator_alloc), by address.
std::unordered_map<void*, Block*>& rawBlocks() {
  static auto* m = new std::unordered_map<void*, Block*>();
  return *m;
}
std::mutex& rawBlocksMutex() {
  static auto* m = new std::mutex();
  return *m;
}

void freeBlock(void* ctx) {
  auto* block = static_cast<Block*>(ctx);
  deviceAllocator(block->device).free(block);
}

struct NPUAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t n) const override {
    const c10::DeviceIndex device = current_device();
    if (n == 0) return c10::DataPtr(nullptr, c10::Device(c10::DeviceType::PrivateUse1, device));
    const c10::StreamId stream = getCurrentNPUStream(device).id();
    Block* block = deviceAllocator(device).malloc(n, stream);
    return c10::DataPtr(block->ptr, block, &freeBlock, c10::Device(c10::DeviceType::PrivateUse1, device));
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
};

NPUAllocator g_allocator;

}  // namespace

c10::Allocator* get() { return &g_allocator; }

void setMemoryReporting(bool enabled) { memoryReportingFlag().store(enabled); }

namespace {
void releaseAliasOwner(void* ctx) { delete static_cast<c10::Storage*>(ctx); }
}  // namespace

c10::DataPtr aliasDataPtr(const c10::Storage& owner, size_t byte_offset) {
  TORCH_CHECK(byte_offset <= owner.nbytes(), "aliasDataPtr: offset ", byte_offset, " is beyond the ", owner.nbytes(),
              " bytes of the storage");
  void* ptr = static_cast<char*>(owner.data_ptr().get()) + byte_offset;
  return c10::DataPtr(ptr, new c10::Storage(owner), &releaseAliasOwner, owner.device());
}

void recordStream(const c10::DataPtr& ptr, const NPUStream& stream) {
  if (ptr.get() == nullptr) return;
  if (ptr.get_deleter() == &releaseAliasOwner) {
    recordStream(static_cast<c10::Storage*>(ptr.get_context())->data_ptr(), stream);
    return;
  }
  if (ptr.get_deleter() != &freeBlock) return;
  auto* block = static_cast<Block*>(ptr.get_context());
  deviceAllocator(block->device).recordStream(block, stream.id());
}

void emptyCache() {
  for (auto& a : deviceAllocators()) a->emptyCache();
}

void setMemoryFraction(double fraction, c10::DeviceIndex device) {
  TORCH_CHECK(fraction >= 0 && fraction <= 1, "Invalid fraction value: ", fraction, ". Allowed range: 0~1");
  deviceAllocator(device).setMemoryFraction(fraction);
}

void* rawAlloc(size_t size, c10::DeviceIndex device, c10::StreamId stream) {
  if (size == 0) return nullptr;
  Block* block = deviceAllocator(device).malloc(size, stream);
  std::lock_guard<std::mutex> lock(rawBlocksMutex());
  rawBlocks()[block->ptr] = block;
  return block->ptr;
}

void rawDelete(void* ptr) {
  if (ptr == nullptr) return;
  Block* block = nullptr;
  {
    std::lock_guard<std::mutex> lock(rawBlocksMutex());
    auto it = rawBlocks().find(ptr);
    TORCH_CHECK(it != rawBlocks().end(), "caching_allocator_delete: ", ptr,
                " was not allocated by torch.npu.caching_allocator_alloc (or was already deleted)");
    block = it->second;
    rawBlocks().erase(it);
  }
  deviceAllocator(block->device).free(block);
}

void beginAllocateToPool(c10::DeviceIndex device, MempoolId id, c10::StreamId stream) {
  deviceAllocator(device).beginAllocateToPool(id, stream);
}
void endAllocateToPool(c10::DeviceIndex device, MempoolId id, c10::StreamId stream) {
  deviceAllocator(device).endAllocateToPool(id, stream);
}
void releasePool(c10::DeviceIndex device, MempoolId id) { deviceAllocator(device).releasePool(id); }

DeviceStats getDeviceStats(c10::DeviceIndex device) { return deviceAllocator(device).stats(); }
void resetPeakStats(c10::DeviceIndex device) { deviceAllocator(device).resetPeak(); }
void resetAccumulatedStats(c10::DeviceIndex device) { deviceAllocator(device).resetAccumulated(); }

std::vector<SegmentInfo> snapshot() {
  std::vector<SegmentInfo> out;
  for (auto& a : deviceAllocators()) a->snapshot(out);
  return out;
}

void recordHistory(c10::DeviceIndex device, bool enabled, size_t max_entries) {
  deviceAllocator(device).recordHistory(enabled, max_entries);
}
std::vector<TraceEntry> allocationTrace(c10::DeviceIndex device) { return deviceAllocator(device).allocationTrace(); }
bool anyDeviceRecordsHistory() {
  for (auto& a : deviceAllocators()) {
    if (a->recordsHistory()) return true;
  }
  return false;
}

std::pair<size_t, size_t> memGetInfo(c10::DeviceIndex device) {
  DeviceSwitch guard(device);
  size_t free_bytes = 0, total = 0;
  NPU_CHECK_ACL(aclrtGetMemInfo(&free_bytes, &total));
  return {free_bytes, total};
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

}  // namespace allocator
}  // namespace torch_npu
