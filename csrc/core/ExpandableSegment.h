// One expandable segment's device memory: a reserved range of device addresses (CANN's
// aclrtReserveMemAddress) whose granules are backed by physical HBM on demand. The allocator keeps
// the blocks (Note [Expandable segments] in NPUCachingAllocator.cpp); this class only maps and unmaps.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include <cstddef>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"

namespace torch_npu {
namespace allocator {

class ExpandableSegment {
 public:
  // Reserves `bytes` (rounded up to the granularity) of addresses on `device`; throws on failure.
  ExpandableSegment(c10::DeviceIndex device, c10::StreamId stream, size_t bytes);
  ~ExpandableSegment();  // unmaps and frees every granule, releases the range
  ExpandableSegment(const ExpandableSegment&) = delete;
  ExpandableSegment& operator=(const ExpandableSegment&) = delete;

  // Backs [offset, offset + bytes) (granule-aligned) with new physical memory. On failure nothing of it
  // stays mapped and the device's message is in *error.
  aclError map(size_t offset, size_t bytes, std::string* error);
  void unmap(size_t offset, size_t bytes);  // granule-aligned, mapped

  char* base() const { return base_; }
  size_t size() const { return size_; }
  size_t granularity() const { return granularity_; }
  size_t mappedBytes() const { return mapped_bytes_; }
  c10::StreamId stream() const { return stream_; }

 private:
  c10::DeviceIndex device_;
  c10::StreamId stream_;
  size_t granularity_ = 0;
  size_t size_ = 0;
  char* base_ = nullptr;
  std::vector<aclrtDrvMemHandle> handles_;  // per granule; nullptr while unmapped
  size_t mapped_bytes_ = 0;
};

}  // namespace allocator
}  // namespace torch_npu
