// The caching allocator's blocks and pools (private to csrc/core/NPUCachingAllocator.cpp, which
// holds the policy: Note [Caching allocator policy]).
#pragma once

#include <c10/core/Stream.h>

#include <cstdint>
#include <memory_resource>
#include <set>
#include <unordered_set>
#include <vector>

#include "csrc/core/AllocatorHistory.h"

namespace torch_npu {
namespace allocator {
class ExpandableSegment;
namespace detail {

struct BlockPool;

struct Block {
  c10::DeviceIndex device;
  c10::StreamId stream;
  size_t size;
  size_t requested = 0;
  void* ptr;
  BlockPool* pool;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours within the same segment
  Block* next = nullptr;
  std::unordered_set<c10::StreamId> stream_uses;
  int event_count = 0;
  // Handed out and not yet back in a pool (allocated, or freed while events on other streams are
  // pending): a member of the allocator's intrusive list of active blocks.
  bool active = false;
  Block* active_prev = nullptr;
  Block* active_next = nullptr;
  std::vector<HistoryEntry> history;  // Note [Memory history]
  // Note [Expandable segments]: the segment a block is part of, and whether its addresses are backed
  // (an unmapped block is a hole of the segment's address range: in no pool, never handed out).
  ExpandableSegment* expandable = nullptr;
  bool mapped = true;

  Block(c10::DeviceIndex d, c10::StreamId s, size_t sz, BlockPool* p, void* ptr_)
      : device(d), stream(s), size(sz), ptr(ptr_), pool(p) {}
  bool is_split() const { return prev != nullptr || next != nullptr; }
};

inline bool blockLess(const Block* a, const Block* b) {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
}

// Note [Allocator bookkeeping without allocation]
// malloc and free run for nearly every op launch, on the Python thread, so their bookkeeping
// allocates nothing from the heap in the steady state: Block objects and the free-block sets'
// nodes come from the allocator's RecycledNodes (guarded by its mutex, like the sets), and the
// active blocks form an intrusive list (ActiveBlocks) instead of a hash set. Splitting a cached
// block and merging it back on free (every small op output) then costs no malloc/free pair.
struct BlockPool {
  BlockPool(bool small_, std::pmr::memory_resource* nodes) : blocks(blockLess, nodes), is_small(small_) {}
  std::pmr::set<Block*, bool (*)(const Block*, const Block*)> blocks;
  const bool is_small;
  size_t segments = 0;  // segments mapped for this pool and not yet released
};

// Note [Graph memory pools]
// A captured graph replays its kernels on the device addresses they had at capture time, so the
// memory the capture allocated must stay the graph's: nothing outside the graph may be given it
// while the graph can still be replayed. As in PyTorch's CUDA allocator, the capturing stream's
// allocations come from a private pool (its own small and large block pools, with their own
// segments) from capture_begin to capture_end. Blocks the capture frees go back to that pool and
// serve later allocations of the same capture (the replay repeats the same order, so the reuse is
// as safe as it was during the capture); outputs the user keeps return to it when freed. Graphs
// may share a pool (torch.npu.graph_pool_handle(), or pool=other_graph.pool()). A pool counts its
// users; when the last graph using it is reset, the pool is dead: its whole free segments go back
// to the device at the next empty_cache (which waits for the device first, so no replay still runs
// on them), and it disappears with its last segment.
// While a capture is underway the allocator does not free cached segments to retry a failed
// segment (that needs a device synchronize, which the capture forbids): the request fails at once.
// Nor does it record events for a freed block that other streams used (record_stream): the block
// waits, unusable, until the capture ends, and then waits for its events as usual.
struct PrivatePool {
  explicit PrivatePool(std::pmr::memory_resource* nodes) : small(true, nodes), large(false, nodes) {}
  BlockPool small;
  BlockPool large;
  int users = 0;
};

class ActiveBlocks {
 public:
  void insert(Block* b) {
    b->active = true;
    b->active_prev = nullptr;
    b->active_next = head_;
    if (head_) head_->active_prev = b;
    head_ = b;
  }
  void erase(Block* b) {
    if (!b->active) return;
    if (b->active_prev) {
      b->active_prev->active_next = b->active_next;
    } else {
      head_ = b->active_next;
    }
    if (b->active_next) b->active_next->active_prev = b->active_prev;
    b->active = false;
    b->active_prev = b->active_next = nullptr;
  }
  template <typename F>
  void forEach(F f) const {
    for (Block* b = head_; b; b = b->active_next) f(b);
  }

 private:
  Block* head_ = nullptr;
};

}  // namespace detail
}  // namespace allocator
}  // namespace torch_npu
