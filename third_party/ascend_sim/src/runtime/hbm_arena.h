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
#pragma once

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

  mutable std::mutex mu_;
  std::map<size_t, size_t> free_;  // offset -> size (aligned)
  struct Live {
    size_t aligned;    // bytes taken from the arena
    size_t requested;  // bytes the caller asked for
  };
  std::map<size_t, Live> live_;  // offset -> block
  size_t in_use_ = 0;            // sum of aligned sizes
};

}  // namespace ascend_sim
