// Call-time checks of a collective and its submission as one stream task.
//
// Note [A collective is one task]
// An Hccl* collective validates its arguments on the calling thread (bad
// arguments are the return code), resolves the device buffers to their
// host-accessible views, reserves its sequence number, picks the algorithm
// and its simulated duration (CostModel::collectiveUs), and enqueues ONE
// task (TaskKind::kCollective, named after the call) on the stream. When the
// stream reaches it, the task runs the whole algorithm on the stream's
// worker thread — blocking that stream, as a real collective occupies its
// stream — and returns the simulated duration. Its profiling record carries
// the bytes this rank moved and "count=1024:FP32:SUM:ring:p=4"-style shapes,
// on the DMA engine. A failure throws out of the task: the stream gets a
// fault and the communicator its first failure (Note [Failure is sticky]).
#pragma once

#include <cstdint>
#include <memory>

#include "ascend_sim/acl.h"
#include "hccl/communicator.h"

namespace ascend_sim {

class Stream;

namespace hccl {

// `stream`, or the default stream of the comm's device for NULL.
// HCCL_E_RUNTIME for a dead handle or a stream of another device.
std::shared_ptr<Stream> collectiveStream(const Communicator& comm, aclrtStream stream);

// Host view of `bytes` at p on the comm's device; nullptr when bytes == 0.
// HCCL_E_PTR for a null p with bytes > 0, HCCL_E_MEMORY when the range is not
// inside one live allocation of the comm's device. `what` names the buffer.
void* deviceView(const Communicator& comm, const void* p, uint64_t bytes, const char* what);

// Bytes of `count` elements of dt; HCCL_E_PARA for a dtype outside the enum
// or an overflowing size. With `reducing`: HCCL_E_NOT_SUPPORT naming the
// allowed dtypes.
uint64_t checkedBytes(HcclDataType dt, uint64_t count, bool reducing, const char* api);
void checkOp(HcclReduceOp op);
// HCCL_E_PARA unless r < comm.size().
void checkRank(const Communicator& comm, uint32_t r, const char* what);

// Reserves the sequence number and enqueues the task (see the Note).
void submitCollective(const std::shared_ptr<Communicator>& comm, Stream& stream, CollectiveArgs args);

}  // namespace hccl
}  // namespace ascend_sim
