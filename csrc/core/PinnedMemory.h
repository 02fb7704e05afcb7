// Page-locked host memory for fast, asynchronous host-to-NPU copies
// (tensor.pin_memory("npu"), DataLoader(pin_memory=True) under
// transfer_to_npu): aclrtMallocHost blocks, and whether a pointer lies in one.
#pragma once

#include <c10/core/Allocator.h>

namespace torch_npu {

// The allocator of pinned host storages (c10 CPU device).
c10::Allocator* pinnedHostAllocator();
// True if `ptr` lies inside a live pinned block.
bool isPinnedHostPointer(const void* ptr);

}  // namespace torch_npu
