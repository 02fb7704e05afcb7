#include "csrc/distributed/HcclStore.h"

#include <string>
#include <vector>

#include "csrc/core/Logging.h"

namespace torch_npu {
namespace distributed {

HcclSimStore HcclStore::callbacks() { return HcclSimStore{this, &HcclStore::set, &HcclStore::get}; }

int HcclStore::set(void* ctx, const char* key, const void* value, size_t size) {
  try {
    const auto* bytes = static_cast<const uint8_t*>(value);
    static_cast<HcclStore*>(ctx)->store_->set(key, std::vector<uint8_t>(bytes, bytes + size));
    return 0;
  } catch (const std::exception& e) {
    NPU_LOGE("HCCL rendezvous: store set of '{}' failed: {}", key, e.what());
    return 1;
  }
}

int HcclStore::get(void* ctx, const char* key, uint32_t timeoutMs,
                   void (*sink)(void* sinkCtx, const void* data, size_t size), void* sinkCtx) {
  try {
    auto& store = *static_cast<HcclStore*>(ctx)->store_;
    store.wait({key}, std::chrono::milliseconds(timeoutMs));
    const std::vector<uint8_t> value = store.get(key);
    sink(sinkCtx, value.data(), value.size());
    return 0;
  } catch (const std::exception& e) {
    NPU_LOGE("HCCL rendezvous: store get of '{}' failed: {}", key, e.what());
    return 1;
  }
}

}  // namespace distributed
}  // namespace torch_npu
