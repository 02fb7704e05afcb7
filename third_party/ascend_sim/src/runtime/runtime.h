// The process-wide simulator runtime: configuration, devices, the current
// device per host thread, and the registries of live stream/event handles.
//
// Note [Runtime lifetime and handles]
// Runtime::get() builds the runtime at first use (reading the environment,
// see chip_config.h) and leaks it, so no device or worker thread is torn down
// under a late caller during process exit; an atexit hook drains all streams
// so queued work finishes before static destructors run. Stream and event
// handles are opaque numbers, never addresses: a destroyed or invented handle
// is looked up in the registry and reported as ACL_ERROR_RT_INVALID_HANDLE,
// never dereferenced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ascend_sim/acl.h"
#include "cost/cost_model.h"
#include "chip/chip_config.h"
#include "runtime/device.h"
#include "runtime/event.h"
#include "runtime/stream.h"

namespace ascend_sim {

// Where a device pointer lives.
struct DeviceRange {
  int device = -1;
  void* host = nullptr;  // host-accessible address of the pointer
};

class Runtime {
 public:
  static Runtime& get();

  // Applies `[soc] soc_version` from an aclInit config file.
  void configureFromIni(const std::string& path);

  // All of these throw AclError on a bad configuration or argument.
  const ChipConfig& chip();
  const CostModel& cost();
  int deviceCount();
  Device& device(int32_t logical_id);  // ACL_ERROR_RT_INVALID_DEVICEID with the valid range
  Device& currentDevice();
  void setCurrentDevice(int32_t logical_id);
  int32_t currentDeviceId();
  void resetDevice(int32_t logical_id);
  // Every device created so far.
  std::vector<Device*> createdDevices();
  // The same, into a caller-owned list (no allocation once it has grown).
  void createdDevices(std::vector<Device*>* out);

  // nullptr -> the current device's default stream.
  std::shared_ptr<Stream> stream(aclrtStream handle);
  aclrtStream registerStream(const std::shared_ptr<Stream>& s);
  std::shared_ptr<Stream> unregisterStream(aclrtStream handle);
  std::shared_ptr<Event> event(aclrtEvent handle);
  aclrtEvent registerEvent(const std::shared_ptr<Event>& e);
  std::shared_ptr<Event> unregisterEvent(aclrtEvent handle);

  // The device whose HBM address range contains p, or nullptr.
  Device* deviceOwning(const void* p);
  // [p, p+n) inside one live allocation; else ACL_ERROR_RT_INVALID_MEMORY
  // naming the pointer and size.
  DeviceRange resolve(const void* p, size_t n);

  // Waits for every stream of every device (used at exit and by aclFinalize).
  void drainAll();

 private:
  Runtime();
  void checkConfig();

  std::mutex mu_;
  std::string soc_from_ini_;
  ChipConfig chip_;
  std::unique_ptr<CostModel> cost_;
  std::vector<int> physical_ids_;
  size_t hbm_bytes_ = 0;
  bool profile_ = false;
  aclError config_code_ = ACL_SUCCESS;
  std::string config_error_;
  std::vector<std::unique_ptr<Device>> devices_;

  uintptr_t next_handle_ = 1;
  std::unordered_map<uintptr_t, std::shared_ptr<Stream>> streams_;
  std::unordered_map<uintptr_t, std::shared_ptr<Event>> events_;
};

// Test hooks (exported): capacity of a device's arena the next time it is
// created (after aclrtResetDevice or before first use), and direct
// pointer resolution.
ASCEND_SIM_API void setDeviceHbmCapacityForTesting(int32_t device, size_t bytes);
ASCEND_SIM_API bool resolveDevicePointerForTesting(const void* p, size_t n, int32_t* device, void** host);

}  // namespace ascend_sim
