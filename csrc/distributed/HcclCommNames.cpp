#include "csrc/distributed/HcclCommNames.h"

#include <unistd.h>

#include <mutex>
#include <unordered_map>

#include <c10/util/Exception.h>

namespace torch_npu {
namespace distributed {

namespace {

struct Registered {
  c10::weak_intrusive_ptr<ProcessGroupHCCL> group;
  c10::DeviceIndex device;
};

std::mutex& namesMutex() {
  static std::mutex mu;
  return mu;
}

std::unordered_map<std::string, Registered>& names() {
  static std::unordered_map<std::string, Registered> map;
  return map;
}

}  // namespace

std::string registerCommName(const c10::weak_intrusive_ptr<ProcessGroupHCCL>& group, c10::DeviceIndex device) {
  static uint64_t serial = 0;
  std::lock_guard<std::mutex> lock(namesMutex());
  // Unique per process and readable in logs, like CANN's (host, port, time) names.
  const std::string name = "hcom_" + std::to_string(getpid()) + "_" + std::to_string(serial++) + "_npu" +
                           std::to_string(static_cast<int>(device));
  names().emplace(name, Registered{group, device});
  return name;
}

void forgetCommName(const std::string& name) {
  std::lock_guard<std::mutex> lock(namesMutex());
  names().erase(name);
}

NamedComm commNamed(c10::string_view name, const char* op) {
  c10::intrusive_ptr<ProcessGroupHCCL> group;
  c10::DeviceIndex device = 0;
  {
    std::lock_guard<std::mutex> lock(namesMutex());
    const auto it = names().find(std::string(name));
    if (it != names().end()) {
      group = it->second.group.lock();
      device = it->second.device;
    }
  }
  TORCH_CHECK(
      group, op, ": hcom '", std::string(name),
      "' names no live HCCL communicator of this process; pass the string "
      "ProcessGroupHCCL.get_hccl_comm_name(rank) returns (e.g. "
      "torch.distributed.distributed_c10d._get_default_group().get_hccl_comm_name(rank)) while its group exists");
  return group->namedComm(device, op);  // outside namesMutex: the group takes its own lock
}

}  // namespace distributed
}  // namespace torch_npu
