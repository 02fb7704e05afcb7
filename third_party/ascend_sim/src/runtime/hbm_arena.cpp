#include "runtime/hbm_arena.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <cstring>
#include <string>

#include "runtime/error_state.h"

namespace ascend_sim {

namespace {
size_t roundUp(size_t n, size_t a) { return (n + a - 1) / a * a; }
std::string sysError(const char* what) { return std::string(what) + " failed: " + std::strerror(errno); }
}  // namespace

HbmArena::HbmArena(int device, size_t capacity) : device_(device), capacity_(roundUp(capacity, 4096)) {
  const std::string name = "ascend_sim_hbm" + std::to_string(device);
  fd_ = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd_ < 0) throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, "device " + std::to_string(device) + ": " + sysError("memfd_create"));
  if (ftruncate(fd_, static_cast<off_t>(capacity_)) != 0) {
    std::string msg = sysError("ftruncate");
    close(fd_);
    throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, "device " + std::to_string(device) + ": " + msg);
  }
  void* dev = mmap(nullptr, capacity_, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  void* host = dev == MAP_FAILED ? MAP_FAILED
                                 : mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (dev == MAP_FAILED || host == MAP_FAILED) {
    std::string msg = sysError("mmap");
    if (dev != MAP_FAILED) munmap(dev, capacity_);
    close(fd_);
    throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, "device " + std::to_string(device) + ": cannot reserve " +
                                                 std::to_string(capacity_) + " bytes of simulated HBM: " + msg);
  }
  device_base_ = static_cast<char*>(dev);
  host_base_ = static_cast<char*>(host);
  free_[0] = capacity_;
}

HbmArena::~HbmArena() {
  for (auto& [base, r] : ranges_) {  // Note [Virtual memory of the simulated HBM]
    munmap(r.device_base, r.bytes);
    munmap(r.host_base, r.bytes);
  }
  munmap(device_base_, capacity_);
  munmap(host_base_, capacity_);
  close(fd_);
}

void* HbmArena::allocate(size_t bytes) {
  if (bytes == 0) throwAcl(ACL_ERROR_INVALID_PARAM, "size must be positive, got 0 bytes");
  std::lock_guard<std::mutex> lock(mu_);
  return allocateLocked(bytes, kAlignment);
}

// First fit of `bytes` (rounded to kAlignment) starting at a multiple of `alignment`.
void* HbmArena::allocateLocked(size_t bytes, size_t alignment) {
  const size_t need = bytes > capacity_ ? 0 : roundUp(bytes, kAlignment);
  size_t largest = 0;
  for (auto it = free_.begin(); need != 0 && it != free_.end(); ++it) {
    largest = std::max(largest, it->second);
    const size_t off = it->first, size = it->second, start = roundUp(off, alignment);
    if (start + need > off + size) continue;
    free_.erase(it);
    if (start > off) free_[off] = start - off;
    if (off + size > start + need) free_[start + need] = off + size - (start + need);
    live_[start] = Live{need, bytes};
    in_use_ += need;
    return device_base_ + start;
  }
  std::string msg = "out of device memory on device " + std::to_string(device_) + ": requested " +
                    std::to_string(bytes) + " bytes, " + std::to_string(in_use_) + " of " +
                    std::to_string(capacity_) + " bytes in use";
  if (need != 0 && in_use_ + need <= capacity_)
    msg += " (fragmented: largest free block is " + std::to_string(largest) + " bytes)";
  throwAcl(ACL_ERROR_RT_MEMORY_ALLOCATION, msg);
}

void HbmArena::free(void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  const char* c = static_cast<const char*>(p);
  auto it = inBase(p) ? live_.find(static_cast<size_t>(c - device_base_)) : live_.end();
  if (it == live_.end())
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "pointer " + ptrString(p) + " is not the start of a live allocation on device " +
                                              std::to_string(device_));
  if (physical_.count(it->first))
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "pointer " + ptrString(p) +
                                              " is a physical allocation (aclrtMallocPhysical): "
                                              "free it with aclrtFreePhysical");
  freeLocked(it->first);
}

void HbmArena::freeLocked(size_t offset) {
  auto it = live_.find(offset);
  size_t off = it->first, size = it->second.aligned;
  live_.erase(it);
  in_use_ -= size;
  if (size >= kPunchHoleMinBytes) {
    // Give the pages back to the host; failure only costs host RAM.
    size_t b = roundUp(off, 4096), e = (off + size) / 4096 * 4096;
    if (e > b) (void)fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(b), static_cast<off_t>(e - b));
  }
  // Coalesce with the following and preceding free blocks.
  auto next = free_.lower_bound(off);
  if (next != free_.end() && next->first == off + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += size;
      return;
    }
  }
  free_[off] = size;
}

bool HbmArena::owns(const void* p) const {
  if (inBase(p)) return true;
  if (!has_ranges_.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return rangeOf(p) != nullptr;
}

void* HbmArena::hostView(const void* p, size_t n) const {
  std::lock_guard<std::mutex> lock(mu_);
  const char* c = static_cast<const char*>(p);
  auto fail = [&](const std::string& why) {
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "device range [" + ptrString(p) + ", +" + std::to_string(n) +
                                              " bytes) on device " + std::to_string(device_) + " " + why);
  };
  if (!inBase(p)) {
    if (const Range* r = rangeOf(p)) return rangeHostView(*r, p, n);
    fail("is outside the device's HBM");
  }
  size_t off = static_cast<size_t>(c - device_base_);
  auto it = live_.upper_bound(off);
  if (it == live_.begin()) fail("is not inside a live allocation");
  --it;
  const size_t start = it->first, len = it->second.requested;
  if (off >= start + len && !(n == 0 && off == start + len)) fail("is not inside a live allocation");
  if (n > start + len - off)
    fail("overruns its allocation [" + ptrString(device_base_ + start) + ", +" + std::to_string(len) +
         " bytes) by " + std::to_string(n - (start + len - off)) + " bytes");
  return host_base_ + off;
}

size_t HbmArena::bytesInUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t HbmArena::liveAllocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

}  // namespace ascend_sim
