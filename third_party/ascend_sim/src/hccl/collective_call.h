// One check-and-submit path for the Hccl* collectives.
//
// Note [One check-and-submit path]
// Each collective entry point (hccl_collective_api.cpp) states only what makes
// it itself as a CollectiveCall: its kind, element type and count, reduction
// op, root or peer, and its buffers with how many elements each spans. One
// path then checks and submits it, always in this order (the first failing
// check is the return code and the recent error, so the order is part of the
// API):
//   1. the communicator handle (lookupComm)
//   2. the element type and the bytes of `count` elements (checkedBytes), then
//      of nRanks * count elements when a buffer spans that many
//   3. the reduction op (checkOp), then the root or peer rank (checkRank; a
//      peer must not be this rank)
//   4. what only this collective checks (HcclAlltoAllV's host arrays), between
//      checkCall and submitCall
//   5. the stream (collectiveStream), then the send and the receive buffer
//      (deviceView), then the task (submitCollective, Note [A collective is
//      one task])
// HcclBatchSendRecv keeps a body of its own: zero items return before the
// stream is looked up, and each item is checked and viewed in turn after it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "ascend_sim/acl.h"
#include "ascend_sim/hccl.h"
#include "hccl/communicator.h"

namespace ascend_sim {
namespace hccl {

// How many elements of the call's dtype a buffer spans.
enum class BufferSpan {
  kCount,           // `count` (this rank's part)
  kCountPerRank,    // nRanks * `count` (AllGather's receive, ReduceScatter's send buffer)
  kBytes,           // BufferArg::bytes, set by the collective's own checks (AlltoAllV)
};

struct BufferArg {
  const void* ptr = nullptr;
  const char* what = nullptr;  // the name in messages; nullptr: the collective has no such buffer
  BufferSpan span = BufferSpan::kCount;
  uint64_t bytes = 0;          // filled by checkCall unless span == kBytes
  bool root_only = false;      // viewed on the root rank only (Reduce's receive buffer)
};

// The root of Broadcast / Reduce, or the peer of Send / Recv.
struct RankArg {
  uint32_t rank = 0;
  const char* name = nullptr;       // the parameter's name in messages
  const char* if_self = nullptr;    // set: naming this rank is an error, and this says why
};

struct CollectiveCall {
  // A collective without data (Barrier).
  CollectiveCall(const char* api_name, CollectiveKind k) : api(api_name), kind(k) {}
  CollectiveCall(const char* api_name, CollectiveKind k, HcclDataType dt, uint64_t n, const char* n_name = "count")
      : api(api_name), kind(k), has_data(true), dtype(dt), count(n), count_name(n_name) {}

  const char* api;
  CollectiveKind kind;
  bool has_data = false;
  HcclDataType dtype = HCCL_DATA_TYPE_INT8;
  uint64_t count = 0;
  const char* count_name = "count";  // the parameter's name in the nRanks * count overflow message
  std::optional<HcclReduceOp> op;    // reducing collectives
  std::optional<RankArg> root;
  BufferArg send, recv;
  bool send_is_recv = false;         // one buffer, viewed once as `recv` (Broadcast)
};

// Steps 2 and 3: checks the call against `comm` and fills the buffers' bytes.
void checkCall(const Communicator& comm, CollectiveCall* call);

// Step 5: resolves the stream and the buffers and submits the call; `args`
// brings what the collective's own checks built (AlltoAllV's layout).
void submitCall(const std::shared_ptr<Communicator>& comm, aclrtStream stream, const CollectiveCall& call,
                CollectiveArgs args = {});

// The whole path for a collective with no checks of its own, inside
// guardHccl(call.api): the entry point's return value.
HcclResult checkAndSubmit(HcclComm comm, aclrtStream stream, CollectiveCall call) noexcept;

}  // namespace hccl
}  // namespace ascend_sim
