#include "csrc/framework/CopyCommand.h"

#include "csrc/core/NPUGraph.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {

void CopyCommand::Run() {
  // Note [NPU graphs]: the host bytes would be the capture's, not a replay's (as CUDA refuses pageable copies).
  if (kind_ != ACL_MEMCPY_DEVICE_TO_DEVICE) refuseDuringCapture(device_, "A copy between host and NPU memory");
  CopyTask copy;
  copy.dst = dst_;
  copy.src = src_;
  copy.bytes = bytes_;
  copy.kind = kind_;
  copy.stream = getCurrentNPUStream(device_).handle();
  copy.staging = std::move(staging_);
  TaskQueue::forDevice(device_).enqueue(std::move(copy));
}

}  // namespace torch_npu
