#include "hccl/comm_registry.h"

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "hccl/hccl_error.h"
#include "runtime/error_state.h"

namespace ascend_sim {
namespace hccl {

namespace {

constexpr uintptr_t kHandleBase = 0x4cc0000;  // handles look like addresses but are ids
constexpr uintptr_t kHandleStride = 16;

struct Registry {
  std::mutex mu;
  uintptr_t next = 1;
  std::unordered_map<uintptr_t, std::shared_ptr<Communicator>> comms;
};

Registry& registry() {
  static auto* r = new Registry();  // leaked: see the header
  return *r;
}

[[noreturn]] void unknown(HcclComm handle) {
  throwHccl(HCCL_E_UNAVAIL, "communicator handle " + ptrString(handle) +
                                " is not a live communicator (never created, or already destroyed)");
}

}  // namespace

HcclComm registerComm(std::shared_ptr<Communicator> comm) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const uintptr_t h = kHandleBase + kHandleStride * r.next++;
  r.comms[h] = std::move(comm);
  return reinterpret_cast<HcclComm>(h);
}

std::shared_ptr<Communicator> lookupComm(HcclComm handle) {
  if (!handle) throwHccl(HCCL_E_PTR, "comm must not be null");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.comms.find(reinterpret_cast<uintptr_t>(handle));
  if (it == r.comms.end()) unknown(handle);
  return it->second;
}

std::shared_ptr<Communicator> unregisterComm(HcclComm handle) {
  if (!handle) throwHccl(HCCL_E_PTR, "comm must not be null");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.comms.find(reinterpret_cast<uintptr_t>(handle));
  if (it == r.comms.end()) unknown(handle);
  auto c = std::move(it->second);
  r.comms.erase(it);
  return c;
}

}  // namespace hccl
}  // namespace ascend_sim
