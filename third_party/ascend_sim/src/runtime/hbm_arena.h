// One device's HBM: an address range the host cannot touch, and an allocator.
//
// Note [Device memory is not host memory]
// The arena is a memfd of `capacity` bytes (sparse: ftruncate, pages appear
// when first written) mapped twice:
//   device view  PROT_NONE, MAP_SHARED|MAP_NORESERVE: the addresses handed out
//                by aclrtMalloc. A host dereference faults (SIGSEGV) at once.
//   host view    PROT_READ|PROT_WRITE: what the simulator itself uses.
// A device pointer p translates to host_base + (p - device_base). Blocks of at
// least 1 MiB give their pages back to the host on free
// (fallocate PUNCH_HOLE), so freed device memory does not keep host RAM.
//
// The allocator is first-fit over a free list ordered by offset, with
// coalescing of neighbours, and 512-byte alignment. Live allocations remember
// their requested size; hostView() accepts a range only if it lies inside one
// live allocation's requested bytes.
//
// Note [Virtual memory of the simulated HBM]
// CANN's virtual memory API (aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem, ...) lets a
// caller reserve a range of device addresses and back parts of it with physical HBM, so that memory
// mapped at different times is contiguous in the device's address space (PyTorch's expandable
// segments). The arena models it with the host's own page tables: a reserved range is two
// PROT_NONE reservations (its device view and its host view); a physical allocation is an ordinary
// arena allocation, page-aligned in the memfd, in whole granules of kPageBytes; mapping it at an
// address of the range maps those memfd pages MAP_FIXED into the range's host view (the device
// view stays PROT_NONE: a host dereference still faults). A range of device addresses that spans
// several mappings is therefore contiguous in the host view too, and kernels read it as one
// buffer. hostView() accepts a range inside reserved space only where every byte is mapped.
// Physical memory counts in bytesInUse() (aclrtGetMemInfo) whether mapped or not; a mapped
// allocation cannot be freed, nor a range with mappings released.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "ascend_sim/acl.h"

namespace ascend_sim {

class ASCEND_SIM_API HbmArena {
 public:
  static constexpr size_t kAlignment = 512;             // allocation granularity [B]
  static constexpr size_t kPunchHoleMinBytes = 1 << 20;  // release host pages for frees >= 1 MiB

  // Throws AclError(ACL_ERROR_RT_MEMORY_ALLOCATION) if the host cannot
  // reserve the address range.
  HbmArena(int device, size_t capacity);
  ~HbmArena();
  HbmArena(const HbmArena&) = delete;
  HbmArena& operator=(const HbmArena&) = delete;

  // Throws AclError(ACL_ERROR_RT_MEMORY_ALLOCATION) with requested / in use /
  // capacity numbers, or ACL_ERROR_INVALID_PARAM for size 0.
  void* allocate(size_t bytes);
  // Throws AclError(ACL_ERROR_RT_INVALID_MEMORY) unless p starts a live allocation.
  void free(void* p);

  // True if p is inside this arena's address range (live or not).
  bool owns(const void* p) const;
  // Host-accessible address of [p, p+n), which must lie inside one live
  // allocation; otherwise throws AclError(ACL_ERROR_RT_INVALID_MEMORY).
  void* hostView(const void* p, size_t n) const;

  // Note [Virtual memory of the simulated HBM]. Errors throw AclError naming the address and the rule.
  static constexpr size_t kPageBytes =
      size_t{2} << 20;                   // the mapping granularity (assumed: the HBM huge page, docs/simulator.md §7)
  void* reserveRange(size_t bytes);      // aclrtReserveMemAddress: whole pages
  void releaseRange(void* va);           // aclrtReleaseMemAddress: nothing mapped in it
  void* allocatePhysical(size_t bytes);  // aclrtMallocPhysical: the handle is its HBM address
  void freePhysical(void* handle);       // aclrtFreePhysical: not while mapped
  void map(void* va, size_t bytes, void* handle);  // aclrtMapMem: bytes == the allocation's size
  void unmap(void* va);                            // aclrtUnmapMem: va starts a mapping

  int device() const { return device_; }
  size_t capacity() const { return capacity_; }
  size_t bytesInUse() const;
  size_t liveAllocations() const;

 private:
  int device_;
  size_t capacity_;
  int fd_ = -1;
  char* device_base_ = nullptr;  // PROT_NONE view
  char* host_base_ = nullptr;    // read/write view

  bool inBase(const void* p) const {
    return static_cast<const char*>(p) >= device_base_ && static_cast<const char*>(p) < device_base_ + capacity_;
  }
  void* allocateLocked(size_t bytes, size_t alignment);
  void freeLocked(size_t offset);
  struct Range;
  const Range* rangeOf(const void* p) const;  // mu_ held; nullptr outside every reserved range
  void* rangeHostView(const Range& r, const void* p, size_t n) const;

  mutable std::mutex mu_;
  std::map<size_t, size_t> free_;  // offset -> size (aligned)
  struct Live {
    size_t aligned;    // bytes taken from the arena
    size_t requested;  // bytes the caller asked for
  };
  std::map<size_t, Live> live_;  // offset -> block
  size_t in_use_ = 0;            // sum of aligned sizes

  // Note [Virtual memory of the simulated HBM]
  struct Mapping {
    size_t bytes;
    size_t physical;  // arena offset of the physical allocation
  };
  struct Range {
    char* device_base;
    char* host_base;
    size_t bytes;
    std::map<size_t, Mapping> mappings;  // offset in the range -> mapping
  };
  std::map<uintptr_t, Range> ranges_;    // by device base
  std::map<size_t, bool> physical_;      // arena offset of each physical allocation -> mapped
  std::atomic<bool> has_ranges_{false};  // owns() looks at ranges_ only when there are some
};

}  // namespace ascend_sim
