#include "runtime/runtime.h"

#include <cstdlib>

#include "runtime/error_state.h"

namespace ascend_sim {

namespace {
thread_local int32_t t_current_device = 0;

constexpr int kDefaultDeviceCount = 8;
constexpr uintptr_t kHandleBase = 0x5100000;  // handles look like addresses but are ids
constexpr uintptr_t kHandleStride = 16;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

void drainAtExit() {
  // A worker calling exit() cannot wait for its own stream.
  if (Stream::onWorkerThread()) return;
  Runtime::get().drainAll();
}
}  // namespace

Runtime& Runtime::get() {
  static Runtime* rt = [] {
    auto* r = new Runtime();  // leaked on purpose, see Note [Runtime lifetime and handles]
    std::atexit(drainAtExit);
    return r;
  }();
  return *rt;
}

Runtime::Runtime() {
  try {
    std::string soc = env("ASCEND_SIM_SOC_VERSION") ? env("ASCEND_SIM_SOC_VERSION") : "Ascend910A";
    chip_ = ChipConfig::preset(soc);
    hbm_bytes_ = chip_.hbm_bytes;
    if (const char* h = env("ASCEND_SIM_HBM_SIZE")) hbm_bytes_ = parseByteSize(h);
    int count = kDefaultDeviceCount;
    if (const char* c = env("ASCEND_SIM_DEVICE_COUNT")) {
      char* end = nullptr;
      long v = std::strtol(c, &end, 10);
      if (*end != '\0' || v < 1 || v > 1024)
        throwAcl(ACL_ERROR_INVALID_PARAM, std::string("ASCEND_SIM_DEVICE_COUNT='") + c + "' is not a device count in 1..1024");
      count = static_cast<int>(v);
    }
    if (const char* vis = env("ASCEND_RT_VISIBLE_DEVICES")) {
      physical_ids_ = parseVisibleDevices(vis, count);
    } else {
      for (int i = 0; i < count; ++i) physical_ids_.push_back(i);
    }
    if (const char* p = env("ASCEND_SIM_PROFILE")) profile_ = std::string(p) == "1";
  } catch (const AclError& e) {
    config_code_ = e.code();
    config_error_ = std::string("bad simulator configuration: ") + e.what();
  }
  cost_ = std::make_unique<CostModel>(chip_);
  devices_.resize(physical_ids_.size());
}

void Runtime::checkConfig() {
  if (config_code_ != ACL_SUCCESS) throwAcl(config_code_, config_error_);
}

void Runtime::configureFromIni(const std::string& path) {
  std::string soc = readSocVersionFromIni(path);
  std::lock_guard<std::mutex> lock(mu_);
  if (soc.empty() || env("ASCEND_SIM_SOC_VERSION")) return;  // the environment wins
  if (soc == chip_.soc_name) return;
  ChipConfig next = ChipConfig::preset(soc);
  for (auto& d : devices_)
    if (d)
      throwAcl(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "cannot switch the SoC from " + std::string(chip_.soc_name) + " to " +
                                                     soc + ": devices are already in use");
  const bool hbm_from_env = env("ASCEND_SIM_HBM_SIZE") != nullptr;
  chip_ = next;
  if (!hbm_from_env) hbm_bytes_ = chip_.hbm_bytes;
  cost_ = std::make_unique<CostModel>(chip_);
}

const ChipConfig& Runtime::chip() {
  checkConfig();
  return chip_;
}

const CostModel& Runtime::cost() {
  checkConfig();
  return *cost_;
}

int Runtime::deviceCount() {
  checkConfig();
  return static_cast<int>(physical_ids_.size());
}

Device& Runtime::device(int32_t id) {
  checkConfig();
  const int n = static_cast<int>(physical_ids_.size());
  if (id < 0 || id >= n)
    throwAcl(ACL_ERROR_RT_INVALID_DEVICEID,
             "invalid device id " + std::to_string(id) + " (valid ids are 0.." + std::to_string(n - 1) + ")");
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = devices_[static_cast<size_t>(id)];
  if (!slot) slot = std::make_unique<Device>(id, physical_ids_[static_cast<size_t>(id)], hbm_bytes_, profile_);
  return *slot;
}

Device& Runtime::currentDevice() { return device(t_current_device); }

void Runtime::setCurrentDevice(int32_t id) {
  device(id);  // validates
  t_current_device = id;
}

int32_t Runtime::currentDeviceId() {
  checkConfig();
  return t_current_device;
}

std::vector<Device*> Runtime::createdDevices() {
  std::vector<Device*> out;
  createdDevices(&out);
  return out;
}

void Runtime::createdDevices(std::vector<Device*>* out) {
  out->clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& d : devices_)
    if (d) out->push_back(d.get());
}

void Runtime::resetDevice(int32_t id) {
  Device& dev = device(id);
  dev.waitIdle();
  std::vector<std::shared_ptr<Stream>> dropped_streams;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = streams_.begin(); it != streams_.end();) {
      if (it->second->device() == id) {
        dropped_streams.push_back(std::move(it->second));
        it = streams_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto it = events_.begin(); it != events_.end();)
      it = it->second->device() == id ? events_.erase(it) : std::next(it);
  }
  dropped_streams.clear();
  dev.reset();
}

std::shared_ptr<Stream> Runtime::stream(aclrtStream handle) {
  if (handle == nullptr) return currentDevice().defaultStream();
  checkConfig();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(reinterpret_cast<uintptr_t>(handle));
  if (it == streams_.end())
    throwAcl(ACL_ERROR_RT_INVALID_HANDLE,
             "stream handle " + ptrString(handle) + " is not a live stream (never created, or already destroyed)");
  return it->second;
}

aclrtStream Runtime::registerStream(const std::shared_ptr<Stream>& s) {
  std::lock_guard<std::mutex> lock(mu_);
  uintptr_t h = kHandleBase + kHandleStride * next_handle_++;
  streams_[h] = s;
  return reinterpret_cast<aclrtStream>(h);
}

std::shared_ptr<Stream> Runtime::unregisterStream(aclrtStream handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(reinterpret_cast<uintptr_t>(handle));
  if (handle == nullptr || it == streams_.end())
    throwAcl(ACL_ERROR_RT_INVALID_HANDLE,
             "stream handle " + ptrString(handle) + " is not a live stream (never created, or already destroyed)");
  auto s = std::move(it->second);
  streams_.erase(it);
  return s;
}

std::shared_ptr<Event> Runtime::event(aclrtEvent handle) {
  checkConfig();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(reinterpret_cast<uintptr_t>(handle));
  if (handle == nullptr || it == events_.end())
    throwAcl(ACL_ERROR_RT_INVALID_HANDLE,
             "event handle " + ptrString(handle) + " is not a live event (never created, or already destroyed)");
  return it->second;
}

aclrtEvent Runtime::registerEvent(const std::shared_ptr<Event>& e) {
  std::lock_guard<std::mutex> lock(mu_);
  uintptr_t h = kHandleBase + kHandleStride * next_handle_++;
  events_[h] = e;
  return reinterpret_cast<aclrtEvent>(h);
}

std::shared_ptr<Event> Runtime::unregisterEvent(aclrtEvent handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(reinterpret_cast<uintptr_t>(handle));
  if (handle == nullptr || it == events_.end())
    throwAcl(ACL_ERROR_RT_INVALID_HANDLE,
             "event handle " + ptrString(handle) + " is not a live event (never created, or already destroyed)");
  auto e = std::move(it->second);
  events_.erase(it);
  return e;
}

Device* Runtime::deviceOwning(const void* p) {
  // Runs for every operand of every launch: the list is reused, not allocated.
  static thread_local std::vector<Device*> created;
  createdDevices(&created);
  for (Device* d : created) {
    HbmArena* a = d->arenaIfCreated();
    if (a && a->owns(p)) return d;
  }
  return nullptr;
}

DeviceRange Runtime::resolve(const void* p, size_t n) {
  Device* d = deviceOwning(p);
  if (!d)
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, "pointer " + ptrString(p) + " (" + std::to_string(n) +
                                              " bytes) is not device memory of any device");
  return DeviceRange{d->id(), d->arena().hostView(p, n)};
}

void Runtime::drainAll() {
  for (Device* d : createdDevices()) d->waitIdle();
}

void setDeviceHbmCapacityForTesting(int32_t device, size_t bytes) {
  Runtime::get().device(device).setHbmCapacity(bytes);
}

bool resolveDevicePointerForTesting(const void* p, size_t n, int32_t* device, void** host) {
  try {
    DeviceRange r = Runtime::get().resolve(p, n);
    *device = r.device;
    *host = r.host;
    return true;
  } catch (...) {
    return false;
  }
}

std::vector<TaskRecord> deviceTaskRecords(int32_t device) { return Runtime::get().device(device).recorder().snapshot(); }

void setDeviceProfiling(int32_t device, bool enabled) { Runtime::get().device(device).recorder().setEnabled(enabled); }

}  // namespace ascend_sim
