#include "csrc/framework/CopyCommand.h"

#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {

void CopyCommand::Run() {
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
