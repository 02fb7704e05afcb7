// The c10d Store as the simulator's rendezvous store (sim::RendezvousStore).
//
// Note [HCCL rendezvous]
// init_process_group hands ProcessGroupHCCL a (prefixed) c10d Store that all
// ranks share. Communicator set-up uses it twice: rank 0 publishes the root
// info under "hccl/root_info/<n>" (n counts the PG's communicators, so every
// rank derives the same key), and the simulator exchanges its transport
// addresses through this store while sim::commInitRootInfoStore runs. The
// store is only borrowed for that call.
#pragma once

#include <chrono>

#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "csrc/core/SimulatorExtensions.h"

namespace torch_npu {
namespace distributed {

class HcclStore : public sim::RendezvousStore {
 public:
  explicit HcclStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<uint8_t>& value) override { store_->set(key, value); }
  std::vector<uint8_t> get(const std::string& key, std::chrono::milliseconds timeout) override {
    store_->wait({key}, timeout);
    return store_->get(key);
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace distributed
}  // namespace torch_npu
