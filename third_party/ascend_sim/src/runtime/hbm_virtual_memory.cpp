// HbmArena's virtual memory: reserved ranges of device addresses backed by physical allocations
// mapped into them. See Note [Virtual memory of the simulated HBM] in hbm_arena.h.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <string>

#include "runtime/error_state.h"
#include "runtime/hbm_arena.h"

namespace ascend_sim {

namespace {
size_t hostPage() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

std::string bytesText(size_t bytes) { return std::to_string(bytes) + " bytes"; }

// A PROT_NONE reservation of `bytes`, anywhere or replacing what is at `at`.
void* reserveAddresses(size_t bytes, void* at = nullptr) {
  const int fixed = at ? MAP_FIXED : 0;
  void* p = mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | fixed, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}
}  // namespace

const HbmArena::Range* HbmArena::rangeOf(const void* p) const {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return nullptr;
  --it;
  return addr < it->first + it->second.bytes ? &it->second : nullptr;
}

void* HbmArena::rangeHostView(const Range& r, const void* p, size_t n) const {
  const size_t off = static_cast<size_t>(static_cast<const char*>(p) - r.device_base);
  // Every byte of [off, off + n) (an empty view: its first byte) must lie in a mapping; consecutive
  // mappings may cover it together.
  const size_t end = off + std::max<size_t>(n, 1);
  size_t covered = off;
  auto it = r.mappings.upper_bound(off);
  if (it != r.mappings.begin()) --it;
  for (; it != r.mappings.end() && it->first <= covered && covered < end; ++it)
    covered = std::max(covered, it->first + it->second.bytes);
  if (covered < end)
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY,
             "device range [" + ptrString(p) + ", +" + std::to_string(n) + " bytes) on device " +
                 std::to_string(device_) + " lies in a reserved virtual range (aclrtReserveMemAddress at " +
                 ptrString(r.device_base) + ") where " + ptrString(r.device_base + covered) +
                 " is not mapped to physical memory (aclrtMapMem)");
  return r.host_base + off;
}

void* HbmArena::reserveRange(size_t bytes) {
  if (bytes == 0 || bytes % kPageBytes != 0)
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtReserveMemAddress: size must be a positive multiple of the " +
                                          bytesText(kPageBytes) + " granularity, got " + std::to_string(bytes) +
                                          " bytes");
  void* dev = reserveAddresses(bytes);
  void* host = dev ? reserveAddresses(bytes) : nullptr;
  if (!dev || !host) {
    if (dev) munmap(dev, bytes);
    throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtReserveMemAddress: the host cannot reserve " +
                                                 std::to_string(bytes) +
                                                 " bytes of addresses: " + std::strerror(errno));
  }
  std::lock_guard<std::mutex> lock(mu_);
  ranges_[reinterpret_cast<uintptr_t>(dev)] = Range{static_cast<char*>(dev), static_cast<char*>(host), bytes, {}};
  has_ranges_.store(true, std::memory_order_release);
  return dev;
}

void HbmArena::releaseRange(void* va) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ranges_.find(reinterpret_cast<uintptr_t>(va));
  if (it == ranges_.end())
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtReleaseMemAddress: " + ptrString(va) +
                                          " is not the start of a range reserved by aclrtReserveMemAddress on device " +
                                          std::to_string(device_));
  if (!it->second.mappings.empty())
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "aclrtReleaseMemAddress: the range at " + ptrString(va) + " still has " +
                                              std::to_string(it->second.mappings.size()) +
                                              " mapping(s); aclrtUnmapMem them first");
  munmap(it->second.device_base, it->second.bytes);
  munmap(it->second.host_base, it->second.bytes);
  ranges_.erase(it);
  has_ranges_.store(!ranges_.empty(), std::memory_order_release);
}

void* HbmArena::allocatePhysical(size_t bytes) {
  if (bytes == 0 || bytes % kPageBytes != 0)
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtMallocPhysical: size must be a positive multiple of the " +
                                          bytesText(kPageBytes) + " granularity, got " + std::to_string(bytes) +
                                          " bytes");
  std::lock_guard<std::mutex> lock(mu_);
  void* p = allocateLocked(bytes, hostPage());  // host pages: the memfd maps at page offsets
  physical_[static_cast<size_t>(static_cast<char*>(p) - device_base_)] = false;
  return p;
}

void HbmArena::freePhysical(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto off = static_cast<size_t>(static_cast<char*>(handle) - device_base_);
  auto it = inBase(handle) ? physical_.find(off) : physical_.end();
  if (it == physical_.end())
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtFreePhysical: " + ptrString(handle) +
                                          " is not a physical allocation (aclrtMallocPhysical) of device " +
                                          std::to_string(device_));
  if (it->second)
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "aclrtFreePhysical: the physical allocation " + ptrString(handle) +
                                              " is still mapped; aclrtUnmapMem it first");
  physical_.erase(it);
  freeLocked(off);
}

void HbmArena::map(void* va, size_t bytes, void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto phys = static_cast<size_t>(static_cast<char*>(handle) - device_base_);
  auto p = inBase(handle) ? physical_.find(phys) : physical_.end();
  if (p == physical_.end())
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtMapMem: " + ptrString(handle) + " is not a physical allocation of device " +
                                          std::to_string(device_));
  if (p->second)
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY,
             "aclrtMapMem: the physical allocation " + ptrString(handle) + " is already mapped");
  if (bytes != live_.at(phys).aligned)
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtMapMem: size " + std::to_string(bytes) +
                                          " must equal the physical allocation's " +
                                          std::to_string(live_.at(phys).aligned) + " bytes");
  auto* r = const_cast<Range*>(rangeOf(va));
  const size_t off = r ? static_cast<size_t>(static_cast<char*>(va) - r->device_base) : 0;
  if (!r || off % kPageBytes != 0 || off + bytes > r->bytes)
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtMapMem: [" + ptrString(va) + ", +" + std::to_string(bytes) +
                                          " bytes) is not a granule-aligned part of a reserved range of device " +
                                          std::to_string(device_));
  auto next = r->mappings.lower_bound(off);
  const bool overlaps_next = next != r->mappings.end() && next->first < off + bytes;
  const bool overlaps_prev =
      next != r->mappings.begin() && std::prev(next)->first + std::prev(next)->second.bytes > off;
  if (overlaps_next || overlaps_prev)
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "aclrtMapMem: [" + ptrString(va) + ", +" + std::to_string(bytes) +
                                              " bytes) overlaps a mapping already in the range");
  if (mmap(r->host_base + off, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd_, static_cast<off_t>(phys)) ==
      MAP_FAILED) {
    const std::string why = std::strerror(errno);
    (void)reserveAddresses(bytes, r->host_base + off);  // a failed MAP_FIXED may have removed the reservation
    throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMapMem: the host could not map the pages: " + why);
  }
  r->mappings[off] = Mapping{bytes, phys};
  p->second = true;
}

void HbmArena::unmap(void* va) {
  std::lock_guard<std::mutex> lock(mu_);
  auto* r = const_cast<Range*>(rangeOf(va));
  const size_t off = r ? static_cast<size_t>(static_cast<char*>(va) - r->device_base) : 0;
  auto m = r ? r->mappings.find(off) : std::map<size_t, Mapping>::iterator{};
  if (!r || m == r->mappings.end())
    throwAcl(ACL_ERROR_INVALID_PARAM, "aclrtUnmapMem: " + ptrString(va) +
                                          " does not start a mapping (aclrtMapMem) of device " +
                                          std::to_string(device_));
  // Back to an inaccessible reservation: the addresses stay reserved, their pages leave the range.
  if (!reserveAddresses(m->second.bytes, r->host_base + off))
    throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string("aclrtUnmapMem: ") + std::strerror(errno));
  physical_[m->second.physical] = false;
  r->mappings.erase(m);
}

}  // namespace ascend_sim
