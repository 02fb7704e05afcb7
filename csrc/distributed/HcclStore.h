// The c10d Store as the simulator's rendezvous store (HcclSimStore).
//
// Note [HCCL rendezvous]
// init_process_group hands ProcessGroupHCCL a (prefixed) c10d Store that all
// ranks share. Communicator set-up uses it twice: rank 0 publishes the root
// info under "hccl/root_info/<n>" (n counts the PG's communicators, so every
// rank derives the same key), and the simulator exchanges its transport
// addresses through the callbacks below while HcclSimCommInitRootInfoStore
// runs. The store is only borrowed for that call.
#pragma once

#include <chrono>

#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "ascend_sim/hccl.h"

namespace torch_npu {
namespace distributed {

class HcclStore {
 public:
  explicit HcclStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}
  // Callbacks bound to this object (valid while it lives).
  HcclSimStore callbacks();

 private:
  static int set(void* ctx, const char* key, const void* value, size_t size);
  static int get(void* ctx, const char* key, uint32_t timeoutMs,
                 void (*sink)(void* sinkCtx, const void* data, size_t size), void* sinkCtx);

  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace distributed
}  // namespace torch_npu
