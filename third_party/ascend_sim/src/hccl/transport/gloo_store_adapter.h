// gloo's rendezvous Store interface over a SimStore (the caller's
// HcclSimStore callbacks), so that gloo's connectFullMesh exchanges the pair
// addresses through the same store the ranks rendezvous with.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "hccl/transport/sim_store.h"

namespace ascend_sim {
namespace hccl {

class GlooStoreAdapter final : public gloo::rendezvous::Store {
 public:
  // Keys land under store.prefix() + "gloo/". Waits give up after `timeout`
  // with HcclError(HCCL_E_TIMEOUT).
  GlooStoreAdapter(SimStore& store, std::chrono::milliseconds timeout) : store_(store), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

 private:
  std::string fetch(const std::string& key, std::chrono::milliseconds timeout);

  SimStore& store_;
  std::chrono::milliseconds timeout_;
};

}  // namespace hccl
}  // namespace ascend_sim
