// Key-value access to the caller's rendezvous store (HcclSimStore callbacks),
// with every key under one prefix so that several communicators can share a
// store, and with timeouts. Used only while a communicator is being created.
#pragma once

#include <chrono>
#include <string>

#include "ascend_sim/hccl.h"
#include "ascend_sim/hccl_sim.h"

namespace ascend_sim {
namespace hccl {

class ASCEND_SIM_API SimStore {  // exported for the tests
 public:
  // Throws HcclError(HCCL_E_PTR) if the callbacks are missing.
  SimStore(const HcclSimStore& store, std::string prefix);

  // Throws HcclError(HCCL_E_TCP_CONNECT) if the store reports a failure.
  void set(const std::string& key, const std::string& value);
  // Waits up to `timeout` for key; false if it did not appear (or the store failed).
  bool get(const std::string& key, std::chrono::milliseconds timeout, std::string* value);
  const std::string& prefix() const { return prefix_; }

 private:
  HcclSimStore store_;
  std::string prefix_;
};

}  // namespace hccl
}  // namespace ascend_sim
