// CopyCommand: the one way memory copies reach the device, beside OpCommand (the one way ops do).
//
//   CopyCommand(dst, src, bytes, ACL_MEMCPY_HOST_TO_DEVICE, device).KeepAlive(staging).Run();
//
// Note [One path to the queue]
// Everything csrc/aten and csrc/framework send to a device goes through the framework: kernels as
// OpCommand launches, raw byte copies (tensor.copy_ between memories, storage resizes, the byte
// copies of same-format storages) as CopyCommand tasks, both on the current stream of the device
// through its task queue (Note [Task queue]), so they stay ordered with each other. Factory fills
// are kernels (Fill, Range, LinSpace) and take OpCommand. Only the runtime layer (csrc/core: events,
// stream synchronisation) and the collectives (csrc/distributed) enqueue tasks of their own.
#pragma once

#include <cstddef>
#include <memory>

#include <c10/core/Device.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

class CopyCommand {
 public:
  CopyCommand(void* dst, const void* src, size_t bytes, aclrtMemcpyKind kind, c10::DeviceIndex device)
      : dst_(dst), src_(src), bytes_(bytes), kind_(kind), device_(device) {}

  // Host memory the copy reads or writes, kept alive until the copy has run.
  CopyCommand& KeepAlive(std::shared_ptr<void> staging) {
    staging_ = std::move(staging);
    return *this;
  }

  // Queues the copy on the device's current stream.
  void Run();

 private:
  void* dst_;
  const void* src_;
  size_t bytes_;
  aclrtMemcpyKind kind_;
  c10::DeviceIndex device_;
  std::shared_ptr<void> staging_;
};

}  // namespace torch_npu
