// The NPU caching allocator: statistics, block reuse, empty_cache, OOM.
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/RecycledNodes.h"
#include "npu_test_util.h"

#include <memory_resource>
#include <set>
#include <vector>

using torch_npu::allocator::DeviceStats;
using torch_npu::allocator::getDeviceStats;
using torch_npu::allocator::kAggregate;
using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

int64_t allocatedBytes() { return getDeviceStats(0).allocated_bytes[kAggregate].current; }
int64_t reservedBytes() { return getDeviceStats(0).reserved_bytes[kAggregate].current; }
int64_t liveAllocations() { return getDeviceStats(0).allocation[kAggregate].current; }

at::Tensor floats(int64_t n) { return at::empty({n}, at::TensorOptions().device(npu())); }

constexpr int64_t kMiB = 1 << 20;

}  // namespace

TEST(NpuAllocator, StatsGrowAndShrink) {
  torch_npu::synchronize(0);
  const int64_t before = allocatedBytes(), live_before = liveAllocations();
  {
    at::Tensor a = floats(3 * kMiB + 17);  // > 12 MiB
    at::Tensor b = floats(1001);
    EXPECT_GE(allocatedBytes() - before, (3 * kMiB + 17 + 1001) * 4);
    EXPECT_EQ(liveAllocations() - live_before, 2);
    EXPECT_GE(reservedBytes(), allocatedBytes());
    const DeviceStats stats = getDeviceStats(0);
    EXPECT_GE(stats.allocated_bytes[kAggregate].peak, stats.allocated_bytes[kAggregate].current);
  }
  EXPECT_EQ(allocatedBytes(), before);
  EXPECT_EQ(liveAllocations(), live_before);
}

TEST(NpuAllocator, FreedBlockIsReused) {
  torch_npu::allocator::emptyCache();
  void* first = nullptr;
  {
    at::Tensor a = floats(5 * kMiB + 3);
    first = a.data_ptr();
  }
  const int64_t reserved = reservedBytes();
  at::Tensor b = floats(5 * kMiB + 3);
  EXPECT_EQ(b.data_ptr(), first);
  EXPECT_EQ(reservedBytes(), reserved);  // served from the cache, no new segment
  at::Tensor s1 = floats(100);
  void* small = s1.data_ptr();
  s1.reset();
  at::Tensor s2 = floats(90);
  EXPECT_EQ(s2.data_ptr(), small);
}

// Note [The last freed block]: a freed block waits unmerged for a request of its size; any other
// request first returns it to its pool, so the request is served as if it had merged at once.
TEST(NpuAllocator, LastFreedBlockIsTakenBackOrMergedBeforeAnotherRequest) {
  torch_npu::synchronize(0);
  torch_npu::allocator::emptyCache();
  at::Tensor a = floats(1024);  // 4 KB at the start of a fresh small segment
  void* start = a.data_ptr();
  a.reset();
  at::Tensor same = floats(1000);  // the same rounded size: the waiting block
  EXPECT_EQ(same.data_ptr(), start);
  same.reset();
  at::Tensor other = floats(2048);  // another size: served from the whole segment again
  EXPECT_EQ(other.data_ptr(), start);
}

// Statistics and snapshots never see the waiting block unmerged.
TEST(NpuAllocator, StatsAndSnapshotSeeTheLastFreedBlockMerged) {
  torch_npu::synchronize(0);
  torch_npu::allocator::emptyCache();
  const int64_t split_before = getDeviceStats(0).inactive_split[kAggregate].current;
  at::Tensor a = floats(1024);
  void* start = a.data_ptr();
  a.reset();
  EXPECT_EQ(getDeviceStats(0).inactive_split[kAggregate].current, split_before);
  at::Tensor b = floats(1024);
  ASSERT_EQ(b.data_ptr(), start);
  b.reset();
  bool found = false;
  for (const auto& seg : torch_npu::allocator::snapshot()) {
    if (seg.address != reinterpret_cast<uintptr_t>(start)) continue;
    found = true;
    EXPECT_EQ(seg.blocks.size(), 1u);  // one free block: the segment is whole again
    EXPECT_EQ(seg.allocated_size, 0);
  }
  EXPECT_TRUE(found);
}

TEST(NpuAllocator, MediumRequestsShareOneSegment) {
  // a = b + c in a loop: three 4 MiB tensors alive at once, one freed per
  // iteration. They fit in one 20 MiB large-pool segment, so reserved memory
  // must not grow after the first iterations.
  torch_npu::allocator::emptyCache();
  const int64_t base = reservedBytes();
  at::Tensor keep1 = floats(kMiB), keep2 = floats(kMiB), out = floats(kMiB);
  const int64_t reserved = reservedBytes();
  EXPECT_LE(reserved - base, 20 * kMiB);  // one segment
  for (int i = 0; i < 20; ++i) out = floats(kMiB);
  EXPECT_EQ(reservedBytes(), reserved);
}

TEST(NpuAllocator, EmptyCacheReturnsReservedMemory) {
  torch_npu::allocator::emptyCache();
  const int64_t base = reservedBytes();
  const auto free_before = torch_npu::allocator::memGetInfo(0).first;
  { at::Tensor big = floats(64 * kMiB); }
  EXPECT_GE(reservedBytes() - base, 64 * kMiB * 4);
  EXPECT_LT(torch_npu::allocator::memGetInfo(0).first, free_before);
  torch_npu::allocator::emptyCache();
  EXPECT_EQ(reservedBytes(), base);
  EXPECT_EQ(torch_npu::allocator::memGetInfo(0).first, free_before);
}

TEST(NpuAllocator, OutOfMemoryMessage) {
  const auto total = torch_npu::allocator::memGetInfo(0).second;
  ASSERT_EQ(total, size_t(4) << 30) << "run with ASCEND_SIM_HBM_SIZE=4G";
  const int64_t ooms = getDeviceStats(0).num_ooms;
  EXPECT_THROW_WITH(floats((int64_t(5) << 30) / 4), "Tried to allocate 5.00 GiB", "total capacity", "reserved");
  EXPECT_EQ(getDeviceStats(0).num_ooms, ooms + 1);
  // The allocator still works afterwards.
  at::Tensor ok = at::ones({17}, at::TensorOptions().device(npu()));
  EXPECT_EQ(ok.sum().item<float>(), 17.f);
}

TEST(NpuAllocator, ResetPeakStats) {
  { at::Tensor a = floats(8 * kMiB); }
  EXPECT_GE(getDeviceStats(0).allocated_bytes[kAggregate].peak, 8 * kMiB * 4);
  torch_npu::allocator::resetPeakStats(0);
  EXPECT_EQ(getDeviceStats(0).allocated_bytes[kAggregate].peak, allocatedBytes());
}

// set_per_process_memory_fraction: segments beyond fraction x capacity fail
// with the out-of-memory error, which names the cap; lifting it lets the same
// request through.
TEST(NpuAllocator, MemoryFractionCapsReservedBytes) {
  torch_npu::allocator::emptyCache();
  const auto total = static_cast<int64_t>(torch_npu::allocator::memGetInfo(0).second);
  ASSERT_EQ(total, int64_t(4) << 30) << "run with ASCEND_SIM_HBM_SIZE=4G";
  torch_npu::allocator::setMemoryFraction(0.05, 0);  // about 205 MiB
  EXPECT_THROW_WITH(floats(total / 10 / 4), "allowed by set_per_process_memory_fraction");
  { at::Tensor fits = floats(total / 50 / 4); }
  torch_npu::allocator::setMemoryFraction(1.0, 0);
  { at::Tensor fits_now = floats(total / 10 / 4); }
  torch_npu::allocator::emptyCache();
  EXPECT_THROW_WITH(torch_npu::allocator::setMemoryFraction(1.5, 0), "Allowed range: 0~1");
}

// caching_allocator_alloc / _delete: a raw block counts as allocated until deleted.
TEST(NpuAllocator, RawAllocAndDelete) {
  torch_npu::synchronize(0);
  const int64_t before = allocatedBytes();
  void* p = torch_npu::allocator::rawAlloc(3000, 0, torch_npu::getCurrentNPUStream(0).id());
  ASSERT_NE(p, nullptr);
  EXPECT_GE(allocatedBytes() - before, 3000);
  torch_npu::allocator::rawDelete(p);
  EXPECT_EQ(allocatedBytes(), before);
  EXPECT_THROW_WITH(torch_npu::allocator::rawDelete(p), "was not allocated by torch.npu.caching_allocator_alloc");
  EXPECT_EQ(torch_npu::allocator::rawAlloc(0, 0, torch_npu::getCurrentNPUStream(0).id()), nullptr);
}

// Note [Allocator bookkeeping without allocation]: freed nodes are handed out again, per size.
TEST(RecycledNodes, ReusesFreedMemoryOfTheSameSize) {
  torch_npu::RecycledNodes nodes;
  void* a = nodes.allocate(48, 8);
  void* b = nodes.allocate(120, 8);
  nodes.deallocate(a, 48, 8);
  nodes.deallocate(b, 120, 8);
  EXPECT_EQ(nodes.allocate(120, 8), b);  // the last freed of its size
  EXPECT_EQ(nodes.allocate(48, 8), a);
  void* c = nodes.allocate(48, 8);  // the free list is empty again: new memory
  EXPECT_NE(c, a);
  nodes.deallocate(c, 48, 8);
  nodes.deallocate(a, 48, 8);
  nodes.deallocate(b, 120, 8);
  // A set of blocks that is filled and emptied twice stays within the memory of the first round.
  std::pmr::set<int> set(&nodes);
  std::set<const void*> first_round;
  for (int i = 0; i < 100; ++i) first_round.insert(&*set.insert(i).first);
  set.clear();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(first_round.count(&*set.insert(1000 + i).first), 1u);
}

TEST(RecycledNodes, MoreSizesThanClassesUseTheHeap) {
  torch_npu::RecycledNodes nodes;
  std::vector<void*> blocks;
  for (size_t size = 16; size <= 256; size += 16) blocks.push_back(nodes.allocate(size, 8));
  for (size_t i = 0; i < blocks.size(); ++i) nodes.deallocate(blocks[i], 16 * (i + 1), 8);
  void* big = nodes.allocate(4096, 64);  // over-aligned: always the heap
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % 64, 0u);
  nodes.deallocate(big, 4096, 64);
  EXPECT_EQ(nodes.allocate(16, 8), blocks[0]);  // the first sizes got classes
  nodes.deallocate(blocks[0], 16, 8);
}

// Note [Memory history]: the block-history rules, then the allocator's trace and snapshot.
namespace {
using torch_npu::allocator::HistoryEntry;

std::vector<uintptr_t> addrs(const std::vector<HistoryEntry>& h) {
  std::vector<uintptr_t> out;
  for (const auto& e : h) out.push_back(e.addr);
  return out;
}
}  // namespace

TEST(AllocatorHistory, NewAllocationDropsTheOverlappedOnesAndSplitAndMergeKeepThemDisjoint) {
  std::vector<HistoryEntry> block;
  torch_npu::allocator::addAllocation(block, {1000, 100, nullptr});
  torch_npu::allocator::addAllocation(block, {1200, 100, nullptr});
  torch_npu::allocator::addAllocation(block, {1050, 200, nullptr});  // overlaps both
  EXPECT_EQ(addrs(block), (std::vector<uintptr_t>{1050}));
  torch_npu::allocator::addAllocation(block, {1000, 50, nullptr});  // touches, does not overlap
  EXPECT_EQ(addrs(block), (std::vector<uintptr_t>{1000, 1050}));

  std::vector<HistoryEntry> rest;
  torch_npu::allocator::splitHistory(block, rest, 1100);  // 1050..1250 straddles the cut
  EXPECT_EQ(addrs(block), (std::vector<uintptr_t>{1000}));
  EXPECT_TRUE(rest.empty());
  torch_npu::allocator::addAllocation(rest, {1100, 20, nullptr});
  torch_npu::allocator::splitHistory(block, rest, 1000);  // everything at or above the cut moves
  EXPECT_TRUE(block.empty());
  EXPECT_EQ(addrs(rest), (std::vector<uintptr_t>{1100, 1000}));
  torch_npu::allocator::mergeHistory(block, rest);
  EXPECT_EQ(addrs(block), (std::vector<uintptr_t>{1100, 1000}));
  EXPECT_TRUE(rest.empty());
}

TEST(AllocatorHistory, TraceRecordsAllocationsFreesAndSegmentsWithTotals) {
  using torch_npu::allocator::TraceAction;
  torch_npu::synchronize(0);
  torch_npu::allocator::emptyCache();
  // A stream of the pool: its blocks are its own, so no cached block of an earlier test serves the request.
  const auto side = torch_npu::getStreamFromPool(0);
  torch_npu::setCurrentNPUStream(side);
  torch_npu::allocator::recordHistory(0, true, 1000);
  uintptr_t addr = 0;
  int64_t allocated_after_alloc = 0;
  {
    at::Tensor a = floats(3 * kMiB);  // 12 MiB: a segment of its own
    addr = reinterpret_cast<uintptr_t>(a.data_ptr());
    allocated_after_alloc = allocatedBytes();
    bool found = false;
    for (const auto& seg : torch_npu::allocator::snapshot()) {
      if (seg.address != addr) continue;
      found = true;
      ASSERT_FALSE(seg.blocks.empty());
      EXPECT_EQ(seg.blocks[0].state, torch_npu::allocator::BlockState::kActiveAllocated);
      ASSERT_EQ(seg.blocks[0].history.size(), 1u);
      EXPECT_EQ(seg.blocks[0].history[0].real_size, static_cast<size_t>(3 * kMiB * 4));
      EXPECT_EQ(seg.blocks[0].requested_size, 3 * kMiB * 4);
    }
    EXPECT_TRUE(found);
  }
  torch_npu::allocator::emptyCache();
  const auto trace = torch_npu::allocator::allocationTrace(0);
  torch_npu::allocator::recordHistory(0, false, 0);
  torch_npu::setCurrentNPUStream(torch_npu::getDefaultNPUStream(0));
  std::vector<TraceAction> actions;
  for (const auto& e : trace) {
    if (e.addr != addr) continue;
    actions.push_back(e.action);
    if (e.action == TraceAction::kAlloc) { EXPECT_EQ(e.allocated_bytes, allocated_after_alloc); }
    if (e.action == TraceAction::kSegmentFree) { EXPECT_EQ(e.reserved_bytes, reservedBytes()); }
  }
  EXPECT_EQ(actions,
            (std::vector<TraceAction>{TraceAction::kSegmentAlloc, TraceAction::kAlloc, TraceAction::kFreeRequested,
                                      TraceAction::kFreeCompleted, TraceAction::kSegmentFree}));
  EXPECT_TRUE(torch_npu::allocator::allocationTrace(0).empty());  // stopping clears the trace
}

TEST(AllocatorHistory, TraceKeepsTheLastMaxEntries) {
  torch_npu::allocator::recordHistory(0, true, 4);
  for (int i = 0; i < 10; ++i) floats(100 + i);
  const auto trace = torch_npu::allocator::allocationTrace(0);
  torch_npu::allocator::recordHistory(0, false, 0);
  ASSERT_EQ(trace.size(), 4u);
  EXPECT_EQ(trace.back().action, torch_npu::allocator::TraceAction::kFreeCompleted);
}
