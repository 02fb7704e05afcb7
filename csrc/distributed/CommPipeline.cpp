#include "csrc/distributed/CommPipeline.h"

#include <algorithm>

#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {
namespace distributed {

std::vector<RowTile> commTilesOf(int64_t rows) {
  std::vector<RowTile> tiles;
  if (rows <= 0) return tiles;
  const int64_t count = std::clamp<int64_t>(rows / kMinCommTileRows, 1, kMaxCommTiles);
  const int64_t step = (rows + count - 1) / count;
  const int64_t aligned = std::max<int64_t>(16, (step + 15) / 16 * 16);
  for (int64_t first = 0; first < rows; first += aligned) tiles.push_back({first, std::min(aligned, rows - first)});
  return tiles;
}

CommPipeline::CommPipeline(const char* op, NamedComm comm)
    : op_(op), comm_(std::move(comm)), caller_(getCurrentNPUStream(comm_.device)) {}

CommPipeline::~CommPipeline() = default;

size_t CommPipeline::communicate(const char* api, Collective collective, const std::vector<at::Tensor>& buffers) {
  auto ready = std::make_unique<NPUEvent>();
  ready->record(caller_);
  ready->block(comm_.stream);
  ready_.push_back(std::move(ready));
  HcclComm handle = comm_.handle;
  aclrtStream stream = comm_.stream.handle();
  // A failure is reported at the next synchronisation as "NPU op '<op>: <api>' failed with ...: <HCCL's message>".
  TaskQueue::forDevice(comm_.device)
      .enqueue(CallTask{std::string(op_) + ": " + api, [collective, handle, stream]() -> aclError {
                          return collective(handle, stream) == HCCL_SUCCESS ? ACL_SUCCESS : ACL_ERROR_RT_INTERNAL_ERROR;
                        }});
  for (const at::Tensor& t : buffers)
    if (t.defined() && t.numel() > 0) allocator::recordStream(t.storage().data_ptr(), comm_.stream);
  auto done = std::make_unique<NPUEvent>();
  done->record(comm_.stream);
  done_.push_back(std::move(done));
  return done_.size() - 1;
}

void CommPipeline::awaitCollective(size_t index) {
  TORCH_INTERNAL_ASSERT(index < done_.size(), op_, ": no collective ", index);
  done_[index]->block(caller_);
}

void CommPipeline::awaitCommunication() {
  if (!done_.empty()) awaitCollective(done_.size() - 1);
}

}  // namespace distributed
}  // namespace torch_npu
