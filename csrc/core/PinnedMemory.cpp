#include "csrc/core/PinnedMemory.h"

#include <map>
#include <mutex>

#include "ascend_sim/acl.h"
#include "csrc/core/NPUException.h"

namespace torch_npu {
namespace {

// Live pinned blocks: start -> size.
struct PinnedBlocks {
  std::mutex mu;
  std::map<const char*, size_t> blocks;
};

PinnedBlocks& pinnedBlocks() {
  static auto* blocks = new PinnedBlocks();  // leaked: storages may be freed during exit
  return *blocks;
}

void freePinned(void* ptr) {
  {
    PinnedBlocks& b = pinnedBlocks();
    std::lock_guard<std::mutex> lock(b.mu);
    b.blocks.erase(static_cast<const char*>(ptr));
  }
  NPU_CHECK_ACL_WARN(aclrtFreeHost(ptr));
}

class PinnedHostAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) const override {
    if (nbytes == 0) return {nullptr, nullptr, &freePinned, c10::Device(c10::DeviceType::CPU)};
    void* ptr = nullptr;
    NPU_CHECK_ACL(aclrtMallocHost(&ptr, nbytes));
    {
      PinnedBlocks& b = pinnedBlocks();
      std::lock_guard<std::mutex> lock(b.mu);
      b.blocks[static_cast<const char*>(ptr)] = nbytes;
    }
    return {ptr, ptr, &freePinned, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &freePinned; }
};

}  // namespace

c10::Allocator* pinnedHostAllocator() {
  static PinnedHostAllocator allocator;
  return &allocator;
}

bool isPinnedHostPointer(const void* ptr) {
  if (!ptr) return false;
  PinnedBlocks& b = pinnedBlocks();
  std::lock_guard<std::mutex> lock(b.mu);
  const char* p = static_cast<const char*>(ptr);
  auto it = b.blocks.upper_bound(p);
  if (it == b.blocks.begin()) return false;
  --it;
  return p < it->first + it->second;
}

}  // namespace torch_npu
