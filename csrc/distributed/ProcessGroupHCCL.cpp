// ProcessGroupHCCL: communicators, launching, failure state. The c10d
// operations themselves are in ProcessGroupHCCLOps.cpp.
#include "csrc/distributed/ProcessGroupHCCL.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "csrc/core/Env.h"
#include "csrc/core/Logging.h"
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/SimulatorExtensions.h"
#include "csrc/core/TaskQueue.h"
#include "csrc/distributed/HcclCommNames.h"
#include "csrc/distributed/HcclStore.h"
#include "csrc/distributed/HcclUtils.h"

namespace torch_npu {
namespace distributed {

namespace {

// The group's timeout, shortened by HCCL_EXEC_TIMEOUT (seconds) when set.
std::chrono::milliseconds collectiveTimeout(std::chrono::milliseconds group_timeout) {
  const char* v = std::getenv("HCCL_EXEC_TIMEOUT");
  if (v == nullptr || *v == '\0') return group_timeout;
  char* end = nullptr;
  const long seconds = std::strtol(v, &end, 10);
  TORCH_CHECK(end != v && *end == '\0' && seconds > 0, "HCCL_EXEC_TIMEOUT must be a positive number of seconds, got '",
              v, "'");
  return std::min(group_timeout, std::chrono::milliseconds(seconds * 1000));
}

// HCCL_WHITELIST_DISABLE=0: the local transport address (HCCL_IF_IP) must be
// listed in HCCL_WHITELIST_FILE, a JSON file {"host_ip": ["10.0.0.1", ...]}.
void checkWhitelist() {
  if (envFlag("HCCL_WHITELIST_DISABLE", true)) return;
  const char* file = std::getenv("HCCL_WHITELIST_FILE");
  const char* ip = std::getenv("HCCL_IF_IP");
  TORCH_CHECK(file != nullptr && *file != '\0',
              "HCCL_WHITELIST_DISABLE=0 enables the trust list, but HCCL_WHITELIST_FILE is not set; set it to a "
              "JSON file {\"host_ip\": [...]} or set HCCL_WHITELIST_DISABLE=1");
  TORCH_CHECK(ip != nullptr && *ip != '\0',
              "HCCL_WHITELIST_DISABLE=0 needs HCCL_IF_IP (the address this rank communicates from) to check it "
              "against HCCL_WHITELIST_FILE");
  std::ifstream in(file);
  TORCH_CHECK(in.good(), "cannot read HCCL_WHITELIST_FILE '", file, "'");
  std::stringstream text;
  text << in.rdbuf();
  const std::string quoted = std::string("\"") + ip + "\"";
  TORCH_CHECK(text.str().find("\"host_ip\"") != std::string::npos && text.str().find(quoted) != std::string::npos,
              "HCCL_IF_IP ", ip, " is not in the trust list HCCL_WHITELIST_FILE '", file,
              "' (expected {\"host_ip\": [\"", ip, "\", ...]})");
}

}  // namespace

ProcessGroupHCCL::ProcessGroupHCCL(c10::intrusive_ptr<c10d::Store> store, int rank, int size,
                                   std::chrono::milliseconds timeout)
    : c10d::ProcessGroup(rank, size),
      store_(std::move(store)),
      timeout_(collectiveTimeout(timeout)),
      async_error_handling_(envFlag("HCCL_ASYNC_ERROR_HANDLING", true)),
      blocking_wait_(envFlag("HCCL_BLOCKING_WAIT", false)) {
  TORCH_CHECK(size >= 1 && rank >= 0 && rank < size, "ProcessGroupHCCL: rank ", rank,
              " is not in a group of size ", size);
  checkWhitelist();
  watchdog_ = std::make_unique<HcclWatchdog>([this](const std::string& message) { onFailure(message); });
  NPU_LOGI("ProcessGroupHCCL: rank {} of {}, timeout {} ms", rank, size, timeout_.count());
}

ProcessGroupHCCL::~ProcessGroupHCCL() {
  // Not under mu_: the watchdog takes it (onFailure) and is joined below.
  bool failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed = !error_.empty();
  }
  for (auto& [device, comm] : comms_) {
    if (!comm->name.empty()) forgetCommName(comm->name);
    if (failed) sim::commAbort(comm->handle);  // nothing may wait for a dead peer
    try {
      TaskQueue::forDevice(device).drain();
    } catch (const std::exception& e) {
      NPU_LOGW("ProcessGroupHCCL: pending NPU error while destroying the group: {}", e.what());
    }
    if (aclrtSynchronizeStream(comm->stream.handle()) != ACL_SUCCESS)
      NPU_LOGW("ProcessGroupHCCL: communicator stream failed: {}", aclGetRecentErrMsg());
  }
  watchdog_.reset();  // finishes the works whose callbacks ran, fails the rest
  for (auto& [device, comm] : comms_) {
    if (HcclCommDestroy(comm->handle) != HCCL_SUCCESS)
      NPU_LOGW("ProcessGroupHCCL: HcclCommDestroy failed: {}", aclGetRecentErrMsg());
  }
}

void ProcessGroupHCCL::release_resources() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [device, comm] : comms_)
    if (!comm->name.empty()) forgetCommName(comm->name);
}

uint64_t ProcessGroupHCCL::getSequenceNumberForGroup() {
  std::lock_guard<std::mutex> lock(mu_);
  return seq_;
}

// A failed collective reaches the caller two ways: through its work (the watchdog, which then calls
// onFailure) and through the communicator stream (t.cpu() raises as soon as the stream fails). The
// second can win the race, so the communicators' own async error is consulted too, as ProcessGroupNCCL
// does with ncclCommGetAsyncError.
void ProcessGroupHCCL::checkUsable(const char* op) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = comms_.begin(); error_.empty() && it != comms_.end(); ++it) {
    HcclResult state = HCCL_SUCCESS;
    if (HcclGetCommAsyncError(it->second->handle, &state) == HCCL_SUCCESS && state == HCCL_SUCCESS) continue;
    error_ = "the communicator on npu:" + std::to_string(it->first) + " failed: " +
             sim::commErrorMessage(it->second->handle);
  }
  TORCH_CHECK(error_.empty(), "ProcessGroupHCCL (rank ", getRank(), " of ", getSize(), ") cannot run ", op,
              " after an earlier failure: ", error_);
}

void ProcessGroupHCCL::onFailure(const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error_.empty()) {
    error_ = message;
    NPU_LOGE("ProcessGroupHCCL rank {}: {}", getRank(), message);
  }
  if (!async_error_handling_) return;
  for (auto& [device, comm] : comms_) sim::commAbort(comm->handle);
}

ProcessGroupHCCL::Comm& ProcessGroupHCCL::commFor(c10::DeviceIndex device) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = comms_.find(device);
  if (it != comms_.end()) return *it->second;

  const std::string key = "hccl/root_info/" + std::to_string(comm_count_++);
  HcclRootInfo info{};
  if (getRank() == 0) {
    checkHccl(HcclGetRootInfo(&info), "root info");
    const auto* bytes = reinterpret_cast<const uint8_t*>(&info);
    store_->set(key, std::vector<uint8_t>(bytes, bytes + sizeof(info)));
  } else {
    store_->wait({key}, timeout_);
    const std::vector<uint8_t> bytes = store_->get(key);
    TORCH_CHECK(bytes.size() == sizeof(info), "ProcessGroupHCCL: the root info in the store has ", bytes.size(),
                " bytes, expected ", sizeof(info));
    std::memcpy(&info, bytes.data(), sizeof(info));
  }
  HcclStore rendezvous(store_);
  const auto timeout_ms = std::min<int64_t>(timeout_.count(), std::numeric_limits<uint32_t>::max());
  auto comm = std::make_unique<Comm>(Comm{nullptr, getStreamFromPool(device), getStreamFromPool(device)});
  {
    DeviceSwitch guard(device);
    checkHccl(sim::commInitRootInfoStore(static_cast<uint32_t>(getSize()), info, static_cast<uint32_t>(getRank()),
                                         rendezvous, static_cast<uint32_t>(timeout_ms), &comm->handle),
              "communicator set-up (rank " + std::to_string(getRank()) + " of " + std::to_string(getSize()) +
                  " on npu:" + std::to_string(device) + ")");
  }
  NPU_LOGI("ProcessGroupHCCL: rank {} joined its communicator on npu:{}", getRank(), static_cast<int>(device));
  return *comms_.emplace(device, std::move(comm)).first->second;
}

std::string ProcessGroupHCCL::getHcclCommName(int64_t rank_id) {
  TORCH_CHECK(rank_id >= 0, "get_hccl_comm_name: rank_id must be a rank (>= 0), got ", rank_id);
  checkUsable("get_hccl_comm_name");
  const c10::DeviceIndex device = current_device();
  Comm& comm = commFor(device);
  std::lock_guard<std::mutex> lock(mu_);
  if (comm.name.empty())
    comm.name = registerCommName(
        c10::weak_intrusive_ptr<ProcessGroupHCCL>(c10::intrusive_ptr<ProcessGroupHCCL>::reclaim_copy(this)), device);
  return comm.name;
}

NamedComm ProcessGroupHCCL::namedComm(c10::DeviceIndex device, const char* op) {
  checkUsable(op);
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = comms_.find(device);
  TORCH_CHECK(it != comms_.end(), op, ": the group has no communicator on npu:", static_cast<int>(device));
  return NamedComm{c10::intrusive_ptr<ProcessGroupHCCL>::reclaim_copy(this),
                   it->second->handle,
                   it->second->stream,
                   device,
                   getRank(),
                   getSize()};
}

c10::intrusive_ptr<WorkHCCL> ProcessGroupHCCL::makeWork(const Launch& l) {
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seq = ++seq_;
  }
  const std::string description = std::string(l.name) + " (SeqNum=" + std::to_string(seq) + ", rank " +
                                  std::to_string(getRank()) + " of " + std::to_string(getSize()) + ", npu:" +
                                  std::to_string(l.device) + ")";
  const auto timeout = l.timeout.count() < 0 ? timeout_ : l.timeout;
  return c10::make_intrusive<WorkHCCL>(getRank(), l.type, description, l.device, l.results, timeout,
                                       l.block_host_on_wait || blocking_wait_);
}

c10::intrusive_ptr<WorkHCCL> ProcessGroupHCCL::launch(Launch l) {
  checkUsable(l.name);
  TORCH_CHECK(!coalescing_, "ProcessGroupHCCL: only send/recv can be batched (batch_isend_irecv), not ", l.name);
  Comm& comm = commFor(l.device);
  auto work = makeWork(l);
  enqueue(l, comm, {work});
  return work;
}

void ProcessGroupHCCL::enqueue(const Launch& l, Comm& comm, std::vector<c10::intrusive_ptr<WorkHCCL>> works) {
  const NPUStream caller = getCurrentNPUStream(l.device);
  auto ready = std::make_shared<NPUEvent>();
  ready->record(caller);
  ready->block(comm.stream);

  HcclComm handle = comm.handle;
  aclrtStream stream = comm.stream.handle();
  auto call = l.call;
  void* callback = watchdog_->makeCallbackData(watchdog_->track(works), handle);
  TaskQueue::forDevice(l.device).enqueue(CallTask{
      std::string("Hccl ") + l.name, [call, handle, stream, callback]() -> aclError {
        const HcclResult result = call(handle, stream);
        if (result != HCCL_SUCCESS) {
          HcclWatchdog::launchFailed(callback, std::string(HcclGetErrorString(result)) + ": " + aclGetRecentErrMsg());
          return ACL_SUCCESS;  // reported through the work, not as a failed NPU op
        }
        const aclError status = aclrtLaunchCallback(&HcclWatchdog::streamCallback, callback, stream);
        if (status != ACL_SUCCESS)
          HcclWatchdog::launchFailed(callback, std::string("completion callback: ") + aclGetRecentErrMsg());
        return status;
      }});
  auto end = std::make_shared<NPUEvent>();
  end->record(comm.stream);

  for (const at::Tensor& t : l.touched)
    if (t.defined() && t.numel() > 0) allocator::recordStream(t.storage().data_ptr(), comm.stream);
  for (auto& w : works) w->setEvents(ready, end, comm.future_stream);
  if (l.after) {
    end->block(caller);
    l.after();
  }
}

}  // namespace distributed
}  // namespace torch_npu
