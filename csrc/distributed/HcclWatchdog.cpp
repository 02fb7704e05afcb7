#include "csrc/distributed/HcclWatchdog.h"

#include <c10/util/Exception.h>

#include "csrc/core/Logging.h"
#include "csrc/core/SimulatorExtensions.h"

namespace torch_npu {
namespace distributed {

struct HcclWatchdog::Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  uint64_t next_launch = 1;
  std::map<uint64_t, std::vector<c10::intrusive_ptr<WorkHCCL>>> outstanding;
  std::vector<std::pair<uint64_t, std::string>> done;  // reported, not yet finished
};

namespace {

struct CallbackData {
  std::weak_ptr<HcclWatchdog::Shared> shared;
  uint64_t launch;
  HcclComm comm;
};

std::exception_ptr errorFor(const WorkHCCL& work, const std::string& what) {
  return std::make_exception_ptr(c10::Error(c10::SourceLocation{__func__, __FILE__, __LINE__},
                                            "HCCL " + work.description() + " failed: " + what));
}

}  // namespace

HcclWatchdog::HcclWatchdog(OnFailure on_failure)
    : on_failure_(std::move(on_failure)), shared_(std::make_shared<Shared>()) {
  thread_ = std::thread([this] { loop(); });
}

HcclWatchdog::~HcclWatchdog() {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->stopping = true;
  }
  shared_->cv.notify_all();
  thread_.join();
}

uint64_t HcclWatchdog::track(std::vector<c10::intrusive_ptr<WorkHCCL>> works) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  const uint64_t id = shared_->next_launch++;
  shared_->outstanding.emplace(id, std::move(works));
  return id;
}

void HcclWatchdog::post(Shared& shared, uint64_t launch, std::string error) {
  {
    std::lock_guard<std::mutex> lock(shared.mu);
    shared.done.emplace_back(launch, std::move(error));
  }
  shared.cv.notify_all();
}


void* HcclWatchdog::makeCallbackData(uint64_t launch, HcclComm comm) {
  return new CallbackData{shared_, launch, comm};
}

void HcclWatchdog::streamCallback(void* user_data) {
  std::unique_ptr<CallbackData> data(static_cast<CallbackData*>(user_data));
  std::shared_ptr<Shared> shared = data->shared.lock();
  if (!shared) return;  // the process group is gone
  HcclResult state = HCCL_SUCCESS;
  std::string error;
  if (HcclGetCommAsyncError(data->comm, &state) != HCCL_SUCCESS) {
    error = "the communicator is no longer valid";
  } else if (state != HCCL_SUCCESS) {
    error = sim::commErrorMessage(data->comm);
  }
  post(*shared, data->launch, std::move(error));
}

void HcclWatchdog::launchFailed(void* user_data, std::string error) {
  std::unique_ptr<CallbackData> data(static_cast<CallbackData*>(user_data));
  if (std::shared_ptr<Shared> shared = data->shared.lock()) post(*shared, data->launch, std::move(error));
}

void HcclWatchdog::loop() {
  std::unique_lock<std::mutex> lock(shared_->mu);
  for (;;) {
    shared_->cv.wait_for(lock, kPollInterval, [&] { return shared_->stopping || !shared_->done.empty(); });
    auto done = std::move(shared_->done);
    shared_->done.clear();
    std::vector<std::pair<std::vector<c10::intrusive_ptr<WorkHCCL>>, std::string>> finished;
    for (auto& [launch, error] : done) {
      auto it = shared_->outstanding.find(launch);
      if (it == shared_->outstanding.end()) continue;  // already failed (timeout)
      finished.emplace_back(std::move(it->second), std::move(error));
      shared_->outstanding.erase(it);
    }
    const bool stopping = shared_->stopping;
    std::map<uint64_t, std::vector<c10::intrusive_ptr<WorkHCCL>>> abandoned;
    if (stopping) abandoned.swap(shared_->outstanding);
    lock.unlock();

    // Note [Fail the group before the work]: on_failure_ runs before complete(), so a caller woken by
    // the failed work that launches its next collective already finds the group failed.
    for (auto& [works, error] : finished) {
      if (!error.empty()) on_failure_("HCCL " + works.front()->description() + " failed: " + error);
      for (auto& w : works) w->complete(error.empty() ? nullptr : errorFor(*w, error));
    }
    for (auto& [launch, works] : abandoned)
      for (auto& w : works) w->complete(errorFor(*w, "the process group was destroyed before it finished"));
    if (stopping) return;
    failExpired(std::chrono::steady_clock::now());
    lock.lock();
  }
}

void HcclWatchdog::failExpired(std::chrono::steady_clock::time_point now) {
  std::vector<c10::intrusive_ptr<WorkHCCL>> expired;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    for (auto it = shared_->outstanding.begin(); it != shared_->outstanding.end();) {
      const auto& first = *it->second.front();
      if (now - first.started() > first.timeout()) {
        for (auto& w : it->second) expired.push_back(std::move(w));
        it = shared_->outstanding.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& w : expired) {
    const auto ran = std::chrono::duration_cast<std::chrono::milliseconds>(now - w->started()).count();
    const std::string message = "Watchdog caught collective operation timeout: HCCL " + w->description() +
                                " ran for " + std::to_string(ran) + " ms (timeout " +
                                std::to_string(w->timeout().count()) + " ms)";
    NPU_LOGE("{}", message);
    on_failure_(message);  // Note [Fail the group before the work]
    w->complete(std::make_exception_ptr(c10::Error(c10::SourceLocation{__func__, __FILE__, __LINE__}, message)));
  }
}

}  // namespace distributed
}  // namespace torch_npu
