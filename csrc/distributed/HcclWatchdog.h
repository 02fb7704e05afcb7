// Completion and timeout tracking of a ProcessGroupHCCL's works.
//
// Note [HCCL watchdog]
// Every device launch (one collective, or one batch of coalesced send/recv)
// is tracked under a launch id. Right after the collective, the process group
// queues a callback on the communicator's stream (streamCallback) that reads
// the communicator's error state at exactly that point of the stream and
// reports the launch as done — success, or the communicator's first failure.
// The watchdog thread then finishes the works (so futures complete off the
// simulator's threads) and, every kPollInterval, fails works that ran past
// their timeout. Failures and timeouts are passed to `on_failure` (the
// process group aborts the communicator and remembers the error: see
// HCCL_ASYNC_ERROR_HANDLING in ProcessGroupHCCL.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ascend_sim/hccl.h"
#include "csrc/distributed/WorkHCCL.h"

namespace torch_npu {
namespace distributed {

class HcclWatchdog {
 public:
  using OnFailure = std::function<void(const std::string& message)>;
  static constexpr std::chrono::milliseconds kPollInterval{100};

  explicit HcclWatchdog(OnFailure on_failure);
  // Fails the works still outstanding ("process group destroyed") and joins.
  ~HcclWatchdog();
  HcclWatchdog(const HcclWatchdog&) = delete;
  HcclWatchdog& operator=(const HcclWatchdog&) = delete;

  uint64_t track(std::vector<c10::intrusive_ptr<WorkHCCL>> works);

  // aclrtCallback for the communicator's stream: `user_data` comes from
  // makeCallbackData and is consumed.
  static void streamCallback(void* user_data);
  void* makeCallbackData(uint64_t launch, HcclComm comm);
  // The launch failed before reaching the stream: consumes `user_data` and
  // reports `error` for its works.
  static void launchFailed(void* user_data, std::string error);

 public:
  struct Shared;  // outlives the watchdog while callbacks are queued

 private:
  static void post(Shared& shared, uint64_t launch, std::string error);
  void loop();
  void failExpired(std::chrono::steady_clock::time_point now);

  OnFailure on_failure_;
  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace distributed
}  // namespace torch_npu
