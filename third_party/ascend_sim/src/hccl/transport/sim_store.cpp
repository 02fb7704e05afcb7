#include "ascend_sim/hccl_sim.h"
#include "hccl/transport/sim_store.h"

#include <algorithm>
#include <cstdint>

#include "hccl/hccl_error.h"

namespace ascend_sim {
namespace hccl {

namespace {
struct Sink {
  std::string* out;
  bool failed = false;
};
// Called from the store's C callback: must not throw.
void sinkValue(void* ctx, const void* data, size_t size) {
  auto* s = static_cast<Sink*>(ctx);
  try {
    s->out->assign(static_cast<const char*>(data), size);
  } catch (...) {
    s->failed = true;
  }
}
}  // namespace

SimStore::SimStore(const HcclSimStore& store, std::string prefix) : store_(store), prefix_(std::move(prefix)) {
  if (!store_.set || !store_.get) throwHccl(HCCL_E_PTR, "store->set and store->get must not be null");
}

void SimStore::set(const std::string& key, const std::string& value) {
  const std::string full = prefix_ + key;
  if (store_.set(store_.ctx, full.c_str(), value.data(), value.size()) != 0)
    throwHccl(HCCL_E_TCP_CONNECT, "the rendezvous store failed to set key '" + full + "'");
}

bool SimStore::get(const std::string& key, std::chrono::milliseconds timeout, std::string* value) {
  const std::string full = prefix_ + key;
  const auto ms = std::clamp<int64_t>(timeout.count(), 1, UINT32_MAX);
  Sink sink{value};
  const int rc = store_.get(store_.ctx, full.c_str(), static_cast<uint32_t>(ms), &sinkValue, &sink);
  return rc == 0 && !sink.failed;
}

}  // namespace hccl
}  // namespace ascend_sim
